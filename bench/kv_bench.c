/* kv_bench: the mpisw_kv store under a key-value cache workload.
 *
 *   kv_bench --mode cache|naive|memory --path DIR [--objects 65536]
 *            [--value 1024] [--cache 16M] [--ops 200000] [--warmup 100000]
 *            [--get-ratio 0.9] [--zipf 0.99] [--access random] [--seed 1]
 *            [--wbuf 4M] [--log-size 256M] [--read poll|direct|window]
 *            [--think-us 0] [--stage all|load|run --name FILE]
 *
 * Loads --objects keys (8-byte ids) with --value-byte values, runs --warmup
 * operations, then measures --ops operations (gets with probability
 * --get-ratio, puts otherwise; keys drawn from a Zipf distribution whose
 * popular ranks are spread over the ids) and a final mpisw_kv_sync;
 * --think-us busy-waits that long before each operation (the application's
 * own work between requests; not timed, not in the throughput). --stage
 * load only loads the store into --path/--name, syncs, closes it and drops
 * its pages from the page cache; --stage run then opens that store and runs
 * the operations (the loaded store is assumed): so a store can be loaded
 * outside the memory cgroup the measured run goes into. Modes:
 * cache (memory window of --cache bytes + log), naive (fixed slots in a
 * storage window, twice as many slots as objects), memory (the cache
 * backend with a window that holds every object: all in memory).
 * Prints one JSON line: latencies (p50/p99 of gets and puts), throughput,
 * and the bytes the process made the device read and write during the
 * measured phase (/proc/self/io read_bytes/write_bytes, and the block
 * device's own counters, which also see other processes). */

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "bench_mpi.h"
#include "bench_util.h"
#include "mpisw_kv.h"

struct opts {
  const char *mode, *path, *access, *read, *stage, *name;
  size_t objects, value, cache, ops, warmup, wbuf, log_size;
  double get_ratio, zipf, think_us;
  unsigned seed;
};

/* xorshift64*: fast, good enough for key choice. */
static uint64_t rng_state;
static uint64_t rng(void) {
  uint64_t x = rng_state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  rng_state = x;
  return x * 0x2545F4914F6CDD1Dull;
}
static double urand(void) { return (rng() >> 11) * (1.0 / 9007199254740992.0); }

static double pct(double *v, size_t n, double p) {
  if (!n) return -1;
  size_t i = (size_t)(p * (double)(n - 1) + 0.5);
  return v[i];
}

static void usage(void) {
  fprintf(stderr, "usage: kv_bench --mode cache|naive|memory --path DIR [--objects N] [--value B]\n"
                  "  [--cache B] [--ops N] [--warmup N] [--get-ratio F] [--zipf S] [--access STYLE]\n"
                  "  [--seed N] [--wbuf B] [--log-size B] [--read poll|direct|window] [--think-us US]\n"
                  "  [--stage all|load|run --name FILE]\n");
  exit(2);
}

static void parse(int argc, char **argv, struct opts *o) {
  *o = (struct opts){"cache", NULL, NULL, NULL, "all", NULL, 65536, 1024, 16u << 20, 200000, 100000,
                     4u << 20, 0, 0.9, 0.99, 0, 1};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) usage();
    size_t *sz = NULL;
    if (!strcmp(a, "--mode")) o->mode = v;
    else if (!strcmp(a, "--path")) o->path = v;
    else if (!strcmp(a, "--access")) o->access = v;
    else if (!strcmp(a, "--read")) o->read = v;
    else if (!strcmp(a, "--stage")) o->stage = v;
    else if (!strcmp(a, "--name")) o->name = v;
    else if (!strcmp(a, "--get-ratio")) o->get_ratio = atof(v);
    else if (!strcmp(a, "--zipf")) o->zipf = atof(v);
    else if (!strcmp(a, "--think-us")) o->think_us = atof(v);
    else if (!strcmp(a, "--seed")) o->seed = (unsigned)atoi(v);
    else if (!strcmp(a, "--objects")) sz = &o->objects;
    else if (!strcmp(a, "--value")) sz = &o->value;
    else if (!strcmp(a, "--cache")) sz = &o->cache;
    else if (!strcmp(a, "--ops")) sz = &o->ops;
    else if (!strcmp(a, "--warmup")) sz = &o->warmup;
    else if (!strcmp(a, "--wbuf")) sz = &o->wbuf;
    else if (!strcmp(a, "--log-size")) sz = &o->log_size;
    else usage();
    if (sz && (!strcmp(v, "0") ? (*sz = 0, 0) : bench_parse_bytes(v, sz))) usage();
    i++;
  }
  if (!o->path || (strcmp(o->mode, "cache") && strcmp(o->mode, "naive") && strcmp(o->mode, "memory")))
    usage();
  if (strcmp(o->stage, "all") && strcmp(o->stage, "load") && strcmp(o->stage, "run")) usage();
  if (strcmp(o->stage, "all") && (!o->name || strchr(o->name, '/'))) usage();
}

