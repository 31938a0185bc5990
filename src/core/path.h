/* File names of storage windows: %r/%h expansion and unique names. */
#ifndef MPISW_CORE_PATH_H
#define MPISW_CORE_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* Expands %r (rank), %h (host name) and %% in pattern into out. */
int mpisw_path_expand(const char *pattern, int rank, const char *host, char *out,
                      size_t outlen, struct mpisw_error *e);

/* The node's name for %h: gethostname(), cut at the first dot. */
void mpisw_path_hostname(char *out, size_t len);
/* Which kernel runs this process (boot id and pid namespace, hashed): two
 * processes with the same value see each other's pids and /proc, whatever
 * host names they were given (simulated nodes on one machine). */
uint64_t mpisw_kernel_id(void);

/* 1 if path names an existing directory (following symlinks). */
int mpisw_path_is_dir(const char *path);

/* Writes the parent directory of path into out ("." when there is none). */
void mpisw_path_parent(const char *path, char *out, size_t len);

/* Removes the file path with the system call itself (0, or -1 and errno):
 * libmpisw's own unlink (src/interpose/posix.c: pooled names for the
 * program) is not for the library's files, and calling it from here would
 * run up through every layer. */
int mpisw_path_unlink(const char *path);
/* fsync of path's directory, so that a file just created or renamed there
 * is durable: 0, or the errno of a real failure. A directory this process
 * may not open for reading, or a file system without directory fsync
 * (EINVAL, EROFS, ENOTSUP, EBADF), counts as done: nothing better exists. */
int mpisw_path_sync_parent(const char *path);
/* Makes dir and every missing directory above it (mode 0700, as mkdir -p):
 * 0, or the errno of the first mkdir that failed, its path in failed. */
int mpisw_path_mkdirs(const char *dir, char *failed, size_t len);

#endif
