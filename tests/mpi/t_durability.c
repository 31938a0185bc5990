/*
 * Durability and file safety of storage windows (issue 13).
 *   t_durability wbfail F      under tests/tools/faildev.sh: once a write-back failed, every
 *                              later MPI_Win_sync and MPI_Win_free fails until a sync has
 *                              written every byte again (after the device healed); the
 *                              device then holds every byte. F: storage_alloc_factor.
 *   t_durability truncate B    the window's file cut short by someone else: sync and free
 *                              fail with MPISW_ERR_IO naming the file and both sizes, no
 *                              SIGBUS. B: mmap or pager.
 *   t_durability freehandler   a storage error of MPI_Win_free reaches a user-defined window
 *                              error handler while the window still exists; with
 *                              MPI_ERRORS_RETURN it is returned; remote puts completed
 *                              before the free are in the file.
 *   t_durability freefatal     the same under MPI_ERRORS_ARE_FATAL: the job aborts with the
 *                              message (never returns)
 *   t_durability owner         (root) a window file another user made in a sticky
 *                              world-writable directory is refused, an own file reused.
 *   t_durability synced        4 KiB written into a 4 MiB window, synced: the MPISW_REPORT
 *                              figure is checked by tests/tools/reportsync.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"

#define MiB (1024 * 1024)

/* MPI_Win_sync in a passive epoch; returns the sync's code. */
static int try_sync(MPI_Win win) {
  CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  int rc = MPI_Win_sync(win);
  CHECK_MPI(MPI_Win_unlock_all(win));
  return rc;
}

static int error_kind(int rc) {
  int cls = -1, c;
  MPI_Error_class(rc, &cls);
  for (int k = 0; k < MPISW_ERR_KIND_COUNT; k++)
    if (mpisw_error_class(k, &c) == MPI_SUCCESS && c == cls) return k;
  return -1;
}

/* A failed write: the device's error, as an I/O or a no-space error. */
static void expect_write_error(const char *what, int rc, const char *dev) {
  CHECK(rc != MPI_SUCCESS, "%s succeeded although the device fails writes", what);
  int k = error_kind(rc);
  CHECK(k == MPISW_ERR_IO || k == MPISW_ERR_NOSPACE, "%s: unexpected error: %s", what,
        tl_errstr(rc));
  CHECK(strstr(tl_errstr(rc), dev) != NULL, "%s: the message does not name %s: %s", what, dev,
        tl_errstr(rc));
  if (tl_rank == 0) tl_log("%s: %s", what, tl_errstr(rc));
}

