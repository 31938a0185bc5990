/* ckpt_bench: an application loop (compute, then a checkpoint of --size
 * bytes per rank), timing the checkpoint as the application sees it.
 *
 *   --mode direct   the application writes its checkpoint to --path (the
 *                   slow "parallel file system") itself: write + fsync +
 *                   close, one file per rank, two versions kept.
 *   --mode engine   LOCAL on fast storage (--local, write + fsync), then the
 *                   library's drain engine (src/ckpt/stage.c, compiled in)
 *                   copies it to --path in the background while the
 *                   application computes; a LOCAL slot is rewritten only
 *                   after its previous drain is done (that wait counts as
 *                   checkpoint time).
 *   --mode api      the public checkpoint API (mpisw_ckpt_*, LOCAL on
 *                   --local, PFS on --path, staging on); only when mpisw.h
 *                   has it (MPISW_BENCH_HAVE_CKPT).
 *   --mode api_sync the API with staging off: LOCAL on --local, then PFS
 *                   written before take returns.
 *
 * Between checkpoints every rank computes for --compute seconds (rewrites
 * every byte of its data, then spins): the drain overlaps with it. Prints
 * one JSON record per run: checkpoint times (max over ranks per checkpoint;
 * min / median / max over checkpoints), the drain's aggregate bandwidth
 * (all ranks' bytes of one version / the time from the first rank's drain
 * start to the last one's end; ranks on one node) and
 * the loop's wall time. --verify reads the newest version back from --path
 * and checks every byte (exit 1 if one differs); --corrupt flips one byte
 * of rank 0's file first (the check must then fail). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_mpi.h"
#include "bench_util.h"
#include "ckpt/stage.h"
#ifdef MPISW_BENCH_HAVE_CKPT
#include "mpisw.h"
#endif

#define MAX_ITERS 1000

struct opts {
  const char *mode, *path, *local;
  size_t size, request;
  int iters, verify, corrupt, depth;
  double compute;
};

static int rank, nranks;

static void usage(void) {
  fprintf(stderr, "usage: ckpt_bench --path PFSDIR [--mode direct|engine|api|api_sync] "
                  "[--local DIR] [--size BYTES] [--iters N] [--compute SECONDS] [--verify] [--corrupt]\n"
                  "       [--request BYTES] [--depth N]   (engine: the drain's request size, requests in flight)\n");
  exit(2);
}

/* The data of version v: a pattern every byte of which depends on v. */
static void compute(unsigned char *data, size_t n, int v, double seconds) {
  double t0 = bench_now();
  uint64_t *w = (uint64_t *)data;
  uint64_t x = (uint64_t)v * 0x9E3779B97F4A7C15ull + (uint64_t)rank;
  for (size_t i = 0; i < n / 8; i++) w[i] = x + i * 0xD1B54A32D192ED03ull;
  for (size_t i = n / 8 * 8; i < n; i++) data[i] = (unsigned char)(x + i);
  volatile double sink = 0;
  while (bench_now() - t0 < seconds)
    for (int i = 0; i < 10000; i++) sink += i * 1e-9;
}

/* trunc 0: rewrite in place (a LOCAL slot keeps its pages and blocks). */
static void write_file(const char *path, const unsigned char *data, size_t n, int trunc) {
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (trunc ? O_TRUNC : 0), 0600);
  if (fd < 0) bench_die("open %s: %s", path, strerror(errno));
  for (size_t off = 0; off < n;) {
    ssize_t w = write(fd, data + off, n - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) bench_die("write %s: %s", path, w < 0 ? strerror(errno) : "wrote nothing");
    off += (size_t)w;
  }
  if (fsync(fd) != 0) bench_die("fsync %s: %s", path, strerror(errno));
  if (close(fd) != 0) bench_die("close %s: %s", path, strerror(errno));
}

/* 1 if path holds exactly data (direct and engine files are raw data). */
static int same_as(const char *path, const unsigned char *data, size_t n) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  unsigned char *buf = malloc(1 << 20);
  size_t off = 0;
  int ok = 1;
  while (ok && off < n) {
    ssize_t r = read(fd, buf, n - off < (1 << 20) ? n - off : (1 << 20));
    if (r <= 0 || memcmp(buf, data + off, (size_t)r) != 0) ok = 0;
    else off += (size_t)r;
  }
  if (ok && read(fd, buf, 1) != 0) ok = 0; /* longer than the data */
  close(fd);
  free(buf);
  return ok;
}

