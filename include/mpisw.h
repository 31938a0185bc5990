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
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The mark of the library's public functions: default visibility, where
 * every other symbol of libmpisw is hidden (-fvisibility=hidden). The one
 * definition for the library and its users; a user may define it first. */
#ifndef MPISW_EXPORT
#if defined(__GNUC__) || defined(__clang__)
#define MPISW_EXPORT __attribute__((visibility("default")))
#else
#define MPISW_EXPORT
#endif
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
#define MPISW_HINT_SYNC "storage_sync"                 /* plain | atomic (docs/DURABILITY.md) */
#define MPISW_HINT_SYNC_SCOPE "storage_sync_scope"     /* local | remote (docs/DURABILITY.md) */

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

/** \brief Sets *errclass to the MPI error class of one kind of mpisw error.
 *
 * The classes are added (MPI_Add_error_class) on first use; compare them with MPI_Error_class(code) of a code an
 * MPI or mpisw call returned. Thread safe. Call between MPI_Init and
 * MPI_Finalize.
 *
 * \param kind      one of enum mpisw_error_kind (MPISW_ERR_HINT ... MPISW_ERR_USAGE)
 * \param errclass  out: the MPI error class of kind
 * \return MPI_SUCCESS; MPI_ERR_ARG (returned, not raised) when kind is not
 *         a member of enum mpisw_error_kind or errclass is NULL.
 */
MPISW_EXPORT int mpisw_error_class(int kind, int *errclass);

/** \brief Tells whether the library interposes.
 *
 * Callable at any time, also before MPI_Init; thread safe.
 *
 * \return nonzero when libmpisw is loaded and not disabled (MPISW_DISABLE
 *         unset or false), 0 when every MPI call passes through unchanged.
 *         Never an error.
 */
MPISW_EXPORT int mpisw_active(void);

/*
 * RMA extensions (docs/RMA_EXTENSIONS.md; Schuchart et al., "Quo Vadis MPI
 * RMA?"). Info keys: mpi_win_scope (process|thread), mpi_win_order
 * (true|false), mpi_assert_accumulate_intrinsic (true|false); MPI_Win_get_info
 * shows the effective values.
 *
 * Errors of the MPIX_* calls: an MPI error code of class MPISW_ERR_USAGE
 * (mpisw_error_class) whose MPI_Error_string reads "mpisw: <call>: <reason>",
 * raised on the window's error handler (no window: as MPI-4 raises errors
 * without an object, on MPI_COMM_SELF; MPI-3 MPIs: MPI_COMM_WORLD), so it is returned only under MPI_ERRORS_RETURN. A bad
 * value of one of the info keys above is class MPISW_ERR_HINT and names the
 * key, the value and the accepted spellings. Under MPISW_DISABLE=1 the
 * calls of this block other than MPIX_Rr* fail with MPISW_ERR_USAGE ("the
 * RMA extensions are off"). Codes of the MPI's own classes come from the
 * MPI calls made underneath and are passed on unchanged.
 */
#define MPIX_MAX_MEMHANDLE_SIZE 64
#define MPISW_ENV_ARENA_SIZE "MPISW_ARENA_SIZE"        /* MPI_Alloc_mem arena per process, 0: off */

/** \brief Makes a local handle sharing memory and synchronization with win,
 * with info keys of its own.
 *
 * Local (not collective). The duplicate's keys are win's, overridden by
 * those present in info. Free it with MPI_Win_free, before win.
 *
 * \param win     the window to duplicate: any window but a memory-handle one
 * \param info    keys of the duplicate, or MPI_INFO_NULL
 * \param newwin  out: the duplicate
 * \return MPI_SUCCESS; MPISW_ERR_HINT when a key of info has a bad value;
 *         MPISW_ERR_USAGE when newwin is NULL, win is MPI_WIN_NULL or a
 *         memory-handle window, the state cannot be allocated, or the MPI
 *         refuses another window handle (MPICH: about 2044 alive).
 */
MPISW_EXPORT int MPIX_Win_dup_with_info(MPI_Win win, MPI_Info info, MPI_Win *newwin);