/* Runs a faildev.sh command on rank 0; every rank returns after it ran. */
static void device(const char *var) {
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (tl_rank == 0) {
    const char *cmd = getenv(var);
    CHECK(cmd && *cmd, "%s is not set: run under tests/tools/faildev.sh", var);
    CHECK(system(cmd) == 0, "%s failed: %s", var, cmd);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

/* The device's bytes [off, off+len) as they are on the device (O_DIRECT:
 * not the page cache the window shares). */
static void check_device(const char *dev, off_t off, size_t len, unsigned seed, size_t pos0) {
  int fd = open(dev, O_RDONLY | O_DIRECT);
  CHECK(fd >= 0, "open %s O_DIRECT: %s", dev, strerror(errno));
  void *buf = NULL;
  CHECK(posix_memalign(&buf, 4096, len) == 0, "posix_memalign");
  CHECK(pread(fd, buf, len, off) == (ssize_t)len, "pread %s: %s", dev, strerror(errno));
  long bad = tl_verify(buf, len, seed, pos0);
  CHECK(bad < 0, "device %s byte %lld (offset %lld) is not what the window held: %s", dev,
        (long long)bad, (long long)off + bad, tl_describe(buf, len, pos0));
  free(buf);
  close(fd);
}

static void test_wbfail(const char *factor) {
  const char *dev = getenv("MPISW_FAILDEV");
  CHECK(dev && *dev, "MPISW_FAILDEV is not set: run under tests/tools/faildev.sh");
  CHECK(tl_size <= 4, "at most 4 ranks on the 64 MiB device");
  const size_t S = 4 * MiB;
  double f = atof(factor);
  size_t sto = (size_t)(f * S), mem = S - sto, q = sto / 4;
  char fh[64], off[64];
  snprintf(fh, sizeof fh, "storage_alloc_factor=%s", factor);
  /* every rank its own 16 MiB of the device: the window, then a second one */
  off_t dev0 = (off_t)tl_rank * 16 * MiB;
  snprintf(off, sizeof off, "storage_alloc_offset=%lld", (long long)dev0);
  char *base;
  MPI_Win win;
  TL_WALLOC((MPI_Aint)S, MPI_COMM_WORLD, (void **)&base, &win, dev, fh, off);
  /* healthy: a sync writes */
  tl_fill(base + mem, q, 11, 0);
  CHECK(try_sync(win) == MPI_SUCCESS, "sync on the healthy device failed");
  check_device(dev, dev0, q, 11, 0);
  /* broken: fresh blocks fail, and go on failing */
  device("MPISW_FAILDEV_BREAK");
  tl_fill(base + mem + q, q, 12, 0);
  expect_write_error("first MPI_Win_sync after the device broke", try_sync(win), dev);
  for (int i = 0; i < 2; i++)
    expect_write_error("a later MPI_Win_sync before the device healed", try_sync(win), dev);
  /* healed: one sync writes everything again */
  device("MPISW_FAILDEV_HEAL");
  int rc = try_sync(win);
  CHECK(rc == MPI_SUCCESS, "MPI_Win_sync after the device healed: %s", tl_errstr(rc));
  check_device(dev, dev0, q, 11, 0);
  check_device(dev, dev0 + (off_t)q, q, 12, 0);
  CHECK(tl_verify(base + mem, q, 11, 0) < 0 && tl_verify(base + mem + q, q, 12, 0) < 0,
        "the window itself changed");
  CHECK(try_sync(win) == MPI_SUCCESS, "a second sync after healing failed");
  CHECK_MPI(MPI_Win_free(&win));

  /* a failed write-back also fails MPI_Win_free */
  snprintf(off, sizeof off, "storage_alloc_offset=%lld", (long long)dev0 + 8 * MiB);
  TL_WALLOC((MPI_Aint)S, MPI_COMM_WORLD, (void **)&base, &win, dev, fh, off);
  device("MPISW_FAILDEV_BREAK");
  tl_fill(base + mem, q, 13, 0);
  expect_write_error("MPI_Win_sync of a second window", try_sync(win), dev);
  expect_write_error("MPI_Win_free after a failed sync", MPI_Win_free(&win), dev);
  device("MPISW_FAILDEV_HEAL");
}

static void test_truncate(const char *backend) {
  const size_t S = 1 * MiB, cut = 256 * 1024;
  const char *fn = tl_path("cut-r%d", tl_rank);
  char be[64];
  snprintf(be, sizeof be, "storage_backend=%s", backend);
  char *base;
  MPI_Win win;
  TL_WALLOC((MPI_Aint)S, MPI_COMM_WORLD, (void **)&base, &win, fn, be);
  if (!strcmp(backend, "pager")) {
    tl_require_pager(&win);
  } else {
    const char *got = tl_win_info(win, "storage_backend");
    CHECK(got && !strcmp(got, backend), "storage_backend is '%s', expected '%s'", got ? got : "(none)",
          backend);
  }
  tl_fill(base, S, 21, 0);
  CHECK(try_sync(win) == MPI_SUCCESS, "first sync failed");
  /* another process cuts the file; the window writes below the cut only */
  CHECK(truncate(fn, (off_t)cut) == 0, "truncate: %s", strerror(errno));
  tl_fill(base, 4096, 22, 0);
  char want[64], have[64];
  snprintf(have, sizeof have, "truncated to %zu bytes", cut);
  snprintf(want, sizeof want, "needs %zu", S);
  for (int i = 0; i < 2; i++) {
    int rc = try_sync(win);
    EXPECT_ERR(rc, MPISW_ERR_IO, fn, have);
    CHECK(strstr(tl_errstr(rc), want), "the message does not say what the window needs: %s",
          tl_errstr(rc));
  }
  EXPECT_ERR(MPI_Win_free(&win), MPISW_ERR_IO, fn, have);
  CHECK(tl_file_size(fn) == (off_t)cut, "the file is %lld bytes after the free, it was cut to %zu",
        (long long)tl_file_size(fn), cut);
}

/* A user-defined window error handler: records each call. */
static int eh_calls, eh_code, eh_win_valid;
static MPI_Win eh_expect;
static void record_handler(MPI_Win *win, int *code, ...) {
  eh_calls++;
  eh_code = *code;
  MPI_Aint *size = NULL;
  int flag = 0;
  /* the window must still exist while its handler runs */
  eh_win_valid = *win == eh_expect &&
                 MPI_Win_get_attr(*win, MPI_WIN_SIZE, &size, &flag) == MPI_SUCCESS && flag;
}

static void test_freehandler(void) {
  const size_t S = 256 * 1024;
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Win_create_errhandler(record_handler, &eh));
  /* 1. a user handler sees the free's storage error, window still valid */
  const char *fn = tl_path("eh-r%d", tl_rank);
  char *base;
  MPI_Win win;
  TL_WALLOC((MPI_Aint)S, MPI_COMM_WORLD, (void **)&base, &win, fn, NULL);
  CHECK_MPI(MPI_Win_set_errhandler(win, eh));
  memset(base, 7, S);
  CHECK(truncate(fn, 4096) == 0, "truncate: %s", strerror(errno));
  eh_calls = 0;
  eh_expect = win;
  int rc = MPI_Win_free(&win);
  CHECK(eh_calls == 1, "the window's error handler was called %d times for a failed free, "
        "expected once", eh_calls);
  CHECK(eh_win_valid, "the handler ran without a valid window");
  EXPECT_ERR(eh_code, MPISW_ERR_IO, fn, "truncated");
  CHECK(rc == eh_code, "MPI_Win_free returned %d, the handler got %d", rc, eh_code);
  CHECK(win == MPI_WIN_NULL, "the window handle was not set to MPI_WIN_NULL");
  /* 2. MPI_ERRORS_RETURN: the error is returned */
  fn = tl_path("ret-r%d", tl_rank);
  TL_WALLOC((MPI_Aint)S, MPI_COMM_WORLD, (void **)&base, &win, fn, NULL);
  CHECK(truncate(fn, 4096) == 0, "truncate: %s", strerror(errno));
  EXPECT_ERR(MPI_Win_free(&win), MPISW_ERR_IO, fn, "truncated");
  /* 3. no error: the handler is not called, puts completed before the free
   * are in every file afterwards */
  fn = tl_path("put-r%d", tl_rank);
  TL_WALLOC((MPI_Aint)S, MPI_COMM_WORLD, (void **)&base, &win, fn, NULL);
  CHECK_MPI(MPI_Win_set_errhandler(win, eh));
  char *src = malloc(S);
  int to = (tl_rank + 1) % tl_size, from = (tl_rank + tl_size - 1) % tl_size;
  tl_fill(src, S, 30 + tl_rank, 0);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, to, 0, win));
  CHECK_MPI(MPI_Put(src, (int)S, MPI_BYTE, to, 0, (int)S, MPI_BYTE, win));
  CHECK_MPI(MPI_Win_unlock(to, win));
  free(src);
  eh_calls = 0;
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(eh_calls == 0, "the handler was called on a good free");
  CHECK_FILE_PATTERN(fn, 0, S, 30 + from, 0);
  MPI_Errhandler_free(&eh);
}

