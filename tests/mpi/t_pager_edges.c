/*
 * Adjacent, unaligned windows over one file (issue 13): rank r's window is
 * SIZE bytes at storage_alloc_offset=r*SIZE, so neighbours share the file
 * pages at their edges. Over ROUNDS rounds every rank writes its window
 * with a new pattern and syncs (in rank order, then in reverse, so each
 * rank's write-back comes after its neighbour's); rank 0 then checks every
 * byte of the file: a backend that writes whole pages puts a neighbour's
 * stale bytes back.
 *   t_pager_edges BACKEND SIZE ROUNDS     BACKEND: mmap or pager
 * Where the pager cannot run (tl_require_pager) the pager case skips; a
 * fallback where it could run fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

static unsigned seed_of(int round, int rank) { return 1000u * (unsigned)round + (unsigned)rank + 7; }

/* Rank 0: every byte of the file belongs to the rank whose range holds it. */
static void check_file(const char *fn, size_t size, int round, const char *when) {
  if (tl_rank != 0) return;
  size_t total = size * (size_t)tl_size;
  unsigned char *buf = malloc(total);
  CHECK(buf, "out of memory");
  ssize_t got = tl_pread(fn, 0, buf, total);
  CHECK(got == (ssize_t)total, "%s, round %d: file holds %zd bytes, expected %zu", when, round, got,
        total);
  size_t bad = 0, first = 0;
  for (size_t o = 0; o < total; o++)
    if (buf[o] != tl_pat(seed_of(round, (int)(o / size)), o) && !bad++) first = o;
  if (bad)
    CHECK(0, "%s, round %d: %zu of %zu bytes lost (first at offset %zu, rank %zu's range: %s)",
          when, round, bad, total, first, first / size,
          tl_describe(buf + first, size - first % size, first));
  free(buf);
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  CHECK(argc == 4, "usage: t_pager_edges mmap|pager SIZE ROUNDS");
  const char *backend = argv[1];
  size_t size = strtoul(argv[2], NULL, 0);
  int rounds = atoi(argv[3]);
  const char *fn = tl_path("edges.win");
  char bk[64], off[64];
  snprintf(bk, sizeof bk, "storage_backend=%s", backend);
  snprintf(off, sizeof off, "storage_alloc_offset=%zu", size * (size_t)tl_rank);
  unsigned char *base;
  MPI_Win win;
  TL_WALLOC((MPI_Aint)size, MPI_COMM_WORLD, (void **)&base, &win, fn, bk, off,
            "storage_alloc_unlink=false");
  if (!strcmp(backend, "pager")) {
    tl_require_pager(&win);
  } else {
    const char *eff = tl_win_info(win, "storage_backend");
    CHECK(eff && !strcmp(eff, backend), "storage_backend is '%s', expected '%s'", eff ? eff : "(none)",
          backend);
  }
  for (int round = 1; round <= rounds; round++) {
    tl_fill(base, size, seed_of(round, tl_rank), size * (size_t)tl_rank);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* all written before any sync */
    for (int k = 0; k < tl_size; k++) {
      int who = round % 2 ? k : tl_size - 1 - k;
      if (who == tl_rank) TL_SYNC(win);
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    check_file(fn, size, round, "after the syncs");
    long bad = tl_verify(base, size, seed_of(round, tl_rank), size * (size_t)tl_rank);
    CHECK(bad < 0, "round %d: window byte %ld changed", round, bad);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }
  /* A last pattern left to MPI_Win_free, which syncs. */
  tl_fill(base, size, seed_of(rounds + 1, tl_rank), size * (size_t)tl_rank);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* MPI_Win_free may return before the others' */
  check_file(fn, size, rounds + 1, "after MPI_Win_free");
  return tl_finish();
}
