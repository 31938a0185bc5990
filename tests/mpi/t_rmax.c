/*
 * RMA extensions (docs/RMA_EXTENSIONS.md). t_rmax CASE [memory|storage]:
 *   duplock   a lock held through a duplicate blocks a lock through the parent;
 *             fence and sync through a duplicate; freeing it keeps the parent
 *   info      mpi_win_* keys inherited and overridden, effective values,
 *             the parent's group and attributes through the duplicate
 *   memhandle RMA through memory-handle windows (arena and attached memory),
 *             a released handle refused, wrong target and fence refused
 *   order     mpi_win_order=true: a checker process never sees the flag of
 *             an ordered put before the data put ahead of it
 *   rrput     completion of MPIX_Rrput / MPIX_Rraccumulate /
 *             MPIX_Rrget_accumulate implies the data is at the target
 *   intrinsic MPIX_Win_op_intrinsic answers and checks its arguments
 *   duplimit  duplicates until the MPI runs out: a clear error, then recovery
 * "storage" puts the windows (and MPI_Alloc_mem memory) on storage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define WS (1 << 20)

static int on_storage;

static MPI_Info win_info(const char *kv1, const char *kv2) {
  if (on_storage) return tl_sinfo(tl_path("rmax-%%r.dat"), kv1, kv2, NULL);
  return tl_info(kv1 ? kv1 : "no_locks=false", kv2, NULL);
}

static MPI_Win make_win(MPI_Aint size, const char *kv1, const char *kv2, void **base) {
  MPI_Info info = win_info(kv1, kv2);
  MPI_Win win;
  int rc = MPI_Win_allocate(size, 1, info, MPI_COMM_WORLD, base, &win);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) tl_fail(__FILE__, __LINE__, "MPI_Win_allocate: %s", tl_errstr(rc));
  tl_win_errors_return(win);
  if (on_storage) {
    const char *t = tl_win_info(win, "alloc_type");
    CHECK(t && !strcmp(t, "storage"), "window is not on storage (alloc_type %s)", t ? t : "(none)");
  }
  return win;
}

static int64_t rd64(const void *p) {
  int64_t v;
  memcpy(&v, p, 8);
  return v;
}

/* ---- duplock ---- */
static void t_duplock(void) {
  void *base;
  MPI_Win win = make_win(4096, NULL, NULL, &base);
  memset(base, 0, 4096);
  MPI_Win dup;
  CHECK_MPI(MPIX_Win_dup_with_info(win, MPI_INFO_NULL, &dup));
  CHECK(dup != win, "the duplicate is the parent's handle");
  MPI_Barrier(MPI_COMM_WORLD);
  const int64_t marker = 4242;
  if (tl_size >= 2) {
    if (tl_rank == 0) {
      /* hold the exclusive lock on rank 0's memory through the duplicate */
      CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, dup));
      int64_t z = 0;
      CHECK_MPI(MPI_Put(&z, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, dup));
      CHECK_MPI(MPI_Win_flush(0, dup));
      MPI_Barrier(MPI_COMM_WORLD);
      usleep(300000);
      CHECK_MPI(MPI_Put(&marker, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, dup));
      CHECK_MPI(MPI_Win_unlock(0, dup));
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
      /* rank 0 holds the lock: this lock, through the parent, waits for it */
      double t0 = MPI_Wtime();
      int64_t got = -1;
      CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      CHECK_MPI(MPI_Get(&got, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win));
      CHECK_MPI(MPI_Win_unlock(0, win));
      double waited = MPI_Wtime() - t0;
      CHECK(got == marker, "read %" PRId64 " under the parent's lock while the duplicate's lock was "
            "held (expected %" PRId64 ": the locks are not the same lock)", got, marker);
      tl_log("lock through the parent waited %.3f s for the duplicate's lock", waited);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  /* fence through the duplicate is a fence on the parent */
  CHECK_MPI(MPI_Win_fence(0, dup));
  int64_t v = 100 + tl_rank;
  CHECK_MPI(MPI_Put(&v, 1, MPI_INT64_T, (tl_rank + 1) % tl_size, 8, 1, MPI_INT64_T, dup));
  CHECK_MPI(MPI_Win_fence(0, win));
  int from = (tl_rank + tl_size - 1) % tl_size;
  CHECK(rd64((char *)base + 8) == 100 + from, "after fence: %" PRId64 ", expected %d",
        rd64((char *)base + 8), 100 + from);
  /* MPI_Win_sync through the duplicate (storage: makes the parent durable) */
  CHECK_MPI(MPI_Win_lock_all(0, dup));
  CHECK_MPI(MPI_Win_sync(dup));
  CHECK_MPI(MPI_Win_unlock_all(dup));
  if (on_storage) {
    int64_t f = 0;
    CHECK(tl_pread(tl_path("rmax-%d.dat", tl_rank), 8, &f, 8) == 8, "short read");
    CHECK(f == 100 + from, "file holds %" PRId64 " after MPI_Win_sync through the duplicate", f);
  }
  /* a duplicate of a duplicate, then free both: the parent still works */
  MPI_Win dup2;
  CHECK_MPI(MPIX_Win_dup_with_info(dup, MPI_INFO_NULL, &dup2));
  CHECK_MPI(MPI_Win_free(&dup));
  CHECK(dup == MPI_WIN_NULL, "MPI_Win_free left the duplicate's handle");
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, from, 0, dup2));
  int64_t got = 0;
  CHECK_MPI(MPI_Get(&got, 1, MPI_INT64_T, from, 8, 1, MPI_INT64_T, dup2));
  CHECK_MPI(MPI_Win_unlock(from, dup2));
  int fromfrom = (from + tl_size - 1) % tl_size;
  CHECK(got == 100 + fromfrom, "get through a duplicate of a duplicate: %" PRId64, got);
  CHECK_MPI(MPI_Win_free(&dup2));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Win_free(&win));
}

