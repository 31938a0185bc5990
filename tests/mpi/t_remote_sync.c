/* Remote sync (docs/DURABILITY.md "Remote sync"): rank 0 writes into other
 * ranks' storage while they compute without calling MPI, and its sync makes
 * those bytes durable at the targets.
 *   busy BACKEND    rank 0 puts 1 MiB into every other rank, MPI_Win_sync
 *                   with storage_sync_scope=remote; the targets spin until
 *                   rank 0 has checked their files (any number of ranks,
 *                   any nodes of one machine)
 *   target BACKEND  MPIX_Win_sync_target on a window without the hint:
 *                   rank 1 durable, rank 2 still not; a plain MPI_Win_sync
 *                   reaches no target; bad ranks; a memory window (3 ranks)
 *   ranges BACKEND  rank 0 into the last rank: 12 separate puts (more than the 8 ranges a target keeps)
 *                   and a strided vector: every piece durable after the sync
 *   alone BACKEND   no agent thread for a one-rank window; one for two ranks,
 *                   gone at free
 *   dead BACKEND    rank 1 stopped (SIGSTOP): the sync fails naming it within
 *                   MPISW_REMOTE_SYNC_TIMEOUT (set to 2 by the test); pager
 *                   (only the target's agent can write its blocks back); with
 *                   mmap on one node rank 0 writes the pages back itself and
 *                   the sync succeeds
 * Durable means: mmap backend, the range of the target's file has no dirty
 * or under-write-back page (cachestat); pager backend, the file holds the
 * bytes (before the sync they live only in the target's memory). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

#ifndef SYS_cachestat
#define SYS_cachestat 451
#endif

#define WIN (2u << 20)
#define OFF (256u << 10)
#define LEN (1u << 20)

static const char *backend;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Pages of [off, off+len) of path still to be written (dirty or under
 * write-back); -1 when cachestat is not there. */
static long pending_pages(const char *path, uint64_t off, uint64_t len) {
  struct { uint64_t off, len; } range = {off, len};
  struct { uint64_t cache, dirty, writeback, evicted, recently_evicted; } cs;
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
  long rc = syscall(SYS_cachestat, fd, &range, &cs, 0);
  close(fd);
  return rc != 0 ? -1 : (long)(cs.dirty + cs.writeback);
}

static int holds(const char *path, unsigned seed) {
  static char buf[LEN];
  return tl_pread(path, OFF, buf, LEN) == LEN && tl_verify(buf, LEN, seed, 0) < 0;
}

/* Fails unless target t's bytes are durable (want 1) or not yet (want 0). */
static void check_durable(int t, int want, const char *when) {
  const char *path = tl_path("w%d", t);
  if (!strcmp(backend, "pager")) {
    CHECK(holds(path, 100 + t) == want, "%s: rank %d's file %s the data", when, t,
          want ? "lacks" : "already holds");
    return;
  }
  long p = pending_pages(path, OFF, LEN);
  if (p < 0) {
    tl_log("SKIP: no cachestat(2) in this kernel: page-cache state cannot be checked");
    MPI_Abort(MPI_COMM_WORLD, TL_SKIP_CODE);
  }
  CHECK(want ? p == 0 : p > 0, "%s: rank %d's range has %ld pages to write", when, t, p);
  CHECK(holds(path, 100 + t), "%s: rank %d's file does not read back the data", when, t);
}

static MPI_Win make(const char *scope, const char *extra, void **base) {
  MPI_Win win;
  const char *fn = tl_path("w%%r");
  TL_WALLOC(WIN, MPI_COMM_WORLD, base, &win, fn, "storage_alloc_unlink=true",
            scope, backend[0] == 'p' ? "storage_backend=pager" : "storage_backend=mmap", extra);
  const char *b = tl_win_info(win, "storage_backend");
  int fell = b && strcmp(b, backend) != 0, any = 0;
  MPI_Allreduce(&fell, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any) {
    if (tl_rank == 0) printf("SKIP: storage_backend=%s is not available here (fell back)\n", backend);
    MPI_Win_free(&win);
    MPI_Finalize();
    exit(TL_SKIP_CODE);
  }
  return win;
}

