/*
 * RMA from remote ranks into MPI_Win_allocate storage windows, and the bytes
 * found in each rank's file after MPI_Win_sync and after MPI_Win_free.
 *   put (512 KiB, fence), get, accumulate(SUM), 64-bit compare-and-swap
 *   (exactly one winner), fetch_and_op; window attributes (flavor, base,
 *   size, disp_unit).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define WS (1024 * 1024)       /* window bytes per rank */
#define DU 8                   /* disp_unit */
#define PUT_BYTES (512 * 1024) /* bytes [0, PUT_BYTES): put region */
#define NACC 16
#define ACC_OFF (PUT_BYTES)              /* byte offset of NACC int64 counters */
#define CAS_OFF (ACC_OFF + NACC * 8)     /* int64 for compare-and-swap */
#define FAO_OFF (CAS_OFF + 8)            /* int64 for fetch-and-op */
#define MARK_OFF (WS - 4096)             /* last page: local stores */

static int64_t rd64(const void *base, size_t off) {
  int64_t v;
  memcpy(&v, (const char *)base + off, 8);
  return v;
}

static void file64(const char *fn, size_t off, int64_t *v) {
  CHECK(tl_pread(fn, (off_t)off, v, 8) == 8, "short read of %s at %zu", fn, off);
}

