/*
 * Intrinsic accumulates as processor atomics (src/rmax/atomic.c,
 * docs/RMA_EXTENSIONS.md). Windows are storage windows on the MPI's
 * node-shared window (storage_node_shared=true) with
 * mpi_assert_accumulate_intrinsic=true and accumulate_ordering=none, unless
 * a case says otherwise. Each rank's part has a different size that is not
 * a page multiple. t_intrinsic CASE:
 *   answers    MPIX_Win_op_intrinsic is 1 exactly for sum/replace/no_op/cas
 *              on the 4- and 8-byte integer types of such a window (and its
 *              duplicate), 0 for other ops and types, without either key,
 *              and on a memory window with both keys; the effective info
 *   contention every rank adds N times into one 8-byte and one 4-byte
 *              location of rank 0 (fetch_and_op, accumulate, get_accumulate,
 *              raccumulate) and counts with a CAS loop: exact totals, every
 *              fetched value seen once; in lock_all and in fence epochs
 *   semantics  compare_and_swap, replace, no_op, counts > 1, unsigned wrap,
 *              results in unaligned buffers, the file holds the values
 *   range      a target beyond a rank's part: MPI_ERR_RMA_RANGE, no fault;
 *              the last element of every part works
 *   epoch      an operation outside any epoch gets the error class the MPI
 *              gives on its own window (MPICH: MPI_ERR_RMA_SYNC; Open MPI
 *              osc/sm checks nothing)
 * Results are read right after the call, without a flush: on this path an
 * operation is complete when the call returns (docs/RMA_EXTENSIONS.md), and
 * that is part of what is tested (the MPI's own path would need
 * MPI_Win_flush_local first, and these cases fail on it).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpisw.h"
#include "testlib.h"

#define UNIT 8 /* displacement unit of every window here */

static MPI_Aint part_bytes(int rank) { return 1000 + 8 * 37 * rank; }

/* A storage window on the node-shared path with the keys given. */
static MPI_Win make(const char *acc, const char *ordering, int64_t **base) {
  static int serial;
  MPI_Info info = tl_sinfo(tl_path("intr-%d-%%r.win", serial++), "storage_node_shared=true",
                          "storage_alloc_unlink=false", NULL);
  if (acc) tl_info_setf(info, "mpi_assert_accumulate_intrinsic", "%s", acc);
  if (ordering) tl_info_setf(info, "accumulate_ordering", "%s", ordering);
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(part_bytes(tl_rank), UNIT, info, MPI_COMM_WORLD, base, &win));
  MPI_Info_free(&info);
  tl_win_errors_return(win);
  memset(*base, 0, (size_t)part_bytes(tl_rank));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  return win;
}

static MPI_Win make_atomic(int64_t **base) { return make("true", "none", base); }

static int node_shared(MPI_Win win) {
  const char *v = tl_win_info(win, "storage_node_shared");
  return v && !strcmp(v, "true");
}

static int ask(MPI_Win win, const char *ops, int max_count, MPI_Datatype dt) {
  int flag = -1;
  CHECK_MPI(MPIX_Win_op_intrinsic(win, ops, max_count, dt, &flag));
  return flag;
}

