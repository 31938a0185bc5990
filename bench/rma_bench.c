/*
 * rma_bench: latency and bandwidth of single MPI one-sided operations into a
 * window in memory or on storage (alloc_type=storage through libmpisw).
 *
 * The shape of the paper's Intel IMB-RMA runs, "Single Transfer" in
 * non-aggregate mode: rank 0 (origin) times repetitions of
 *
 *     MPI_Win_lock(MPI_LOCK_SHARED, 1) ; one operation ; MPI_Win_unlock(1)
 *
 * against rank 1 (target), which only waits in a barrier at the end of each
 * message size. The unlock completes the operation at the target, so the
 * mean time per repetition is the latency of one complete transfer.
 * There is no MPI_Win_sync in the loop: the storage window is measured as a
 * file mapping whose write-back is left to the operating system.
 *
 * Operations: put, get (MPI_BYTE); accumulate, get_accumulate (MPI_SUM on
 * MPI_INT, or MPI_DOUBLE with --type double); fetch_and_op (MPI_SUM) and
 * compare_and_swap on one MPI_INT64_T. Sizes are powers of two from --min to
 * --max (8 B to 4 MiB by default); the two atomics run at 8 B only.
 *
 * Windows: MPI_Win_allocate (default), or with --window create the shape of
 * many benchmark suites: MPI_Alloc_mem (with the storage hints for a storage
 * window) and MPI_Win_create over it, or with --window shared
 * MPI_Win_allocate_shared (rank 1's segment is the target). --hints adds
 * storage hints to the storage window's info (storage_alloc_factor=0.5 for a
 * combined window, storage_backend=pager, ...): every storage window kind
 * against a memory window of the same call (bench/suite_kinds.py).
 *
 * A/B comparisons: --rounds N runs the kinds N times, alternating the order
 * (memory, storage, storage, memory, ...), each round in a new window, so
 * that drift of a shared machine falls on both kinds alike; records carry
 * "round". Every window first runs WARMUP_EPOCHS untimed epochs: the first
 * epochs on a new window pay one-time costs (connection, remote key, pages)
 * that would otherwise land on whichever kind is measured first.
 *
 * Output: one JSON line per (op, kind, size) on stdout from rank 0,
 *   {"bench":"rma","op":"put","kind":"storage","bytes":65536,"iters":1000,
 *    "usec":<mean latency>,"MiBps":<bytes / latency>,"ranks":2,
 *    "origin_faults":<minor page faults per epoch at rank 0>,
 *    "target_faults":<the same at rank 1>,"target_sys_us":<kernel time per
 *    epoch at rank 1>}
 * The fault and kernel-time counts do not depend on how busy the machine is,
 * unlike the time: they show which path an operation takes. With --window
 * create, --type double or --rounds the bench name is "rma_ab" and records
 * also carry "window", "type" and "round" (bench/suite_acc.py).
 * Progress on stderr. After each put sweep rank 1 checks that its window
 * holds the last pattern put, and that nothing was written past it.
 *
 * Run: mpiexec -n 2 rma_bench [--ops LIST] [--min B] [--max B] [--iters N]
 *                             [--kind memory|storage|both] [--path DIR]
 *                             [--window allocate|create] [--type int|double]
 *                             [--rounds N]
 * Exit status: 0 ok, 1 an MPI error or a failed check, 2 bad usage.
 */
#include <getopt.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench_mpi.h"
#include "bench_util.h"

#include "mpisw.h"

enum { ORIGIN = 0, TARGET = 1 };

#define MIN_BYTES ((size_t)8)
#define DEFAULT_MAX ((size_t)4 << 20)
#define MAX_BYTES ((size_t)1 << 30) /* MPI counts are int; 1 GiB is plenty */
#define WIN_SLACK ((size_t)4096)    /* past the largest message: catches overruns */
#define SIZE_BUDGET ((size_t)256 << 20) /* bytes moved per size, bounds run time */
#define MIN_ITERS 20L
#define DEFAULT_ITERS 1000L
#define WARMUP_EPOCHS 100L /* untimed epochs on every new window */
#define MAX_ROUNDS 1000L

