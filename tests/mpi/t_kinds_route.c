/*
 * Every storage window kind on the node-shared route (src/win/node_shared.c,
 * issue 19 item 5): a combined window (MPI_Win_allocate with a memory part),
 * MPI_Win_create over MPI_Alloc_mem storage with a memory part, and
 * MPI_Win_allocate_shared on storage with a memory part. Each rank's part is
 * larger than its memory part and not a page multiple; RMA crosses the
 * memory/storage boundary: whole-window puts and gets, a put straddling the
 * middle, accumulates at both ends. MPI_Win_get_info's mpisw_storage_route
 * says which path the window took, and must be the one expected.
 *
 *   t_kinds_route combined|create|shared on|off|default
 *     on: storage_node_shared=true; off: =false; default: the MPI's default
 *     (Open MPI: node_shared, MPICH: win_create). One rank: win_create.
 */
#include <stdlib.h>
#include <string.h>

#include "mpisw.h"
#include "testlib.h"

#define PAGE 4096
#define SEED_OWN 11 /* what a rank writes into its own part before RMA */

static int n;

/* Bytes of rank r's part: past three pages, not a page multiple, unequal. */
static MPI_Aint part_size(int r) { return 3 * PAGE + 1000 + (MPI_Aint)r * 8; }

static unsigned seed_from(int origin) { return 100u + (unsigned)origin; }

static MPI_Info kind_info(const char *mode, const char *name) {
  MPI_Info info = tl_sinfo(tl_path("%s", name), "storage_alloc_factor=0.5", NULL);
  if (strcmp(mode, "default"))
    tl_info_setf(info, "storage_node_shared", "%s", strcmp(mode, "off") ? "true" : "false");
  return info;
}

static void check_route(MPI_Win win, int want) {
  const char *route = tl_win_info(win, "mpisw_storage_route");
  const char *expect = want && n > 1 ? "node_shared" : "win_create";
  CHECK(route && !strcmp(route, expect), "mpisw_storage_route is %s, expected %s",
        route ? route : "(absent)", expect);
}

/* The right neighbour's whole part is read, then overwritten, across its
 * memory/storage boundary; then a put straddling its middle and
 * accumulates at both ends. Each rank checks its own part locally. */
static void rma_rounds(MPI_Win win, unsigned char *mine, MPI_Aint my_size) {
  int right = (tl_rank + 1) % n, left = (tl_rank + n - 1) % n;
  MPI_Aint rsize = part_size(right);
  unsigned char *buf = malloc((size_t)rsize);
  CHECK(buf, "out of memory");

  /* 1. a get of what the neighbour wrote into its own part */
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
  CHECK_MPI(MPI_Get(buf, (int)rsize, MPI_BYTE, right, 0, (int)rsize, MPI_BYTE, win));
  CHECK_MPI(MPI_Win_unlock(right, win));
  long bad = tl_verify(buf, (size_t)rsize, SEED_OWN + (unsigned)right, 0);
  CHECK(bad < 0, "get from rank %d: byte %ld differs (%s)", right, bad,
        tl_describe(buf, (size_t)rsize, 0));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* 2. a put of the whole part */
  tl_fill(buf, (size_t)rsize, seed_from(tl_rank), 0);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
  CHECK_MPI(MPI_Put(buf, (int)rsize, MPI_BYTE, right, 0, (int)rsize, MPI_BYTE, win));
  CHECK_MPI(MPI_Win_unlock(right, win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, tl_rank, 0, win));
  bad = tl_verify(mine, (size_t)my_size, seed_from(left), 0);
  CHECK_MPI(MPI_Win_unlock(tl_rank, win));
  CHECK(bad < 0, "part after rank %d's put: byte %ld differs", left, bad);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* 3. 3000 bytes over the middle (the boundary of a factor-0.5 split) and
   * an accumulate on the first and the last 8 bytes */
  MPI_Aint mid = rsize / 2 - 1500;
  tl_fill(buf, 3000, seed_from(tl_rank) + 50, (size_t)mid);
  int64_t one = 1;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
  CHECK_MPI(MPI_Put(buf, 3000, MPI_BYTE, right, mid, 3000, MPI_BYTE, win));
  CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T, MPI_SUM, win));
  CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT64_T, right, rsize - 8, 1, MPI_INT64_T, MPI_SUM,
                           win));
  CHECK_MPI(MPI_Win_unlock(right, win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  unsigned char *want = malloc((size_t)my_size);
  CHECK(want, "out of memory");
  tl_fill(want, (size_t)my_size, seed_from(left), 0);
  MPI_Aint my_mid = my_size / 2 - 1500;
  tl_fill(want + my_mid, 3000, seed_from(left) + 50, (size_t)my_mid);
  int64_t v;
  memcpy(&v, want, 8);
  v += 1;
  memcpy(want, &v, 8);
  memcpy(&v, want + my_size - 8, 8);
  v += 1;
  memcpy(want + my_size - 8, &v, 8);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, tl_rank, 0, win));
  int same = memcmp(mine, want, (size_t)my_size) == 0;
  CHECK_MPI(MPI_Win_unlock(tl_rank, win));
  CHECK(same, "part after the middle put and the accumulates differs");
  free(want);
  free(buf);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