/* ---- answers ---- */
static void expect_all(MPI_Win win, int want, const char *what) {
  struct {
    MPI_Datatype t;
    const char *name;
  } ints[] = {{MPI_INT, "MPI_INT"},           {MPI_INT32_T, "MPI_INT32_T"},
              {MPI_UINT32_T, "MPI_UINT32_T"}, {MPI_INT64_T, "MPI_INT64_T"},
              {MPI_UINT64_T, "MPI_UINT64_T"}, {MPI_LONG, "MPI_LONG"},
              {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG"}, {MPI_LONG_LONG, "MPI_LONG_LONG"},
              {MPI_UNSIGNED, "MPI_UNSIGNED"}, {MPI_AINT, "MPI_AINT"},
              {MPI_OFFSET, "MPI_OFFSET"}};
  const char *ops[] = {"sum", "replace", "no_op", "cas", "sum,replace,no_op,cas", " SUM , Cas "};
  for (size_t t = 0; t < sizeof ints / sizeof ints[0]; t++)
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
      for (int count = 0; count <= 64; count += 63) {
        int f = ask(win, ops[o], count, ints[t].t);
        CHECK(f == want, "%s: MPIX_Win_op_intrinsic(\"%s\", %d, %s) = %d, expected %d", what,
              ops[o], count, ints[t].name, f, want);
      }
}

static void expect_none(MPI_Win win, const char *what) {
  /* other operations, alone or among intrinsic ones */
  const char *ops[] = {"max", "min", "prod", "band", "bor", "bxor", "land", "lor", "lxor",
                       "maxloc", "minloc", "sum,max", "cas,prod"};
  for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
    CHECK(ask(win, ops[o], 1, MPI_INT64_T) == 0, "%s: \"%s\" on MPI_INT64_T answered 1", what,
          ops[o]);
  /* other datatypes: floating point, 1- and 2-byte integers, a derived type */
  MPI_Datatype pair;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
  CHECK_MPI(MPI_Type_commit(&pair));
  MPI_Datatype other[] = {MPI_DOUBLE, MPI_FLOAT, MPI_SHORT, MPI_CHAR, MPI_INT8_T, MPI_INT16_T,
                          MPI_BYTE, pair};
  for (size_t t = 0; t < sizeof other / sizeof other[0]; t++)
    CHECK(ask(win, "sum", 1, other[t]) == 0, "%s: sum on datatype #%zu answered 1", what, t);
  MPI_Type_free(&pair);
}

static void check_key(MPI_Win win, const char *want, const char *what) {
  const char *v = tl_win_info(win, "mpi_assert_accumulate_intrinsic");
  CHECK(v && !strcmp(v, want), "%s: mpi_assert_accumulate_intrinsic shows %s, expected %s", what,
        v ? v : "(absent)", want);
}

static void t_answers(void) {
  int64_t *base;
  MPI_Win win = make_atomic(&base);
  /* one rank: mpisw never makes a node-shared window, so no atomic path */
  int on = tl_size > 1;
  CHECK(node_shared(win) == on, "storage_node_shared is %s", tl_win_info(win, "storage_node_shared"));
  expect_all(win, on, "node-shared storage window with both keys");
  expect_none(win, "node-shared storage window with both keys");
  check_key(win, on ? "true" : "false", "both keys");
  MPI_Win dup;
  CHECK_MPI(MPIX_Win_dup_with_info(win, MPI_INFO_NULL, &dup));
  expect_all(dup, on, "its duplicate");
  check_key(dup, on ? "true" : "false", "its duplicate");
  CHECK_MPI(MPI_Win_free(&dup));
  CHECK_MPI(MPI_Win_free(&win));

  /* either key missing or different */
  const char *keys[][2] = {{NULL, "none"}, {"false", "none"}, {"true", NULL},
                           {"true", "rar,raw,war,waw"}, {"true", "rar"}};
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
    win = make(keys[k][0], keys[k][1], &base);
    char what[128];
    snprintf(what, sizeof what, "mpi_assert_accumulate_intrinsic=%s accumulate_ordering=%s",
             keys[k][0] ? keys[k][0] : "(unset)", keys[k][1] ? keys[k][1] : "(unset)");
    expect_all(win, 0, what);
    check_key(win, "false", what);
    CHECK_MPI(MPI_Win_free(&win));
  }

  /* a memory window with both keys: the MPI's own accumulate */
  MPI_Info info = tl_info("mpi_assert_accumulate_intrinsic=true", "accumulate_ordering=none", NULL);
  CHECK_MPI(MPI_Win_allocate(4096, UNIT, info, MPI_COMM_WORLD, &base, &win));
  MPI_Info_free(&info);
  expect_all(win, 0, "memory window with both keys");
  check_key(win, "false", "memory window with both keys");
  CHECK_MPI(MPI_Win_free(&win));
  /* and a node-shared window without keys still accumulates (the MPI's path) */
  win = make(NULL, NULL, &base);
  int64_t one = 1, old = -1;
  CHECK_MPI(MPI_Win_lock_all(0, win));
  CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, 0, MPI_SUM, win));
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (tl_rank == 0) CHECK(base[0] == tl_size, "MPI's fetch_and_op: %" PRId64, base[0]);
  CHECK_MPI(MPI_Win_free(&win));
}

/* ---- contention ---- */
#define N 3000