/* What the window of rank r must hold after the test. */
static void check_content(const char *where, const char *fn, const void *mem, int r, int cas_winner) {
  int n = tl_size;
  int from = (r + n - 1) % n;
  int acc_target = 0, cas_target = n - 1, fao_target = n / 2;
  /* put region */
  if (mem) {
    long bad = tl_verify(mem, PUT_BYTES, 1000 + from, 0);
    CHECK(bad < 0, "%s: window byte %ld of the put region is wrong", where, bad);
  }
  CHECK_FILE_PATTERN(fn, 0, PUT_BYTES, 1000 + from, 0);
  for (int i = 0; i < NACC; i++) {
    int64_t want = (r == acc_target) ? (int64_t)(i + 1) * n * (n + 1) / 2 : 0, got;
    file64(fn, ACC_OFF + 8 * i, &got);
    CHECK(got == want, "%s: file counter %d is %" PRId64 ", expected %" PRId64, where, i, got, want);
    if (mem) CHECK(rd64(mem, ACC_OFF + 8 * i) == want, "%s: window counter %d is %" PRId64, where, i,
                   rd64(mem, ACC_OFF + 8 * i));
  }
  int64_t got;
  file64(fn, CAS_OFF, &got);
  int64_t want = (r == cas_target) ? cas_winner + 1 : 0;
  CHECK(got == want, "%s: compare-and-swap word in the file is %" PRId64 ", expected %" PRId64, where, got, want);
  file64(fn, FAO_OFF, &got);
  want = (r == fao_target) ? n : 0;
  CHECK(got == want, "%s: fetch-and-op word in the file is %" PRId64 ", expected %" PRId64, where, got, want);
  CHECK_FILE_PATTERN(fn, MARK_OFF, 4096, 2000 + r, 0);
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  tl_scratch();
  int n = tl_size;
  char tmpl[4096], fn[4096];
  snprintf(tmpl, sizeof tmpl, "%s/rma-%%r.dat", tl_scratch());
  snprintf(fn, sizeof fn, "%s/rma-%d.dat", tl_scratch(), tl_rank);
  MPI_Info info = tl_sinfo(tmpl, NULL);
  void *base = NULL;
  MPI_Win win;
  int rc = MPI_Win_allocate(WS, DU, info, MPI_COMM_WORLD, &base, &win);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) tl_fail(__FILE__, __LINE__, "MPI_Win_allocate: %s", tl_errstr(rc));
  tl_win_errors_return(win);
  CHECK(tl_exists(fn), "storage file %s does not exist", fn);
  /* attributes */
  CHECK(tl_win_flavor(win) == MPI_WIN_FLAVOR_ALLOCATE, "flavor is %d, expected MPI_WIN_FLAVOR_ALLOCATE (%d)",
        tl_win_flavor(win), MPI_WIN_FLAVOR_ALLOCATE);
  void *abase = NULL;
  MPI_Aint *asize = NULL;
  int *adu = NULL, flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &abase, &flag));
  CHECK(flag && abase == base, "MPI_WIN_BASE %p differs from the returned base %p", abase, base);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &asize, &flag));
  CHECK(flag && *asize == WS, "MPI_WIN_SIZE is %lld", flag ? (long long)*asize : -1LL);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &adu, &flag));
  CHECK(flag && *adu == DU, "MPI_WIN_DISP_UNIT is %d", flag ? *adu : -1);
  int k = tl_backing(base, fn, NULL, NULL);
  CHECK(k == TL_FILE, "window base is not mapped from %s (kind %d)", fn, k);

  /* local stores in the last page */
  tl_fill((char *)base + MARK_OFF, 4096, 2000 + tl_rank, 0);

  /* put: rank r -> rank r+1, 512 KiB, fence */
  int to = (tl_rank + 1) % n, from = (tl_rank + n - 1) % n;
  char *src = malloc(PUT_BYTES), *dst = malloc(PUT_BYTES);
  CHECK(src && dst, "malloc");
  tl_fill(src, PUT_BYTES, 1000 + tl_rank, 0);
  /* Opening fence without MPI_MODE_NOPRECEDE: with it, Open MPI 4.1 osc/ucx
   * at 4 oversubscribed ranks showed part of the 512 KiB put missing after
   * the closing fence in about 1 run in 20 (also before the RMA layer
   * existed; not root-caused, see the 2026-11-23 session note). */
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Put(src, PUT_BYTES, MPI_BYTE, to, 0, PUT_BYTES, MPI_BYTE, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  long bad = tl_verify(base, PUT_BYTES, 1000 + from, 0);
  CHECK(bad < 0, "after put from rank %d, window byte %ld is wrong", from, bad);
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  /* get: read back what this rank put into rank r+1. Passive target on
   * purpose: MPICH 4.0.2 (ch4:ucx) returns wrong bytes for large MPI_Get in
   * a fence epoch with 4 ranks even on plain memory windows. */
  memset(dst, 0, PUT_BYTES);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win));
  CHECK_MPI(MPI_Get(dst, PUT_BYTES, MPI_BYTE, to, 0, PUT_BYTES, MPI_BYTE, win));
  CHECK_MPI(MPI_Win_unlock(to, win));
  bad = tl_verify(dst, PUT_BYTES, 1000 + tl_rank, 0);
  CHECK(bad < 0, "MPI_Get from rank %d: byte %ld differs from what was put", to, bad);

  /* accumulate SUM into rank 0 */
  int64_t contrib[NACC];
  for (int i = 0; i < NACC; i++) contrib[i] = (int64_t)(tl_rank + 1) * (i + 1);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Accumulate(contrib, NACC, MPI_INT64_T, 0, ACC_OFF / DU, NACC, MPI_INT64_T, MPI_SUM, win));
  CHECK_MPI(MPI_Win_unlock(0, win));

  /* compare-and-swap on the last rank: exactly one winner */
  int64_t cmp = 0, swp = tl_rank + 1, res = -1;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, n - 1, 0, win));
  CHECK_MPI(MPI_Compare_and_swap(&swp, &cmp, &res, MPI_INT64_T, n - 1, CAS_OFF / DU, win));
  CHECK_MPI(MPI_Win_unlock(n - 1, win));
  int won = (res == 0);
  CHECK(res == 0 || (res >= 1 && res <= n), "compare-and-swap returned %" PRId64, res);
  int winners = tl_allsum(won);
  CHECK(winners == 1, "%d ranks won the compare-and-swap, expected exactly 1", winners);
  int winner = -1, me = won ? tl_rank : -1;
  CHECK_MPI(MPI_Allreduce(&me, &winner, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  if (!won) CHECK(res == winner + 1, "losing compare-and-swap saw %" PRId64 ", winner wrote %d", res, winner + 1);

  /* fetch_and_op on rank n/2: the fetched values are 0..n-1 */
  int64_t one = 1, old = -1;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, n / 2, 0, win));
  CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, n / 2, FAO_OFF / DU, MPI_SUM, win));
  CHECK_MPI(MPI_Win_unlock(n / 2, win));
  int64_t *olds = malloc(sizeof(int64_t) * n);
  CHECK_MPI(MPI_Allgather(&old, 1, MPI_INT64_T, olds, 1, MPI_INT64_T, MPI_COMM_WORLD));
  for (int v = 0; v < n; v++) {
    int c = 0;
    for (int r = 0; r < n; r++) c += (olds[r] == v);
    CHECK(c == 1, "fetch_and_op: value %d fetched by %d ranks (expected once)", v, c);
  }
  free(olds);

  /* every rank's storage after MPI_Win_sync */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  TL_SYNC(win);
  check_content("after MPI_Win_sync", fn, base, tl_rank, winner);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  rc = MPI_Win_free(&win);
  if (rc != MPI_SUCCESS) tl_fail(__FILE__, __LINE__, "MPI_Win_free: %s", tl_errstr(rc));
  CHECK(tl_exists(fn), "named file %s removed at free", fn);
  check_content("after MPI_Win_free", fn, NULL, tl_rank, winner);
  free(src);
  free(dst);
  return tl_finish();
}