/** \brief Makes a memory handle on [base, base+size) for RMA through the
 * dynamic window win.
 *
 * Local. Memory not from MPI_Alloc_mem's arena is attached to win here
 * (MPI_Win_attach) and detached by MPIX_Memhandle_release. Send the handle
 * (its memhandle_size bytes) to the processes that will use it.
 *
 * \param base            start of the region (may be NULL when size is 0)
 * \param size            bytes of the region, >= 0
 * \param win             a window made by MPI_Win_create_dynamic (not a
 *                        duplicate of one)
 * \param memhandle       out: MPIX_MAX_MEMHANDLE_SIZE bytes for the handle
 * \param memhandle_size  out: bytes of the handle that are used
 * \return MPI_SUCCESS; MPISW_ERR_USAGE when memhandle or memhandle_size is
 *         NULL, the region is invalid (size < 0, base NULL with size > 0),
 *         win is not a dynamic window or is a handle on one, the state
 *         cannot be allocated, or the process holds 4096 live handles
 *         already (with an arena); the MPI's class when MPI_Win_attach fails.
 */
MPISW_EXPORT int MPIX_Memhandle_create(void *base, MPI_Aint size, MPI_Win win, void *memhandle,
                                       int *memhandle_size);

/** \brief Makes a window whose only target is the maker of a memory handle.
 *
 * Local. Passive target only: lock and unlock win, flush either window.
 * Displacements count disp_unit bytes from the handle's base. Free the
 * window with MPI_Win_free.
 *
 * \param memhandle  a handle from MPIX_Memhandle_create (any process's)
 * \param size       bytes of the window, at most the handle's region
 * \param disp_unit  displacement unit, > 0
 * \param info       keys of the new window (over win's), or MPI_INFO_NULL
 * \param target     the rank in win of the process that made the handle
 * \param win        the dynamic window the handle was made on
 * \param newwin     out: the window
 * \return MPI_SUCCESS; MPISW_ERR_HINT when a key of info has a bad value;
 *         MPISW_ERR_USAGE when memhandle or newwin is NULL, memhandle is
 *         not a handle, disp_unit <= 0, size exceeds the region, win is not
 *         the dynamic window (or a handle on one), target did not make the
 *         handle, the handle was released, it lives in an arena this
 *         process has not (MPISW_ARENA_SIZE differs), its owner cannot be
 *         read, the state cannot be allocated or the MPI refuses another
 *         window handle.
 */
MPISW_EXPORT int MPIX_Win_from_memhandle(const void *memhandle, MPI_Aint size, int disp_unit,
                                         MPI_Info info, int target, MPI_Win win,
                                         MPI_Win *newwin);

/** \brief Releases a memory handle this process made.
 *
 * Local. Making a window from a released handle is erroneous; with an
 * arena (MPISW_ARENA_SIZE > 0, the default) MPIX_Win_from_memhandle detects
 * it. RMA through windows made before is erroneous once the memory is
 * reused.
 *
 * \param memhandle  the handle, as MPIX_Memhandle_create wrote it
 * \param win        the dynamic window it was made on
 * \return MPI_SUCCESS; MPISW_ERR_USAGE when memhandle is NULL or not a
 *         live handle of this process (released already, or made
 *         elsewhere); the MPI's class when MPI_Win_detach fails.
 */
MPISW_EXPORT int MPIX_Memhandle_release(void *memhandle, MPI_Win win);

/** \brief Tells whether accumulates with the given operations run as
 * processor atomics on win.
 *
 * Local.
 *
 * \param win        the window (duplicates and memory-handle windows too)
 * \param ops        comma-separated operation names: "sum,replace,cas", ...
 * \param max_count  up to this many elements of datatype per operation, >= 0
 * \param datatype   the element type
 * \param flag       out: 1 when mpisw runs every one of ops itself as a
 *                   processor atomic on win, 0 when they go to the MPI
 * \return MPI_SUCCESS; MPISW_ERR_USAGE when ops or flag is NULL, ops is
 *         empty or names an unknown operation, max_count < 0 or datatype
 *         is MPI_DATATYPE_NULL.
 */
MPISW_EXPORT int MPIX_Win_op_intrinsic(MPI_Win win, const char *ops, int max_count,
                                       MPI_Datatype datatype, int *flag);

