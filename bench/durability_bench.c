/* Atomic vs plain MPI_Win_sync (docs/DURABILITY.md): two storage windows
 * of --size bytes side by side, one with storage_sync=atomic and one plain
 * (--aa: both atomic, kinds "atomic" and "atomic2": the noise). Every
 * window is written whole and synced first; then in each round the same
 * --pct percent of random pages (a new set per round) are changed in both
 * windows, the window order alternating (A B, B A, ...), and each sync is
 * timed.
 *
 *   durability_bench [--size 64M] [--pct 1] [--rounds R] [--backend mmap|pager]
 *                    [--aa] --path DIR
 *
 * One JSON line per round and window: {"bench":"durability","kind",
 * "backend","aa","round","size","pct","pages","sec","proc_write","dev_write"}:
 * sec of MPI_Win_sync; proc_write the bytes this process wrote to the file
 * system during change + sync (/proc/self/io write_bytes: pages it dirtied
 * in the page cache, the journal's included, and direct writes), dev_write
 * the device's written bytes during the sync (-1 when unknown; other
 * processes' writes count too). One rank. */
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
  char *base;
};

static void make(struct win *w, const char *dir, const char *kind, int atomic,
                 const char *backend, size_t size) {
  char fn[4096];
  if ((size_t)snprintf(fn, sizeof fn, "%s/durability-%s.win", dir, kind) >= sizeof fn)
    bench_die("--path is too long");
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_type", "storage");
  MPI_Info_set(info, "storage_alloc_filename", fn);
  MPI_Info_set(info, "storage_alloc_unlink", "true");
  MPI_Info_set(info, "storage_backend", (char *)backend);
  MPI_Info_set(info, "storage_sync", atomic ? "atomic" : "plain");
  int rc = MPI_Win_allocate((MPI_Aint)size, 1, info, MPI_COMM_WORLD, &w->base, &w->win);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) bench_die_mpi("MPI_Win_allocate", rc);
  char v[64] = "";
  bench_win_info(w->win, "storage_sync", v, sizeof v);
  if (strcmp(v, atomic ? "atomic" : "plain"))
    bench_die("window %s: storage_sync is '%s'", kind, v);
  w->kind = kind;
  MPI_Win_lock_all(MPI_MODE_NOCHECK, w->win);
  memset(w->base, 1, size);
  MPI_Win_sync(w->win);
}

int main(int argc, char **argv) {
  size_t size = 64u << 20;
  double pct = 1;
  int rounds = 10, aa = 0;
  const char *path = NULL, *backend = "mmap";
  static const struct option opts[] = {{"size", 1, 0, 's'}, {"pct", 1, 0, 'p'},
                                       {"rounds", 1, 0, 'r'}, {"backend", 1, 0, 'b'},
                                       {"aa", 0, 0, 'a'}, {"path", 1, 0, 'P'}, {0, 0, 0, 0}};
  MPI_Init(&argc, &argv);
  for (int c; (c = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
    if (c == 's' && bench_parse_bytes(optarg, &size)) bench_die("bad --size '%s'", optarg);
    else if (c == 'p') pct = atof(optarg);
    else if (c == 'r') rounds = atoi(optarg);
    else if (c == 'b') backend = optarg;
    else if (c == 'a') aa = 1;
    else if (c == 'P') path = optarg;
    else if (c == '?') bench_die("unknown option");
  }
  if (!path) bench_die("--path DIR is required");
  size_t page = (size_t)sysconf(_SC_PAGESIZE), npages = size / page;
  size_t nchange = (size_t)((double)npages * pct / 100.0 + 0.5);
  if (nchange < 1) nchange = 1;
  struct win w[2];
  make(&w[0], path, aa ? "atomic2" : "plain", aa, backend, size);
  make(&w[1], path, "atomic", 1, backend, size);
  char devstat[256];
  dev_stat_path(path, devstat, sizeof devstat);
  size_t *pages = malloc(nchange * sizeof *pages);
  srand(12345);
  for (int r = 0; r < rounds; r++) {
    for (size_t i = 0; i < nchange; i++) pages[i] = (size_t)rand() % npages;
    for (int k = 0; k < 2; k++) {
      struct win *x = &w[(r + k) % 2];
      struct io_sample p0 = read_proc_io();
      for (size_t i = 0; i < nchange; i++) x->base[pages[i] * page + (size_t)r % page] = (char)(r + 2);
      struct io_sample d0 = read_dev_io(devstat);
      double t0 = bench_now();
      MPI_Win_sync(x->win);
      double t1 = bench_now();
      struct io_sample d1 = read_dev_io(devstat), p1 = read_proc_io();
      struct io_sample dd = io_delta(d0, d1), pd = io_delta(p0, p1);
      printf("{\"bench\":\"durability\",\"kind\":\"%s\",\"backend\":\"%s\",\"aa\":%d,"
             "\"round\":%d,\"size\":%zu,\"pct\":%g,\"pages\":%zu,\"sec\":%.6f,"
             "\"proc_write\":%lld,\"dev_write\":%lld}\n",
             x->kind, backend, aa, r, size, pct, nchange, t1 - t0, pd.write, dd.write);
    }
  }
  fflush(stdout);
  for (int k = 0; k < 2; k++) {
    MPI_Win_unlock_all(w[k].win);
    MPI_Win_free(&w[k].win);
  }
  free(pages);
  MPI_Finalize();
  return 0;
}
