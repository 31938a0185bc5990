/*
 * mstream: mSTREAM, the throughput of large memory operations on an MPI
 * window (paper, section 3.2), for windows in memory, on storage, or both.
 *
 * Each rank allocates a window of --size bytes and, per kernel, runs one cold
 * iteration (not counted) and --iters timed ones. An iteration is one
 * passive-target epoch on the target rank's window holding size/segment
 * operations of one segment each; operation i writes (MPI_Put, even i) or
 * reads (MPI_Get, odd i) and is completed by MPI_Win_flush. The kernels only
 * differ in which segment operation i touches:
 *
 *   SEQ  segments 0, 1, 2, ...: back to back, no reuse
 *   PAD  segments 0, 2, 4, ... (a stride of two), wrapping around: reuse
 *   RND  segment-aligned pseudo-random offsets (xorshift, fixed seed)
 *   MIX  RND over the first half of the window, PAD over the second
 *
 * Before the last timed epoch ends, MPI_Win_sync makes the storage part
 * durable; it is timed on its own. Bandwidth = bytes moved by all ranks /
 * the slowest rank's time. Per kernel, rank 0 prints one JSON line on stdout
 * (progress goes to stderr), including the bytes the processes
 * (/proc/self/io) and the block device under --path (/sys/dev/block) read
 * and wrote during the timed iterations.
 *
 * Run: mpiexec -n 1 ./mstream --kind storage --path /tmp   (--help for all)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* CMake defines it; this is for a build by hand */
#endif
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bench_mpi.h"
#include "bench_util.h"

#include "mpisw.h"

enum kernel { SEQ, PAD, RND, MIX, NKERNELS };
static const char *const kernel_names[NKERNELS] = {"SEQ", "PAD", "RND", "MIX"};

enum kind { KIND_MEMORY, KIND_STORAGE, KIND_COMBINED };
static const char *const kind_names[] = {"memory", "storage", "combined"};

struct options {
  unsigned kernels;     /* bit (1 << kernel) for each kernel to run */
  size_t size;          /* window bytes per rank */
  size_t segment;       /* bytes per operation */
  int iters;            /* timed iterations per kernel */
  enum kind kind;
  const char *factor;   /* storage_alloc_factor for combined: "0.5", "auto" */
  const char *order;    /* memory_first | storage_first */
  const char *path;     /* directory of the window files */
  int target_next;      /* 0: each rank targets itself; 1: rank + 1 */
  const char *access;   /* access_style hint, or NULL */
  const char *backend;  /* storage_backend hint (mmap or pager), or NULL */
  int sync;             /* call MPI_Win_sync in the last timed epoch */
};

/* Bytes read and written, as counted by the kernel; -1 when unknown. */
/* One kernel's run on one rank, then (after reduce_result) over all ranks. */
struct result {
  double seconds;        /* the timed iterations, sync included */
  double sync_seconds;   /* the final MPI_Win_sync */
  double nosync_seconds; /* seconds - sync_seconds */
  double cold_seconds;   /* the cold iteration */
  struct io_sample proc; /* this process (summed over ranks) */
  struct io_sample dev;  /* the block device (rank 0 only) */
};

/* What every epoch needs. */
struct run {
  MPI_Win win;
  int target, lock_type;
  size_t segment, nops;
  size_t *slot;           /* segment index of each operation */
  void *src, *dst;        /* local buffers of MPI_Put and MPI_Get */
};

#define MAX_OPS (1 << 24) /* operations per iteration: size / segment */

static int rank, nranks;

/* ------------------------------------------------------------------------
 * Command line
 * ---------------------------------------------------------------------- */

