/*
 * Bad input: every failure is an MPI error of the right mpisw class, on
 * every rank, with nothing left behind.
 *   t_errors nofile          missing directory -> NOFILE
 *   t_errors perm            no permission on an existing file / directory -> ACCESS
 *                            (as root: CAP_DAC_OVERRIDE etc. dropped from the effective set)
 *   t_errors immutable       chattr +i file (root only) -> ACCESS
 *   t_errors symlink         symlink as the final component -> ACCESS (target untouched)
 *   t_errors errhandler      the error reaches the communicator's error handler (once)
 *   t_errors onefail_hint    bad hint only on rank 1 -> HINT everywhere, no file, existing file keeps its size
 *   t_errors onefail_nofile  missing directory only on rank 1 -> NOFILE everywhere
 * Under tests/tools/mountdrv.sh (MPISW_TEST_MNT / MPISW_TEST_DEV set):
 *   t_errors rofs            read-only file system -> ACCESS
 *   t_errors nospace         8 MiB tmpfs, 32 MiB windows -> NOSPACE, no file left, space given back
 *   t_errors blockdev        a loop device: window works, data on the device, never unlinked;
 *                            too small -> NOSPACE
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"

#define WS (256 * 1024)
#define MiB (1024 * 1024)

/* MPI_Win_allocate with storage hints; returns rc, frees the window on success. */
static int try_alloc(MPI_Aint size, const char *fn, const char *h1, const char *h2) {
  MPI_Info info = tl_sinfo(fn, h1, h2, NULL);
  void *base = NULL;
  MPI_Win win = MPI_WIN_NULL;
  int rc = MPI_Win_allocate(size, 1, info, MPI_COMM_WORLD, &base, &win);
  MPI_Info_free(&info);
  if (rc == MPI_SUCCESS) {
    memset(base, 1, (size_t)size);
    CHECK_MPI(MPI_Win_free(&win));
  }
  return rc;
}

static void test_nofile(void) {
  const char *fn = tl_path("no/such/dir/f-r%d", tl_rank);
  int rc = try_alloc(WS, fn, NULL, NULL);
  EXPECT_ERR(rc, MPISW_ERR_NOFILE, tl_path("no/such/dir"), NULL);
  CHECK(!tl_exists(tl_path("no")), "something was created under %s", tl_path("no"));
  /* MPI_Alloc_mem and MPI_Win_allocate_shared report it too */
  MPI_Info info = tl_sinfo(fn, NULL);
  void *p = NULL;
  rc = MPI_Alloc_mem(WS, info, &p);
  EXPECT_ERR(rc, MPISW_ERR_NOFILE, "no/such/dir", NULL);
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  MPI_Win win;
  rc = MPI_Win_allocate_shared(WS, 1, info, node, &p, &win);
  EXPECT_ERR(rc, MPISW_ERR_NOFILE, "no/such/dir", NULL);
  MPI_Comm_free(&node);
  MPI_Info_free(&info);
  CHECK(tl_count_dir(tl_scratch(), NULL) == 0, "files left in %s", tl_scratch());
  /* directory form: a directory name (trailing slash) that does not exist */
  rc = try_alloc(WS, tl_path("missingdir/"), NULL, NULL);
  EXPECT_ERR(rc, MPISW_ERR_NOFILE, "missingdir", NULL);
  CHECK(tl_count_dir(tl_scratch(), NULL) == 0, "files left in %s", tl_scratch());
}

