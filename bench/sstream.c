/* sstream: a storage window's two plain streams, on one rank.
 *
 *   rewrite   a warm window (every page already in memory and synced)
 *             is rewritten whole with memset, then MPI_Win_sync: the
 *             bytes of the window / (memset + sync) seconds, per iteration
 *   coldread  the same file, dropped from the page cache (fdatasync and
 *             posix_fadvise DONTNEED), is opened as a new window and read
 *             whole, first touch, 8 bytes at a time (summed so the reads
 *             stay): the bytes / the seconds of the read
 *
 * One JSON line per test on stdout (the median iteration, and the slowest
 * and fastest); each iteration on stderr; the file is removed at the end.
 * Usage:
 *   sstream --path DIR --size BYTES [--iters N] [--backend mmap|pager]
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_mpi.h"
#include "mpisw.h"

struct options {
  const char *path, *backend;
  size_t size;
  int iters;
};

static void usage(void)
{
  fprintf(stderr, "usage: sstream --path DIR --size BYTES (a multiple of 8; K, M, G) "
                  "[--iters N (3, at most 100)] [--backend mmap|pager]\n");
  exit(2);
}

static size_t parse_size(const char *s)
{
  char *end;
  double v = strtod(s, &end);
  if (end == s || v <= 0)
    usage();
  if (*end == 'K' || *end == 'k')
    v *= 1024;
  else if (*end == 'M' || *end == 'm')
    v *= 1048576;
  else if (*end == 'G' || *end == 'g')
    v *= 1073741824.0;
  return (size_t)v;
}

static MPI_Win open_window(const struct options *o, const char *file, char **base,
                           char *backend, int blen)
{
  MPI_Info info;
  MPI_CHECK(MPI_Info_create(&info));
  MPI_CHECK(MPI_Info_set(info, MPISW_HINT_ALLOC_TYPE, "storage"));
  MPI_CHECK(MPI_Info_set(info, MPISW_HINT_FILENAME, file));
  MPI_CHECK(MPI_Info_set(info, MPISW_HINT_UNLINK, "false"));
  MPI_CHECK(MPI_Info_set(info, MPISW_HINT_DISCARD, "false"));
  if (o->backend)
    MPI_CHECK(MPI_Info_set(info, MPISW_HINT_BACKEND, o->backend));
  MPI_Win win;
  MPI_CHECK(MPI_Win_allocate((MPI_Aint)o->size, 1, info, MPI_COMM_SELF, base, &win));
  MPI_CHECK(MPI_Info_free(&info));
  MPI_CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  bench_win_info(win, MPISW_HINT_BACKEND, backend, blen);
  return win;
}

/* Out of the page cache: what is dirty written first, then dropped. */
static void drop_cache(const char *file)
{
  int fd = open(file, O_RDONLY);
  if (fd < 0)
    bench_die("open %s: %s", file, strerror(errno));
  if (fdatasync(fd) != 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
    bench_die("dropping %s from the page cache: %s", file, strerror(errno));
  close(fd);
}

#define MAX_ITERS 100

static int by_seconds(const void *a, const void *b)
{
  const double *x = a, *y = b;
  return (x[0] > y[0]) - (x[0] < y[0]);
}

/* t: per iteration {seconds, sync seconds}; sorted here. */
static void report(const char *test, const struct options *o, const char *backend, double (*t)[2])
{
  qsort(t, (size_t)o->iters, sizeof *t, by_seconds);
  double mib = o->size / 1048576.0, *med = t[o->iters / 2];
  printf("{\"bench\":\"sstream\",\"test\":\"%s\",\"backend\":\"%s\",\"size\":%zu,"
         "\"iters\":%d,\"seconds\":%.6f,\"sync_seconds\":%.6f,\"bw_MiBps\":%.1f,"
         "\"bw_min_MiBps\":%.1f,\"bw_max_MiBps\":%.1f}\n",
         test, backend, o->size, o->iters, med[0], med[1], mib / med[0],
         mib / t[o->iters - 1][0], mib / t[0][0]);
  fflush(stdout);
}

static void progress(const char *test, int it, double seconds, double sync_seconds,
                     const struct options *o)
{
  fprintf(stderr, "sstream: %s %d: %.3f s (sync %.3f s): %.0f MiB/s\n", test, it, seconds,
          sync_seconds, o->size / 1048576.0 / seconds);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  struct options o = {.iters = 3};
  static const struct option longs[] = {{"path", required_argument, NULL, 'p'},
                                        {"size", required_argument, NULL, 's'},
                                        {"iters", required_argument, NULL, 'i'},
                                        {"backend", required_argument, NULL, 'b'},
                                        {NULL, 0, NULL, 0}};
  for (int c; (c = getopt_long(argc, argv, "", longs, NULL)) != -1;) {
    if (c == 'p')
      o.path = optarg;
    else if (c == 's')
      o.size = parse_size(optarg);
    else if (c == 'i')
      o.iters = atoi(optarg);
    else if (c == 'b')
      o.backend = optarg;
    else
      usage();
  }
  if (!o.path || !o.size || o.size % 8 || o.iters < 1 || o.iters > MAX_ITERS)
    usage();
  double t[MAX_ITERS][2];
  char file[4200];
  snprintf(file, sizeof file, "%s/sstream-%d.win", o.path, (int)getpid());
  char backend[32];

  /* rewrite: the first fill and sync make the window warm; then timed */
  char *base;
  MPI_Win win = open_window(&o, file, &base, backend, (int)sizeof backend);
  memset(base, 1, o.size);
  MPI_CHECK(MPI_Win_sync(win));
  for (int it = 0; it < o.iters; it++) {
    double t0 = MPI_Wtime();
    memset(base, 2 + it, o.size);
    double t1 = MPI_Wtime();
    MPI_CHECK(MPI_Win_sync(win));
    double t2 = MPI_Wtime();
    t[it][0] = t2 - t0;
    t[it][1] = t2 - t1;
    progress("rewrite", it, t[it][0], t[it][1], &o);
  }
  report("rewrite", &o, backend, t);
  MPI_CHECK(MPI_Win_free(&win));

  /* coldread: a new window over the file, not in the page cache */
  unsigned char want = (unsigned char)(1 + o.iters);
  for (int it = 0; it < o.iters; it++) {
    drop_cache(file);
    win = open_window(&o, file, &base, backend, (int)sizeof backend);
    double t0 = MPI_Wtime();
    uint64_t sum = 0;
    const uint64_t *w = (const uint64_t *)base;
    for (size_t k = 0; k < o.size / 8; k++)
      sum += w[k];
    double t1 = MPI_Wtime();
    uint64_t expect = (o.size / 8) * (0x0101010101010101ull * want);
    if (sum != expect)
      bench_die("coldread: the window does not hold what was written");
    t[it][0] = t1 - t0;
    t[it][1] = 0.0;
    progress("coldread", it, t[it][0], 0.0, &o);
    MPI_CHECK(MPI_Win_free(&win));
  }
  report("coldread", &o, backend, t);
  unlink(file);
  MPI_Finalize();
  return 0;
}