static void usage(FILE *f)
{
  fprintf(f,
    "usage: mstream [options]\n"
    "  --kernel K     SEQ, PAD, RND, MIX, a comma list of them, or all (default all)\n"
    "  --size B       window bytes per rank, suffix K/M/G (default 256M)\n"
    "  --segment B    bytes per operation, suffix K/M/G, at most 1G (default 16M;\n"
    "                 clipped to --size)\n"
    "  --iters N      timed iterations per kernel, after one cold one (default 10)\n"
    "  --kind K       memory, storage or combined (default memory)\n"
    "  --factor F     storage share of a combined window, in [0,1] or auto (default 0.5)\n"
    "  --order O      memory_first or storage_first (combined; default memory_first)\n"
    "  --path DIR     directory of the window files DIR/mstream-<rank>.win,\n"
    "                 removed at the end (default /tmp)\n"
    "  --target T     self or next: whose window each rank accesses (default self)\n"
    "  --access STYLE access_style hint for the storage part (e.g. sequential)\n"
    "  --backend B    storage_backend hint: auto, mmap or pager (default: no hint, the\n"
    "                 library's default, auto)\n"
    "  --no-sync      skip the final MPI_Win_sync (page cache only)\n"
    "  --help         this message\n"
    "Prints one JSON line per kernel on stdout; progress goes to stderr.\n");
}

/* Reports a bad option value (rank 0 only: every rank parses the same). */
static int bad_value(const char *opt, const char *value, const char *expected)
{
  if (rank == 0)
    fprintf(stderr, "mstream: %s: '%s' is not %s\n", opt, value, expected);
  return -1;
}

/* "SEQ,RND" or "all" (any case) into a bit mask of kernels. */
static int parse_kernels(const char *s, unsigned *mask)
{
  *mask = 0;
  char buf[64];
  snprintf(buf, sizeof buf, "%s", s);
  for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int k = 0;
    if (strcasecmp(tok, "all") == 0) {
      *mask |= (1u << NKERNELS) - 1;
      continue;
    }
    while (k < NKERNELS && strcasecmp(tok, kernel_names[k]) != 0)
      k++;
    if (k == NKERNELS)
      return -1;
    *mask |= 1u << k;
  }
  return *mask ? 0 : -1;
}

static int parse_factor(const char *s)
{
  char *end;
  errno = 0;
  double f = strtod(s, &end);
  if (strcmp(s, "auto") == 0)
    return 0;
  return (errno || end == s || *end || !(f >= 0.0 && f <= 1.0)) ? -1 : 0;
}

/* Returns 0, 1 for --help, or -1 for a bad command line. */
static int parse_options(int argc, char **argv, struct options *o)
{
  enum { O_KERNEL = 256, O_SIZE, O_SEGMENT, O_ITERS, O_KIND, O_FACTOR, O_ORDER,
         O_PATH, O_TARGET, O_ACCESS, O_NOSYNC, O_HELP, O_BACKEND };
  static const struct option longopts[] = {
    {"kernel", required_argument, NULL, O_KERNEL},
    {"size", required_argument, NULL, O_SIZE},
    {"segment", required_argument, NULL, O_SEGMENT},
    {"iters", required_argument, NULL, O_ITERS},
    {"kind", required_argument, NULL, O_KIND},
    {"factor", required_argument, NULL, O_FACTOR},
    {"order", required_argument, NULL, O_ORDER},
    {"path", required_argument, NULL, O_PATH},
    {"target", required_argument, NULL, O_TARGET},
    {"access", required_argument, NULL, O_ACCESS},
    {"backend", required_argument, NULL, O_BACKEND},
    {"no-sync", no_argument, NULL, O_NOSYNC},
    {"help", no_argument, NULL, O_HELP},
    {NULL, 0, NULL, 0}};

  *o = (struct options){.kernels = (1u << NKERNELS) - 1, .size = 256u << 20,
                        .segment = 16u << 20, .iters = 10, .kind = KIND_MEMORY,
                        .factor = "0.5", .order = "memory_first", .path = "/tmp",
                        .sync = 1};
  opterr = rank == 0; /* getopt's own complaints: once, not once per rank */
  int c;
  while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    char *end;
    switch (c) {
    case O_KERNEL:
      if (parse_kernels(optarg, &o->kernels))
        return bad_value("--kernel", optarg, "SEQ, PAD, RND, MIX or all");
      break;
    case O_SIZE:
      if (bench_parse_bytes(optarg, &o->size))
        return bad_value("--size", optarg, "a positive byte count");
      break;
    case O_SEGMENT:
      if (bench_parse_bytes(optarg, &o->segment) || o->segment > (1u << 30))
        return bad_value("--segment", optarg, "a byte count in [1, 1G]");
      break;
    case O_ITERS: {
      long n = (errno = 0, strtol(optarg, &end, 10));
      if (errno || end == optarg || *end || n < 1 || n > 1000000)
        return bad_value("--iters", optarg, "a count in [1, 1000000]");
      o->iters = (int)n;
      break;
    }
    case O_KIND:
      if (strcmp(optarg, "memory") == 0)
        o->kind = KIND_MEMORY;
      else if (strcmp(optarg, "storage") == 0)
        o->kind = KIND_STORAGE;
      else if (strcmp(optarg, "combined") == 0)
        o->kind = KIND_COMBINED;
      else
        return bad_value("--kind", optarg, "memory, storage or combined");
      break;
    case O_FACTOR:
      if (parse_factor(optarg))
        return bad_value("--factor", optarg, "a number in [0,1] or auto");
      o->factor = optarg;
      break;
    case O_ORDER:
      if (strcmp(optarg, "memory_first") && strcmp(optarg, "storage_first"))
        return bad_value("--order", optarg, "memory_first or storage_first");
      o->order = optarg;
      break;
    case O_PATH:
      if (!*optarg)
        return bad_value("--path", optarg, "a directory");
      o->path = optarg;
      break;
    case O_TARGET:
      if (strcmp(optarg, "self") && strcmp(optarg, "next"))
        return bad_value("--target", optarg, "self or next");
      o->target_next = strcmp(optarg, "next") == 0;
      break;
    case O_BACKEND:
      o->backend = optarg; /* the library validates it */
      break;
    case O_ACCESS:
      o->access = optarg; /* the library validates the list */
      break;
    case O_NOSYNC:
      o->sync = 0;
      break;
    case O_HELP:
      return 1;
    default:
      return -1;
    }
  }
  if (optind < argc) {
    if (rank == 0)
      fprintf(stderr, "mstream: unexpected argument '%s'\n", argv[optind]);
    return -1;
  }
  if (o->segment > o->size)
    o->segment = o->size;
  /* The plan of an iteration holds one index per operation. */
  if (o->size / o->segment > MAX_OPS) {
    if (rank == 0)
      fprintf(stderr, "mstream: --segment %zu is too small for --size %zu (at most %d "
              "operations per iteration)\n", o->segment, o->size, MAX_OPS);
    return -1;
  }
  if (o->access && o->kind == KIND_MEMORY) {
    if (rank == 0)
      fprintf(stderr, "mstream: --access applies to storage only; ignored\n");
    o->access = NULL;
  }
  return 0;
}

