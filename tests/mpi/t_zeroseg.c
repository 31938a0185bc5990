/*
 * MPI_Win_shared_query on shared windows on storage answers exactly what the
 * MPI answers for a memory shared window of the same shape made in the same
 * program (issue 21): for every rank and MPI_PROC_NULL, with and without
 * alloc_shared_noncontig, for shapes with segments of size 0:
 *   evenodd  even ranks some bytes, odd ranks none
 *   oddeven  rank 0 none (MPI_PROC_NULL: the first segment with bytes)
 *   allzero  no rank has bytes
 *   all      every rank some (odd) bytes
 * Compared: size, disp_unit, base NULL or not, and for non-NULL bases the
 * offset from the window's own first segment; also the base that
 * MPI_Win_allocate_shared returned.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "testlib.h"

struct answer {
  MPI_Aint size;
  int disp;
  char *base;
};

static MPI_Aint shape_size(const char *shape, int r) {
  MPI_Aint some = 1000 + 8 * r + 3;
  if (!strcmp(shape, "evenodd")) return r % 2 ? 0 : some;
  if (!strcmp(shape, "oddeven")) return r % 2 ? some : 0;
  if (!strcmp(shape, "allzero")) return 0;
  return some;
}

/* Queries every rank (index 0: MPI_PROC_NULL, r + 1: rank r); *ref gets
 * the window's first segment (rank 0's base, else the first non-NULL one). */
static void query_all(MPI_Win win, int n, struct answer *a, char **ref) {
  *ref = NULL;
  for (int i = 0; i <= n; i++) {
    a[i].size = -7;
    a[i].disp = -7;
    a[i].base = (char *)1;
    CHECK_MPI(MPI_Win_shared_query(win, i == 0 ? MPI_PROC_NULL : i - 1, &a[i].size, &a[i].disp,
                                   &a[i].base));
  }
  for (int i = 1; i <= n && !*ref; i++) *ref = a[i].base;
}

static void compare(const char *shape, int nc, MPI_Comm node) {
  int me, n;
  MPI_Comm_rank(node, &me);
  MPI_Comm_size(node, &n);
  MPI_Aint size = shape_size(shape, me);
  int du = me + 2;
  MPI_Info mi = tl_info("alloc_type=memory", nc ? "alloc_shared_noncontig=true" : NULL, NULL);
  MPI_Info si = tl_sinfo(tl_scratch(), nc ? "alloc_shared_noncontig=true" : NULL, NULL);
  char *mb = (char *)1, *sb = (char *)1;
  MPI_Win mw, sw;
  CHECK_MPI(MPI_Win_allocate_shared(size, du, mi, node, &mb, &mw));
  CHECK_MPI(MPI_Win_allocate_shared(size, du, si, node, &sb, &sw));
  const char *at = tl_win_info(sw, "alloc_type");
  int bytes = 0;
  for (int r = 0; r < n; r++) bytes |= shape_size(shape, r) > 0;
  if (bytes) /* no bytes: nothing on storage to report */
    CHECK(at && !strcmp(at, "storage"), "%s nc=%d: the storage window is in %s", shape, nc, at ? at : "?");
  MPI_Info_free(&mi);
  MPI_Info_free(&si);
  struct answer m[65], s[65];
  CHECK(n < 64, "too many ranks");
  char *mref, *sref;
  query_all(mw, n, m, &mref);
  query_all(sw, n, s, &sref);
  for (int i = 0; i <= n; i++) {
    char who[32];
    if (i) snprintf(who, sizeof who, "rank %d", i - 1);
    else snprintf(who, sizeof who, "MPI_PROC_NULL");
    CHECK(m[i].size == s[i].size, "%s nc=%d %s: size %ld on storage, %ld in memory", shape, nc,
          who, (long)s[i].size, (long)m[i].size);
    CHECK(m[i].disp == s[i].disp, "%s nc=%d %s: disp_unit %d on storage, %d in memory", shape, nc,
          who, s[i].disp, m[i].disp);
    CHECK(!m[i].base == !s[i].base, "%s nc=%d %s: base %p on storage, %p in memory", shape, nc, who,
          (void *)s[i].base, (void *)m[i].base);
    if (m[i].base)
      CHECK(m[i].base - mref == s[i].base - sref,
            "%s nc=%d %s: base at %+ld from the first segment on storage, %+ld in memory", shape,
            nc, who, (long)(s[i].base - sref), (long)(m[i].base - mref));
  }
  CHECK(!mb == !sb, "%s nc=%d: MPI_Win_allocate_shared gave base %p on storage, %p in memory", shape,
        nc, (void *)sb, (void *)mb);
  if (mb) CHECK(mb - mref == sb - sref, "%s nc=%d: my base at %+ld on storage, %+ld in memory", shape,
                nc, (long)(sb - sref), (long)(mb - mref));
  /* the bytes each rank was given are really there */
  if (sb && size) {
    memset(sb, 0x5a, (size_t)s[me + 1].size);
    CHECK_MPI(MPI_Win_sync(sw));
  }
  CHECK_MPI(MPI_Barrier(node));
  CHECK_MPI(MPI_Win_free(&sw));
  CHECK_MPI(MPI_Win_free(&mw));
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  const char *shapes[] = {"evenodd", "oddeven", "allzero", "all"};
  for (int i = 0; i < 4; i++)
    for (int nc = 0; nc < 2; nc++) compare(shapes[i], nc, node);
  MPI_Comm_free(&node);
  return tl_finish();
}