enum op_id { OP_PUT, OP_GET, OP_ACC, OP_GACC, OP_FOP, OP_CAS, OP_COUNT };
static const char *const op_names[OP_COUNT] = {
    "put", "get", "accumulate", "get_accumulate", "fetch_and_op", "compare_and_swap"};

enum kind_id { KIND_MEMORY, KIND_STORAGE, KIND_COUNT };
static const char *const kind_names[KIND_COUNT] = {"memory", "storage"};

enum window_id { WIN_ALLOCATE, WIN_CREATE, WIN_SHARED };
static const char *const window_names[] = {"allocate", "create", "shared"};

struct options {
  unsigned ops;   /* bit per op_id */
  unsigned kinds; /* bit per kind_id */
  size_t min, max;
  long iters;
  const char *path;
  enum window_id window;
  int use_double; /* accumulate on MPI_DOUBLE instead of MPI_INT */
  long rounds;
  int ab;         /* records named "rma_ab", with window, type and round */
  const char *hints; /* KEY=VALUE,... added to the storage window's info */
  enum window_id mem_window; /* the memory window's call (default: --window) */
  int mem_window_set;
  const char *label; /* records named "rma_kinds", with this "label" */
};

/* One window and the origin-side buffers used against it. */
struct bench {
  enum kind_id kind;
  MPI_Win win;
  unsigned char *base; /* the local window (read by rank 1 for the check) */
  size_t win_bytes;
  enum window_id window;
  long round;
  unsigned char *pattern; /* put source: a known byte pattern */
  int *ones;              /* accumulate source: +1 keeps sums far from overflow */
  double *dones;          /* the same for --type double */
  unsigned char *result;  /* get, get_accumulate and atomics land here */
  char route[64];         /* mpisw_storage_route of the window, or "none" */
};

static int rank;

/* ---- options ----------------------------------------------------------- */

static void usage(FILE *f)
{
  fprintf(f,
          "usage: mpiexec -n 2 rma_bench [options]\n"
          "  --ops LIST    comma list of put,get,accumulate,get_accumulate,\n"
          "                fetch_and_op,compare_and_swap, or all (default)\n"
          "  --min BYTES   smallest message, power of two >= 8 (default 8)\n"
          "  --max BYTES   largest message, power of two <= 1G (default 4M)\n"
          "                K, M, G suffixes are binary (4M = 4194304)\n"
          "  --iters N     repetitions per size before the %zu MiB cap (default %ld)\n"
          "  --kind K      memory, storage or both (default both)\n"
          "  --path DIR    directory of the storage windows' files (default /tmp)\n"
          "  --window W    allocate (MPI_Win_allocate, default), create\n"
          "                (MPI_Alloc_mem + MPI_Win_create) or shared\n"
          "                (MPI_Win_allocate_shared)\n"
          "  --hints LIST  KEY=VALUE,... more storage hints (storage window only)\n"
          "  --memory-window W  the memory window's call (default: --window's)\n"
          "  --label NAME  the storage kind's name: records \"rma_kinds\" with it\n"
          "  --type T      accumulate element: int (default) or double\n"
          "  --rounds N    repeat the kinds N times in alternating order (default 1)\n",
          SIZE_BUDGET >> 20, DEFAULT_ITERS);
}

static int is_pow2(size_t v) { return v && !(v & (v - 1)); }

/* "put,get" -> bit mask; "all" -> every op; 0 when a name is unknown. */
static unsigned parse_ops(const char *list)
{
  unsigned mask = 0;
  char buf[256];
  if (strcmp(list, "all") == 0)
    return (1u << OP_COUNT) - 1;
  snprintf(buf, sizeof buf, "%s", list);
  for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int found = 0;
    for (int op = 0; op < OP_COUNT; op++)
      if (strcmp(tok, op_names[op]) == 0) {
        mask |= 1u << op;
        found = 1;
      }
    if (!found)
      return 0;
  }
  return mask;
}