/* ------------------------------------------------------------------------
 * Where the window files go: file system and block device
 * ---------------------------------------------------------------------- */

/* The file system type of path: a name for the common ones, else hex. */
static void fs_name(const char *path, char *out, size_t len)
{
  static const struct { unsigned long magic; const char *name; } known[] = {
    {0xEF53, "ext4"},  /* ext2/3/4 share the magic */
    {0x58465342, "xfs"}, {0x01021994, "tmpfs"}, {0x9123683E, "btrfs"},
    {0x6969, "nfs"}, {0x0BD00BD0, "lustre"}};
  struct statfs s;
  if (statfs(path, &s) != 0) {
    out[0] = '\0';
    return;
  }
  unsigned long magic = (unsigned long)s.f_type & 0xFFFFFFFFul;
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (known[i].magic == magic) {
      snprintf(out, len, "%s", known[i].name);
      return;
    }
  snprintf(out, len, "0x%lx", magic);
}

/* ------------------------------------------------------------------------
 * Kernels: the segment each operation of an iteration touches
 * ---------------------------------------------------------------------- */

/* n operations over the n segments first .. first+n-1, in order. */
static void plan_seq(size_t *slot, size_t n, size_t first)
{
  for (size_t i = 0; i < n; i++)
    slot[i] = first + i;
}

/* n operations with a stride of two segments, wrapping around: with n even
 * every other segment is visited twice, the rest never. */
static void plan_pad(size_t *slot, size_t n, size_t first)
{
  for (size_t i = 0; i < n; i++)
    slot[i] = first + (2 * i) % n;
}

/* n operations at random segments among n. The seed is fixed, so every run
 * and every iteration does the same work. */
static void plan_rnd(size_t *slot, size_t n, size_t first)
{
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13; /* xorshift64 */
    x ^= x >> 7;
    x ^= x << 17;
    slot[i] = first + (size_t)(x % n);
  }
}