/* One buffer per target: a put's buffer is the MPI's until the flush. */
static void put_into(MPI_Win win, int t) {
  static char bufs[8][LEN];
  CHECK(t < 8, "at most 8 ranks");
  char *buf = bufs[t];
  tl_fill(buf, LEN, 100 + t, 0);
  CHECK_MPI(MPI_Put(buf, LEN, MPI_BYTE, t, OFF, LEN, MPI_BYTE, win));
}

/* The targets compute: no MPI call until rank 0 says it is done (a file),
 * for at most 30 s; a target that times out fails the test (the origin's
 * sync waited for it to call MPI). */
static void compute_until_done(void) {
  const char *done = tl_path("done");
  double t0 = now();
  volatile double x = 1;
  while (!tl_exists(done)) {
    for (int i = 0; i < 100000; i++) x = x * 1.0000001 + 1e-9;
    CHECK(now() - t0 < 30, "rank 0 did not finish while this rank computed");
  }
}

/* The MPI may need the target inside MPI to complete RMA into memory it
 * did not allocate (MPICH over UCX: yes), so the puts are completed while
 * the targets wait in a barrier; with storage_node_shared=true (one node,
 * mmap) they land in shared pages and the targets compute meanwhile. The
 * remote sync itself never needs the targets in MPI. */
static void busy(int during) {
  void *base;
  MPI_Win win = make("storage_sync_scope=remote", during ? "storage_node_shared=true" : NULL, &base);
  if (during)
    CHECK(!strcmp(tl_win_info(win, "storage_node_shared"), "true"),
          "not a node-shared window: storage_node_shared=%s", tl_win_info(win, "storage_node_shared"));
  memset(base, 0, WIN);
  MPI_Barrier(MPI_COMM_WORLD);
  /* the targets' own pages must be clean before rank 0 writes */
  TL_SYNC(win);
  MPI_Barrier(MPI_COMM_WORLD);
  /* MPICH's lock_all also waits for the targets */
  if (tl_rank == 0) CHECK_MPI(MPI_Win_lock_all(0, win));
  if (tl_rank == 0 && !during) {
    for (int t = 1; t < tl_size; t++) put_into(win, t);
    CHECK_MPI(MPI_Win_flush_all(win));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank != 0) {
    compute_until_done();
  } else {
    if (during) {
      for (int t = 1; t < tl_size; t++) put_into(win, t);
      CHECK_MPI(MPI_Win_flush_all(win));
    }
    for (int t = 1; t < tl_size; t++) check_durable(t, 0, "before the sync");
    double t0 = now();
    CHECK_MPI(MPI_Win_sync(win));
    double dt = now() - t0;
    for (int t = 1; t < tl_size; t++) check_durable(t, 1, "after MPI_Win_sync");
    tl_log("remote sync of %d targets x 1 MiB (%s): %.3f ms", tl_size - 1, backend, dt * 1e3);
    FILE *f = fopen(tl_path("done"), "w");
    CHECK(f != NULL, "cannot create the done file");
    fclose(f);
  }
  if (tl_rank == 0) CHECK_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_free(&win));
}