static void t_contention(void) {
  int64_t *base;
  MPI_Win win = make_atomic(&base);
  int64_t *seen = calloc(N, sizeof *seen);
  CHECK(seen, "malloc");
  int64_t one = 1;
  int32_t one32 = 1;
  /* element 0: fetch_and_op sum (8 bytes), element 1: 4-byte sums into its
   * first half (the second half must stay 0), element 2: CAS counter, element 3: accumulate sum,
   * element 4: get_accumulate sum, element 5: raccumulate */
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int i = 0; i < N; i++) {
    CHECK_MPI(MPI_Fetch_and_op(&one, &seen[i], MPI_INT64_T, 0, 0, MPI_SUM, win));
    int32_t o32;
    CHECK_MPI(MPI_Fetch_and_op(&one32, &o32, MPI_INT32_T, 0, 1, MPI_SUM, win)); /* bytes 8..11 */
    CHECK_MPI(MPI_Accumulate(&one32, 1, MPI_UINT32_T, 0, 1, 1, MPI_UINT32_T, MPI_SUM, win));
    int64_t cur, got;
    do {
      CHECK_MPI(MPI_Fetch_and_op(NULL, &cur, MPI_INT64_T, 0, 2, MPI_NO_OP, win));
      int64_t next = cur + 1;
      CHECK_MPI(MPI_Compare_and_swap(&next, &cur, &got, MPI_INT64_T, 0, 2, win));
    } while (got != cur);
    CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, 3, 1, MPI_LONG_LONG, MPI_SUM, win));
    CHECK_MPI(MPI_Get_accumulate(&one, 1, MPI_INT64_T, &got, 1, MPI_INT64_T, 0, 4, 1, MPI_INT64_T,
                                 MPI_SUM, win));
    MPI_Request rq;
    CHECK_MPI(MPI_Raccumulate(&one, 1, MPI_UINT64_T, 0, 5, 1, MPI_UINT64_T, MPI_SUM, win, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  /* the same sums in a fence epoch (the MPI checks that epoch) */
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < N / 10; i++)
    CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, 3, 1, MPI_INT64_T, MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int64_t total = (int64_t)N * tl_size;
  if (tl_rank == 0) {
    int32_t lo, hi;
    memcpy(&lo, (char *)base + 8, 4);
    memcpy(&hi, (char *)base + 12, 4);
    CHECK(base[0] == total, "fetch_and_op sum: %" PRId64 ", expected %" PRId64, base[0], total);
    CHECK(lo == 2 * total && hi == 0, "4-byte sums at bytes 8 and 12: %d and %d, expected %" PRId64
          " and 0 (the 4-byte operation spilled into its neighbour)", lo, hi, 2 * total);
    CHECK(base[2] == total, "CAS counter: %" PRId64 ", expected %" PRId64, base[2], total);
    CHECK(base[3] == total + total / 10, "accumulate sum: %" PRId64 ", expected %" PRId64, base[3],
          total + total / 10);
    CHECK(base[4] == total, "get_accumulate sum: %" PRId64, base[4]);
    CHECK(base[5] == total, "raccumulate sum: %" PRId64, base[5]);
  }
  /* every value 0..total-1 was fetched exactly once */
  int64_t *all = tl_rank == 0 ? malloc((size_t)total * sizeof *all) : NULL;
  CHECK_MPI(MPI_Gather(seen, N, MPI_INT64_T, all, N, MPI_INT64_T, 0, MPI_COMM_WORLD));
  if (tl_rank == 0) {
    char *hit = calloc((size_t)total, 1);
    CHECK(all && hit, "malloc");
    for (int64_t i = 0; i < total; i++) {
      CHECK(all[i] >= 0 && all[i] < total && !hit[all[i]], "fetched value %" PRId64 " (index %"
            PRId64 ") is out of range or seen twice", all[i], i);
      hit[all[i]] = 1;
    }
    free(hit);
  }
  free(all);
  free(seen);
  tl_log("%d ranks x %d: sums, CAS counter and fetched values exact (path: %s)", tl_size, N,
         ask(win, "sum,cas,no_op", 1, MPI_INT64_T) ? "processor atomics" : "the MPI");
  CHECK(ask(win, "sum,cas,no_op", 1, MPI_INT64_T) == (tl_size > 1), "wrong path");
  CHECK_MPI(MPI_Win_free(&win));
}