/* The size/segment operations of one iteration of kernel k. */
static void plan_kernel(enum kernel k, size_t *slot, size_t nslots)
{
  size_t half = nslots / 2;
  switch (k) {
  case SEQ: plan_seq(slot, nslots, 0); break;
  case PAD: plan_pad(slot, nslots, 0); break;
  case RND: plan_rnd(slot, nslots, 0); break;
  case MIX:
    plan_rnd(slot, half, 0);
    plan_pad(slot + half, nslots - half, half);
    break;
  default: break;
  }
}

/* ------------------------------------------------------------------------
 * The window
 * ---------------------------------------------------------------------- */

/* storage_alloc_filename for DIR/mstream-<rank>.win: a '%' in DIR is
 * doubled so the library does not read it as a template. */
static void window_filename(const char *dir, char *out, size_t len)
{
  size_t n = 0;
  for (const char *p = dir; *p && n + 2 < len; p++) {
    if (*p == '%')
      out[n++] = '%';
    out[n++] = *p;
  }
  snprintf(out + n, len - n, "/mstream-%%r.win");
}

/* The storage hints; none for a memory window. The file is scratch: it is
 * removed at free, and so not synced there either (discard). */
static MPI_Info window_info(const struct options *o)
{
  MPI_Info info = MPI_INFO_NULL;
  if (o->kind == KIND_MEMORY)
    return info;
  char filename[4200];
  window_filename(o->path, filename, sizeof filename);
  MPI_CHECK(MPI_Info_create(&info));
  MPI_CHECK(MPI_Info_set(info, MPISW_HINT_ALLOC_TYPE, "storage"));
  MPI_CHECK(MPI_Info_set(info, MPISW_HINT_FILENAME, filename));
  MPI_CHECK(MPI_Info_set(info, MPISW_HINT_UNLINK, "true"));
  MPI_CHECK(MPI_Info_set(info, MPISW_HINT_DISCARD, "true"));
  MPI_CHECK(MPI_Info_set(info, MPISW_HINT_ORDER, o->order));
  if (o->kind == KIND_COMBINED)
    MPI_CHECK(MPI_Info_set(info, MPISW_HINT_FACTOR, o->factor));
  if (o->access)
    MPI_CHECK(MPI_Info_set(info, MPISW_HINT_ACCESS_STYLE, o->access));
  if (o->backend)
    MPI_CHECK(MPI_Info_set(info, "storage_backend", o->backend));
  return info;
}

static char effective_backend[32]; /* storage_backend of the last window, "" if none */

static MPI_Win allocate_window(const struct options *o)
{
  MPI_Info info = window_info(o);
  void *base;
  MPI_Win win;
  MPI_CHECK(MPI_Win_allocate((MPI_Aint)o->size, 1, info, MPI_COMM_WORLD, &base, &win));
  /* Windows do not inherit the communicator's handler. */
  MPI_CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  if (info != MPI_INFO_NULL)
    MPI_CHECK(MPI_Info_free(&info));
  /* The backend in effect (the pager falls back to mmap where it cannot run). */
  bench_win_info(win, "storage_backend", effective_backend, (int)sizeof effective_backend);
  return win;
}

/* The storage share the library actually used (it resolves "auto"). */
static double effective_factor(const struct options *o, MPI_Win win)
{
  if (o->kind == KIND_MEMORY)
    return 0.0;
  double factor = o->kind == KIND_STORAGE ? 1.0 : atof(o->factor);
  char value[64];
  return bench_win_info(win, MPISW_HINT_FACTOR, value, sizeof value) ? atof(value) : factor;
}

/* ------------------------------------------------------------------------
 * Measuring
 * ---------------------------------------------------------------------- */

/* The storage sync, inside the last epoch. With another rank writing into
 * this window, wait until it is done, or the sync would not cover its data. */
static double sync_window(const struct run *r)
{
  if (r->target != rank)
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  double t = MPI_Wtime();
  MPI_CHECK(MPI_Win_sync(r->win));
  return MPI_Wtime() - t;
}

/* One iteration: one epoch of alternating writes and reads, each completed
 * at the target before the next. Returns the seconds spent in the sync. */
