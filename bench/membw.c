/*
 * membw: the memory-bandwidth limit of this machine, single process, in the
 * manner of STREAM, to set beside the RMA and storage-window numbers.
 *
 * Kernels over arrays of --size bytes each (doubles), best of --reps:
 *   copy    a[i] = b[i]          (a loop the compiler vectorizes)
 *   memcpy  memcpy(a, b, size)   (the C library's copy)
 *   triad   a[i] = b[i] + s*c[i]
 * Bytes moved follow the STREAM convention: 2 x size for copy and memcpy
 * (read b, write a), 3 x size for triad; write-allocate traffic is not
 * counted. The two copies also report the bytes copied (size), the figure
 * to compare with an RMA transfer of the same length.
 *
 * Output: one JSON line per kernel on stdout,
 *   {"bench":"membw","kernel":"memcpy","size":...,"reps":5,"best_s":...,
 *    "GiBps_moved":...,"GiBps_copied":...}
 * It is linked with MPI (like every benchmark here) but never calls it.
 *
 * Run: membw [--size BYTES] [--reps N]     (K, M, G suffixes; default 1G, 5)
 * Exit status: 0 ok, 1 a failed allocation or check, 2 bad usage.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#define SCALAR 3.0
#define B_VALUE 1.0
#define C_VALUE 2.0
#define ALIGN ((size_t)4096) /* page-aligned: no array shares a page with another */

/*
 * GCC at -O2 (the build's level) turns the copy loop into a call to memcpy
 * and leaves loops with a run-time trip count scalar (its "very cheap" cost
 * model). Keep the loops as loops and let the compiler vectorize them, so
 * that "copy" differs from "memcpy" and "triad" runs at SIMD width.
 * noinline: each kernel is a real call over memory the compiler cannot see.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define KERNEL \
  __attribute__((noinline, optimize("no-tree-loop-distribute-patterns", "vect-cost-model=cheap")))
#else
#define KERNEL __attribute__((noinline))
#endif

struct arrays {
  double *a, *b, *c;
  size_t n; /* doubles per array */
};

KERNEL static void copy_loop(double *restrict a, const double *restrict b, size_t n)
{
  for (size_t i = 0; i < n; i++)
    a[i] = b[i];
}

KERNEL static void triad_loop(double *restrict a, const double *restrict b,
                              const double *restrict c, double s, size_t n)
{
  for (size_t i = 0; i < n; i++)
    a[i] = b[i] + s * c[i];
}

static void run_copy(struct arrays *x) { copy_loop(x->a, x->b, x->n); }
static void run_memcpy(struct arrays *x) { memcpy(x->a, x->b, x->n * sizeof(double)); }
static void run_triad(struct arrays *x) { triad_loop(x->a, x->b, x->c, SCALAR, x->n); }

struct kernel {
  const char *name;
  void (*run)(struct arrays *);
  int arrays_moved; /* STREAM convention: arrays read + arrays written */
  int copies;       /* 1: also report the bytes copied */
  double expect;    /* every a[i] afterwards */
};

static const struct kernel kernels[] = {
    {"copy", run_copy, 2, 1, B_VALUE},
    {"memcpy", run_memcpy, 2, 1, B_VALUE},
    {"triad", run_triad, 3, 0, B_VALUE + SCALAR * C_VALUE},
};

static void usage(FILE *f)
{
  fprintf(f, "usage: membw [--size BYTES] [--reps N]\n"
             "  --size BYTES  bytes per array, a multiple of 8; K, M, G suffixes are\n"
             "                binary (default 1G; three arrays are allocated)\n"
             "  --reps N      repetitions per kernel, the best is reported (default 5)\n");
}

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, size_t *size, long *reps)
{
  static const struct option longopts[] = {{"size", required_argument, NULL, 's'},
                                           {"reps", required_argument, NULL, 'r'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    char *end;
    switch (c) {
    case 's':
      if (bench_parse_bytes(optarg, size) || *size == 0 || *size % sizeof(double)) {
        fprintf(stderr, "membw: --size: a positive multiple of 8 bytes\n");
        return 2;
      }
      break;
    case 'r':
      *reps = strtol(optarg, &end, 10);
      if (end == optarg || *end || *reps < 1) {
        fprintf(stderr, "membw: --reps: a positive integer\n");
        return 2;
      }
      break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind < argc) {
    usage(stderr);
    return 2;
  }
  return -1;
}

static double *alloc_array(size_t bytes)
{
  void *p = NULL;
  if (posix_memalign(&p, ALIGN, bytes) != 0) {
    fprintf(stderr, "membw: cannot allocate %zu bytes\n", bytes);
    exit(1);
  }
  return p;
}

/* First touch: the page faults happen here, not in a timed kernel. */
static void fill(double *x, size_t n, double v)
{
  for (size_t i = 0; i < n; i++)
    x[i] = v;
}

/* A kernel that did not run (or ran wrong) must not produce a number. */
static void check(const struct kernel *k, const struct arrays *x)
{
  size_t step = x->n / 1021 + 1;
  for (size_t i = 0; i < x->n; i += step)
    if (x->a[i] != k->expect) {
      fprintf(stderr, "membw: %s: a[%zu] = %g, expected %g\n", k->name, i, x->a[i],
              k->expect);
      exit(1);
    }
  if (x->a[x->n - 1] != k->expect) {
    fprintf(stderr, "membw: %s: the last element is wrong\n", k->name);
    exit(1);
  }
}

/* Best wall time of `reps` runs; a is reset untimed so each kernel writes. */
static double best_time(const struct kernel *k, struct arrays *x, long reps)
{
  double best = 0;
  fill(x->a, x->n, 0.0);
  for (long r = 0; r < reps; r++) {
    double t0 = bench_now();
    k->run(x);
    double t = bench_now() - t0;
    if (r == 0 || t < best)
      best = t;
  }
  check(k, x);
  return best;
}

static void report(const struct kernel *k, size_t size, long reps, double best)
{
  const double gib = (double)(1u << 30);
  printf("{\"bench\":\"membw\",\"kernel\":\"%s\",\"size\":%zu,\"reps\":%ld,\"best_s\":%.9f,"
         "\"GiBps_moved\":%.3f",
         k->name, size, reps, best, (double)k->arrays_moved * (double)size / best / gib);
  if (k->copies)
    printf(",\"GiBps_copied\":%.3f", (double)size / best / gib);
  printf("}\n");
  fflush(stdout);
}

int main(int argc, char **argv)
{
  size_t size = (size_t)1 << 30;
  long reps = 5;
  int status = parse_options(argc, argv, &size, &reps);
  if (status >= 0)
    return status;

  struct arrays x = {.n = size / sizeof(double)};
  x.a = alloc_array(size);
  x.b = alloc_array(size);
  x.c = alloc_array(size);
  fill(x.b, x.n, B_VALUE);
  fill(x.c, x.n, C_VALUE);
  fprintf(stderr, "membw: 3 arrays of %zu bytes, best of %ld\n", size, reps);

  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
    report(&kernels[i], size, reps, best_time(&kernels[i], &x, reps));

  free(x.a);
  free(x.b);
  free(x.c);
  return 0;
}