/* ---- info ---- */
static void check_key(MPI_Win w, const char *key, const char *want, const char *what) {
  const char *v = tl_win_info(w, key);
  CHECK(v && !strcmp(v, want), "%s: %s is %s, expected %s", what, key, v ? v : "(absent)", want);
}

static int deleted;
static int count_delete(MPI_Win w, int kv, void *val, void *extra) {
  (void)w, (void)kv, (void)extra;
  ++*(int *)val;
  return MPI_SUCCESS;
}

static void t_info(void) {
  void *base;
  MPI_Win win = make_win(8192, "mpi_win_order=true", "mpi_win_scope=process", &base);
  check_key(win, "mpi_win_order", "true", "parent");
  check_key(win, "mpi_win_scope", "process", "parent");
  check_key(win, "mpi_assert_accumulate_intrinsic", "false", "parent");
  MPI_Info di = tl_info("mpi_win_scope=thread", "mpi_assert_accumulate_intrinsic=true", NULL);
  MPI_Win dup;
  CHECK_MPI(MPIX_Win_dup_with_info(win, di, &dup));
  MPI_Info_free(&di);
  check_key(dup, "mpi_win_order", "true", "duplicate (inherited)");
  /* no thread-scope completion in either MPI: the effective value is process */
  check_key(dup, "mpi_win_scope", "process", "duplicate (effective)");
  check_key(dup, "mpi_assert_accumulate_intrinsic", "false", "duplicate (effective)");
  if (on_storage) check_key(dup, "alloc_type", "storage", "duplicate of a storage window");
  MPI_Info oi = tl_info("mpi_win_order=false", NULL);
  MPI_Win dup2;
  CHECK_MPI(MPIX_Win_dup_with_info(dup, oi, &dup2));
  MPI_Info_free(&oi);
  check_key(dup2, "mpi_win_order", "false", "duplicate (overridden)");
  check_key(dup, "mpi_win_order", "true", "first duplicate after its duplicate overrode");
  check_key(win, "mpi_win_order", "true", "parent after its duplicate overrode");
  /* MPI_Win_set_info on a duplicate changes only it */
  MPI_Info si = tl_info("mpi_win_order=false", NULL);
  CHECK_MPI(MPI_Win_set_info(dup, si));
  MPI_Info_free(&si);
  check_key(dup, "mpi_win_order", "false", "duplicate after MPI_Win_set_info");
  check_key(win, "mpi_win_order", "true", "parent after the duplicate's MPI_Win_set_info");
  /* the parent's group and attributes */
  MPI_Group g;
  int gs = 0;
  CHECK_MPI(MPI_Win_get_group(dup, &g));
  MPI_Group_size(g, &gs);
  MPI_Group_free(&g);
  CHECK(gs == tl_size, "group of the duplicate has %d ranks, expected %d", gs, tl_size);
  MPI_Aint *sz = NULL;
  void *b = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Win_get_attr(dup, MPI_WIN_SIZE, &sz, &flag));
  CHECK(flag && *sz == 8192, "MPI_WIN_SIZE of the duplicate is %ld", flag ? (long)*sz : -1L);
  CHECK_MPI(MPI_Win_get_attr(dup, MPI_WIN_BASE, &b, &flag));
  CHECK(flag && b == base, "MPI_WIN_BASE of the duplicate is %p, expected %p", b, base);
  CHECK(tl_win_flavor(dup) == MPI_WIN_FLAVOR_ALLOCATE, "flavor of the duplicate is %d",
        tl_win_flavor(dup));
  /* its own name */
  CHECK_MPI(MPI_Win_set_name(dup, "the-duplicate"));
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  CHECK_MPI(MPI_Win_get_name(win, name, &len));
  CHECK(strcmp(name, "the-duplicate"), "naming the duplicate renamed the parent");
  /* a user attribute on a duplicate: its delete callback runs at its free,
   * and a later duplicate (maybe the same recycled handle) has neither it
   * nor the old name */
  int kv;
  CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, count_delete, &kv, NULL));
  CHECK_MPI(MPI_Win_set_attr(dup2, kv, &deleted));
  CHECK_MPI(MPI_Win_set_name(dup2, "old-name"));
  CHECK_MPI(MPI_Win_free(&dup2));
  CHECK(deleted == 1, "attribute delete callback ran %d times at the duplicate's free", deleted);
  CHECK_MPI(MPIX_Win_dup_with_info(win, MPI_INFO_NULL, &dup2));
  void *val = NULL;
  CHECK_MPI(MPI_Win_get_attr(dup2, kv, &val, &flag));
  CHECK(!flag, "a new duplicate carries an attribute of a freed one");
  CHECK_MPI(MPI_Win_get_name(dup2, name, &len));
  CHECK(strcmp(name, "old-name"), "a new duplicate carries the name of a freed one");
  CHECK_MPI(MPI_Win_free(&dup2));
  CHECK_MPI(MPI_Win_free_keyval(&kv));
  CHECK_MPI(MPI_Win_free(&dup));
  CHECK_MPI(MPI_Win_free(&win));
  /* a shared window's duplicate answers MPI_Win_shared_query as the parent */
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Info shi = win_info(NULL, NULL);
  void *sb;
  MPI_Win sw, sd;
  CHECK_MPI(MPI_Win_allocate_shared(4096, 1, shi, node, &sb, &sw));
  MPI_Info_free(&shi);
  CHECK_MPI(MPIX_Win_dup_with_info(sw, MPI_INFO_NULL, &sd));
  MPI_Aint qs1, qs2;
  int du1, du2;
  void *qb1, *qb2;
  CHECK_MPI(MPI_Win_shared_query(sw, 0, &qs1, &du1, &qb1));
  CHECK_MPI(MPI_Win_shared_query(sd, 0, &qs2, &du2, &qb2));
  CHECK(qs1 == qs2 && du1 == du2 && qb1 == qb2, "shared query through the duplicate differs");
  CHECK(tl_win_flavor(sd) == MPI_WIN_FLAVOR_SHARED, "flavor of a shared window's duplicate is %d",
        tl_win_flavor(sd));
  CHECK_MPI(MPI_Win_free(&sd));
  CHECK_MPI(MPI_Win_free(&sw));
  MPI_Comm_free(&node);
}