static void test_perm(void) {
  const char *ex = tl_path("noperm-r%d", tl_rank);
  const char *rodir = tl_path("rodir");
  tl_write_pattern_file(ex, 0, 8192, 5, 0600);
  CHECK(chmod(ex, 0) == 0, "chmod: %s", strerror(errno));
  if (tl_rank == 0) CHECK(mkdir(rodir, 0555) == 0, "mkdir: %s", strerror(errno));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int root = tl_is_root();
  if (root) {
    CHECK(tl_drop_dac_caps(1) == 0, "cannot drop CAP_DAC_OVERRIDE: %s", strerror(errno));
    if (tl_rank == 0) tl_log("running as root: CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER dropped for the checks");
  }
  int fd = open(ex, O_RDWR);
  CHECK(fd < 0 && errno == EACCES, "test setup: open of a mode-000 file did not fail with EACCES");
  /* collective: every rank reports the first failing rank's path */
  int rc = try_alloc(WS, ex, NULL, NULL);
  EXPECT_ERR(rc, MPISW_ERR_ACCESS, tl_path("noperm-r"), NULL);
  const char *nf = tl_path("rodir/new-r%d", tl_rank);
  rc = try_alloc(WS, nf, NULL, NULL);
  EXPECT_ERR(rc, MPISW_ERR_ACCESS, "rodir", NULL);
  rc = try_alloc(WS, rodir, NULL, NULL); /* directory form */
  EXPECT_ERR(rc, MPISW_ERR_ACCESS, "rodir", NULL);
  MPI_Info info = tl_sinfo(ex, NULL);
  void *p;
  rc = MPI_Alloc_mem(WS, info, &p);
  EXPECT_ERR(rc, MPISW_ERR_ACCESS, ex, NULL);
  MPI_Info_free(&info);
  if (root) CHECK(tl_drop_dac_caps(0) == 0, "cannot restore capabilities");
  CHECK(tl_file_size(ex) == 8192 && tl_file_mode(ex) == 0, "existing file changed: %lld bytes, mode %o",
        (long long)tl_file_size(ex), (unsigned)tl_file_mode(ex));
  CHECK(tl_count_dir(rodir, NULL) == 0, "a file was created in the read-only directory");
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (tl_rank == 0) chmod(rodir, 0700);
}

static int set_immutable(const char *path, int on) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  int fl = 0;
  int r = ioctl(fd, FS_IOC_GETFLAGS, &fl);
  if (r == 0) {
    fl = on ? (fl | FS_IMMUTABLE_FL) : (fl & ~FS_IMMUTABLE_FL);
    r = ioctl(fd, FS_IOC_SETFLAGS, &fl);
  }
  close(fd);
  return r;
}

static void test_immutable(void) {
  const char *f = tl_path("immutable-r%d", tl_rank);
  tl_write_pattern_file(f, 0, 8192, 6, 0600);
  int ok = set_immutable(f, 1) == 0;
  if (!tl_allmin(ok)) {
    set_immutable(f, 0);
    tl_skip("chattr +i (FS_IOC_SETFLAGS) not possible here: needs root on a file system with the immutable flag");
  }
  if (tl_rank == 0) tl_log("root: permission denied is produced with an immutable file (chattr +i)");
  int rc = try_alloc(WS, f, NULL, NULL);
  set_immutable(f, 0);
  EXPECT_ERR(rc, MPISW_ERR_ACCESS, f, NULL);
  CHECK(tl_file_size(f) == 8192, "immutable file changed size");
}

