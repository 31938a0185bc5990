/*
 * RMA into pager windows (storage_backend=pager) and the route they take
 * (issue 19 item 5; src/win/pager_glue.c, src/pager/pager_shared.c):
 *
 *   shared   storage_node_shared=true and a storage part the pager holds
 *            whole: the window is node-shared (mpisw_storage_route) and
 *            still on the pager (storage_backend), its pages a memfd every
 *            rank maps. Each rank writes its own window and syncs; then in
 *            three rounds the left neighbour puts into it (round 0 the
 *            whole part in pieces across block borders, round 1 five bytes
 *            in one block, round 2 the last 1000 bytes) and the target
 *            syncs: its window and its file must hold every byte, although
 *            another process wrote them through its own mapping, which the
 *            pager's write-protection does not see. Then a get of the whole
 *            part, an accumulate, and the owner's own write after a sync.
 *   default  the same with the MPI's default (Open MPI: node-shared, MPICH:
 *            MPI_Win_create); one rank: MPI_Win_create.
 *   private  a storage part larger than the pager's memory: private pager
 *            memory and MPI_Win_create, the same data checks.
 * Skips (77) where the pager cannot run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define KIB 1024
#define BLOCK (256 * KIB) /* MPISW_PAGER_BLOCK of the registration */
#define ROUNDS 3
#define ACC_AT (8 * KIB)

static MPI_Aint part_size(int r) { return 4 * BLOCK + 3000 + (MPI_Aint)r * 16; }
static unsigned own_seed(int r) { return 300u + (unsigned)r; }
static unsigned put_seed(int from, int round) { return 400u + 10u * (unsigned)round + (unsigned)from; }

/* The bytes of round's put into a part of n bytes: [*off, *off + *len). */
static void round_piece(int round, MPI_Aint n, MPI_Aint *off, MPI_Aint *len) {
  if (round == 0) *off = 0, *len = n;
  else if (round == 1) *off = 2 * BLOCK + 77, *len = 5;
  else *off = n - 1000, *len = 1000;
}

/* What rank t's part holds after rounds [0, rounds) of its left neighbour's
 * puts (its own pattern before). */
static void expected(unsigned char *buf, int t, int rounds) {
  MPI_Aint n = part_size(t), off, len;
  int from = (t + tl_size - 1) % tl_size;
  tl_fill(buf, (size_t)n, own_seed(t), 0);
  unsigned char *p = malloc((size_t)n);
  CHECK(p, "out of memory");
  for (int k = 0; k < rounds; k++) {
    tl_fill(p, (size_t)n, put_seed(from, k), 0);
    round_piece(k, n, &off, &len);
    memcpy(buf + off, p + off, (size_t)len);
  }
  free(p);
}

static void check_file(const char *fn, const unsigned char *want, MPI_Aint n, const char *when) {
  unsigned char *file = malloc((size_t)n);
  CHECK(file, "out of memory");
  CHECK(tl_pread(fn, 0, file, (size_t)n) == (ssize_t)n, "%s: reading %s", when, fn);
  for (MPI_Aint i = 0; i < n; i++)
    CHECK(file[i] == want[i], "%s: file byte %ld is %u, expected %u", when, (long)i, file[i],
          want[i]);
  free(file);
}

