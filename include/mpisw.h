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

/*
 * Hint names: the MPI_Info keys (and MPISW_HINTS keys) the library reads, one
 * macro each; tests/areas/packaging.cmake checks that every key of the hint
 * table in src/core/hints.c and of the RMA extensions has one. Values and
 * defaults: the README's hint table.
 */
/* Storage hints (paper, section 2.1). */
#define MPISW_HINT_ALLOC_TYPE "alloc_type"             /* memory | storage */
#define MPISW_HINT_FILENAME "storage_alloc_filename"   /* file, block device or directory; %r %h %% */
#define MPISW_HINT_OFFSET "storage_alloc_offset"       /* bytes into the file (K/M/G suffixes) */
#define MPISW_HINT_FACTOR "storage_alloc_factor"       /* storage share in [0,1] or auto */
#define MPISW_HINT_ORDER "storage_alloc_order"         /* memory_first | storage_first */
#define MPISW_HINT_UNLINK "storage_alloc_unlink"       /* true | false */
#define MPISW_HINT_DISCARD "storage_alloc_discard"     /* true | false */
#define MPISW_HINT_BACKEND "storage_backend"           /* mmap | pager (docs/PAGER.md) */
#define MPISW_HINT_PAGER_MEMORY "storage_pager_memory" /* bytes the pager may hold (K/M/G) */
#define MPISW_HINT_NODE_SHARED "storage_node_shared"   /* true | false: one node's storage
                                                          window on the MPI's shared window */

/* MPI-IO hints honoured for storage windows. */
#define MPISW_HINT_ACCESS_STYLE "access_style"         /* read_once,random,... (madvise) */
#define MPISW_HINT_FILE_PERM "file_perm"               /* octal mode of created files */
#define MPISW_HINT_STRIPING_FACTOR "striping_factor"   /* Lustre stripe count */
#define MPISW_HINT_STRIPING_UNIT "striping_unit"       /* Lustre stripe size, bytes */

/* The standard MPI key of shared windows that the library reads. */
#define MPISW_HINT_SHARED_NONCONTIG "alloc_shared_noncontig" /* true | false */

/* Keys of the RMA extensions (docs/RMA_EXTENSIONS.md). */
#define MPISW_HINT_WIN_SCOPE "mpi_win_scope"           /* process | thread */
#define MPISW_HINT_WIN_ORDER "mpi_win_order"           /* true | false */
#define MPISW_HINT_ACCUMULATE_INTRINSIC "mpi_assert_accumulate_intrinsic" /* true | false */

/* Environment variables. */
#define MPISW_ENV_HINTS "MPISW_HINTS"                  /* "key=value;key=value" defaults */
#define MPISW_ENV_DISABLE "MPISW_DISABLE"              /* 1: pure pass-through */
#define MPISW_ENV_REPORT "MPISW_REPORT"                /* 1: "active" line at MPI_Init, summary and leaks at MPI_Finalize */
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

/*
 * RMA extensions (docs/RMA_EXTENSIONS.md; Schuchart et al., "Quo Vadis MPI
 * RMA?"). Info keys: mpi_win_scope (process|thread), mpi_win_order
 * (true|false), mpi_assert_accumulate_intrinsic (true|false); MPI_Win_get_info
 * shows the effective values.
 */
#define MPIX_MAX_MEMHANDLE_SIZE 64
#define MPISW_ENV_ARENA_SIZE "MPISW_ARENA_SIZE"        /* MPI_Alloc_mem arena per process, 0: off */

/* A local handle sharing memory and synchronization with win, with its own
 * info keys (win's, overridden by info). Free it with MPI_Win_free. */
int MPIX_Win_dup_with_info(MPI_Win win, MPI_Info info, MPI_Win *newwin);
/* A handle (at most MPIX_MAX_MEMHANDLE_SIZE bytes) on [base, base+size) for
 * RMA through the dynamic window win; memory not from MPI_Alloc_mem is
 * attached to win here and detached by MPIX_Memhandle_release. */
int MPIX_Memhandle_create(void *base, MPI_Aint size, MPI_Win win, void *memhandle,
                          int *memhandle_size);
/* A window whose only target is target (the handle's maker, a rank of the
 * dynamic window win). Passive target only: lock/unlock win, flush either. */
int MPIX_Win_from_memhandle(const void *memhandle, MPI_Aint size, int disp_unit, MPI_Info info,
                            int target, MPI_Win win, MPI_Win *newwin);
int MPIX_Memhandle_release(void *memhandle, MPI_Win win);
/* *flag = 1 when accumulates with these ops ("sum,replace,cas", ...), up to
 * max_count elements of datatype, run as hardware atomics of the origin. */
int MPIX_Win_op_intrinsic(MPI_Win win, const char *ops, int max_count, MPI_Datatype datatype,
                          int *flag);
/* As MPI_Rput / MPI_Raccumulate / MPI_Rget_accumulate, but the request
 * completes only when the operation is complete at the target. */
int MPIX_Rrput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, int target_count,
               MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int MPIX_Rraccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, int target_count,
                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                      MPI_Request *request);
int MPIX_Rrget_accumulate(const void *origin_addr, int origin_count,
                          MPI_Datatype origin_datatype, void *result_addr, int result_count,
                          MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                          int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                          MPI_Request *request);

/* ---- version and configuration ---- */
/* The version of the library that is loaded ("0.1.0"), which may differ from
 * the MPISW_VERSION_* of the header a program was compiled with. Never NULL;
 * callable at any time, also before MPI_Init. */
const char *mpisw_version(void);
/* The effective configuration: one line per MPISW_* environment variable,
 * "NAME  value (default)" or "(environment)", or "(default; the
 * environment's 'x' is not valid)". Written into buf as snprintf writes
 * (at most len bytes, NUL-terminated when len > 0; buf may be NULL when len
 * is 0); returns the length of the whole text, so a second call with a
 * larger buffer gets all of it. Callable at any time. The mpisw-info
 * program prints it, and MPISW_CONFIG=dump prints it when the library loads. */
int mpisw_config_string(char *buf, int len);

#ifdef __cplusplus
}
#endif
#endif /* MPISW_H */
