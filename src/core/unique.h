/* Files the library names itself in a directory the user gave (unique
 * windows): temporaries without a name in the directory, so that they go
 * with the last process holding them, however it ends (free, finalize,
 * exit, kill -9, MPI_Abort). Other processes open them through
 * /proc/<pid>/fd/<fd>. */
#ifndef MPISW_CORE_UNIQUE_H
#define MPISW_CORE_UNIQUE_H

#include <stddef.h>

/* Creates a file without a name in dir: O_TMPFILE, or where the file system
 * lacks it a mkostemp name removed at once. name (cap bytes) gets a readable
 * name "<dir>/mpisw-<host>-<tag>-<pid>-XXXXXX" for messages, under which
 * mpisw_unique_keep would link it. Returns the descriptor (O_RDWR, close on
 * exec, mode 0600), or -1 with errno (ENAMETOOLONG when name is too short). */
int mpisw_unique_create(const char *dir, const char *tag, char *name, size_t cap);

/* Gives such a file the name in name (a new suffix if it is taken): what
 * storage_alloc_unlink=false asks at free. 0, or an errno (a file made
 * without O_TMPFILE cannot get a name back: ENOENT). */
int mpisw_unique_keep(int fd, char *name);

/* Opens another process's descriptor fd (read-write, close on exec):
 * /proc/<pid>/fd/<fd>, which also reaches files without a name. proc (cap
 * bytes, may be NULL) gets that path for messages. The descriptor, or -1
 * with errno. */
int mpisw_unique_open_peer(int pid, int fd, char *proc, size_t cap);

#endif