static void target(void) {
  CHECK(tl_size >= 3, "needs 3 ranks");
  void *base;
  MPI_Win win = make("storage_sync_scope=local", NULL, &base);
  memset(base, 0, WIN);
  TL_SYNC(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) {
    CHECK_MPI(MPI_Win_lock_all(0, win));
    put_into(win, 1);
    put_into(win, 2);
    CHECK_MPI(MPI_Win_flush_all(win));
    check_durable(1, 0, "before any sync");
    check_durable(2, 0, "before any sync");
    CHECK_MPI(MPI_Win_sync(win)); /* scope local: no target is synced */
    check_durable(1, 0, "after a local MPI_Win_sync");
    CHECK_MPI(MPIX_Win_sync_target(win, 1));
    check_durable(1, 1, "after MPIX_Win_sync_target(1)");
    check_durable(2, 0, "after MPIX_Win_sync_target(1)");
    CHECK_MPI(MPIX_Win_sync_target(win, 2));
    check_durable(2, 1, "after MPIX_Win_sync_target(2)");
    CHECK_MPI(MPIX_Win_sync_target(win, 0)); /* itself: a local sync */
    int rc = MPIX_Win_sync_target(win, tl_size);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "rank %d: class %d (%s), not MPI_ERR_RANK", tl_size, cls,
          tl_errstr(rc));
    rc = MPIX_Win_sync_target(win, -1);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "rank -1: class %d (%s), not MPI_ERR_RANK", cls, tl_errstr(rc));
    CHECK_MPI(MPI_Win_unlock_all(win));
    /* outside an epoch: nothing to flush, the sync still runs */
    CHECK_MPI(MPIX_Win_sync_target(win, 1));
    rc = MPIX_Win_sync_target(MPI_WIN_NULL, 1);
    CHECK(rc != MPI_SUCCESS, "MPI_WIN_NULL accepted");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_free(&win));
  /* a window in memory: nothing on storage, the RMA completed, success */
  MPI_Win mw;
  void *mb;
  CHECK_MPI(MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mb, &mw));
  MPI_Win_set_errhandler(mw, MPI_ERRORS_RETURN);
  if (tl_rank == 0) {
    int v = 7;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, mw));
    CHECK_MPI(MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, mw));
    CHECK_MPI(MPIX_Win_sync_target(mw, 1));
    CHECK_MPI(MPI_Win_unlock(1, mw));
    int rc = MPIX_Win_sync_target(mw, 99);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "memory window, rank 99: %s", tl_errstr(rc));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_free(&mw));
}

