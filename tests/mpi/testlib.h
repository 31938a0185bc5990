/*
 * Shared helpers for the mpisw MPI test programs.
 *
 * Every check that fails prints "FAIL rank R file:line: message" to stderr
 * and calls MPI_Abort, so a failing test exits non-zero and never hangs.
 */
#ifndef MPISW_TESTLIB_H
#define MPISW_TESTLIB_H

#include <mpi.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>

#include "mpisw.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Exit code that ctest maps to "skipped" (SKIP_RETURN_CODE). */
#define TL_SKIP_CODE 77

extern int tl_rank;   /* rank in MPI_COMM_WORLD */
extern int tl_size;   /* size of MPI_COMM_WORLD */
extern size_t tl_page; /* system page size */

/* MPI_Init, MPI_ERRORS_RETURN on MPI_COMM_WORLD and MPI_COMM_SELF. */
void tl_init(int *argc, char ***argv);
/* The same with MPI_Init_thread; returns the provided level. */
int tl_init_thread(int *argc, char ***argv, int required);
/* Barrier, removes the scratch directory (if any), MPI_Finalize, prints PASS. */
int tl_finish(void);

void tl_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 3, 4)));
/* Fails with the text of an MPI error code. */
void tl_fail_mpi(const char *file, int line, const char *what, int rc) __attribute__((noreturn));

void tl_check_fail(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 4, 5)));
/* CHECK(condition, "printf format", args...): the message is required. */
#define CHECK(cond, ...)                                                 \
  do {                                                                   \
    if (!(cond)) tl_check_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
  } while (0)