/* MPI_ERRORS_ARE_FATAL on the window: a storage error of the free aborts
 * the job with the message (ctest checks the output and the exit status). */
static void test_freefatal(void) {
  /* tests/tools/abort_check.sh reads each rank's stderr from a file: the
   * launcher may drop what killed ranks wrote to its pipes */
  const char *errdir = getenv("MPISW_TEST_STDERR_DIR");
  if (errdir) {
    char ef[4096];
    snprintf(ef, sizeof ef, "%s/rank-%d.err", errdir, tl_rank);
    int efd = open(ef, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    CHECK(efd >= 0 && dup2(efd, 2) == 2, "stderr to %s: %s", ef, strerror(errno));
    close(efd);
  }
  const char *fn = tl_path("fatal-r%d", tl_rank);
  char *base;
  MPI_Win win;
  TL_WALLOC(64 * 1024, MPI_COMM_WORLD, (void **)&base, &win, fn, NULL);
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL));
  memset(base, 3, 64 * 1024);
  CHECK(truncate(fn, 0) == 0, "truncate: %s", strerror(errno));
  int rc = MPI_Win_free(&win);
  printf("NOT ABORTED: MPI_Win_free returned %d under MPI_ERRORS_ARE_FATAL\n", rc);
  fflush(stdout);
}