static void print_record(const struct opts *o, const double *ckpt, const double *drain_bw,
                         int ndrain, double waited, double total) {
  double c[MAX_ITERS], d[MAX_ITERS];
  memcpy(c, ckpt, sizeof(double) * (size_t)o->iters);
  qsort(c, (size_t)o->iters, sizeof(double), bench_cmp_double);
  memcpy(d, drain_bw, sizeof(double) * (size_t)ndrain);
  qsort(d, (size_t)ndrain, sizeof(double), bench_cmp_double);
  printf("{\"bench\":\"ckpt\",\"mode\":\"%s\",\"ranks\":%d,\"size\":%zu,\"iters\":%d,"
         "\"request\":%zu,\"depth\":%d,\"compute_s\":%.3f,\"ckpt_s\":%.6f,\"ckpt_min_s\":%.6f,\"ckpt_max_s\":%.6f,"
         "\"ckpt_first_s\":%.6f",
         o->mode, nranks, o->size, o->iters, o->request ? o->request : (size_t)MPISW_STAGE_REQUEST,
         o->depth ? o->depth : MPISW_STAGE_DEPTH, o->compute, c[o->iters / 2], c[0],
         c[o->iters - 1], ckpt[0]);
  if (ndrain)
    printf(",\"drain_GBps\":%.6f,\"drain_min_GBps\":%.6f,\"drain_max_GBps\":%.6f,\"drains\":%d",
           d[ndrain / 2] / 1e9, d[0] / 1e9, d[ndrain - 1] / 1e9, ndrain);
  printf(",\"slot_wait_s\":%.6f,\"total_s\":%.6f,\"app_GBps\":%.6f,\"load1\":%.2f,"
         "\"cores\":%ld}\n", waited, total, (double)o->size * nranks / c[o->iters / 2] / 1e9,
         bench_load1(), sysconf(_SC_NPROCESSORS_ONLN));
  fflush(stdout);
}

static void stage_die(const char *what, const struct mpisw_error *e) {
  bench_die("%s: %s", what, e->msg);
}

int main(int argc, char **argv) {
  struct opts o = {.mode = "direct", .local = "/tmp", .size = 256u << 20, .iters = 4,
                   .compute = 3.0};
  static const struct option lo[] = {
      {"mode", 1, 0, 'm'}, {"path", 1, 0, 'p'}, {"local", 1, 0, 'l'}, {"size", 1, 0, 's'},
      {"iters", 1, 0, 'i'}, {"compute", 1, 0, 'c'}, {"verify", 0, 0, 'v'}, {"corrupt", 0, 0, 'x'},
      {"request", 1, 0, 'r'}, {"depth", 1, 0, 'd'}, {0, 0, 0, 0}};
  int ch;
  while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
    switch (ch) {
    case 'm': o.mode = optarg; break;
    case 'p': o.path = optarg; break;
    case 'l': o.local = optarg; break;
    case 's':
      if (bench_parse_bytes(optarg, &o.size)) {
        fprintf(stderr, "ckpt_bench: --size: '%s' is not a byte count\n", optarg);
        return 2;
      }
      break;
    case 'i':
      o.iters = atoi(optarg);
      if (o.iters < 1 || o.iters > MAX_ITERS) {
        fprintf(stderr, "ckpt_bench: --iters: 1 to %d, not '%s'\n", MAX_ITERS, optarg);
        return 2;
      }
      break;
    case 'c': o.compute = atof(optarg); break;
    case 'v': o.verify = 1; break;
    case 'x': o.corrupt = o.verify = 1; break;
    case 'r':
      if (bench_parse_bytes(optarg, &o.request)) {
        fprintf(stderr, "ckpt_bench: --request: '%s' is not a byte count\n", optarg);
        return 2;
      }
      break;
    case 'd': o.depth = atoi(optarg); break;
    default: usage();
    }
  }
  if (!o.path) usage();
  int engine = !strcmp(o.mode, "engine"), direct = !strcmp(o.mode, "direct");
  int api = !strcmp(o.mode, "api"), api_sync = !strcmp(o.mode, "api_sync");
  if (!engine && !direct && !api && !api_sync) {
    fprintf(stderr, "ckpt_bench: --mode is direct, engine, api or api_sync, not '%s'\n", o.mode);
    return 2;
  }