/* ---- memhandle ---- */
struct mh {
  char h[MPIX_MAX_MEMHANDLE_SIZE];
  int size;
};

static void t_memhandle(void) {
  MPI_Win dyn;
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn));
  tl_win_errors_return(dyn);
  const MPI_Aint n = 64 * 1024;
  /* a: from MPI_Alloc_mem (the arena, or storage); b: plain malloc (attached) */
  char *a = NULL;
  MPI_Info ai = on_storage ? tl_sinfo(tl_path("rmax-mem-%%r.dat"), NULL) : MPI_INFO_NULL;
  CHECK_MPI(MPI_Alloc_mem(n, ai, &a));
  if (ai != MPI_INFO_NULL) MPI_Info_free(&ai);
  char *b = malloc((size_t)n);
  CHECK(b, "malloc");
  memset(a, 0, (size_t)n);
  memset(b, 0, (size_t)n);
  struct mh mine[2], theirs[2];
  CHECK_MPI(MPIX_Memhandle_create(a, n, dyn, mine[0].h, &mine[0].size));
  CHECK(mine[0].size > 0 && mine[0].size <= MPIX_MAX_MEMHANDLE_SIZE, "memhandle size %d", mine[0].size);
  /* Open MPI 4.1 osc/ucx crashes with two regions attached to one dynamic
   * window: the malloc region gets a handle only when a is arena memory */
  int two = !on_storage;
  if (two) CHECK_MPI(MPIX_Memhandle_create(b, n, dyn, mine[1].h, &mine[1].size));
  int right = (tl_rank + 1) % tl_size, left = (tl_rank + tl_size - 1) % tl_size;
  MPI_Sendrecv(mine, sizeof mine, MPI_BYTE, left, 1, theirs, sizeof theirs, MPI_BYTE, right, 1,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  /* windows on the right neighbour's memory, displacement unit 8 */
  MPI_Win mw[2];
  for (int k = 0; k < 1 + two; k++) {
    CHECK_MPI(MPIX_Win_from_memhandle(theirs[k].h, n, 8, MPI_INFO_NULL, right, dyn, &mw[k]));
    MPI_Aint *sz;
    int flag;
    CHECK_MPI(MPI_Win_get_attr(mw[k], MPI_WIN_SIZE, &sz, &flag));
    CHECK(flag && *sz == n, "MPI_WIN_SIZE of the memory-handle window");
  }
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, dyn));
  char *src = malloc((size_t)n), *back = malloc((size_t)n);
  CHECK(src && back, "malloc");
  for (int k = 0; k < 1 + two; k++) {
    tl_fill(src, (size_t)n / 2, 10 * tl_rank + k, 0);
    CHECK_MPI(MPI_Put(src, (int)n / 2, MPI_BYTE, right, 16, (int)n / 2, MPI_BYTE, mw[k]));
    int64_t one = 1;
    CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T, MPI_SUM, mw[k]));
    CHECK_MPI(MPI_Win_flush(right, mw[k]));
    memset(back, 0, (size_t)n);
    CHECK_MPI(MPI_Get(back, (int)n / 2, MPI_BYTE, right, 16, (int)n / 2, MPI_BYTE, mw[k]));
    CHECK_MPI(MPI_Win_flush(right, mw[k]));
    long bad = tl_verify(back, (size_t)n / 2, 10 * tl_rank + k, 0);
    CHECK(bad < 0, "memhandle %d: byte %ld read back differs", k, bad);
    /* refused: another target, active target synchronization */
    if (tl_size > 1) {
      int rc = MPI_Put(src, 1, MPI_BYTE, tl_rank, 0, 1, MPI_BYTE, mw[k]);
      EXPECT_ERR(rc, MPISW_ERR_USAGE, "only target", NULL);
    }
    EXPECT_ERR(MPI_Win_fence(0, mw[k]), MPISW_ERR_USAGE, "passive target", NULL);
  }
  CHECK_MPI(MPI_Win_unlock(right, dyn));
  /* a lock through the handle window is the parent's lock at its target;
   * MPIX_Rrput through it completes at the target */
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, mw[0]));
  int64_t tag = 7000 + tl_rank;
  MPI_Request rq;
  CHECK_MPI(MPIX_Rrput(&tag, 1, MPI_INT64_T, right, 1, 1, MPI_INT64_T, mw[0], &rq));
  CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Win_unlock(right, mw[0]));
  for (int k = 0; k < 1 + two; k++) CHECK_MPI(MPI_Win_free(&mw[k]));
  MPI_Barrier(MPI_COMM_WORLD);
  /* the data is in the owner's memory */
  for (int k = 0; k < 1 + two; k++) {
    char *m = k ? b : a;
    long bad = tl_verify(m + 128, (size_t)n / 2, 10 * left + k, 0);
    CHECK(bad < 0, "memory %d: byte %ld is not what the left neighbour put (%s)", k, bad,
          tl_describe(m + 128 + (bad < 0 ? 0 : bad), 8, 0));
    CHECK(rd64(m) == 1, "memory %d: accumulated counter is %" PRId64, k, rd64(m));
  }
  CHECK(rd64(a + 8) == 7000 + left, "MPIX_Rrput through the handle window: %" PRId64, rd64(a + 8));
  /* release, then the handle is refused */
  for (int k = 0; k < 1 + two; k++) CHECK_MPI(MPIX_Memhandle_release(mine[k].h, dyn));
  EXPECT_ERR(MPIX_Memhandle_release(mine[0].h, dyn), MPISW_ERR_USAGE, "not a live memory handle", NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win bad = MPI_WIN_NULL;
  int rc = MPIX_Win_from_memhandle(theirs[0].h, n, 1, MPI_INFO_NULL, right, dyn, &bad);
  EXPECT_ERR(rc, MPISW_ERR_USAGE, "released", NULL);
  CHECK(bad == MPI_WIN_NULL, "a window was made from a released handle");
  char junk[MPIX_MAX_MEMHANDLE_SIZE] = {0};
  EXPECT_ERR(MPIX_Win_from_memhandle(junk, n, 1, MPI_INFO_NULL, right, dyn, &bad), MPISW_ERR_USAGE,
             "not a memory handle", NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Free_mem(a));
  free(b);
  free(src);
  free(back);
  CHECK_MPI(MPI_Win_free(&dyn));
}