/** \brief MPI_Rput whose request completes only when the put is complete
 * at the target.
 *
 * Epoch rules as MPI_Rput (passive target). The call issues
 * the put and flushes target_rank, so it blocks for one flush and returns
 * a request that is already complete.
 *
 * \param origin_addr      the origin buffer
 * \param origin_count     elements of origin_datatype in it
 * \param origin_datatype  their type
 * \param target_rank      rank of the target in win
 * \param target_disp      displacement at the target, in its disp_unit
 * \param target_count     elements of target_datatype at the target
 * \param target_datatype  their type
 * \param win              the window (duplicates and memory-handle
 *                         windows too), in a passive target epoch
 * \param request          out: a request that is already complete
 * \return MPI_SUCCESS; the error of the put or of the flush (the MPI's
 *         classes, or MPISW_ERR_USAGE when win is a memory-handle window and
 *         target_rank is not its target).
 */
MPISW_EXPORT int MPIX_Rrput(const void *origin_addr, int origin_count,
                            MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                            int target_count, MPI_Datatype target_datatype, MPI_Win win,
                            MPI_Request *request);

/** \brief MPI_Raccumulate whose request completes only when the operation
 * is complete at the target.
 *
 * Epoch rules as MPI_Raccumulate; blocks for one flush of
 * target_rank and returns a request that is already complete.
 *
 * \param origin_addr      the origin buffer
 * \param origin_count     elements of origin_datatype in it
 * \param origin_datatype  their type
 * \param target_rank      rank of the target in win
 * \param target_disp      displacement at the target, in its disp_unit
 * \param target_count     elements of target_datatype at the target
 * \param target_datatype  their type
 * \param op               the reduction (MPI_SUM, MPI_REPLACE, ...)
 * \param win              the window (duplicates and memory-handle
 *                         windows too), in a passive target epoch
 * \param request          out: a request that is already complete
 * \return MPI_SUCCESS; the error of the accumulate or of the flush, as for
 *         MPIX_Rrput.
 */
MPISW_EXPORT int MPIX_Rraccumulate(const void *origin_addr, int origin_count,
                                   MPI_Datatype origin_datatype, int target_rank,
                                   MPI_Aint target_disp, int target_count,
                                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                   MPI_Request *request);

/** \brief MPI_Rget_accumulate whose request completes only when the
 * operation is complete at the target.
 *
 * Epoch rules as MPI_Rget_accumulate; blocks for one flush of
 * target_rank (result_addr is filled when it returns) and returns a request
 * that is already complete.
 *
 * \param origin_addr      the origin buffer
 * \param origin_count     elements of origin_datatype in it
 * \param origin_datatype  their type
 * \param result_addr      where the target's previous contents go
 * \param result_count     elements of result_datatype in it
 * \param result_datatype  their type
 * \param target_rank      rank of the target in win
 * \param target_disp      displacement at the target, in its disp_unit
 * \param target_count     elements of target_datatype at the target
 * \param target_datatype  their type
 * \param op               the reduction (MPI_SUM, MPI_REPLACE, ...)
 * \param win              the window (duplicates and memory-handle
 *                         windows too), in a passive target epoch
 * \param request          out: a request that is already complete
 * \return MPI_SUCCESS; the error of the get-accumulate or of the flush, as
 *         for MPIX_Rrput.
 */
MPISW_EXPORT int MPIX_Rrget_accumulate(const void *origin_addr, int origin_count,
                                       MPI_Datatype origin_datatype, void *result_addr,
                                       int result_count, MPI_Datatype result_datatype,
                                       int target_rank, MPI_Aint target_disp, int target_count,
                                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                       MPI_Request *request);

/* ---- version and configuration ---- */

/*
 * Checkpoints (docs/CHECKPOINTS.md): windows and memory regions protected
 * under a name; versioned, checksummed, incremental checkpoints on the
 * levels of the set (LOCAL: MPISW_CKPT_LOCAL / ckpt_local); restart from
 * the newest version complete on every rank. Info keys ckpt_* (the table in
 * docs/CHECKPOINTS.md "Configuration") win over the MPISW_CKPT_* variables.
 *
 * Errors: an MPI error code of one of the library's classes
 * (mpisw_error_class), raised on the communicator of mpisw_ckpt_create
 * (MPI_COMM_WORLD when there is no set yet), whose MPI_Error_string reads
 * "mpisw: <call>: <reason>". A collective call returns the same error on
 * every rank.
 */