#ifndef MPISW_BENCH_HAVE_CKPT
  if (api || api_sync) {
    fprintf(stderr, "ckpt_bench: --mode %s: this build's mpisw.h has no checkpoint API\n", o.mode);
    return 2;
  }
#endif
  if (o.request || o.depth) { /* the drain engine's request size and depth (engine mode) */
    struct mpisw_error e;
    if (mpisw_stage_tune(o.request, o.depth, &e)) {
      fprintf(stderr, "ckpt_bench: %s\n", e.msg);
      return 2;
    }
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  unsigned char *data = aligned_alloc(4096, (o.size + 4095) / 4096 * 4096);
  if (!data) bench_die("no memory for %zu bytes", o.size);

  /* This run's own directories (removed at the end). */
  char pfs[1024], local[1024];
  snprintf(pfs, sizeof pfs, "%s/ckpt-bench", o.path);
  snprintf(local, sizeof local, "%s/mpisw-ckpt-bench-%s-%d", o.local, o.mode, (int)getpid());
  if (rank == 0) {
    if (mkdir(pfs, 0700) != 0 && errno != EEXIST) bench_die("mkdir %s: %s", pfs, strerror(errno));
  }
  MPI_Bcast(local, sizeof local, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0 && (engine || api || api_sync) && mkdir(local, 0700) != 0)
    bench_die("mkdir %s: %s", local, strerror(errno));
  MPI_Barrier(MPI_COMM_WORLD);

#ifdef MPISW_BENCH_HAVE_CKPT
  mpisw_ckpt *ck = NULL;
  if (api || api_sync) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "ckpt_pfs", pfs);
    MPI_Info_set(info, "ckpt_pfs_every", "1");
    MPI_Info_set(info, "ckpt_local", local);
    MPI_Info_set(info, "ckpt_staging", api ? "1" : "0");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = mpisw_ckpt_create("bench", MPI_COMM_WORLD, info, &ck);
    if (rc == MPI_SUCCESS) rc = mpisw_ckpt_protect_mem(ck, data, o.size);
    if (rc != MPI_SUCCESS) {
      char s[MPI_MAX_ERROR_STRING];
      int n;
      MPI_Error_string(rc, s, &n);
      bench_die("mpisw_ckpt_create: %s", s);
    }
    MPI_Info_free(&info);
  }