#define CHECK_MPI(call)                                                      \
  do {                                                                       \
    int tl_rc_ = (call);                                                     \
    if (tl_rc_ != MPI_SUCCESS) tl_fail_mpi(__FILE__, __LINE__, #call, tl_rc_); \
  } while (0)

/* Checks that rc is an error whose class is mpisw_error_class(kind) and
 * whose MPI_Error_string contains every non-NULL substring. Prints the
 * string on success too (rank 0; every rank with MPISW_TEST_VERBOSE=1). */
void tl_expect_err(const char *file, int line, const char *what, int rc, int kind,
                   const char *sub1, const char *sub2);
#define EXPECT_ERR(rc, kind, sub1, sub2) \
  tl_expect_err(__FILE__, __LINE__, #rc, (rc), (kind), (sub1), (sub2))

/* Text of an error code (static buffer). */
const char *tl_errstr(int rc);
const char *tl_kind_name(int kind);

/* Prints a message from this rank (prefixed), flushes. */
void tl_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Scratch directory: rank 0 of comm makes /tmp/mpisw-test-XXXXXX (or under
 * $MPISW_TEST_TMPDIR) with mkdtemp and broadcasts it. Removed by tl_finish
 * (or tl_fail) unless MPISW_TEST_KEEP=1. Returns a static string. */
const char *tl_scratch(void);
/* A path inside the scratch directory (a new string each call, never freed). */
const char *tl_path(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Removes a tree (like rm -rf); ignores errors. */
void tl_rm_rf(const char *path);

/* Info helpers: tl_info("key=value", "key=value", NULL). A value may be
 * empty ("key="). */
MPI_Info tl_info(const char *kv, ...);
/* Info with alloc_type=storage, storage_alloc_filename=fn, then the
 * "key=value" strings (NULL-terminated). */
MPI_Info tl_sinfo(const char *fn, ...);
MPI_Info tl_vinfo(const char *first, va_list ap);
/* MPI_Win_allocate(size, disp 1, tl_sinfo(fn, ...), comm); fails the test
 * on error. Sets MPI_ERRORS_RETURN on the window. */
void tl_walloc_(const char *file, int line, MPI_Aint size, MPI_Comm comm, void **base, MPI_Win *win,
                const char *fn, ...);
#define TL_WALLOC(size, comm, base, win, ...) \
  tl_walloc_(__FILE__, __LINE__, (size), (comm), (base), (win), __VA_ARGS__, NULL)
void tl_info_setf(MPI_Info info, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Value of key in the window's info (MPI_Win_get_info), or NULL when absent.
 * Returns a static rotating buffer. */
const char *tl_win_info(MPI_Win win, const char *key);
/* The numeric value of key in the window's info; fails the test when the key
 * is missing or not a number. */
double tl_win_info_number(MPI_Win win, const char *key);
/* Sets MPI_ERRORS_RETURN on the window. */
void tl_win_errors_return(MPI_Win win);
int tl_win_flavor(MPI_Win win);
/* MPI_Win_lock_all + MPI_Win_sync + MPI_Win_unlock_all (a passive epoch makes
 * MPI_Win_sync legal on every MPI). */
void tl_sync_(const char *file, int line, MPI_Win win);
#define TL_SYNC(win) tl_sync_(__FILE__, __LINE__, (win))

/* Files. */
off_t tl_file_size(const char *path);   /* -1 when missing */
int tl_exists(const char *path);        /* lstat succeeds */
mode_t tl_file_mode(const char *path);  /* permission bits, (mode_t)-1 if missing */
/* pread exactly len bytes at off into buf; returns the number read (short at EOF). */
ssize_t tl_pread(const char *path, off_t off, void *buf, size_t len);
/* Writes len bytes of pattern seed (starting at pattern position off) at file offset off. */
void tl_write_pattern_file(const char *path, off_t off, size_t len, unsigned seed, mode_t mode);
/* Number of directory entries other than . and .. (whose name starts with prefix, if non-NULL). */
int tl_count_dir(const char *dir, const char *prefix);
/* Name of the only entry in dir (fails if not exactly one); static buffer. */
const char *tl_only_entry(const char *dir);

/* Patterns: byte at position pos of pattern seed. */
static inline uint8_t tl_pat(unsigned seed, size_t pos) {
  /* a hash of (seed, pos): no two seeds or shifted positions look alike */
  uint32_t x = (uint32_t)seed * 0x9E3779B1u ^ (uint32_t)pos * 0x85EBCA77u ^ (uint32_t)(pos >> 32);
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  return (uint8_t)(x ^ (x >> 24));
}
void tl_fill(void *buf, size_t len, unsigned seed, size_t pos0);
/* Index of the first byte that differs from the pattern, or -1. */
long tl_verify(const void *buf, size_t len, unsigned seed, size_t pos0);
/* Describes what a buffer holds, taking it as pattern positions pos0.. :
 * "pattern 12", "zeros", ... (for messages). */
const char *tl_describe(const void *buf, size_t len, size_t pos0);
/* Fails unless the file holds pattern bytes [pos0, pos0+len) at offset off. */
void tl_check_file_pattern_(const char *file, int line, const char *path, off_t off,
                            size_t len, unsigned seed, size_t pos0);
#define CHECK_FILE_PATTERN(path, off, len, seed, pos0) \
  tl_check_file_pattern_(__FILE__, __LINE__, (path), (off), (len), (seed), (pos0))

/* /proc/self/maps: what backs the page that contains addr. */
enum tl_backing { TL_UNMAPPED = 0, TL_ANON = 1, TL_FILE = 2, TL_OTHER = 3 };
/* Returns the kind relative to path: TL_FILE when mapped from that file
 * (same device and inode; *file_off gets the file offset of addr),
 * TL_ANON for an anonymous mapping (inode 0), TL_OTHER for anything else
 * (another file, shm, ...). perms (5 chars) gets the permission field. */
int tl_backing(const void *addr, const char *path, off_t *file_off, char perms[5]);
/* Per-page scan of [base, base+len): counts pages of each kind and records
 * the index of the first and last TL_FILE page (-1 when none). */
struct tl_scan {
  size_t pages, anon, file, other;
  long first_file, last_file, first_anon, last_anon;
};
void tl_scan_range(const void *base, size_t len, const char *path, struct tl_scan *s);

/* The VmFlags line of /proc/self/smaps for the mapping holding addr
 * (two-letter codes such as "rd wr sh sr rr"); "" when not found. */
const char *tl_vmflags(const void *addr);
/* Number of open file descriptors of this process. */
int tl_count_fds(void);
/* Number of mappings whose path starts with prefix. */
int tl_count_maps(const char *prefix);
/* "/proc/self/fd/N" of a descriptor this process holds on the file mapped at
 * addr (same inode), or NULL: reaches files without a name (unique windows). */
const char *tl_file_of(const void *addr);

/* Root and capabilities. */
int tl_is_root(void);
/* Removes (drop=1) or restores (drop=0) CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
 * and CAP_FOWNER from this thread's effective set (root only); returns 0 on success. */
int tl_drop_dac_caps(int drop);

/* storage_backend=pager (docs/PAGER.md) falls back to mmap without a word
 * when the pager cannot run, so a pager test must check which backend ran.
 * tl_pager_unavailable: why the pager cannot run in this process, checked
 * independently of the library with the same needs (userfaultfd allowed,
 * with asynchronous write-protect and UFFDIO_MOVE, i.e. Linux >= 6.8;
 * PAGEMAP_SCAN; O_DIRECT on the file system of path, when path is given),
 * or NULL when it can. Static buffer. */
const char *tl_pager_unavailable(const char *path);
/* Collective over MPI_COMM_WORLD, for a window that asked for the pager:
 * returns when every rank's window with a storage part reports
 * storage_backend=pager (MPI_Win_get_info). Otherwise, if the pager cannot
 * run here, frees the window and skips (SKIP: reason, exit 77); if it could,
 * fails: a fallback on a machine that has what the pager needs is a bug. */
void tl_require_pager_(const char *file, int line, MPI_Win *win);
#define tl_require_pager(win) tl_require_pager_(__FILE__, __LINE__, (win))
/* Every window made by TL_WALLOC is checked with tl_require_pager when the
 * environment has MPISW_TEST_BACKEND=pager (set by the registrations that
 * run whole storage tests on the pager through MPISW_HINTS). */

/* Skips the whole test (all ranks must call it): prints SKIP and exits 77. */
void tl_skip(const char *why) __attribute__((noreturn));

/* For the kill -9 drivers (tests/tools/atomic_kill.sh): writes this
 * process's pid into DIR/pid-r<rank> (the driver waits for it) and returns a
 * descriptor of DIR/returned-r<rank> to append each returned sync's number
 * to; fails the test when DIR cannot be written. */
int tl_kill_loop_files(const char *dir);

/* Collective helpers on MPI_COMM_WORLD. */
int tl_allsum(int v);
int tl_allmin(int v);

#ifdef __cplusplus
}
#endif
#endif