static const char *expected_route(const char *mode) {
  if (tl_size == 1 || !strcmp(mode, "private")) return "win_create";
  if (!strcmp(mode, "shared")) return "node_shared";
#ifdef OPEN_MPI
  return "node_shared"; /* storage_node_shared's default */
#else
  return "win_create";
#endif
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "shared") && strcmp(mode, "default") && strcmp(mode, "private")) {
    tl_log("usage: t_pager_rma shared|default|private");
    return 2;
  }
  const char *fn = tl_path("prma-%d.win", tl_rank);
  MPI_Aint n = part_size(tl_rank);
  unsigned char *base;
  MPI_Win win;
  TL_WALLOC(n, MPI_COMM_WORLD, (void **)&base, &win, fn, "storage_backend=pager",
            strcmp(mode, "private") ? "storage_pager_memory=64M" : "storage_pager_memory=512K",
            strcmp(mode, "shared") ? "storage_alloc_unlink=false" : "storage_node_shared=true",
            "storage_alloc_unlink=false");
  tl_require_pager(&win);
  const char *route = tl_win_info(win, "mpisw_storage_route"), *want = expected_route(mode);
  CHECK(route && !strcmp(route, want), "mpisw_storage_route is %s, expected %s",
        route ? route : "(absent)", want);

  /* the rank's own bytes, durable */
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tl_rank, 0, win));
  tl_fill(base, (size_t)n, own_seed(tl_rank), 0);
  CHECK_MPI(MPI_Win_unlock(tl_rank, win));
  TL_SYNC(win);
  CHECK_FILE_PATTERN(fn, 0, (size_t)n, own_seed(tl_rank), 0);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  int to = (tl_rank + 1) % tl_size;
  MPI_Aint tn = part_size(to), off, len;
  unsigned char *src = malloc((size_t)tn), *back = malloc((size_t)tn);
  unsigned char *want_mine = malloc((size_t)n), *want_to = malloc((size_t)tn);
  CHECK(src && back && want_mine && want_to, "out of memory");
  for (int round = 0; round < ROUNDS; round++) {
    tl_fill(src, (size_t)tn, put_seed(tl_rank, round), 0);
    round_piece(round, tn, &off, &len);
    for (MPI_Aint at = off; at < off + len; at += BLOCK / 3) { /* pieces across blocks */
      MPI_Aint piece = off + len - at < BLOCK / 3 ? off + len - at : BLOCK / 3;
      CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win));
      CHECK_MPI(MPI_Put(src + at, (int)piece, MPI_BYTE, to, at, (int)piece, MPI_BYTE, win));
      CHECK_MPI(MPI_Win_unlock(to, win));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    TL_SYNC(win); /* each target syncs what it was sent */
    expected(want_mine, tl_rank, round + 1);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, tl_rank, 0, win));
    long bad = -1;
    for (MPI_Aint i = 0; i < n && bad < 0; i++)
      if (base[i] != want_mine[i]) bad = (long)i;
    CHECK_MPI(MPI_Win_unlock(tl_rank, win));
    CHECK(bad < 0, "round %d: window byte %ld differs from what was put", round, bad);
    char when[64];
    snprintf(when, sizeof when, "round %d, after the target's sync", round);
    check_file(fn, want_mine, n, when);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }

  /* a get of the neighbour's whole part */
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win));
  CHECK_MPI(MPI_Get(back, (int)tn, MPI_BYTE, to, 0, (int)tn, MPI_BYTE, win));
  CHECK_MPI(MPI_Win_unlock(to, win));
  expected(want_to, to, ROUNDS);
  CHECK(memcmp(back, want_to, (size_t)tn) == 0, "get from rank %d differs from its part", to);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* an accumulate from the left neighbour, then the owner's own write: both
   * durable after one more sync */
  int64_t one = 1, v;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win));
  CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT64_T, to, ACC_AT, 1, MPI_INT64_T, MPI_SUM, win));
  CHECK_MPI(MPI_Win_unlock(to, win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  memcpy(&v, want_mine + ACC_AT, sizeof v);
  v += tl_size > 1 ? 1 : 1; /* one rank: its own accumulate */
  memcpy(want_mine + ACC_AT, &v, sizeof v);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tl_rank, 0, win));
  CHECK(memcmp(base + ACC_AT, &v, sizeof v) == 0, "accumulate: wrong sum");
  base[n - 1] ^= 0x5a;
  want_mine[n - 1] ^= 0x5a;
  CHECK_MPI(MPI_Win_unlock(tl_rank, win));
  TL_SYNC(win);
  check_file(fn, want_mine, n, "after the accumulate and the owner's write");
  CHECK_MPI(MPI_Win_free(&win));
  check_file(fn, want_mine, n, "after MPI_Win_free");
  free(src);
  free(back);
  free(want_mine);
  free(want_to);
  return tl_finish();
}