static double run_iteration(const struct run *r, int sync)
{
  const int count = (int)r->segment;
  double sync_seconds = 0.0;
  MPI_CHECK(MPI_Win_lock(r->lock_type, r->target, 0, r->win));
  for (size_t i = 0; i < r->nops; i++) {
    MPI_Aint disp = (MPI_Aint)(r->slot[i] * r->segment);
    if (i % 2 == 0)
      MPI_CHECK(MPI_Put(r->src, count, MPI_BYTE, r->target, disp, count, MPI_BYTE, r->win));
    else
      MPI_CHECK(MPI_Get(r->dst, count, MPI_BYTE, r->target, disp, count, MPI_BYTE, r->win));
    MPI_CHECK(MPI_Win_flush(r->target, r->win));
  }
  if (sync)
    sync_seconds = sync_window(r);
  MPI_CHECK(MPI_Win_unlock(r->target, r->win));
  return sync_seconds;
}

/* The cold iteration, then the timed ones; I/O counters around the latter. */
static struct result measure(const struct options *o, const struct run *r,
                             const char *dev_stat)
{
  struct result res;
  double t = MPI_Wtime();
  run_iteration(r, 0);
  res.cold_seconds = MPI_Wtime() - t;

  MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD)); /* start the timed part together */
  struct io_sample dev0 = rank == 0 ? read_dev_io(dev_stat) : (struct io_sample){-1, -1};
  struct io_sample proc0 = read_proc_io();
  res.sync_seconds = 0.0;
  t = MPI_Wtime();
  for (int it = 0; it < o->iters; it++)
    res.sync_seconds += run_iteration(r, o->sync && it == o->iters - 1);
  res.seconds = MPI_Wtime() - t;
  res.nosync_seconds = res.seconds - res.sync_seconds;
  res.proc = io_delta(proc0, read_proc_io());

  MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD)); /* the device: after every rank */
  res.dev = rank == 0 ? io_delta(dev0, read_dev_io(dev_stat)) : dev0;
  return res;
}