static void dead(void) {
  void *base;
  MPI_Win win = make("storage_sync_scope=remote", NULL, &base);
  memset(base, 0, WIN);
  TL_SYNC(win);
  int pid = getpid(), pid1 = 0;
  MPI_Sendrecv(&pid, 1, MPI_INT, tl_rank == 0 ? 1 : 0, 0, &pid1, 1, MPI_INT,
               tl_rank == 0 ? 1 : 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (tl_rank == 0) {
    CHECK_MPI(MPI_Win_lock_all(0, win));
    put_into(win, 1);
    CHECK_MPI(MPI_Win_flush_all(win));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 1) raise(SIGSTOP); /* until rank 0 lets it go on */
  if (tl_rank == 0) {
    /* wait until rank 1 is stopped */
    char path[64], st[512];
    snprintf(path, sizeof path, "/proc/%d/stat", pid1);
    for (int i = 0; i < 5000; i++) {
      FILE *f = fopen(path, "r");
      size_t n = f ? fread(st, 1, sizeof st - 1, f) : 0;
      if (f) fclose(f);
      st[n] = 0;
      char *p = strrchr(st, ')');
      if (p && p[1] == ' ' && p[2] == 'T') break;
      usleep(1000);
    }
    double t0 = now();
    int rc = MPIX_Win_sync_target(win, 1);
    double dt = now() - t0;
    if (!strcmp(backend, "pager")) check_durable(1, 0, "after the failed sync");
    kill(pid1, SIGCONT);
    if (!strcmp(backend, "pager")) {
      EXPECT_ERR(rc, MPISW_ERR_IO, "rank 1 (pid", "did not answer within 2 s");
      CHECK(dt > 1.5 && dt < 6, "the failure took %.2f s, the limit is 2 s", dt);
    } else {
      CHECK(rc == MPI_SUCCESS, "mmap on one node needs no agent: %s", tl_errstr(rc));
      check_durable(1, 1, "after syncing a stopped target");
    }
    CHECK_MPI(MPI_Win_unlock_all(win));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_free(&win));
}

/* More pieces than a target keeps ranges for (8), and a strided datatype:
 * every piece is durable after the sync, none before. */
static void ranges(void) {
  void *base;
  MPI_Win win = make("storage_sync_scope=remote", NULL, &base);
  memset(base, 0, WIN);
  TL_SYNC(win);
  MPI_Barrier(MPI_COMM_WORLD);
  enum { PIECES = 12, PIECE = 4096, STRIDE = 64 << 10 };
  static char buf[PIECES][PIECE];
  const int t = tl_size - 1; /* on another node under multinode.sh */
  const char *path = tl_path("w%d", t);
  if (tl_rank == 0) {
    CHECK_MPI(MPI_Win_lock_all(0, win));
    for (int i = 0; i < PIECES; i++) {
      memset(buf[i], i + 1, PIECE);
      CHECK_MPI(MPI_Put(buf[i], PIECE, MPI_BYTE, t, (MPI_Aint)i * STRIDE, PIECE, MPI_BYTE, win));
    }
    /* 4 blocks of one page, 128 KiB apart, from 1 MiB on: one vector */
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(4, PIECE, 128 << 10, MPI_BYTE, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    static char vbuf[4 * PIECE];
    memset(vbuf, 0x5a, sizeof vbuf);
    CHECK_MPI(MPI_Put(vbuf, sizeof vbuf, MPI_BYTE, t, 1 << 20, 1, vec, win));
    CHECK_MPI(MPI_Win_flush_all(win));
    for (int i = 0; i < PIECES; i++)
      CHECK(pending_pages(path, (uint64_t)i * STRIDE, PIECE) != 0, "piece %d clean before", i);
    CHECK(pending_pages(path, (1 << 20) + 3 * (128 << 10), PIECE) != 0, "vector end clean before");
    CHECK_MPI(MPI_Win_sync(win));
    for (int i = 0; i < PIECES; i++)
      CHECK(pending_pages(path, (uint64_t)i * STRIDE, PIECE) == 0, "piece %d still dirty", i);
    for (int k = 0; k < 4; k++)
      CHECK(pending_pages(path, (1 << 20) + (uint64_t)k * (128 << 10), PIECE) == 0,
            "vector block %d still dirty", k);
    CHECK_MPI(MPI_Win_unlock_all(win));
    MPI_Type_free(&vec);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_free(&win));
}

/* Sync agent threads of this process (named mpisw-sync). */
static int threads(void) {
  DIR *d = opendir("/proc/self/task");
  CHECK(d != NULL, "no /proc/self/task");
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    char path[300], name[64] = "";
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    FILE *f = e->d_name[0] != '.' ? fopen(path, "r") : NULL;
    if (!f) continue;
    if (fgets(name, sizeof name, f)) n += strncmp(name, "mpisw-sync", 10) == 0;
    fclose(f);
  }
  closedir(d);
  return n;
}

/* A window of one rank starts no sync agent (nobody could ask it); one of
 * two ranks does, and it goes with the window. */
static void alone(void) {
  MPI_Comm self;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, tl_rank, 0, &self));
  void *base;
  MPI_Win win;
  int before = threads();
  CHECK(before == 0, "%d sync agents before any storage window", before);
  tl_walloc_(__FILE__, __LINE__, WIN, self, &base, &win, tl_path("a%%r-%d", tl_rank),
             "storage_sync_scope=remote", NULL);
  CHECK(threads() == before, "%d threads with a one-rank window, %d before", threads(), before);
  CHECK_MPI(MPIX_Win_sync_target(win, 0)); /* itself: a local sync */
  CHECK_MPI(MPI_Win_free(&win));
  MPI_Barrier(MPI_COMM_WORLD);
  win = make("storage_sync_scope=remote", NULL, &base);
  CHECK(threads() == before + 1, "%d threads with a two-rank window, %d before", threads(),
        before);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(threads() == before, "%d threads after the free, %d before", threads(), before);
  MPI_Comm_free(&self);
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  backend = argc > 2 ? argv[2] : "mmap";
  if (!strcmp(mode, "busy")) busy(0);
  else if (!strcmp(mode, "during")) busy(1);
  else if (!strcmp(mode, "target")) target();
  else if (!strcmp(mode, "dead")) dead();
  else if (!strcmp(mode, "ranges")) ranges();
  else if (!strcmp(mode, "alone")) alone();
  else tl_fail(__FILE__, __LINE__, "unknown mode '%s'", mode);
  return tl_finish();
}