/* After --stage load: the store's pages leave the page cache, so the run
 * that follows (perhaps in a memory cgroup) starts cold and is charged for
 * every page it reads. */
static void drop_page_cache(const char *file) {
  int fd = open(file, O_RDONLY);
  if (fd < 0 || fdatasync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)) {
    fprintf(stderr, "kv_bench: cannot drop %s from the page cache: %s\n", file, strerror(errno));
    exit(1);
  }
  close(fd);
}

/* Value of key id, version ver: the first 16 bytes say which. */
static void fill(char *v, size_t n, uint64_t id, uint64_t ver) {
  memset(v, (int)(id & 0xff), n);
  if (n >= 16) {
    memcpy(v, &id, 8);
    memcpy(v + 8, &ver, 8);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  struct opts o;
  parse(argc, argv, &o);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  rng_state = 0x9E3779B97F4A7C15ull ^ ((uint64_t)o.seed << 32) ^ (uint64_t)rank;

  size_t n = o.objects;
  size_t rec = 24 + 8 + o.value;
  size_t cache = !strcmp(o.mode, "memory") ? (n * ((o.value + 255) / 256 * 256)) * 5 / 4 + (1u << 20) : o.cache;
  size_t log_size = o.log_size ? o.log_size : ((n * rec * 4) + (64u << 20)) & ~(size_t)4095;
  char file[4096], val[32];
  if (o.name) snprintf(file, sizeof file, "%s/%s", o.path, o.name);
  else snprintf(file, sizeof file, "%s/kv-bench-%s-%d-%d.kv", o.path, o.mode, (int)getpid(), rank);
  int load = strcmp(o.stage, "run") != 0, measure = strcmp(o.stage, "load") != 0;
  if (load) unlink(file);
  else if (access(file, R_OK | W_OK) != 0)
    bench_die("--stage run: %s: %s (load it first with --stage load)", file, strerror(errno));
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, MPISW_KV_BACKEND, strcmp(o.mode, "naive") ? "cache" : "naive");
  snprintf(val, sizeof val, "%zu", cache);
  MPI_Info_set(info, MPISW_KV_CACHE_SIZE, val);
  snprintf(val, sizeof val, "%zu", log_size);
  MPI_Info_set(info, MPISW_KV_LOG_SIZE, val);
  snprintf(val, sizeof val, "%zu", o.wbuf);
  MPI_Info_set(info, MPISW_KV_WRITE_BUFFER, val);
  snprintf(val, sizeof val, "%zu", 2 * n);
  MPI_Info_set(info, MPISW_KV_SLOTS, val);
  snprintf(val, sizeof val, "%zu", (16 + 8 + o.value + 7) & ~(size_t)7);
  MPI_Info_set(info, MPISW_KV_SLOT_SIZE, val);
  if (o.read) MPI_Info_set(info, MPISW_KV_READ, (char *)o.read);
  if (o.access) MPI_Info_set(info, "access_style", (char *)o.access);
  mpisw_kv *kv;
  int rc = mpisw_kv_open(file, info, MPI_COMM_SELF, &kv);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) bench_die_mpi("open", rc);

  /* Zipf over ranks; rank r is key perm[r]. */
  double *cdf = malloc(n * sizeof *cdf);
  uint64_t *perm = malloc(n * sizeof *perm);
  uint64_t *ver = calloc(n, sizeof *ver);
  double sum = 0;
  for (size_t i = 0; i < n; i++) {
    sum += 1.0 / pow((double)(i + 1), o.zipf);
    cdf[i] = sum;
    perm[i] = i;
  }
  for (size_t i = 0; i < n; i++) cdf[i] /= sum;
  for (size_t i = n; i > 1; i--) {
    size_t j = rng() % i;
    uint64_t t = perm[i - 1];
    perm[i - 1] = perm[j];
    perm[j] = t;
  }
  char *v = malloc(o.value + 64), *g = malloc(o.value + 64);

  double t0 = bench_now();
  if (load) {
    for (uint64_t id = 0; id < n; id++) {
      fill(v, o.value, id, 0);
      if ((rc = mpisw_kv_put(kv, &id, 8, v, o.value)) != MPI_SUCCESS) bench_die_mpi("load put", rc);
    }
    if ((rc = mpisw_kv_sync(kv)) != MPI_SUCCESS) bench_die_mpi("load sync", rc);
  }
  double load_s = bench_now() - t0;
  if (!measure) {
    if ((rc = mpisw_kv_close(&kv)) != MPI_SUCCESS) bench_die_mpi("close", rc);
    drop_page_cache(file);
    printf("kv_bench: loaded %zu objects into %s in %.1f s\n", n, file, load_s);
    free(cdf); free(perm); free(ver); free(v); free(g);
    MPI_Finalize();
    return 0;
  }

  size_t total = o.warmup + o.ops, n_get = 0, n_put = 0, errors = 0;
  double *lg = malloc((o.ops + 1) * sizeof *lg), *lp = malloc((o.ops + 1) * sizeof *lp);
  double *lh = malloc((o.ops + 1) * sizeof *lh);
  size_t n_hit = 0;
  uint64_t hits_seen = 0;
  char devp[64];
  dev_stat_path(o.path, devp, sizeof devp);
  struct io_sample p0 = {0, 0}, d0 = {0, 0};
  struct mpisw_kv_stats s0 = {0}, s1;
  double m0 = 0, ops_s = 0, think_s = 0;
  for (size_t k = 0; k < total; k++) {
    if (k == o.warmup) {
      mpisw_kv_stats(kv, &s0);
      hits_seen = s0.get_hits;
      p0 = read_proc_io();
      d0 = read_dev_io(devp);
      m0 = bench_now();
    }
    if (o.think_us > 0) {   /* the application's own work between operations */
      double t = bench_now(), t1;
      while ((t1 = bench_now()) - t < o.think_us * 1e-6) {
      }
      if (k >= o.warmup) think_s += t1 - t;
    }
    double u = urand();
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    uint64_t id = perm[lo];
    int is_get = urand() < o.get_ratio;
    double a = bench_now();
    if (is_get) {
      size_t len = 0;
      rc = mpisw_kv_get(kv, &id, 8, g, o.value + 64, &len);
      double b = bench_now();
      if (k >= o.warmup) {
        struct mpisw_kv_stats sh;
        mpisw_kv_stats(kv, &sh);
        if (sh.get_hits != hits_seen) lh[n_hit++] = (b - a) * 1e6;
        hits_seen = sh.get_hits;
      }
      if (rc != MPI_SUCCESS) bench_die_mpi("get", rc);
      uint64_t gid, gver;
      memcpy(&gid, g, 8);
      memcpy(&gver, g + 8, 8);
      if (len != o.value || gid != id || gver != ver[id]) errors++;
      if (k >= o.warmup) lg[n_get++] = (b - a) * 1e6;
    } else {
      fill(v, o.value, id, ++ver[id]);
      a = bench_now();
      rc = mpisw_kv_put(kv, &id, 8, v, o.value);
      double b = bench_now();
      if (rc != MPI_SUCCESS) bench_die_mpi("put", rc);
      if (k >= o.warmup) lp[n_put++] = (b - a) * 1e6;
    }
  }
  ops_s = bench_now() - m0 - think_s;
  double s_a = bench_now();
  if ((rc = mpisw_kv_sync(kv)) != MPI_SUCCESS) bench_die_mpi("sync", rc);
  double sync_s = bench_now() - s_a;
  struct io_sample p1 = read_proc_io(), d1 = read_dev_io(devp);
  mpisw_kv_stats(kv, &s1);
  if ((rc = mpisw_kv_close(&kv)) != MPI_SUCCESS) bench_die_mpi("close", rc);
  unlink(file);

  qsort(lg, n_get, sizeof *lg, bench_cmp_double);
  qsort(lp, n_put, sizeof *lp, bench_cmp_double);
  qsort(lh, n_hit, sizeof *lh, bench_cmp_double);
  double secs = ops_s + sync_s;
  struct io_sample pd = io_delta(p0, p1), dd = io_delta(d0, d1);
  long long rd = pd.read, wr = pd.write, drd = dd.read, dwr = dd.write;
  uint64_t gets = s1.gets - s0.gets, hits = s1.get_hits - s0.get_hits;
  /* The naive table has no hits of its own (the page cache decides). */
  char hit_p50[32] = "null", hit_rate[32] = "null";
  if (strcmp(o.mode, "naive")) {
    snprintf(hit_p50, sizeof hit_p50, "%.3f", pct(lh, n_hit, 0.5));
    snprintf(hit_rate, sizeof hit_rate, "%.4f", gets ? (double)hits / (double)gets : 0.0);
  }
  printf("{\"bench\": \"kv\", \"mode\": \"%s\", \"access\": %s%s%s, \"read\": \"%s\", "
         "\"objects\": %zu, \"value\": %zu, \"cache\": %zu, \"ops\": %zu, \"warmup\": %zu, "
         "\"get_ratio\": %g, \"zipf\": %g, \"think_us\": %g, \"wbuf\": %zu, \"ranks\": 1, "
         "\"get_p50_us\": %.3f, \"get_p99_us\": %.3f, \"get_hit_p50_us\": %s, \"put_p50_us\": %.3f, \"put_p99_us\": %.3f, "
         "\"ops_per_s\": %.1f, \"seconds\": %.4f, \"sync_seconds\": %.4f, \"load_seconds\": %.3f, "
         "\"read_bytes\": %lld, \"write_bytes\": %lld, \"read_MiB\": %.3f, \"write_MiB\": %.3f, "
         "\"dev_read_bytes\": %lld, "
         "\"dev_write_bytes\": %lld, \"read_bytes_per_op\": %.1f, \"write_bytes_per_op\": %.1f, "
         "\"hit_rate\": %s, \"evictions\": %llu, \"compactions\": %llu, "
         "\"log_read_bytes\": %llu, \"log_append_bytes\": %llu, \"errors\": %zu, "
         "\"stage\": \"%s\"}\n",
         o.mode, o.access ? "\"" : "", o.access ? o.access : "null", o.access ? "\"" : "",
         strcmp(o.mode, "naive") ? (o.read ? o.read : "poll") : "window", n, o.value,
         strcmp(o.mode, "naive") ? cache : 0, o.ops, o.warmup, o.get_ratio, o.zipf, o.think_us, o.wbuf,
         pct(lg, n_get, 0.5), pct(lg, n_get, 0.99), hit_p50, pct(lp, n_put, 0.5), pct(lp, n_put, 0.99),
         (double)o.ops / secs, secs, sync_s, load_s, rd, wr, rd / 1048576.0, wr / 1048576.0, drd, dwr,
         rd >= 0 ? (double)rd / (double)o.ops : -1.0, wr >= 0 ? (double)wr / (double)o.ops : -1.0,
         hit_rate, (unsigned long long)(s1.evictions - s0.evictions),
         (unsigned long long)(s1.compactions - s0.compactions),
         (unsigned long long)(s1.log_read_bytes - s0.log_read_bytes),
         (unsigned long long)(s1.log_append_bytes - s0.log_append_bytes), errors, o.stage);
  fflush(stdout);
  free(cdf); free(perm); free(ver); free(v); free(g); free(lg); free(lp); free(lh);
  MPI_Finalize();
  return errors ? 1 : 0;
}
