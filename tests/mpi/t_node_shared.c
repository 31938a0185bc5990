/*
 * Storage windows on the MPI's node-shared window (src/win/node_shared.c):
 * every RMA kind lands in the right file at the right displacement, with
 * per-rank sizes that are not page multiples and a displacement unit of 8;
 * the predefined attributes, MPI_Win_shared_query and duplicates show the
 * user's view; the files hold the data after MPI_Win_sync and after free.
 *
 *   t_node_shared on|off|default|multinode
 *     on: storage_node_shared=true; off: =false; default: the MPI's default
 *     (Open MPI: on, MPICH: off). At one rank the window is never node-shared.
 *     multinode: storage_node_shared=true over several (simulated) nodes,
 *     which must fall back to MPI_Win_create.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpisw.h"
#include "testlib.h"

#define ELEMS_PER_RANK 700 /* 5600 bytes for rank 0: not a page multiple */

static int64_t stamp(int owner, int k) { return (int64_t)owner * 1000003 + k; }

static void check_attrs(MPI_Win win, void *base, MPI_Aint size) {
  void *b = NULL;
  MPI_Aint *sz = NULL;
  int *du = NULL, flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &flag));
  CHECK(flag && b == base, "MPI_WIN_BASE %p, allocated base %p", b, base);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag));
  CHECK(flag && *sz == size, "MPI_WIN_SIZE %ld, asked %ld", (long)*sz, (long)size);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag));
  CHECK(flag && *du == 8, "MPI_WIN_DISP_UNIT %d, asked 8", *du);
  CHECK(tl_win_flavor(win) == MPI_WIN_FLAVOR_ALLOCATE, "flavor is not ALLOCATE");
}

/* Everyone writes into its right neighbour through win (a window or its
 * duplicate): put, accumulate, fetch_and_op and compare_and_swap. */
static void rma_round(MPI_Win win, int n) {
  int right = (tl_rank + 1) % n;
  int64_t mine[8];
  for (int k = 0; k < 8; k++) mine[k] = stamp(tl_rank, k);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
  /* the last elements of the target: a shift error would miss its end */
  MPI_Aint last = (MPI_Aint)(right + 1) * ELEMS_PER_RANK - 8;
  CHECK_MPI(MPI_Put(mine, 8, MPI_INT64_T, right, last, 8, MPI_INT64_T, win));
  CHECK_MPI(MPI_Win_unlock(right, win));
  /* every rank adds into element 1 of rank 0; fetch_and_op on element 2 */
  int64_t one = 1, old = -1, cmp = 0, swap = 77;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, 1, 1, MPI_INT64_T, MPI_SUM, win));
  CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, 2, MPI_SUM, win));
  CHECK_MPI(MPI_Compare_and_swap(&swap, &cmp, &old, MPI_INT64_T, 0, 3, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

static void check_local(const int64_t *mem, int n, int rounds) {
  int left = (tl_rank + n - 1) % n;
  MPI_Aint elems = (MPI_Aint)(tl_rank + 1) * ELEMS_PER_RANK;
  for (int k = 0; k < 8; k++)
    CHECK(mem[elems - 8 + k] == stamp(left, k), "element %ld holds %lld, rank %d put %lld",
          (long)(elems - 8 + k), (long long)mem[elems - 8 + k], left, (long long)stamp(left, k));
  if (tl_rank == 0) {
    CHECK(mem[1] == (int64_t)n * rounds, "accumulate: %lld, expected %d", (long long)mem[1],
          n * rounds);
    CHECK(mem[2] == (int64_t)n * rounds, "fetch_and_op: %lld, expected %d", (long long)mem[2],
          n * rounds);
    CHECK(mem[3] == 77, "compare_and_swap: %lld, expected 77", (long long)mem[3]);
  }
}

static void check_file(const char *path, int n, int rounds) {
  MPI_Aint bytes = (MPI_Aint)(tl_rank + 1) * ELEMS_PER_RANK * 8;
  int64_t *f = malloc((size_t)bytes);
  CHECK(f && tl_pread(path, 0, f, (size_t)bytes) == bytes, "cannot read %s", path);
  check_local(f, n, rounds);
  free(f);
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "default";
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
#ifdef OPEN_MPI
  int dflt = 1;
#else
  int dflt = 0;
#endif
  int multinode = !strcmp(mode, "multinode");
  int want = !strcmp(mode, "on") ? 1 : !strcmp(mode, "off") || multinode ? 0 : dflt;
  char *path = strdup(tl_path("ns-r%d.win", tl_rank));
  MPI_Info info = tl_sinfo(tl_path("ns-r%%r.win"), "storage_alloc_unlink=false", NULL);
  if (strcmp(mode, "default"))
    tl_info_setf(info, "storage_node_shared", "%s", strcmp(mode, "off") ? "true" : "false");
  MPI_Aint size = (MPI_Aint)(tl_rank + 1) * ELEMS_PER_RANK * 8;
  int64_t *base;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(size, 8, info, MPI_COMM_WORLD, &base, &win));
  MPI_Info_free(&info);
  tl_win_errors_return(win);
  const char *eff = tl_win_info(win, "storage_node_shared");
  int expect = want && n > 1;
  CHECK(eff && !strcmp(eff, expect ? "true" : "false"), "storage_node_shared is %s, expected %s",
        eff ? eff : "(absent)", expect ? "true" : "false");
  check_attrs(win, base, size);
  memset(base, 0, (size_t)size);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* through the window, then through a duplicate */
  rma_round(win, n);
  MPI_Win dup;
  CHECK_MPI(MPIX_Win_dup_with_info(win, MPI_INFO_NULL, &dup));
  check_attrs(dup, base, size);
  rma_round(dup, n);
  CHECK_MPI(MPI_Win_free(&dup));
  TL_SYNC(win);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  check_local(base, n, 2);
  check_file(path, n, 2);

  /* gets read what the neighbour holds */
  int right = (tl_rank + 1) % n;
  int64_t got[8];
  MPI_Aint last = (MPI_Aint)(right + 1) * ELEMS_PER_RANK - 8;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
  CHECK_MPI(MPI_Get(got, 8, MPI_INT64_T, right, last, 8, MPI_INT64_T, win));
  CHECK_MPI(MPI_Win_unlock(right, win));
  for (int k = 0; k < 8; k++)
    CHECK(got[k] == stamp(tl_rank, k), "get element %d: %lld", k, (long long)got[k]);

  /* shared_query, where the window is node-shared, gives the user's view */
  if (expect) {
    MPI_Aint qs;
    int qd;
    int64_t *qb;
    CHECK_MPI(MPI_Win_shared_query(win, right, &qs, &qd, &qb));
    CHECK(qs == (MPI_Aint)(right + 1) * ELEMS_PER_RANK * 8 && qd == 8,
          "shared_query of rank %d: size %ld unit %d", right, (long)qs, qd);
    CHECK(qb[(right + 1) * ELEMS_PER_RANK - 8] == stamp(tl_rank, 0),
          "load through shared_query base reads %lld", (long long)qb[(right + 1) * ELEMS_PER_RANK - 8]);
  }

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_free(&win));
  check_file(path, n, 2); /* still there, intact, after free */
  unlink(path);
  free(path);
  return tl_finish();
}