static unsigned parse_kind(const char *s)
{
  if (strcmp(s, "memory") == 0)
    return 1u << KIND_MEMORY;
  if (strcmp(s, "storage") == 0)
    return 1u << KIND_STORAGE;
  if (strcmp(s, "both") == 0)
    return (1u << KIND_MEMORY) | (1u << KIND_STORAGE);
  return 0;
}

/* Returns -1 to go on, else the exit status (0 for --help, 2 for an error).
 * Every rank parses the same arguments; only rank 0 talks. */
static int parse_options(int argc, char **argv, struct options *o)
{
  static const struct option longopts[] = {
      {"ops", required_argument, NULL, 'o'},  {"min", required_argument, NULL, 'm'},
      {"max", required_argument, NULL, 'M'},  {"iters", required_argument, NULL, 'i'},
      {"kind", required_argument, NULL, 'k'}, {"path", required_argument, NULL, 'p'},
      {"window", required_argument, NULL, 'w'}, {"type", required_argument, NULL, 't'},
      {"rounds", required_argument, NULL, 'r'}, {"hints", required_argument, NULL, 'H'},
      {"memory-window", required_argument, NULL, 'W'}, {"label", required_argument, NULL, 'L'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  *o = (struct options){.ops = (1u << OP_COUNT) - 1, .kinds = parse_kind("both"),
                        .min = MIN_BYTES, .max = DEFAULT_MAX, .iters = DEFAULT_ITERS,
                        .path = "/tmp", .window = WIN_ALLOCATE, .rounds = 1};
  const char *bad = NULL;
  int c;
  opterr = rank == 0;
  while (!bad && (c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    char *end;
    switch (c) {
    case 'o': if (!(o->ops = parse_ops(optarg))) bad = "--ops: unknown operation"; break;
    case 'm': if (bench_parse_bytes(optarg, &o->min)) bad = "--min: not a size"; break;
    case 'M': if (bench_parse_bytes(optarg, &o->max)) bad = "--max: not a size"; break;
    case 'i':
      o->iters = strtol(optarg, &end, 10);
      if (end == optarg || *end || o->iters < 1)
        bad = "--iters: not a positive integer";
      break;
    case 'k': if (!(o->kinds = parse_kind(optarg))) bad = "--kind: memory, storage or both"; break;
    case 'p': o->path = optarg; break;
    case 'w':
      if (strcmp(optarg, "allocate") == 0) o->window = WIN_ALLOCATE;
      else if (strcmp(optarg, "create") == 0) o->window = WIN_CREATE;
      else if (strcmp(optarg, "shared") == 0) o->window = WIN_SHARED;
      else bad = "--window: allocate, create or shared";
      o->ab = 1;
      break;
    case 't':
      if (strcmp(optarg, "int") == 0) o->use_double = 0;
      else if (strcmp(optarg, "double") == 0) o->use_double = 1;
      else bad = "--type: int or double";
      o->ab = 1;
      break;
    case 'r':
      o->rounds = strtol(optarg, &end, 10);
      if (end == optarg || *end || o->rounds < 1 || o->rounds > MAX_ROUNDS)
        bad = "--rounds: an integer from 1 to 1000";
      o->ab = 1;
      break;
    case 'H': o->hints = optarg; o->ab = 1; break;
    case 'L': o->label = optarg; o->ab = 1; break;
    case 'W':
      if (strcmp(optarg, "allocate") == 0) o->mem_window = WIN_ALLOCATE;
      else if (strcmp(optarg, "create") == 0) o->mem_window = WIN_CREATE;
      else if (strcmp(optarg, "shared") == 0) o->mem_window = WIN_SHARED;
      else bad = "--memory-window: allocate, create or shared";
      o->mem_window_set = 1;
      o->ab = 1;
      break;
    case 'h': if (rank == 0) usage(stdout); return 0;
    default: bad = ""; /* getopt has said what */
    }
  }
  if (!o->mem_window_set)
    o->mem_window = o->window;
  if (!bad && optind < argc)
    bad = "unexpected argument";
  if (!bad && (!is_pow2(o->min) || !is_pow2(o->max) || o->min < MIN_BYTES ||
               o->max > MAX_BYTES || o->min > o->max))
    bad = "--min and --max: powers of two, 8 <= min <= max <= 1G";
  if (!bad)
    return -1;
  if (rank == 0) {
    if (*bad)
      fprintf(stderr, "rma_bench: %s\n", bad);
    usage(stderr);
  }
  return 2;
}

/* ---- windows ----------------------------------------------------------- */

static void *alloc_buffer(size_t bytes)
{
  void *p = NULL;
  if (posix_memalign(&p, 4096, bytes) != 0)
    bench_die("out of memory for the origin buffers");
  memset(p, 0, bytes); /* fault the pages in before anything is timed */
  return p;
}

static unsigned char pattern_byte(size_t i) { return (unsigned char)(i % 251 + 1); }

/* The JSON says which kind was measured, so it must be what the window got:
 * a storage window that silently stayed in memory (libmpisw linked after the
 * MPI library, MPISW_DISABLE=1) or a memory window that MPISW_HINTS sent to
 * storage would make the numbers a lie. */
static void confirm_placement(MPI_Win win, enum kind_id kind)
{
  char value[MPI_MAX_INFO_VAL + 1];
  int flag = bench_win_info(win, MPISW_HINT_ALLOC_TYPE, value, sizeof value);
  const char *placed = flag ? value : "memory"; /* no key: a window mpisw let through */
  if (strcmp(placed, kind_names[kind]) != 0) {
    bench_die("asked for a %s window, got %s (is libmpisw active? MPISW_HINTS?)",
              kind_names[kind], placed);
  }
}

static MPI_Info storage_hints(const char *dir, const char *more)
{
  char filename[PATH_MAX];
  if (snprintf(filename, sizeof filename, "%s/rma-%%r.win", dir) >= (int)sizeof filename)
    bench_die("--path is too long");
  MPI_Info info;
  MPI_CHECK(MPI_Info_create(&info));
  MPI_CHECK(MPI_Info_set(info, MPISW_HINT_ALLOC_TYPE, "storage"));
  MPI_CHECK(MPI_Info_set(info, MPISW_HINT_FILENAME, filename));
  MPI_CHECK(MPI_Info_set(info, MPISW_HINT_UNLINK, "true"));
  /* The default, pinned: a factor in MPISW_HINTS must not move part of the
   * window back to memory. */
  MPI_CHECK(MPI_Info_set(info, MPISW_HINT_FACTOR, "1"));
  char list[1024];
  snprintf(list, sizeof list, "%s", more ? more : "");
  for (char *save, *kv = strtok_r(list, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(kv, '=');
    if (!eq || eq == kv)
      bench_die("--hints: '%s' is not KEY=VALUE", kv);
    *eq = 0;
    MPI_CHECK(MPI_Info_set(info, kv, eq + 1));
  }
  return info;
}

/* Both ranks allocate (collective); rank 0's window is simply unused.
 * One window of max(4 MiB, --max) + slack serves every size, so sizes differ
 * only in the transfer, never in the mapping behind it. */
/* MPI_Alloc_mem's memory has no info to ask: a storage range maps a file in
 * --path somewhere in [base, base+len) (/proc/self/maps names it; a range
 * with a memory part first starts in memory), a memory one does not. */
static void confirm_mapping(const void *base, size_t len, enum kind_id kind, const char *dir)
{
  FILE *f = fopen("/proc/self/maps", "r");
  char line[PATH_MAX + 256];
  int on_file = 0;
  uintptr_t a = (uintptr_t)base, end = a + len;
  while (f && fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    int path_at = 0;
    if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &path_at) < 2 || hi <= a ||
        lo >= end)
      continue;
    if (path_at > 0 && strncmp(line + path_at, dir, strlen(dir)) == 0)
      on_file = 1;
  }
  if (f)
    fclose(f);
  if (on_file != (kind == KIND_STORAGE))
    bench_die("asked for %s from MPI_Alloc_mem, got %s (is libmpisw active?)", kind_names[kind],
              on_file ? "a file mapping" : "no file mapping in the --path directory");
}

static void open_window(struct bench *b, enum kind_id kind, const struct options *o)
{
  size_t msg = o->max > DEFAULT_MAX ? o->max : DEFAULT_MAX;
  MPI_Info info = kind == KIND_STORAGE ? storage_hints(o->path, o->hints) : MPI_INFO_NULL;
  enum window_id window = kind == KIND_MEMORY ? o->mem_window : o->window;
  b->kind = kind;
  b->window = window;
  b->win_bytes = msg + WIN_SLACK;
  if (window == WIN_CREATE) {
    MPI_CHECK(MPI_Alloc_mem((MPI_Aint)b->win_bytes, info, &b->base));
    memset(b->base, 0, b->win_bytes); /* as the MPI_Win_allocate windows: pages in */
    MPI_CHECK(MPI_Win_create(b->base, (MPI_Aint)b->win_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                             &b->win));
  } else if (window == WIN_SHARED) {
    MPI_CHECK(MPI_Win_allocate_shared((MPI_Aint)b->win_bytes, 1, info, MPI_COMM_WORLD,
                                      &b->base, &b->win));
  } else {
    MPI_CHECK(MPI_Win_allocate((MPI_Aint)b->win_bytes, 1, info, MPI_COMM_WORLD, &b->base,
                               &b->win));
  }
  if (info != MPI_INFO_NULL)
    MPI_CHECK(MPI_Info_free(&info));
  MPI_CHECK(MPI_Win_set_errhandler(b->win, MPI_ERRORS_RETURN));
  if (!bench_win_info(b->win, "mpisw_storage_route", b->route, sizeof b->route))
    snprintf(b->route, sizeof b->route, "none");
  if (window == WIN_CREATE)
    confirm_mapping(b->base, b->win_bytes, kind, o->path);
  else
    confirm_placement(b->win, kind);
}

static void close_window(struct bench *b)
{
  MPI_CHECK(MPI_Win_free(&b->win));
  if (b->window == WIN_CREATE)
    MPI_CHECK(MPI_Free_mem(b->base));
}

/* ---- the measurement --------------------------------------------------- */

/* One operation of `bytes` at displacement 0 of rank 1's window. */
static void issue(enum op_id op, const struct bench *b, size_t bytes, int use_double)
{
  static const int64_t one = 1, compare = 0;
  int n = (int)(bytes / (use_double ? sizeof(double) : sizeof(int)));
  MPI_Datatype acc_type = use_double ? MPI_DOUBLE : MPI_INT;
  const void *acc_src = use_double ? (const void *)b->dones : (const void *)b->ones;
  switch (op) {
  case OP_PUT:
    MPI_CHECK(MPI_Put(b->pattern, (int)bytes, MPI_BYTE, TARGET, 0, (int)bytes, MPI_BYTE, b->win));
    break;
  case OP_GET:
    MPI_CHECK(MPI_Get(b->result, (int)bytes, MPI_BYTE, TARGET, 0, (int)bytes, MPI_BYTE, b->win));
    break;
  case OP_ACC:
    MPI_CHECK(MPI_Accumulate(acc_src, n, acc_type, TARGET, 0, n, acc_type, MPI_SUM, b->win));
    break;
  case OP_GACC:
    MPI_CHECK(MPI_Get_accumulate(acc_src, n, acc_type, b->result, n, acc_type, TARGET, 0, n,
                                 acc_type, MPI_SUM, b->win));
    break;
  case OP_FOP:
    MPI_CHECK(MPI_Fetch_and_op(&one, b->result, MPI_INT64_T, TARGET, 0, MPI_SUM, b->win));
    break;
  case OP_CAS:
    MPI_CHECK(MPI_Compare_and_swap(&one, &compare, b->result, MPI_INT64_T, TARGET, 0, b->win));
    break;
  default:
    break;
  }
}

/* The configured count, cut to SIZE_BUDGET bytes but not below MIN_ITERS
 * (nor above what was asked for). */
static long iterations(const struct options *o, size_t bytes)
{
  long cap = (long)(SIZE_BUDGET / bytes);
  long floor = o->iters < MIN_ITERS ? o->iters : MIN_ITERS;
  long n = o->iters < cap ? o->iters : cap;
  return n > floor ? n : floor;
}

/* Rank 0: seconds for `iters` epochs after `warmup` untimed ones. */
static double time_epochs(enum op_id op, const struct bench *b, size_t bytes, long warmup,
                          long iters, int use_double)
{
  double t0 = MPI_Wtime();
  for (long i = 0; i < warmup + iters; i++) {
    if (i == warmup)
      t0 = MPI_Wtime();
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, TARGET, 0, b->win));
    issue(op, b, bytes, use_double);
    MPI_CHECK(MPI_Win_unlock(TARGET, b->win));
  }
  return MPI_Wtime() - t0;
}