static void test_symlink(void) {
  const char *target = tl_path("target-r%d", tl_rank);
  const char *link = tl_path("link-r%d", tl_rank);
  const char *dangling = tl_path("dangling-r%d", tl_rank);
  const char *dtarget = tl_path("dtarget-r%d", tl_rank);
  tl_write_pattern_file(target, 0, 8192, 7, 0600);
  CHECK(symlink(target, link) == 0, "symlink: %s", strerror(errno));
  CHECK(symlink(dtarget, dangling) == 0, "symlink: %s", strerror(errno));
  int rc = try_alloc(WS, link, NULL, NULL);
  EXPECT_ERR(rc, MPISW_ERR_ACCESS, tl_path("link-r"), NULL);
  CHECK(tl_file_size(target) == 8192, "symlink target changed size to %lld", (long long)tl_file_size(target));
  CHECK_FILE_PATTERN(target, 0, 8192, 7, 0);
  rc = try_alloc(WS, dangling, NULL, NULL);
  EXPECT_ERR(rc, MPISW_ERR_ACCESS, tl_path("dangling-r"), NULL);
  CHECK(!tl_exists(dtarget), "a dangling symlink was followed: %s created", dtarget);
  MPI_Info info = tl_sinfo(link, NULL);
  void *p;
  rc = MPI_Alloc_mem(WS, info, &p);
  EXPECT_ERR(rc, MPISW_ERR_ACCESS, link, NULL);
  MPI_Info_free(&info);
  /* a symlink to a directory in the middle of the path is fine */
  if (tl_rank == 0) {
    CHECK(mkdir(tl_path("realdir"), 0700) == 0, "mkdir");
    CHECK(symlink(tl_path("realdir"), tl_path("dirlink")) == 0, "symlink");
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  rc = try_alloc(WS, tl_path("dirlink/f-r%d", tl_rank), NULL, NULL);
  if (rc != MPI_SUCCESS)
    tl_fail(__FILE__, __LINE__, "a symlinked directory before the last component must work: %s", tl_errstr(rc));
  CHECK(tl_exists(tl_path("realdir/f-r%d", tl_rank)), "file not created through the directory symlink");
}

static void test_onefail(int hint) {
  int nf = tl_size;
  CHECK(nf >= 2, "needs at least 2 ranks");
  const char *fn = tl_path("one-r%d", tl_rank);
  const char *existing = tl_path("exist-r%d", tl_rank);
  /* rank 0 reuses an existing small file: it must keep its size */
  if (tl_rank == 0) tl_write_pattern_file(existing, 0, 4096, 8, 0600);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  const char *use = tl_rank == 0 ? existing : fn;
  int rc;
  if (hint)
    rc = try_alloc(WS, use, tl_rank == 1 ? "storage_alloc_factor=1.5" : "storage_alloc_factor=1", NULL);
  else
    rc = try_alloc(WS, tl_rank == 1 ? tl_path("missing/f-r1") : use, NULL, NULL);
  /* every rank: the same class, and the failing rank's message (which names rank 1) */
  if (hint)
    EXPECT_ERR(rc, MPISW_ERR_HINT, "storage_alloc_factor", "rank 1");
  else
    EXPECT_ERR(rc, MPISW_ERR_NOFILE, "missing", "rank 1");
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (tl_rank != 0) CHECK(!tl_exists(fn), "rank %d: file %s left behind by the failed collective", tl_rank, fn);
  if (tl_rank == 0)
    CHECK(tl_file_size(existing) == 4096, "rank 0's existing file grew to %lld bytes though the allocation failed",
          (long long)tl_file_size(existing));
  /* the same with MPI_Win_allocate_shared: rank 1 passes the bad hint */
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int nsize;
  MPI_Comm_size(node, &nsize);
  if (hint && nsize == tl_size) {
    MPI_Info info = tl_sinfo(tl_path("shared-one"), tl_rank == 1 ? "storage_alloc_unlink=maybe" : "storage_alloc_unlink=true", NULL);
    void *p;
    MPI_Win w;
    rc = MPI_Win_allocate_shared(WS, 1, info, node, &p, &w);
    MPI_Info_free(&info);
    EXPECT_ERR(rc, MPISW_ERR_HINT, "storage_alloc_unlink", "rank 1");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(!tl_exists(tl_path("shared-one")), "shared window file left behind");
  }
  MPI_Comm_free(&node);
  /* everything still works afterwards */
  rc = try_alloc(WS, fn, NULL, NULL);
  if (rc != MPI_SUCCESS) tl_fail(__FILE__, __LINE__, "allocation after the failed one: %s", tl_errstr(rc));
  CHECK(tl_exists(fn), "%s not created by the good allocation", fn);
}

/* errors go through the communicator's error handler */
static int handler_calls, handler_code;
static void count_handler(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  handler_calls++;
  handler_code = *code;
}

static void test_errhandler(void) {
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Comm_create_errhandler(count_handler, &eh));
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_set_errhandler(dup, eh));
  MPI_Info info = tl_sinfo(tl_path("eh-r%d", tl_rank), "storage_alloc_factor=1.5", NULL);
  void *base = NULL;
  MPI_Win win;
  handler_calls = 0;
  int rc = MPI_Win_allocate(WS, 1, info, dup, &base, &win);
  CHECK(handler_calls == 1, "the communicator's error handler was called %d times for a bad hint, expected once",
        handler_calls);
  EXPECT_ERR(handler_code, MPISW_ERR_HINT, "storage_alloc_factor", NULL);
  CHECK(rc == handler_code, "MPI_Win_allocate returned %d, the handler got %d", rc, handler_code);
  /* MPI_Win_allocate_shared */
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(dup, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  CHECK_MPI(MPI_Comm_set_errhandler(node, eh));
  handler_calls = 0;
  rc = MPI_Win_allocate_shared(WS, 1, info, node, &base, &win);
  CHECK(handler_calls == 1, "MPI_Win_allocate_shared: the error handler was called %d times, expected once",
        handler_calls);
  EXPECT_ERR(handler_code, MPISW_ERR_HINT, "storage_alloc_factor", NULL);
  /* MPI_Alloc_mem: MPI_COMM_WORLD's or MPI_COMM_SELF's handler */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh));
  handler_calls = 0;
  rc = MPI_Alloc_mem(WS, info, &base);
  int calls = handler_calls;
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  CHECK(calls == 1, "MPI_Alloc_mem: MPI_COMM_WORLD's/MPI_COMM_SELF's error handler was called %d times, expected once",
        calls);
  EXPECT_ERR(handler_code, MPISW_ERR_HINT, "storage_alloc_factor", NULL);
  MPI_Info_free(&info);
  MPI_Comm_free(&node);
  MPI_Comm_free(&dup);
  MPI_Errhandler_free(&eh);
}