#endif

  double ckpt[MAX_ITERS], drain_bw[MAX_ITERS];
  int ndrain = 0;
  double waited_total = 0;
  mpisw_stage_ticket ticket[MAX_ITERS] = {0};
  char slot_path[2][1200];
  for (int s = 0; s < 2; s++) snprintf(slot_path[s], sizeof slot_path[s], "%s/r%d.s%d", local, rank, s);
  char last_pfs[1200] = "";
  double t_start = bench_now();
  for (int it = 0; it < o.iters; it++) {
    compute(data, o.size, it, o.compute);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    char dst[1200];
    snprintf(dst, sizeof dst, "%s/r%d.v%d", pfs, rank, it);
    if (direct) {
      write_file(dst, data, o.size, 1);
    } else if (engine) {
      /* slot it % 2 held version it - 2: its drain must be done first */
      struct mpisw_error e;
      double w0 = bench_now();
      if (it >= 2 && mpisw_stage_wait(ticket[it - 2], &e)) stage_die("drain", &e);
      waited_total += bench_now() - w0;
      write_file(slot_path[it % 2], data, o.size, 0);
      if (mpisw_stage_submit(slot_path[it % 2], dst, &ticket[it], &e)) stage_die("submit", &e);
    }
#ifdef MPISW_BENCH_HAVE_CKPT
    else {
      int v;
      int rc = mpisw_ckpt_take(ck, &v);
      if (rc != MPI_SUCCESS) {
        char s[MPI_MAX_ERROR_STRING];
        int n;
        MPI_Error_string(rc, s, &n);
        bench_die("mpisw_ckpt_take: %s", s);
      }
      struct mpisw_ckpt_status st;
      if (api && it > 0 && mpisw_ckpt_status(ck, &st) == MPI_SUCCESS && st.last_drained == v - 1 &&
          st.drain_seconds > 0) {
        /* the previous version's drain, done while this rank computed */
        double worst, d = st.drain_seconds;
        MPI_Allreduce(&d, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        drain_bw[ndrain++] = (double)st.drain_bytes * nranks / worst;
      }
    }
#endif
    double mine = bench_now() - t0;
    MPI_Allreduce(&mine, &ckpt[it], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    snprintf(last_pfs, sizeof last_pfs, "%s", dst);
  }
  /* The end of the job: the last drains are waited for (the API's free and
   * MPI_Finalize wait too), inside the loop's total time. */
  if (engine) {
    struct mpisw_error e;
    if (mpisw_stage_wait_all(&e)) stage_die("drain", &e);
    /* A version's drain on all ranks: from the first start to the last end
     * (CLOCK_MONOTONIC: the ranks of one node share it). */
    for (int it = 0; it < o.iters; it++) {
      struct mpisw_stage_copyinfo ci;
      double t[3] = {0, 0, 1}, w[3]; /* -start, end, "unknown here" */
      if (mpisw_stage_info(ticket[it], &ci, &e) == 0)
        t[0] = -ci.started, t[1] = ci.started + ci.seconds, t[2] = 0;
      MPI_Allreduce(t, w, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      double span = w[1] + w[0];
      if (w[2] == 0 && span > 0) drain_bw[ndrain++] = (double)o.size * nranks / span;
    }
  }
#ifdef MPISW_BENCH_HAVE_CKPT
  if (api) {
    if (mpisw_ckpt_wait(ck) != MPI_SUCCESS) bench_die("mpisw_ckpt_wait failed");
    struct mpisw_ckpt_status st;
    mpisw_ckpt_status(ck, &st);
    double d = st.drain_seconds > 0 ? st.drain_seconds : -1, worst;
    MPI_Allreduce(&d, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (worst > 0) drain_bw[ndrain++] = (double)st.drain_bytes * nranks / worst;
  }
#endif
  MPI_Barrier(MPI_COMM_WORLD);
  double total = bench_now() - t_start;
  int bad = 0;
  if (o.corrupt && rank == 0) { /* the self-check of --verify: one byte flipped */
    int fd = open(last_pfs, O_RDWR | O_CLOEXEC);
    unsigned char b = 0;
    if (fd < 0 || pread(fd, &b, 1, (off_t)o.size / 2) != 1) bench_die("corrupt %s", last_pfs);
    b ^= 0x5a;
    if (pwrite(fd, &b, 1, (off_t)o.size / 2) != 1) bench_die("corrupt %s", last_pfs);
    close(fd);
  }
  if (o.verify && (direct || engine)) {
    bad = !same_as(last_pfs, data, o.size);
    if (bad) fprintf(stderr, "ckpt_bench: rank %d: %s differs from the data\n", rank, last_pfs);
  }
  int anybad;
  MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  double waited;
  MPI_Allreduce(&waited_total, &waited, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && !anybad) print_record(&o, ckpt, drain_bw, ndrain, waited, total);
#ifdef MPISW_BENCH_HAVE_CKPT
  if (ck) mpisw_ckpt_free(&ck);
#endif
  /* Leave nothing behind: this run's files on both levels. */
  for (int it = 0; it < o.iters; it++) {
    char p[1200];
    snprintf(p, sizeof p, "%s/r%d.v%d", pfs, rank, it);
    unlink(p);
  }
  for (int s = 0; s < 2; s++) unlink(slot_path[s]);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    if (engine || api || api_sync) {
      char cmd[1200];
      snprintf(cmd, sizeof cmd, "rm -rf '%s'", local);
      if (system(cmd) != 0) fprintf(stderr, "ckpt_bench: cannot remove %s\n", local);
    }
    if (api || api_sync) {
      char cmd[1200];
      snprintf(cmd, sizeof cmd, "rm -rf '%s'", pfs);
      if (system(cmd) != 0) fprintf(stderr, "ckpt_bench: cannot remove %s\n", pfs);
    }
    rmdir(pfs);
  }
  free(data);
  MPI_Finalize();
  return anybad;
}