/* Minor page faults and kernel time of this process so far. */
static void usage_now(double out[2])
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  out[0] = (double)ru.ru_minflt;
  out[1] = (double)ru.ru_stime.tv_sec * 1e6 + (double)ru.ru_stime.tv_usec;
}

static void measure(enum op_id op, const struct bench *b, size_t bytes, const struct options *o)
{
  long iters = iterations(o, bytes), warmup = iters / 10;
  double secs = 0, before[2], after[2], delta[2], peer[2] = {0, 0};
  MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD)); /* counts start with both ranks here */
  usage_now(before);
  if (rank == ORIGIN)
    secs = time_epochs(op, b, bytes, warmup, iters, o->use_double);
  MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD)); /* the target waits here, passive */
  usage_now(after);
  for (int i = 0; i < 2; i++)
    delta[i] = (after[i] - before[i]) / (double)(warmup + iters);
  if (rank == TARGET)
    MPI_CHECK(MPI_Send(delta, 2, MPI_DOUBLE, ORIGIN, 0, MPI_COMM_WORLD));
  if (rank != ORIGIN)
    return;
  MPI_CHECK(MPI_Recv(peer, 2, MPI_DOUBLE, TARGET, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  double usec = secs / (double)iters * 1e6;
  printf("{\"bench\":\"%s\",\"op\":\"%s\",\"kind\":\"%s\",\"bytes\":%zu,\"iters\":%ld,"
         "\"usec\":%.3f,\"MiBps\":%.2f,\"ranks\":2,\"origin_faults\":%.3f,"
         "\"target_faults\":%.3f,\"target_sys_us\":%.3f",
         o->label ? "rma_kinds" : o->ab ? "rma_ab" : "rma", op_names[op], kind_names[b->kind], bytes, iters, usec,
         (double)bytes / (usec * 1e-6) / (1 << 20), delta[0], peer[0], peer[1]);
  if (o->ab)
    printf(",\"window\":\"%s\",\"type\":\"%s\",\"round\":%ld,\"hints\":\"%s\","
           "\"route\":\"%s\"", window_names[b->window], o->use_double ? "double" : "int",
           b->round, b->kind == KIND_STORAGE && o->hints ? o->hints : "", b->route);
  if (o->label) /* the load average says how busy the shared machine was */
    printf(",\"label\":\"%s\",\"load1\":%.2f,\"cores\":%ld", o->label, bench_load1(),
           sysconf(_SC_NPROCESSORS_ONLN));
  printf("}\n");
  fflush(stdout);
}

/* Untimed epochs that take a new window's one-time costs out of the first
 * measured size. */
static void warm_up(const struct bench *b)
{
  if (rank == ORIGIN)
    time_epochs(OP_PUT, b, MIN_BYTES, 0, WARMUP_EPOCHS, 0);
  MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

/* ---- the put check ----------------------------------------------------- */

/* Rank 1 zeroes its window so that the check after the sweep proves the puts
 * landed (a reused file or recycled memory could hold anything). */
static void clear_target(const struct bench *b)
{
  if (rank == TARGET) {
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, TARGET, 0, b->win));
    memset(b->base, 0, b->win_bytes);
    MPI_CHECK(MPI_Win_unlock(TARGET, b->win));
  }
  MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Rank 1: the last (largest) put left the pattern in [0, last) and zeros after. */
static void check_target(const struct bench *b, size_t last)
{
  if (rank != TARGET)
    return;
  size_t i;
  MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, TARGET, 0, b->win));
  for (i = 0; i < b->win_bytes; i++)
    if (b->base[i] != (i < last ? pattern_byte(i) : 0))
      break;
  unsigned got = i < b->win_bytes ? b->base[i] : 0;
  MPI_CHECK(MPI_Win_unlock(TARGET, b->win));
  if (i < b->win_bytes) {
    bench_die("put check failed (%s window): byte %zu is %u, expected %u",
              kind_names[b->kind], i, got, i < last ? pattern_byte(i) : 0);
  }
  fprintf(stderr, "rma_bench: %s put check ok (%zu bytes)\n", kind_names[b->kind], last);
}

