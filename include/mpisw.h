/*
 * mpisw: MPI windows on storage.
 *
 * Link libmpisw ahead of the MPI library, or preload it into an unmodified
 * program (LD_PRELOAD=libmpisw.so). Windows are placed on storage through
 * MPI_Info hints (or the MPISW_HINTS environment variable); every other MPI
 * call reaches the MPI library unchanged.
 */
#ifndef MPISW_H
#define MPISW_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPISW_VERSION_MAJOR 0
#define MPISW_VERSION_MINOR 1
#define MPISW_VERSION_PATCH 0

/* Storage hints (paper, section 2.1). */
#define MPISW_HINT_ALLOC_TYPE "alloc_type"             /* memory | storage */
#define MPISW_HINT_FILENAME "storage_alloc_filename"   /* file, block device or directory; %r %h %% */
#define MPISW_HINT_OFFSET "storage_alloc_offset"       /* bytes into the file (K/M/G suffixes) */
#define MPISW_HINT_FACTOR "storage_alloc_factor"       /* storage share in [0,1] or auto */
#define MPISW_HINT_ORDER "storage_alloc_order"         /* memory_first | storage_first */
#define MPISW_HINT_UNLINK "storage_alloc_unlink"       /* true | false */
#define MPISW_HINT_DISCARD "storage_alloc_discard"     /* true | false */

/* MPI-IO hints honoured for storage windows. */
#define MPISW_HINT_ACCESS_STYLE "access_style"
#define MPISW_HINT_FILE_PERM "file_perm"               /* octal mode of created files */
#define MPISW_HINT_STRIPING_FACTOR "striping_factor"
#define MPISW_HINT_STRIPING_UNIT "striping_unit"

/* Environment variables. */
#define MPISW_ENV_HINTS "MPISW_HINTS"                  /* "key=value;key=value" defaults */
#define MPISW_ENV_DISABLE "MPISW_DISABLE"              /* 1: pure pass-through */
#define MPISW_ENV_REPORT "MPISW_REPORT"                /* 1: summary at MPI_Finalize */
#define MPISW_ENV_MEMORY_LIMIT "MPISW_MEMORY_LIMIT"    /* per-process memory budget */

/*
 * Kinds of error the library reports. Each kind is an MPI error class of its
 * own (MPI_Add_error_class); mpisw_error_class() tells which, so a program can
 * compare it with MPI_Error_class(code). MPI_Error_string(code) names the hint
 * or path and the reason.
 */
enum mpisw_error_kind {
  MPISW_ERR_HINT = 0,  /* a hint has a value the library cannot accept */
  MPISW_ERR_NOFILE,    /* a file or directory does not exist */
  MPISW_ERR_ACCESS,    /* permission denied, read-only file system, symlink */
  MPISW_ERR_NOSPACE,   /* the file system or device has no room */
  MPISW_ERR_IO,        /* any other failure of the storage (map, sync, ...) */
  MPISW_ERR_NOMEM,     /* the memory budget cannot hold the request */
  MPISW_ERR_USAGE,     /* the call cannot be done as asked (e.g. a shared window
                          over a communicator that spans nodes) */
  MPISW_ERR_KIND_COUNT
};

/* Sets *errclass to the MPI error class of that kind. Call after MPI_Init. */
int mpisw_error_class(int kind, int *errclass);

/* Nonzero when the library interposes (it is loaded and not disabled). */
int mpisw_active(void);

#ifdef __cplusplus
}
#endif
#endif /* MPISW_H */