typedef struct mpisw_ckpt mpisw_ckpt; /* a checkpoint set (opaque) */

/* Levels a version can be held on (bits of mpisw_ckpt_status.last_levels). */
enum {
  MPISW_CKPT_LEVEL_LOCAL = 1,
  MPISW_CKPT_LEVEL_PARTNER = 2,
  MPISW_CKPT_LEVEL_XOR = 4,
  MPISW_CKPT_LEVEL_PFS = 8
};

struct mpisw_ckpt_status {
  int last_version;             /* newest version this rank took, -1 none */
  int last_levels;              /* levels (bit mask) that version is durable on now */
  int drains_pending;           /* versions of this rank still draining to PFS */
  int last_drained;             /* newest version complete on PFS for this rank, -1 none */
  double drain_seconds;         /* time the drain thread spent on the last drained version */
  uint64_t drain_bytes;         /* its bytes */
  uint64_t last_bytes_written;  /* bytes the last checkpoint wrote (incremental) */
  int restored_version;         /* set by mpisw_ckpt_restart, -1 none */
  int restored_level;           /* the level it was read from */
  int corrupt_seen;             /* versions rejected (checksum, partial) since create */
};

/** \brief Makes a checkpoint set: a name, a communicator, its settings.
 *
 * Collective over comm. Makes the LOCAL directory when missing. Versions
 * go on from the newest an earlier job left under the same name.
 *
 * \param name  1 to 127 characters of [A-Za-z0-9_.-]; part of the file names
 * \param comm  the ranks that take checkpoints together (duplicated)
 * \param info  ckpt_* keys (or MPI_INFO_NULL); they win over MPISW_CKPT_*
 * \param ck    out: the set
 * \return MPI_SUCCESS; MPISW_ERR_HINT for a bad or unknown ckpt_* key;
 *         MPISW_ERR_USAGE for a bad name, comm MPI_COMM_NULL or ck NULL;
 *         MPISW_ERR_ACCESS / MPISW_ERR_NOFILE when the LOCAL directory
 *         cannot be made.
 */
MPISW_EXPORT int mpisw_ckpt_create(const char *name, MPI_Comm comm, MPI_Info info,
                                   mpisw_ckpt **ck);

/** \brief Protects the calling rank's part of a window.
 *
 * Local. Every rank protects its regions in the same order (sizes may
 * differ by rank). Memory, storage and MPI_Win_create windows; a dynamic
 * window's attached memory is protected with mpisw_ckpt_protect_mem. The
 * window must live as long as the set takes checkpoints.
 *
 * \param ck   the set
 * \param win  the window (its MPI_WIN_BASE and MPI_WIN_SIZE on this rank)
 * \return MPI_SUCCESS; MPISW_ERR_USAGE for ck NULL, MPI_WIN_NULL or a
 *         dynamic window.
 */
MPISW_EXPORT int mpisw_ckpt_protect_win(mpisw_ckpt *ck, MPI_Win win);

/** \brief Protects a region of plain memory.
 *
 * Local; the same order rule as mpisw_ckpt_protect_win.
 *
 * \param ck    the set
 * \param base  the region's first byte
 * \param len   its length in bytes (0 allowed)
 * \return MPI_SUCCESS; MPISW_ERR_USAGE for ck NULL or base NULL with len > 0.
 */
MPISW_EXPORT int mpisw_ckpt_protect_mem(mpisw_ckpt *ck, void *base, size_t len);

/** \brief Takes a checkpoint of every protected region.
 *
 * Collective over the set's communicator; no RMA may target the protected
 * windows meanwhile. Writes only the chunks (ckpt_chunk) that changed since
 * the version it overwrites, makes them durable, then the image's header;
 * returns once every rank's image is complete on the fast level.
 *
 * \param ck       the set
 * \param version  out: the version's number (the same on every rank)
 * \return MPI_SUCCESS; MPISW_ERR_NOSPACE when a rank's level is full
 *         (every rank gets it; the previous version stays intact);
 *         MPISW_ERR_IO, MPISW_ERR_ACCESS for other storage failures;
 *         MPISW_ERR_USAGE for NULL arguments or a freed protected window.
 */