/* ---- driver ------------------------------------------------------------ */

static void sweep(enum op_id op, const struct bench *b, const struct options *o)
{
  int atomic = op == OP_FOP || op == OP_CAS;
  size_t lo = o->min, hi = atomic ? MIN_BYTES : o->max;
  if (lo > hi)
    return; /* atomics when --min > 8 */
  if (rank == ORIGIN)
    fprintf(stderr, "rma_bench: %s %s, %zu to %zu bytes\n", kind_names[b->kind],
            op_names[op], lo, hi);
  if (op == OP_PUT)
    clear_target(b);
  for (size_t bytes = lo; bytes <= hi; bytes *= 2)
    measure(op, b, bytes, o);
  if (op == OP_PUT)
    check_target(b, hi);
}

static void run_kind(enum kind_id kind, const struct options *o, struct bench *b)
{
  if (rank == ORIGIN && kind == KIND_STORAGE)
    fprintf(stderr, "rma_bench: storage windows in %s/rma-<rank>.win\n", o->path);
  open_window(b, kind, o);
  warm_up(b);
  for (int op = 0; op < OP_COUNT; op++)
    if (o->ops & (1u << op))
      sweep((enum op_id)op, b, o);
  close_window(b);
}

int main(int argc, char **argv)
{
  int nranks;
  MPI_Init(&argc, &argv); /* a failure here aborts: no handler is set yet */
  MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &nranks));

  struct options o;
  int status = parse_options(argc, argv, &o);
  if (status < 0 && nranks != 2) {
    if (rank == 0)
      fprintf(stderr, "rma_bench: needs exactly 2 ranks (origin and target), got %d\n",
              nranks);
    status = 2;
  }
  if (status >= 0) {
    MPI_Finalize();
    return status;
  }

  size_t buf_bytes = o.max > MIN_BYTES ? o.max : MIN_BYTES;
  struct bench b = {.pattern = alloc_buffer(buf_bytes), .ones = alloc_buffer(buf_bytes),
                    .dones = alloc_buffer(buf_bytes), .result = alloc_buffer(buf_bytes)};
  for (size_t i = 0; i < buf_bytes; i++)
    b.pattern[i] = pattern_byte(i);
  for (size_t i = 0; i < buf_bytes / sizeof(int); i++)
    b.ones[i] = 1;
  for (size_t i = 0; i < buf_bytes / sizeof(double); i++)
    b.dones[i] = 1.0;

  /* Rounds alternate the order (A B, B A, A B, ...): neither kind always
   * runs first, right after the process started or after the other. */
  for (long r = 0; r < o.rounds; r++) {
    b.round = r;
    for (int i = 0; i < KIND_COUNT; i++) {
      int kind = r % 2 ? KIND_COUNT - 1 - i : i;
      if (o.kinds & (1u << kind))
        run_kind((enum kind_id)kind, &o, &b);
    }
  }

  free(b.pattern);
  free(b.ones);
  free(b.dones);
  free(b.result);
  MPI_CHECK(MPI_Finalize());
  return 0;
}