static void test_owner(void) {
  if (!tl_is_root()) tl_skip("needs root to give a file to another user (chown)");
  const char *sticky = tl_path("sticky");
  if (tl_rank == 0) CHECK(mkdir(sticky, 0700) == 0 && chmod(sticky, 01777) == 0, "mkdir");
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  /* user nobody pre-creates the file root's window will name */
  const char *fn = tl_path("sticky/win-r%d", tl_rank);
  tl_write_pattern_file(fn, 0, 4096, 40, 0666);
  CHECK(chown(fn, 65534, 65534) == 0, "chown: %s", strerror(errno));
  MPI_Info info = tl_sinfo(fn, NULL);
  void *base;
  MPI_Win win;
  int rc = MPI_Win_allocate(64 * 1024, 1, info, MPI_COMM_WORLD, &base, &win);
  EXPECT_ERR(rc, MPISW_ERR_ACCESS, tl_path("sticky/win-r"), "uid 65534");
  CHECK(tl_file_size(fn) == 4096, "the other user's file changed size");
  CHECK_FILE_PATTERN(fn, 0, 4096, 40, 0);
  /* the same file, root's own: reused */
  CHECK(chown(fn, 0, 0) == 0, "chown: %s", strerror(errno));
  rc = MPI_Win_allocate(64 * 1024, 1, info, MPI_COMM_WORLD, &base, &win);
  CHECK(rc == MPI_SUCCESS, "an own file was not reused: %s", tl_errstr(rc));
  CHECK(tl_verify(base, 4096, 40, 0) < 0, "the reused file's bytes are not in the window");
  CHECK_MPI(MPI_Win_free(&win));
  MPI_Info_free(&info);
}

static void test_synced(void) {
  const size_t S = 4 * MiB;
  char *base;
  MPI_Win win;
  TL_WALLOC((MPI_Aint)S, MPI_COMM_WORLD, (void **)&base, &win, tl_path("syn-r%d", tl_rank), NULL);
  tl_fill(base + S / 2, 4096, 50, 0);
  TL_SYNC(win);
  CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  const char *arg = argc > 2 ? argv[2] : "";
  tl_scratch();
  if (!strcmp(mode, "wbfail")) test_wbfail(*arg ? arg : "1");
  else if (!strcmp(mode, "truncate")) test_truncate(*arg ? arg : "mmap");
  else if (!strcmp(mode, "freehandler")) test_freehandler();
  else if (!strcmp(mode, "owner")) test_owner();
  else if (!strcmp(mode, "freefatal")) test_freefatal();
  else if (!strcmp(mode, "synced")) test_synced();
  else tl_fail(__FILE__, __LINE__, "unknown mode '%s'", mode);
  return tl_finish();
}