/* ---- under mountdrv.sh ---- */
static const char *mnt(void) {
  const char *m = getenv("MPISW_TEST_MNT");
  CHECK(m && *m, "MPISW_TEST_MNT is not set: run under tests/tools/mountdrv.sh");
  return m;
}

static void test_rofs(void) {
  char f[PATH_MAX], ex[PATH_MAX], fpre[PATH_MAX];
  snprintf(f, sizeof f, "%s/new-r%d", mnt(), tl_rank);
  snprintf(fpre, sizeof fpre, "%s/new-r", mnt());
  snprintf(ex, sizeof ex, "%s/existing", mnt());
  CHECK(tl_file_size(ex) == 65536, "driver should have made %s (64 KiB)", ex);
  int rc = try_alloc(WS, f, NULL, NULL);
  EXPECT_ERR(rc, MPISW_ERR_ACCESS, fpre, NULL);
  rc = try_alloc(32768, ex, NULL, NULL); /* existing file on a read-only fs */
  EXPECT_ERR(rc, MPISW_ERR_ACCESS, ex, NULL);
  rc = try_alloc(WS, mnt(), NULL, NULL); /* directory form */
  EXPECT_ERR(rc, MPISW_ERR_ACCESS, mnt(), NULL);
  CHECK(!tl_exists(f), "%s exists on a read-only fs?", f);
}

static void test_nospace(void) {
  char f[PATH_MAX], ex[PATH_MAX], fpre[PATH_MAX], expre[PATH_MAX];
  snprintf(f, sizeof f, "%s/big-r%d", mnt(), tl_rank);
  snprintf(ex, sizeof ex, "%s/small-r%d", mnt(), tl_rank);
  snprintf(fpre, sizeof fpre, "%s/big-r", mnt());
  snprintf(expre, sizeof expre, "%s/small-r", mnt());
  /* every rank: 32 MiB on an 8 MiB tmpfs (the message names the first failing rank's file) */
  int rc = try_alloc(32 * MiB, f, NULL, NULL);
  EXPECT_ERR(rc, MPISW_ERR_NOSPACE, fpre, NULL);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(!tl_exists(f), "NOSPACE: %s left behind", f);
  /* existing small file, not grown */
  tl_write_pattern_file(ex, 0, 4096, 9, 0600);
  rc = try_alloc(32 * MiB, ex, NULL, NULL);
  EXPECT_ERR(rc, MPISW_ERR_NOSPACE, expre, NULL);
  CHECK(tl_file_size(ex) == 4096, "existing file grew to %lld after NOSPACE", (long long)tl_file_size(ex));
  CHECK_FILE_PATTERN(ex, 0, 4096, 9, 0);
  unlink(ex);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  /* only the last rank asks too much: all fail, the others' files are removed */
  if (tl_size > 1) {
    rc = try_alloc(tl_rank == tl_size - 1 ? 32 * MiB : 1 * MiB, f, NULL, NULL);
    EXPECT_ERR(rc, MPISW_ERR_NOSPACE, NULL, NULL);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(!tl_exists(f), "rank %d: %s left behind after the collective failed", tl_rank, f);
  }
  /* the allocation space was given back: 1 MiB per rank fits */
  rc = try_alloc(1 * MiB, f, "storage_alloc_unlink=true", NULL);
  if (rc != MPI_SUCCESS)
    tl_fail(__FILE__, __LINE__, "1 MiB per rank on the 8 MiB tmpfs failed (space leaked?): %s", tl_errstr(rc));
  /* MPI_Alloc_mem and a shared window too big */
  MPI_Info info = tl_sinfo(f, NULL);
  void *p;
  rc = MPI_Alloc_mem(32 * MiB, info, &p);
  EXPECT_ERR(rc, MPISW_ERR_NOSPACE, NULL, NULL);
  MPI_Info_free(&info);
  CHECK(!tl_exists(f), "MPI_Alloc_mem NOSPACE: %s left behind", f);
  char sf[PATH_MAX];
  snprintf(sf, sizeof sf, "%s/shared", mnt());
  info = tl_sinfo(sf, NULL);
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  MPI_Win w;
  rc = MPI_Win_allocate_shared(12 * MiB, 1, info, node, &p, &w);
  EXPECT_ERR(rc, MPISW_ERR_NOSPACE, NULL, NULL);
  MPI_Info_free(&info);
  MPI_Comm_free(&node);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(!tl_exists(sf), "shared NOSPACE: %s left behind", sf);
  CHECK(tl_count_dir(mnt(), NULL) == 0, "%d entries left on the small file system", tl_count_dir(mnt(), NULL));
}

