/* Intrinsic accumulates (docs/RMA_EXTENSIONS.md): MPI_Fetch_and_op and
 * MPI_Accumulate of MPI_SUM on one 8-byte integer, rank 0 to rank 1, on a
 * node-shared storage window made with mpi_assert_accumulate_intrinsic=true
 * and accumulate_ordering=none (mpisw's processor atomics, kind "atomic")
 * against the same window without the keys (the MPI's own accumulate, kind
 * "mpi"). Both windows live side by side and are measured in interleaved
 * rounds (A B, then B A, ...), so that a shared machine's drift falls on
 * both. --aa makes both windows "atomic" (kinds "atomic" and "atomic2"):
 * the spread of that ratio is the noise. --contend: rank 1 runs the same
 * operations on the same location at the same time (the MPI's accumulate
 * lock, or the cache line, is then contended).
 *
 *   intrinsic_bench [--iters N] [--rounds R] [--aa] [--contend] [--path DIR]
 *
 * Per round, window and operation, two modes in a lock_all epoch:
 *   flush_each  op + MPI_Win_flush(1), the latency of one completed op
 *   flush_once  N ops then one flush: the issue cost per op
 * One JSON line each: {"bench":"intrinsic","op","mode","kind","round",
 * "bytes":8,"ranks","aa","contend","intrinsic","usec"} (usec per op of
 * rank 0). Without --contend rank 1 only waits: both paths work without the
 * target's help. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_mpi.h"
#include "bench_util.h"
#include "mpisw.h"

struct win {
  const char *kind;
  MPI_Win win;
  int64_t *base;
  int intrinsic;
};

static MPI_Win make(const char *dir, const char *tag, int keys, int64_t **base) {
  char fn[4096];
  if ((size_t)snprintf(fn, sizeof fn, "%s/intrinsic-%s-%%r.win", dir, tag) >= sizeof fn)
    bench_die("--path is too long");
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_type", "storage");
  MPI_Info_set(info, "storage_alloc_filename", fn);
  MPI_Info_set(info, "storage_node_shared", "true");
  MPI_Info_set(info, "storage_alloc_unlink", "true"); /* removed at free */
  if (keys) {
    MPI_Info_set(info, "mpi_assert_accumulate_intrinsic", "true");
    MPI_Info_set(info, "accumulate_ordering", "none");
  }
  MPI_Win win;
  int rc = MPI_Win_allocate(4096, 8, info, MPI_COMM_WORLD, base, &win);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) bench_die_mpi("MPI_Win_allocate", rc);
  memset(*base, 0, 4096);
  return win;
}

static double run(MPI_Win win, int fop, int each, long iters) {
  int64_t one = 1, old = 0;
  double t0 = bench_now();
  for (long i = 0; i < iters; i++) {
    int rc = fop ? MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 1, 0, MPI_SUM, win)
                 : MPI_Accumulate(&one, 1, MPI_INT64_T, 1, 0, 1, MPI_INT64_T, MPI_SUM, win);
    if (rc != MPI_SUCCESS) bench_die_mpi(fop ? "MPI_Fetch_and_op" : "MPI_Accumulate", rc);
    if (each) MPI_Win_flush(1, win);
  }
  if (!each) MPI_Win_flush(1, win);
  return (bench_now() - t0) / (double)iters * 1e6;
}

int main(int argc, char **argv) {
  long iters = 20000, rounds = 10;
  int aa = 0, contend = 0;
  const char *dir = "/tmp";
  static struct option longopts[] = {{"iters", required_argument, NULL, 'i'},
                                     {"rounds", required_argument, NULL, 'r'},
                                     {"aa", no_argument, NULL, 'a'},
                                     {"contend", no_argument, NULL, 'c'},
                                     {"path", required_argument, NULL, 'p'},
                                     {NULL, 0, NULL, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    char *end = NULL;
    if (c == 'i' || c == 'r') {
      long v = strtol(optarg, &end, 10);
      if (!*optarg || *end || v < 1) {
        fprintf(stderr, "intrinsic_bench: --%s needs a positive integer, not '%s'\n",
                c == 'i' ? "iters" : "rounds", optarg);
        return 2;
      }
      if (c == 'i') iters = v;
      else rounds = v;
    } else if (c == 'a') aa = 1;
    else if (c == 'c') contend = 1;
    else if (c == 'p') dir = optarg;
    else {
      fprintf(stderr, "usage: intrinsic_bench [--iters N] [--rounds R] [--aa] [--contend] "
                      "[--path DIR]\n");
      return 2;
    }
  }
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) bench_die("needs 2 ranks (rank 0 operates on rank 1's memory)");
  struct win w[2] = {{"atomic", MPI_WIN_NULL, NULL, 0}, {aa ? "atomic2" : "mpi", MPI_WIN_NULL, NULL, 0}};
  for (int k = 0; k < 2; k++) {
    w[k].win = make(dir, w[k].kind, k == 0 || aa, &w[k].base);
    MPIX_Win_op_intrinsic(w[k].win, "sum", 1, MPI_INT64_T, &w[k].intrinsic);
    int want = k == 0 || aa;
    if (w[k].intrinsic != want)
      bench_die("window \"%s\": MPIX_Win_op_intrinsic says %d, expected %d (is mpisw linked, "
                "are the ranks on one node?)", w[k].kind, w[k].intrinsic, want);
    MPI_Win_lock_all(0, w[k].win);
  }
  static const char *ops[] = {"accumulate", "fetch_and_op"};
  static const char *modes[] = {"flush_once", "flush_each"};
  for (long r = 0; r < rounds; r++) {
    for (int j = 0; j < 2; j++) {
      int k = (r % 2 == 0) ? j : 1 - j; /* A B, then B A */
      for (int op = 0; op < 2; op++)
        for (int each = 0; each < 2; each++) {
          MPI_Barrier(MPI_COMM_WORLD);
          if (rank != 0 && !contend) continue;
          run(w[k].win, op, each, iters / 10 + 1); /* warm */
          double us = run(w[k].win, op, each, iters);
          if (rank == 0)
            printf("{\"bench\":\"intrinsic\",\"op\":\"%s\",\"mode\":\"%s\",\"kind\":\"%s\","
                   "\"round\":%ld,\"bytes\":8,\"ranks\":%d,\"aa\":%s,\"contend\":%s,"
                   "\"intrinsic\":%d,\"iters\":%ld,\"usec\":%.5f}\n",
                   ops[op], modes[each], w[k].kind, r, size, aa ? "true" : "false",
                   contend ? "true" : "false", w[k].intrinsic, iters, us);
        }
    }
  }
  fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  /* every operation landed: rank 1 holds the count of both windows */
  int64_t per_round = 2 * (iters + iters / 10 + 1) * 2 * (contend ? 2 : 1);
  for (int k = 0; k < 2; k++) {
    MPI_Win_unlock_all(w[k].win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1 && w[k].base[0] != per_round * rounds)
      bench_die("window \"%s\" holds %lld after the run, expected %lld", w[k].kind,
                (long long)w[k].base[0], (long long)(per_round * rounds));
    MPI_Win_free(&w[k].win);
  }
  MPI_Finalize();
  return 0;
}