static void fill_own(MPI_Win win, unsigned char *mine, MPI_Aint size) {
  if (win != MPI_WIN_NULL) CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tl_rank, 0, win));
  tl_fill(mine, (size_t)size, SEED_OWN + (unsigned)tl_rank, 0);
  if (win != MPI_WIN_NULL) CHECK_MPI(MPI_Win_unlock(tl_rank, win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

static void combined(const char *mode, int want) {
  MPI_Aint size = part_size(tl_rank);
  MPI_Info info = kind_info(mode, "kr-comb-%r.win");
  unsigned char *base;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(size, 1, info, MPI_COMM_WORLD, &base, &win));
  MPI_Info_free(&info);
  tl_win_errors_return(win);
  check_route(win, want);
  double factor = tl_win_info_number(win, "storage_alloc_factor");
  CHECK(factor > 0 && factor < 1, "storage_alloc_factor %g: not a combined window", factor);
  fill_own(win, base, size);
  rma_rounds(win, base, size);
  TL_SYNC(win);
  CHECK_MPI(MPI_Win_free(&win));
}

static void create(const char *mode, int want) {
  MPI_Aint size = part_size(tl_rank);
  MPI_Info info = kind_info(mode, "kr-mem-%r.win");
  unsigned char *base;
  CHECK_MPI(MPI_Alloc_mem(size, info, &base));
  MPI_Info_free(&info);
  /* written before the window exists: the route must keep it */
  fill_own(MPI_WIN_NULL, base, size);
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(base, size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  tl_win_errors_return(win);
  check_route(win, want);
  CHECK(tl_win_flavor(win) == MPI_WIN_FLAVOR_CREATE, "flavor is not CREATE");
  void *b = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &flag));
  CHECK(flag && b == base, "MPI_WIN_BASE %p, the buffer %p", b, (void *)base);
  rma_rounds(win, base, size);
  TL_SYNC(win);
  CHECK_MPI(MPI_Win_free(&win));
  /* the memory outlives the window, with what RMA left in it */
  int left = (tl_rank + n - 1) % n;
  CHECK(tl_verify(base + 8, 100, seed_from(left), 8) < 0, "buffer changed by the free");
  CHECK_MPI(MPI_Free_mem(base));
}

static void shared(const char *mode, int want) {
  MPI_Aint size = part_size(tl_rank);
  MPI_Info info = kind_info(mode, "kr-shared.win");
  unsigned char *base;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate_shared(size, 1, info, MPI_COMM_WORLD, &base, &win));
  MPI_Info_free(&info);
  tl_win_errors_return(win);
  check_route(win, want);
  fill_own(win, base, size);
  rma_rounds(win, base, size);
  /* loads through MPI_Win_shared_query see the neighbour's part as RMA left it */
  int right = (tl_rank + 1) % n;
  MPI_Aint qs;
  int qd;
  unsigned char *qb;
  CHECK_MPI(MPI_Win_shared_query(win, right, &qs, &qd, &qb));
  CHECK(qs == part_size(right) && qd == 1, "shared_query of %d: size %ld unit %d", right,
        (long)qs, qd);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
  long bad = tl_verify(qb + 8, 100, seed_from(tl_rank), 8);
  CHECK_MPI(MPI_Win_unlock(right, win));
  CHECK(bad < 0, "load through shared_query: byte %ld differs", bad);
  TL_SYNC(win);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *kind = argc > 1 ? argv[1] : "combined";
  const char *mode = argc > 2 ? argv[2] : "default";
  MPI_Comm_size(MPI_COMM_WORLD, &n);
#ifdef OPEN_MPI
  int dflt = 1;
#else
  int dflt = 0;
#endif
  int want = !strcmp(mode, "on") ? 1 : !strcmp(mode, "off") ? 0 : dflt;
  if (!strcmp(kind, "combined")) combined(mode, want);
  else if (!strcmp(kind, "create")) create(mode, want);
  else if (!strcmp(kind, "shared")) shared(mode, want);
  else tl_fail(__FILE__, __LINE__, "unknown kind '%s'", kind);
  return tl_finish();
}