/* Times: the slowest rank. Process I/O: the sum (null if any rank lacks it). */
static void reduce_result(struct result *res)
{
  double t[4] = {res->seconds, res->sync_seconds, res->nosync_seconds, res->cold_seconds};
  double tmax[4];
  MPI_CHECK(MPI_Reduce(t, tmax, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
  long long io[3] = {res->proc.read, res->proc.write, res->proc.read < 0};
  long long iosum[3];
  MPI_CHECK(MPI_Reduce(io, iosum, 3, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
  if (rank != 0)
    return;
  res->seconds = tmax[0];
  res->sync_seconds = tmax[1];
  res->nosync_seconds = tmax[2];
  res->cold_seconds = tmax[3];
  res->proc = iosum[2] ? (struct io_sample){-1, -1} : (struct io_sample){iosum[0], iosum[1]};
}

/* ------------------------------------------------------------------------
 * Output
 * ---------------------------------------------------------------------- */

static void json_string(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

/* A byte count, or null when it is unknown. */
static void json_bytes(FILE *f, const char *key, long long v)
{
  if (v < 0)
    fprintf(f, ",\"%s\":null", key);
  else
    fprintf(f, ",\"%s\":%lld", key, v);
}

static void print_json(const struct options *o, enum kernel k, double factor,
                       const struct result *res, size_t moved, const char *fs)
{
  const double total = (double)moved * o->iters * nranks;
  const double mib = 1024.0 * 1024.0;
  FILE *f = stdout;
  fprintf(f, "{\"bench\":\"mstream\",\"kernel\":\"%s\",\"kind\":\"%s\"", kernel_names[k],
          kind_names[o->kind]);
  fprintf(f, ",\"factor\":%.6g%s", factor, factor == (long long)factor ? ".0" : "");
  fprintf(f, ",\"order\":\"%s\",\"ranks\":%d,\"size\":%zu,\"segment\":%zu,\"iters\":%d",
          o->order, nranks, o->size, o->segment, o->iters);
  fprintf(f, ",\"target\":\"%s\",\"sync\":%s", o->target_next ? "next" : "self",
          o->sync ? "true" : "false");
  fprintf(f, ",\"seconds\":%.6f,\"sync_seconds\":%.6f,\"cold_seconds\":%.6f", res->seconds,
          res->sync_seconds, res->cold_seconds);
  fprintf(f, ",\"bw_MiBps\":%.1f,\"bw_nosync_MiBps\":%.1f", total / mib / res->seconds,
          total / mib / res->nosync_seconds);
  fprintf(f, ",\"load1\":%.2f", bench_load1()); /* the cores' competition (shared machines) */
  json_bytes(f, "proc_read_bytes", res->proc.read);
  json_bytes(f, "proc_write_bytes", res->proc.write);
  json_bytes(f, "dev_read_bytes", res->dev.read);
  json_bytes(f, "dev_write_bytes", res->dev.write);
  fputs(",\"access\":", f);
  if (o->access)
    json_string(f, o->access);
  else
    fputs("null", f);
  fputs(",\"backend\":", f);
  if (effective_backend[0])
    json_string(f, effective_backend);
  else
    fputs("null", f);
  fputs(",\"path\":", f);
  json_string(f, o->path);
  fputs(",\"fs\":", f);
  if (*fs)
    json_string(f, fs);
  else
    fputs("null", f);
  fputs("}\n", f);
  fflush(f);
}

/* ------------------------------------------------------------------------
 * Main
 * ---------------------------------------------------------------------- */

/* Allocates a fresh window for kernel k, measures it, frees it, reports. */
static void run_kernel(const struct options *o, enum kernel k, struct run *r,
                       const char *dev_stat, const char *fs)
{
  plan_kernel(k, r->slot, r->nops);
  r->win = allocate_window(o);
  double factor = effective_factor(o, r->win);
  struct result res = measure(o, r, dev_stat);
  MPI_CHECK(MPI_Win_free(&r->win));
  reduce_result(&res);
  if (rank != 0)
    return;
  const size_t moved = r->nops * r->segment; /* per rank and iteration */
  fprintf(stderr, "mstream: %s %s: cold %.3f s; %d x %.4g MiB in %.3f s (sync %.3f s): "
          "%.0f MiB/s, %.0f MiB/s without sync\n", kernel_names[k], kind_names[o->kind],
          res.cold_seconds, o->iters, (double)moved / (1 << 20), res.seconds, res.sync_seconds,
          (double)moved * o->iters * nranks / (1 << 20) / res.seconds,
          (double)moved * o->iters * nranks / (1 << 20) / res.nosync_seconds);
  print_json(o, k, factor, &res, moved, fs);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &nranks));

  struct options o;
  int rc = parse_options(argc, argv, &o);
  if (rc != 0) {
    if (rank == 0)
      usage(rc > 0 ? stdout : stderr);
    MPI_Finalize();
    return rc > 0 ? 0 : 2;
  }

  char fs[32] = "", dev_stat[64] = "";
  fs_name(o.path, fs, sizeof fs);
  if (rank == 0)
    dev_stat_path(o.path, dev_stat, sizeof dev_stat);

  struct run r = {
    .target = o.target_next ? (rank + 1) % nranks : rank,
    .segment = o.segment,
    .nops = o.size / o.segment,
  };
  /* Nobody else uses our own window, so a shared lock is enough; a remote
   * window is written by one origin, which takes it exclusively. */
  r.lock_type = r.target == rank ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE;
  r.slot = malloc(r.nops * sizeof *r.slot);
  r.src = malloc(o.segment);
  r.dst = malloc(o.segment);
  if (!r.slot || !r.src || !r.dst)
    bench_die("malloc: %s", strerror(errno));
  /* Touch the local buffers now, so no first-touch cost lands in the cold
   * iteration's (or any) measurement. */
  memset(r.src, 0xA5, o.segment);
  memset(r.dst, 0, o.segment);

  if (rank == 0)
    fprintf(stderr, "mstream: %d rank(s), %s window of %zu bytes per rank, segment %zu, "
            "%zu ops/iteration, %d iterations, target %s, path %s (%s)\n", nranks,
            kind_names[o.kind], o.size, o.segment, r.nops, o.iters,
            o.target_next ? "next" : "self", o.path, *fs ? fs : "?");
  for (int k = 0; k < NKERNELS; k++)
    if (o.kernels & (1u << k))
      run_kernel(&o, (enum kernel)k, &r, dev_stat, fs);

  free(r.slot);
  free(r.src);
  free(r.dst);
  MPI_CHECK(MPI_Finalize());
  return 0;
}