/* ---- semantics ---- */
static void t_semantics(void) {
  int64_t *base;
  MPI_Win win = make_atomic(&base);
  int n = tl_size, right = (tl_rank + 1) % n;
  /* each rank works on its right neighbour's elements 0..15 */
  char buf[64];
  int64_t v, cmp, res;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
  v = 5;
  CHECK_MPI(MPI_Fetch_and_op(&v, &res, MPI_INT64_T, right, 0, MPI_REPLACE, win));
  CHECK(res == 0, "replace returned %" PRId64 ", expected the old 0", res);
  /* a failing CAS leaves the value and returns it */
  v = 9, cmp = 4;
  CHECK_MPI(MPI_Compare_and_swap(&v, &cmp, &res, MPI_INT64_T, right, 0, win));
  CHECK(res == 5, "failing CAS returned %" PRId64 ", expected 5", res);
  CHECK_MPI(MPI_Fetch_and_op(NULL, &res, MPI_INT64_T, right, 0, MPI_NO_OP, win));
  CHECK(res == 5, "after a failing CAS: %" PRId64 ", expected 5", res);
  cmp = 5;
  CHECK_MPI(MPI_Compare_and_swap(&v, &cmp, &res, MPI_INT64_T, right, 0, win));
  CHECK(res == 5, "matching CAS returned %" PRId64 ", expected 5", res);
  CHECK_MPI(MPI_Fetch_and_op(NULL, &res, MPI_INT64_T, right, 0, MPI_NO_OP, win));
  CHECK(res == 9, "after a matching CAS: %" PRId64 ", expected 9", res);
  /* 4-byte CAS and unsigned wrap, results into an unaligned buffer */
  uint32_t u = 0xfffffffeu, ucmp = 0, one = 3;
  CHECK_MPI(MPI_Compare_and_swap(&u, &ucmp, buf + 1, MPI_UINT32_T, right, 2, win));
  CHECK_MPI(MPI_Fetch_and_op(&one, buf + 5, MPI_UINT32_T, right, 2, MPI_SUM, win));
  uint32_t r1, r2;
  memcpy(&r1, buf + 1, 4);
  memcpy(&r2, buf + 5, 4);
  CHECK(r1 == 0 && r2 == 0xfffffffeu, "4-byte CAS / fetch: %u %u", r1, r2);
  /* counts > 1: accumulate, get_accumulate replace and no_op */
  int64_t four[4] = {1, 2, 3, 4}, got[4];
  CHECK_MPI(MPI_Accumulate(four, 4, MPI_INT64_T, right, 4, 4, MPI_INT64_T, MPI_SUM, win));
  CHECK_MPI(MPI_Accumulate(four, 4, MPI_INT64_T, right, 4, 4, MPI_INT64_T, MPI_SUM, win));
  CHECK_MPI(MPI_Get_accumulate(four, 4, MPI_INT64_T, got, 4, MPI_INT64_T, right, 4, 4,
                               MPI_INT64_T, MPI_REPLACE, win));
  for (int k = 0; k < 4; k++) CHECK(got[k] == 2 * (k + 1), "get_accumulate[%d] %" PRId64, k, got[k]);
  MPI_Request rq;
  CHECK_MPI(MPI_Rget_accumulate(NULL, 0, MPI_INT64_T, got, 4, MPI_INT64_T, right, 4, 4,
                                MPI_INT64_T, MPI_NO_OP, win, &rq));
  CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  for (int k = 0; k < 4; k++) CHECK(got[k] == k + 1, "no_op read [%d] %" PRId64, k, got[k]);
  /* int (4 bytes) with MPI_INT */
  int i3 = -7, io;
  CHECK_MPI(MPI_Accumulate(&i3, 1, MPI_INT, right, 8, 1, MPI_INT, MPI_SUM, win));
  CHECK_MPI(MPI_Fetch_and_op(NULL, &io, MPI_INT, right, 8, MPI_NO_OP, win));
  CHECK(io == -7, "MPI_INT sum: %d", io);
  CHECK_MPI(MPI_Win_unlock(right, win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  /* what the left neighbour did is in this rank's memory and file */
  uint32_t w2;
  memcpy(&w2, (char *)base + 16, 4);
  CHECK(base[0] == 9 && w2 == 1 && base[4] == 1 && base[7] == 4,
        "memory: %" PRId64 " %u %" PRId64 " %" PRId64, base[0], w2, base[4], base[7]);
  TL_SYNC(win);
  int64_t f[9];
  CHECK(tl_pread(tl_path("intr-0-%d.win", tl_rank), 0, f, sizeof f) == sizeof f, "short read");
  CHECK(f[0] == 9 && f[4] == 1 && f[7] == 4, "file: %" PRId64 " %" PRId64 " %" PRId64, f[0], f[4],
        f[7]);
  int fi;
  memcpy(&fi, (char *)f + 64, 4);
  CHECK(fi == -7, "file: MPI_INT element %d", fi);
  CHECK_MPI(MPI_Win_free(&win));
}

/* ---- range ---- */
static void t_range(void) {
  int64_t *base;
  MPI_Win win = make_atomic(&base);
  int64_t one = 1, res;
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int r = 0; r < tl_size; r++) {
    MPI_Aint last = part_bytes(r) / UNIT - 1; /* the last whole element */
    CHECK_MPI(MPI_Fetch_and_op(&one, &res, MPI_INT64_T, r, last, MPI_SUM, win));
    int rc = MPI_Fetch_and_op(&one, &res, MPI_INT64_T, r, last + 1, MPI_SUM, win);
    if (tl_size == 1) continue; /* not node-shared: the MPI's own window and checks */
    int cls = -1;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE, "fetch_and_op past rank %d's part: class %d (%s), expected "
          "MPI_ERR_RMA_RANGE", r, cls, rc ? tl_errstr(rc) : "success");
    if (tl_rank == 0 && r == 1) tl_log("ok: %s", tl_errstr(rc));
    rc = MPI_Accumulate(&one, 1, MPI_INT64_T, r, -1, 1, MPI_INT64_T, MPI_SUM, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE, "negative displacement: class %d", cls);
    int64_t four[4] = {0};
    rc = MPI_Accumulate(four, 4, MPI_INT64_T, r, last - 2, 4, MPI_INT64_T, MPI_SUM, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE, "4 elements reaching past the end: class %d", cls);
    int64_t cmp = 0;
    rc = MPI_Compare_and_swap(&one, &cmp, &res, MPI_INT64_T, r, (MPI_Aint)1 << 60, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE, "huge displacement: class %d", cls);
    /* a 4-byte element in the last 4 bytes of an 8-byte slot is inside */
    int32_t one32 = 1;
    CHECK_MPI(MPI_Accumulate(&one32, 1, MPI_INT32_T, r, last, 1, MPI_INT32_T, MPI_SUM, win));
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Aint last = part_bytes(tl_rank) / UNIT - 1;
  int32_t lo;
  memcpy(&lo, &base[last], 4);
  CHECK(lo == 2 * tl_size, "the last element holds %d, expected %d", lo, 2 * tl_size);
  CHECK_MPI(MPI_Win_free(&win));
}

/* ---- epoch ---- */
static int class_of(int rc) {
  int cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  return cls;
}

static void t_epoch(void) {
  int64_t *base, *mbase;
  MPI_Win win = make_atomic(&base);
  MPI_Win mem;
  CHECK_MPI(MPI_Win_allocate(4096, UNIT, MPI_INFO_NULL, MPI_COMM_WORLD, &mbase, &mem));
  tl_win_errors_return(mem);
  int64_t one = 1, res;
  int target = (tl_rank + 1) % tl_size;
  int want = class_of(MPI_Fetch_and_op(&one, &res, MPI_INT64_T, target, 0, MPI_SUM, mem));
  int got = class_of(MPI_Fetch_and_op(&one, &res, MPI_INT64_T, target, 0, MPI_SUM, win));
  CHECK(got == want, "fetch_and_op outside an epoch: class %d, the MPI's own window gives %d", got,
        want);
  tl_log("outside an epoch: class %d on both (%s)", got, got ? "refused" : "the MPI checks nothing");
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_free(&mem));
  CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  tl_scratch();
  const char *c = argc > 1 ? argv[1] : "";
  if (!strcmp(c, "answers")) t_answers();
  else if (!strcmp(c, "contention")) t_contention();
  else if (!strcmp(c, "semantics")) t_semantics();
  else if (!strcmp(c, "range")) t_range();
  else if (!strcmp(c, "epoch")) t_epoch();
  else tl_fail(__FILE__, __LINE__, "unknown case '%s'", c);
  return tl_finish();
}