static void test_blockdev(void) {
  const char *dev = getenv("MPISW_TEST_DEV");
  CHECK(dev && *dev, "MPISW_TEST_DEV is not set: run under tests/tools/mountdrv.sh loop");
  const long long devsize = 4 * MiB;
  const size_t ws = 512 * 1024;
  CHECK(tl_size <= 4, "at most 4 ranks");
  char off[64];
  snprintf(off, sizeof off, "storage_alloc_offset=%lld", (long long)tl_rank * 1024 * 1024);
  MPI_Info info = tl_sinfo(dev, off, "storage_alloc_unlink=true", NULL);
  void *base;
  MPI_Win win;
  int rc = MPI_Win_allocate((MPI_Aint)ws, 1, info, MPI_COMM_WORLD, &base, &win);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) tl_fail(__FILE__, __LINE__, "window on block device %s: %s", dev, tl_errstr(rc));
  tl_win_errors_return(win);
  off_t foff = -1;
  CHECK(tl_backing(base, dev, &foff, NULL) == TL_FILE, "window is not mapped from %s", dev);
  CHECK(foff == (off_t)tl_rank * MiB, "window mapped at device offset %lld", (long long)foff);
  /* remote puts: rank r writes into rank r+1 */
  int to = (tl_rank + 1) % tl_size, from = (tl_rank + tl_size - 1) % tl_size;
  char *src = malloc(ws);
  tl_fill(src, ws, 900 + tl_rank, 0);
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Put(src, (int)ws, MPI_BYTE, to, 0, (int)ws, MPI_BYTE, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  free(src);
  TL_SYNC(win);
  CHECK_FILE_PATTERN(dev, (off_t)tl_rank * MiB, ws, 900 + from, 0);
  CHECK_MPI(MPI_Win_free(&win));
  struct stat st;
  CHECK(stat(dev, &st) == 0 && S_ISBLK(st.st_mode), "block device %s removed or replaced at free (unlink=true)", dev);
  CHECK_FILE_PATTERN(dev, (off_t)tl_rank * MiB, ws, 900 + from, 0);
  /* reopen: the content is there */
  info = tl_sinfo(dev, off, NULL);
  rc = MPI_Win_allocate((MPI_Aint)ws, 1, info, MPI_COMM_WORLD, &base, &win);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) tl_fail(__FILE__, __LINE__, "reopen on %s: %s", dev, tl_errstr(rc));
  CHECK(tl_verify(base, ws, 900 + from, 0) < 0, "reopened device window does not show the old bytes");
  CHECK_MPI(MPI_Win_free(&win));
  /* too small */
  rc = try_alloc(2 * devsize, dev, NULL, NULL);
  EXPECT_ERR(rc, MPISW_ERR_NOSPACE, dev, NULL);
  rc = try_alloc(1 * MiB, dev, "storage_alloc_offset=3584K", NULL); /* 3.5 MiB + 1 MiB > 4 MiB */
  EXPECT_ERR(rc, MPISW_ERR_NOSPACE, dev, NULL);
  CHECK(stat(dev, &st) == 0 && S_ISBLK(st.st_mode), "block device %s gone", dev);
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  tl_scratch();
  if (!strcmp(mode, "nofile")) test_nofile();
  else if (!strcmp(mode, "perm")) test_perm();
  else if (!strcmp(mode, "immutable")) test_immutable();
  else if (!strcmp(mode, "symlink")) test_symlink();
  else if (!strcmp(mode, "errhandler")) test_errhandler();
  else if (!strcmp(mode, "onefail_hint")) test_onefail(1);
  else if (!strcmp(mode, "onefail_nofile")) test_onefail(0);
  else if (!strcmp(mode, "rofs")) test_rofs();
  else if (!strcmp(mode, "nospace")) test_nospace();
  else if (!strcmp(mode, "blockdev")) test_blockdev();
  else tl_fail(__FILE__, __LINE__, "unknown mode '%s'", mode);
  return tl_finish();
}