/* ---- order ---- */
#define ODATA (256 * 1024)
#define OFLAG ODATA
#define OROUNDS 30

static void t_order(void) {
  if (tl_size < 2) {
    MPI_Barrier(MPI_COMM_WORLD);
    return;
  }
  void *base;
  MPI_Win win = make_win(ODATA + 64, NULL, NULL, &base);
  memset(base, 0, ODATA + 64);
  MPI_Info oi = tl_info("mpi_win_order=true", NULL);
  MPI_Win ord;
  CHECK_MPI(MPIX_Win_dup_with_info(win, oi, &ord));
  MPI_Info_free(&oi);
  check_key(ord, "mpi_win_order", "true", "ordered duplicate");
  MPI_Barrier(MPI_COMM_WORLD);
  const int origin = 0, target = 1, checker = tl_size - 1; /* the target itself at 2 ranks */
  CHECK_MPI(MPI_Win_lock_all(0, win));
  if (tl_rank == origin) {
    unsigned char *data = malloc(ODATA);
    CHECK(data, "malloc");
    for (int64_t i = 1; i <= OROUNDS; i++) {
      memset(data, (int)i, ODATA);
      /* no flush between the two: the window orders them */
      CHECK_MPI(MPI_Put(data, ODATA, MPI_BYTE, target, 0, ODATA, MPI_BYTE, ord));
      CHECK_MPI(MPI_Put(&i, 1, MPI_INT64_T, target, OFLAG, 1, MPI_INT64_T, ord));
      /* MPI promises completion only at a flush (Open MPI's osc/ucx makes no
       * progress before it); the checker may see the flag before it ends */
      CHECK_MPI(MPI_Win_flush(target, ord));
      int ack;
      MPI_Recv(&ack, 1, MPI_INT, checker, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    free(data);
  }
  if (tl_rank == checker) {
    unsigned char *seen = malloc(ODATA);
    CHECK(seen, "malloc");
    for (int64_t i = 1; i <= OROUNDS; i++) {
      int64_t flag = 0;
      double t0 = MPI_Wtime();
      while (flag != i) {
        CHECK_MPI(MPI_Get(&flag, 1, MPI_INT64_T, target, OFLAG, 1, MPI_INT64_T, win));
        CHECK_MPI(MPI_Win_flush(target, win));
        int any; /* Open MPI's osc/ucx: a target polling itself must also progress */
        MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &any, MPI_STATUS_IGNORE);
        CHECK(MPI_Wtime() - t0 < 20, "round %" PRId64 ": flag never arrived (last %" PRId64 ")", i, flag);
      }
      CHECK_MPI(MPI_Get(seen, ODATA, MPI_BYTE, target, 0, ODATA, MPI_BYTE, win));
      CHECK_MPI(MPI_Win_flush(target, win));
      for (size_t k = 0; k < ODATA; k++)
        CHECK(seen[k] == (unsigned char)i, "round %" PRId64 ": flag seen before the data put ahead of "
              "it (byte %zu is %d)", i, k, seen[k]);
      int ack = 1;
      MPI_Send(&ack, 1, MPI_INT, origin, 2, MPI_COMM_WORLD);
    }
    free(seen);
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Win_free(&ord));
  CHECK_MPI(MPI_Win_free(&win));
}

/* ---- rrput ---- */
static void t_rrput(void) {
  void *base;
  const int cnt = 8192; /* int64 elements */
  MPI_Win win = make_win((MPI_Aint)cnt * 8 * 3, NULL, NULL, &base);
  memset(base, 0, (size_t)cnt * 8 * 3);
  MPI_Win dup;
  CHECK_MPI(MPIX_Win_dup_with_info(win, MPI_INFO_NULL, &dup));
  MPI_Barrier(MPI_COMM_WORLD);
  int right = (tl_rank + 1) % tl_size, left = (tl_rank + tl_size - 1) % tl_size;
  int64_t *src = malloc((size_t)cnt * 8), *res = malloc((size_t)cnt * 8);
  CHECK(src && res, "malloc");
  for (int i = 0; i < cnt; i++) src[i] = (int64_t)tl_rank * 1000000 + i;
  CHECK_MPI(MPI_Win_lock_all(0, win));
  MPI_Request r[3];
  CHECK_MPI(MPIX_Rrput(src, cnt, MPI_INT64_T, right, 0, cnt, MPI_INT64_T, win, &r[0]));
  CHECK_MPI(MPIX_Rraccumulate(src, cnt, MPI_INT64_T, right, (MPI_Aint)cnt * 8, cnt, MPI_INT64_T,
                              MPI_SUM, dup, &r[1]));
  CHECK_MPI(MPIX_Rrget_accumulate(src, cnt, MPI_INT64_T, res, cnt, MPI_INT64_T, right,
                                  (MPI_Aint)cnt * 16, cnt, MPI_INT64_T, MPI_REPLACE, dup, &r[2]));
  for (int k = 0; k < 3; k++) CHECK_MPI(MPI_Wait(&r[k], MPI_STATUS_IGNORE));
  for (int i = 0; i < cnt; i++) CHECK(res[i] == 0, "get_accumulate result %d is %" PRId64, i, res[i]);
  /* no flush: the completed requests say the data is at the target; tell it */
  int go = 1, got_go = 0;
  MPI_Sendrecv(&go, 1, MPI_INT, right, 3, &got_go, 1, MPI_INT, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK_MPI(MPI_Win_sync(win));
  const int64_t *m = base;
  for (int part = 0; part < 3; part++)
    for (int i = 0; i < cnt; i++) {
      int64_t want = (int64_t)left * 1000000 + i;
      CHECK(m[part * cnt + i] == want, "part %d element %d is %" PRId64 " at the target after the "
            "remote-completing request completed, expected %" PRId64, part, i, m[part * cnt + i], want);
    }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_unlock_all(win));
  free(src);
  free(res);
  CHECK_MPI(MPI_Win_free(&dup));
  CHECK_MPI(MPI_Win_free(&win));
}

/* ---- intrinsic ---- */
static void t_intrinsic(void) {
  void *base;
  MPI_Win win = make_win(4096, NULL, NULL, &base);
  int flag = -1;
  CHECK_MPI(MPIX_Win_op_intrinsic(win, "sum,replace,cas", 1, MPI_INT64_T, &flag));
  /* a window of the MPI's (memory, or storage without the keys): neither
   * MPI has an intrinsic path; the node-shared storage windows that have one
   * are tested by t_intrinsic */
  CHECK(flag == 0, "flag is %d on a window without mpisw's atomic path", flag);
  tl_log("MPIX_Win_op_intrinsic(sum,replace,cas, 1 x int64) = %d", flag);
  EXPECT_ERR(MPIX_Win_op_intrinsic(win, "sum,frobnicate", 1, MPI_INT64_T, &flag), MPISW_ERR_USAGE,
             "frobnicate", NULL);
  EXPECT_ERR(MPIX_Win_op_intrinsic(win, "sum", -1, MPI_INT64_T, &flag), MPISW_ERR_USAGE, "negative",
             NULL);
  CHECK_MPI(MPI_Win_free(&win));
}

/* ---- duplimit ---- */
#define MAXDUPS 2100

static void t_duplimit(void) {
  void *base;
  MPI_Win win = make_win(4096, NULL, NULL, &base);
  MPI_Win *d = malloc(MAXDUPS * sizeof *d);
  CHECK(d, "malloc");
  int n = 0, rc = MPI_SUCCESS;
  while (n < MAXDUPS && (rc = MPIX_Win_dup_with_info(win, MPI_INFO_NULL, &d[n])) == MPI_SUCCESS) n++;
  tl_log("%d duplicates alive%s", n, rc == MPI_SUCCESS ? "" : " before the MPI ran out");
  if (rc != MPI_SUCCESS) {
    EXPECT_ERR(rc, MPISW_ERR_USAGE, "context", NULL);
    CHECK(n > 1000, "only %d duplicates before the limit", n);
  }
  /* every duplicate is usable, and after freeing some a new one works */
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, d[n - 1]));
  CHECK_MPI(MPI_Win_unlock(0, d[0]));
  for (int i = 0; i < n; i++) CHECK_MPI(MPI_Win_free(&d[i]));
  MPI_Win again;
  CHECK_MPI(MPIX_Win_dup_with_info(win, MPI_INFO_NULL, &again));
  CHECK_MPI(MPI_Win_free(&again));
  free(d);
  CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *c = argc > 1 ? argv[1] : "";
  on_storage = argc > 2 && !strcmp(argv[2], "storage");
  if (on_storage) tl_scratch();
  if (!strcmp(c, "duplock")) t_duplock();
  else if (!strcmp(c, "info")) t_info();
  else if (!strcmp(c, "memhandle")) t_memhandle();
  else if (!strcmp(c, "order")) t_order();
  else if (!strcmp(c, "rrput")) t_rrput();
  else if (!strcmp(c, "intrinsic")) t_intrinsic();
  else if (!strcmp(c, "duplimit")) t_duplimit();
  else tl_fail(__FILE__, __LINE__, "unknown case '%s'", c);
  return tl_finish();
}