MPISW_EXPORT int mpisw_ckpt_take(mpisw_ckpt *ck, int *version);

/** \brief Takes a checkpoint of this rank alone (decoupled).
 *
 * Local: no barrier. Each protected window is locked with
 * MPI_Win_lock(MPI_LOCK_EXCLUSIVE) on this rank while it is copied, so that
 * other ranks' passive-target RMA waits. Versions are numbered per rank;
 * mpisw_ckpt_restart restores a version every rank holds. Call it outside
 * any access epoch of this rank on the protected windows.
 *
 * \param ck       the set
 * \param version  out: this rank's version number
 * \return MPI_SUCCESS; the classes of mpisw_ckpt_take; MPISW_ERR_USAGE
 *         when a window cannot be locked.
 */
MPISW_EXPORT int mpisw_ckpt_take_local(mpisw_ckpt *ck, int *version);

/** \brief Restores the newest version complete on every rank.
 *
 * Collective. Each rank lists its versions (a partial image or one whose
 * checksum fails is rejected, counted in corrupt_seen and named on stderr);
 * the ranks agree on the newest version all hold, check every chunk of it,
 * and only then copy it into the protected regions (same count and sizes
 * as when it was taken). Regions are untouched when no version qualifies.
 *
 * \param ck       the set
 * \param version  out: the version restored, -1 when none
 * \return MPI_SUCCESS (also when none); MPISW_ERR_USAGE when the regions
 *         do not match the version's; MPISW_ERR_IO when reading fails.
 */
MPISW_EXPORT int mpisw_ckpt_restart(mpisw_ckpt *ck, int *version);

/** \brief This rank's view of the set: versions, levels, drains, restart.
 *
 * Local.
 *
 * \param ck  the set
 * \param st  out: the status
 * \return MPI_SUCCESS; MPISW_ERR_USAGE for NULL arguments.
 */
MPISW_EXPORT int mpisw_ckpt_status(mpisw_ckpt *ck, struct mpisw_ckpt_status *st);

/** \brief Waits until this rank's drains to PFS are done.
 *
 * Local.
 *
 * \param ck  the set
 * \return MPI_SUCCESS; MPISW_ERR_IO when a drain failed; MPISW_ERR_USAGE
 *         for ck NULL.
 */
MPISW_EXPORT int mpisw_ckpt_wait(mpisw_ckpt *ck);

/** \brief Frees a set; its files stay for a later restart.
 *
 * Collective: waits for the set's drains. MPI_Finalize releases sets the
 * program did not free.
 *
 * \param ck  the set; NULL afterwards
 * \return MPI_SUCCESS; MPISW_ERR_USAGE for a NULL handle.
 */
MPISW_EXPORT int mpisw_ckpt_free(mpisw_ckpt **ck);

/** \brief The version of the library that is loaded.
 *
 * It may differ from the MPISW_VERSION_* of the header a program was
 * compiled with. Callable at any time, also before MPI_Init; thread safe.
 *
 * \return "MAJOR.MINOR.PATCH" ("0.1.0"), a static string; never NULL,
 *         never an error.
 */
MPISW_EXPORT const char *mpisw_version(void);

/** \brief The effective configuration, as text.
 *
 * One line per MPISW_* environment variable: "NAME  value (default)" or
 * "(environment)", or "(default; the environment's 'x' is not valid)".
 * Written as snprintf writes. Callable at any time, also before MPI_Init.
 * The mpisw-info program prints it, and MPISW_CONFIG=dump prints it when
 * the library loads.
 *
 * \param buf  where the text goes (at most len bytes, NUL-terminated when
 *             len > 0); may be NULL when len is 0
 * \param len  bytes of buf
 * \return the length of the whole text (without the NUL), so a second call
 *         with a buffer of that length + 1 gets all of it. Never an error:
 *         buf NULL or len <= 0 only measures.
 */
MPISW_EXPORT int mpisw_config_string(char *buf, int len);

#ifdef __cplusplus
}
#endif
#endif /* MPISW_H */
