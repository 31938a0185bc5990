/* An IOR-style MPI-IO benchmark (issue 15's metrics). IOR itself is not
 * packaged, so this measures what the pooled files are judged by:
 *
 *   M1  MPI_File_open and MPI_File_close against the number of ranks: many
 *       open/close pairs of one file, the median per op (open, close, and
 *       open + close of the same pair);
 *   M2  throughput as the program sees it: open + write (or read) + close,
 *       with a barrier between the phases as IOR has;
 *   M3  throughput of the write (read) phase alone.
 *
 *   pio_bench [options] [LABEL=]PREFIX ...
 *
 * Each PREFIX is where the files go: PREFIX.shared (one file, rank r owning
 * block r of each segment: IOR's segment layout), PREFIX.<rank> (file per
 * process), PREFIX.oc[.<rank>] (M1) and PREFIX.probe. The names reach
 * MPI_File_open as they are, so a pooled file ("mem:/bench/f") needs no other
 * change, and ROMIO's own prefixes ("ufs:/dev/shm/f") work. Several targets
 * are measured in turn for each configuration and round (A B in odd rounds,
 * B A in even ones), so a shared machine's drift, and going first, fall on
 * all of them. Every file is deleted
 * (MPI_File_delete) when its configuration is done, also after a mismatch.
 *
 * The data is a pattern of the writing rank and the file offset; every read
 * is checked against it after the timed phase, and a mismatch fails the run
 * (exit 1, the file, offset, expected and found byte on stderr).
 *
 * One JSON line per phase on stdout (rank 0): {"bench":"pio","target",
 * "prefix","layout","order","xfer","block","segments","ranks","cores",
 * "oversubscribed","hints","collective","fsync","round","phase","load1"
 * (the machine's 1-minute load average when printed),"bytes","seconds",
 * "GBps"}; phases write, read (M3), write_total, read_total (M2),
 * and per layout open, close, open_close (M1: "usec" the median over the
 * loop, "usec_min", "usec_max", "n"). --skip-unavailable: a target whose
 * first open fails gets one {"phase":"probe","available":false,"error":...}
 * line (and "note": "<label>: not available (<error>)") and is left out;
 * without it that open fails the run. Seconds are
 * the slowest rank's; GB/s = bytes of all ranks / seconds / 1e9. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_mpi.h"
#include "bench_util.h"

#define MAX_LIST 16

struct target {
  const char *label, *prefix;
  int available;
};

struct opts {
  size_t xfers[MAX_LIST];
  int nxfers;
  size_t block;          /* wanted bytes per rank and segment (rounded to xfers) */
  int segments;
  int layouts[2], nlayouts;   /* 1 shared, 0 file per process */
  int orders[2], norders;     /* 0 sequential, 1 random */
  int do_write, do_read;
  int reps, opens;
  int collective, fsync_after, skip_unavailable, corrupt;
  unsigned long long seed;
  MPI_Info info;
  char hints[1024];
  struct target targets[MAX_LIST];
  int ntargets;
};

static int rank, nranks, cores;

/* ---- the data: a byte of (file key, file offset) */

static uint64_t mix64(uint64_t x)
{
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27; x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* Bytes [off, off + len) of the file as rank `who` writes them. */
static void pattern(unsigned char *buf, int who, MPI_Offset off, size_t len)
{
  uint64_t key = (uint64_t)(who + 1) * 0x9e3779b97f4a7c15ULL;
  size_t i = 0;
  while (i < len) {
    uint64_t o = (uint64_t)off + i;
    uint64_t w = mix64(key ^ (o >> 3));
    unsigned char b[8];
    memcpy(b, &w, 8);
    size_t k = o & 7, n = 8 - k;
    if (n > len - i) n = len - i;
    memcpy(buf + i, b + k, n);
    i += n;
  }
}

/* ---- options */

static void usage(void)
{
  fprintf(stderr,
    "usage: pio_bench [options] [LABEL=]PREFIX ...\n"
    "  --xfer LIST         transfer sizes, comma-separated bytes with optional K/M/G\n"
    "                      (binary) suffix, e.g. 16K,100000,1M,10M (default 1M)\n"
    "  --block BYTES       bytes per rank and segment (default 16M), rounded down to\n"
    "                      a multiple of each transfer size (at least one transfer)\n"
    "  --segments N        IOR segments (default 1)\n"
    "  --layout L          shared | fpp | both (default both)\n"
    "  --order O           seq | random | both (default seq); random: a seeded\n"
    "                      permutation of each block's transfer slots, same for\n"
    "                      write and read\n"
    "  --phase P           write | read | both (default both; read alone writes the\n"
    "                      data first, untimed)\n"
    "  --reps N            rounds of every configuration (default 3), targets in turn\n"
    "  --opens N           M1: open/close pairs per layout and round (default 100, 0: none)\n"
    "  --hint KEY=VALUE    MPI_Info of every open (repeatable), e.g. striping_unit=1048576\n"
    "  --collective        MPI_File_write_at_all / read_at_all instead of the\n"
    "                      independent calls\n"
    "  --fsync             MPI_File_sync at the end of the write phase (timed)\n"
    "  --seed N            seed of the random order (default 1)\n"
    "  --skip-unavailable  a target whose first open fails is reported and left out\n"
    "  --corrupt           self-check: flip one byte read back; the run must fail\n");
}

static void need_list(const char *opt, const char *arg, size_t *out, int *n)
{
  char tmp[1024];
  snprintf(tmp, sizeof tmp, "%s", arg);
  *n = 0;
  for (char *save = NULL, *t = strtok_r(tmp, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (*n == MAX_LIST || bench_parse_bytes(t, &out[*n]) != 0 || out[*n] > INT32_MAX) {
      fprintf(stderr, "pio_bench: %s: '%s' is not a size of 1 byte to 2 GiB "
                      "(at most %d of them)\n", opt, t, MAX_LIST);
      exit(2);
    }
    (*n)++;
  }
  if (*n == 0) {
    fprintf(stderr, "pio_bench: %s needs at least one size\n", opt);
    exit(2);
  }
}

static int need_int(const char *opt, const char *arg, int min)
{
  char *end;
  long v = strtol(arg, &end, 10);
  if (*arg == '\0' || *end || v < min || v > 1000000000) {
    fprintf(stderr, "pio_bench: %s needs an integer >= %d, not '%s'\n", opt, min, arg);
    exit(2);
  }
  return (int)v;
}

static int pick(const char *opt, const char *arg, const char *a, const char *b, int *vals)
{
  if (strcmp(arg, a) == 0) { vals[0] = 0; return 1; }
  if (strcmp(arg, b) == 0) { vals[0] = 1; return 1; }
  if (strcmp(arg, "both") == 0) { vals[0] = 0; vals[1] = 1; return 2; }
  fprintf(stderr, "pio_bench: %s is %s, %s or both, not '%s'\n", opt, a, b, arg);
  exit(2);
}

static void parse(int argc, char **argv, struct opts *o)
{
  static struct option lo[] = {
    {"xfer", required_argument, NULL, 'x'}, {"block", required_argument, NULL, 'b'},
    {"segments", required_argument, NULL, 's'}, {"layout", required_argument, NULL, 'l'},
    {"order", required_argument, NULL, 'o'}, {"phase", required_argument, NULL, 'p'},
    {"reps", required_argument, NULL, 'r'}, {"opens", required_argument, NULL, 'n'},
    {"hint", required_argument, NULL, 'H'}, {"collective", no_argument, NULL, 'c'},
    {"fsync", no_argument, NULL, 'f'}, {"seed", required_argument, NULL, 'S'},
    {"skip-unavailable", no_argument, NULL, 'u'}, {"corrupt", no_argument, NULL, 'C'},
    {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  memset(o, 0, sizeof *o);
  o->xfers[0] = 1 << 20;
  o->nxfers = 1;
  o->block = 16 << 20;
  o->segments = 1;
  o->layouts[0] = 1; o->layouts[1] = 0; o->nlayouts = 2;
  o->norders = 1;
  o->do_write = o->do_read = 1;
  o->reps = 3;
  o->opens = 100;
  o->seed = 1;
  MPI_Info_create(&o->info);
  int c;
  size_t n;
  while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
    switch (c) {
    case 'x': need_list("--xfer", optarg, o->xfers, &o->nxfers); break;
    case 'b':
      if (bench_parse_bytes(optarg, &n) != 0) {
        fprintf(stderr, "pio_bench: --block: '%s' is not a byte count\n", optarg);
        exit(2);
      }
      o->block = n;
      break;
    case 's': o->segments = need_int("--segments", optarg, 1); break;
    case 'l': {
      int v[2];
      o->nlayouts = pick("--layout", optarg, "fpp", "shared", v);
      /* shared first when both */
      if (o->nlayouts == 2) { o->layouts[0] = 1; o->layouts[1] = 0; }
      else o->layouts[0] = v[0];
      break;
    }
    case 'o': o->norders = pick("--order", optarg, "seq", "random", o->orders); break;
    case 'p': {
      int v[2], k = pick("--phase", optarg, "write", "read", v);
      o->do_write = k == 2 || v[0] == 0;
      o->do_read = k == 2 || v[0] == 1;
      break;
    }
    case 'r': o->reps = need_int("--reps", optarg, 1); break;
    case 'n': o->opens = need_int("--opens", optarg, 0); break;
    case 'H': {
      const char *eq = strchr(optarg, '=');
      if (!eq || eq == optarg || (size_t)(eq - optarg) >= MPI_MAX_INFO_KEY || !eq[1]) {
        fprintf(stderr, "pio_bench: --hint needs KEY=VALUE, not '%s'\n", optarg);
        exit(2);
      }
      char key[MPI_MAX_INFO_KEY + 1];
      snprintf(key, sizeof key, "%.*s", (int)(eq - optarg), optarg);
      MPI_Info_set(o->info, key, eq + 1);
      size_t used = strlen(o->hints);
      snprintf(o->hints + used, sizeof o->hints - used, "%s%s", used ? "," : "", optarg);
      break;
    }
    case 'c': o->collective = 1; break;
    case 'f': o->fsync_after = 1; break;
    case 'S': o->seed = (unsigned long long)need_int("--seed", optarg, 0); break;
    case 'u': o->skip_unavailable = 1; break;
    case 'C': o->corrupt = 1; break;
    case 'h': usage(); exit(0);
    default: usage(); exit(2);
    }
  }
  for (int i = optind; i < argc; i++) {
    if (o->ntargets == MAX_LIST) {
      fprintf(stderr, "pio_bench: at most %d targets\n", MAX_LIST);
      exit(2);
    }
    struct target *t = &o->targets[o->ntargets++];
    char *a = argv[i], *eq = strchr(a, '=');
    /* LABEL=PREFIX when what precedes '=' is a plain word */
    if (eq && eq > a && strcspn(a, "/:") > (size_t)(eq - a)) {
      *eq = '\0';
      t->label = a;
      t->prefix = eq + 1;
    } else {
      t->label = t->prefix = a;
    }
    t->available = 1;
    if (!*t->prefix) {
      fprintf(stderr, "pio_bench: empty target prefix in '%s'\n", argv[i]);
      exit(2);
    }
  }
  if (o->ntargets == 0) {
    fprintf(stderr, "pio_bench: no target: give a path prefix, e.g. /dev/shm/pio or "
                    "mem:/bench/f\n");
    usage();
    exit(2);
  }
}

/* ---- files */

static void file_name(char *out, size_t len, const char *prefix, const char *what, int shared)
{
  int n = shared ? snprintf(out, len, "%s.%s", prefix, what)
                 : snprintf(out, len, "%s.%s%s%05d", prefix, what, *what ? "." : "", rank);
  if (n < 0 || (size_t)n >= len)
    bench_die("target prefix '%s' is too long", prefix);
}

static void delete_file(const char *name, int shared)
{
  /* shared: once, after everyone closed; fpp: each its own */
  if (shared) MPI_Barrier(MPI_COMM_WORLD);
  if (!shared || rank == 0) {
    int rc = MPI_File_delete(name, MPI_INFO_NULL);
    if (rc != MPI_SUCCESS) bench_die_mpi(name, rc);  /* a file left behind is an error */
  }
  if (shared) MPI_Barrier(MPI_COMM_WORLD);
}

static MPI_File open_or_die(const char *name, int shared, int amode, MPI_Info info)
{
  MPI_File fh;
  int rc = MPI_File_open(shared ? MPI_COMM_WORLD : MPI_COMM_SELF, name, amode, info, &fh);
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    bench_error_string(rc, msg, (int)sizeof msg);
    bench_die("MPI_File_open(%s): %s", name, msg);
  }
  return fh;
}

/* One open of PREFIX.probe by every rank: 1 when it works everywhere, else 0
 * with the first failing rank's MPI error in err (on every rank). */
static int probe(const struct target *t, const struct opts *o, char *err, int errlen)
{
  char name[4096];
  file_name(name, sizeof name, t->prefix, "probe", 1);
  MPI_File fh = MPI_FILE_NULL;
  int rc = MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, o->info, &fh);
  char mine[MPI_MAX_ERROR_STRING + 4200] = "";
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    bench_error_string(rc, msg, (int)sizeof msg);
    snprintf(mine, sizeof mine, "MPI_File_open(%s): %s", name, msg);
  }
  int who = rc != MPI_SUCCESS ? rank : nranks, first;
  MPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == nranks) {
    rc = MPI_File_close(&fh);
    if (rc != MPI_SUCCESS) bench_die_mpi("MPI_File_close of the probe", rc);
    delete_file(name, 1);
    return 1;
  }
  if (rc == MPI_SUCCESS) MPI_File_close(&fh);   /* opened here, not everywhere */
  MPI_Bcast(mine, (int)sizeof mine, MPI_CHAR, first, MPI_COMM_WORLD);
  snprintf(err, (size_t)errlen, "%s", mine);
  return 0;
}

/* ---- JSON */

static void json_escape(char *out, size_t len, const char *s)
{
  size_t j = 0;
  for (; *s && j + 7 < len; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') { out[j++] = '\\'; out[j++] = (char)ch; }
    else if (ch < 0x20) j += (size_t)snprintf(out + j, len - j, "\\u%04x", ch);
    else out[j++] = (char)ch;
  }
  out[j] = '\0';
}

/* The fields every record of a target and configuration has. */
static void head(char *out, size_t len, const struct opts *o, const struct target *t,
                 int shared, int round, const char *phase)
{
  char lab[512], pre[8192], hints[2100];
  json_escape(lab, sizeof lab, t->label);
  json_escape(pre, sizeof pre, t->prefix);
  json_escape(hints, sizeof hints, o->hints);
  snprintf(out, len,
           "{\"bench\":\"pio\",\"target\":\"%s\",\"prefix\":\"%s\",\"layout\":\"%s\","
           "\"ranks\":%d,\"cores\":%d,\"oversubscribed\":%s,\"hints\":\"%s\","
           "\"collective\":%s,\"fsync\":%s,\"round\":%d,\"phase\":\"%s\",\"load1\":%.2f",
           lab, pre, shared ? "shared" : "fpp", nranks, cores,
           nranks > cores ? "true" : "false", hints, o->collective ? "true" : "false",
           o->fsync_after ? "true" : "false", round, phase, bench_load1());
}

/* ---- M1: open/close pairs of one file */

static void open_close(const struct opts *o, const struct target *t, int shared, int round)
{
  char name[4096];
  file_name(name, sizeof name, t->prefix, "oc", shared);
  int n = o->opens;
  double *v = malloc(sizeof(double) * 3 * (size_t)n), *mx = malloc(sizeof(double) * 3 * (size_t)n);
  if (!v || !mx) bench_die("out of memory for %d open/close times", n);
  /* the first open creates the file: not timed */
  MPI_File fh = open_or_die(name, shared, MPI_MODE_CREATE | MPI_MODE_RDWR, o->info);
  MPI_CHECK(MPI_File_close(&fh));
  for (int i = 0; i < n; i++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    fh = open_or_die(name, shared, MPI_MODE_RDWR, o->info);
    double t1 = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    int rc = MPI_File_close(&fh);
    double t3 = MPI_Wtime();
    if (rc != MPI_SUCCESS) bench_die_mpi("MPI_File_close", rc);
    v[i] = t1 - t0;
    v[n + i] = t3 - t2;
    v[2 * n + i] = (t1 - t0) + (t3 - t2);
  }
  delete_file(name, shared);
  /* the slowest rank of each pair */
  MPI_Reduce(v, mx, 3 * n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    static const char *phase[3] = {"open", "close", "open_close"};
    for (int k = 0; k < 3; k++) {
      double *a = mx + (size_t)k * (size_t)n;
      qsort(a, (size_t)n, sizeof *a, bench_cmp_double);
      double med = n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
      char h[12000];
      head(h, sizeof h, o, t, shared, round, phase[k]);
      printf("%s,\"n\":%d,\"seconds\":%.9f,\"usec\":%.3f,\"usec_min\":%.3f,"
             "\"usec_max\":%.3f}\n", h, n, med, med * 1e6, a[0] * 1e6, a[n - 1] * 1e6);
    }
    fflush(stdout);
  }
  free(v);
  free(mx);
}

/* ---- M2/M3: a write or read phase */

struct config {
  int shared, random;
  size_t xfer, block;       /* block: a multiple of xfer */
  size_t slots;             /* transfers per block */
  size_t *perm;             /* order of the slots in each segment */
};

static MPI_Offset file_offset(const struct opts *o, const struct config *c, int seg, size_t slot)
{
  MPI_Offset blk = c->shared ? (MPI_Offset)seg * nranks + rank : seg;
  (void)o;
  return blk * (MPI_Offset)c->block + (MPI_Offset)(slot * c->xfer);
}

static void make_perm(const struct opts *o, struct config *c)
{
  c->perm = malloc(sizeof(size_t) * c->slots);
  if (!c->perm) bench_die("out of memory for %zu slots", c->slots);
  for (size_t i = 0; i < c->slots; i++) c->perm[i] = i;
  if (!c->random) return;
  uint64_t s = mix64(o->seed * 0x2545f4914f6cdd1dULL + (uint64_t)rank + 1);
  for (size_t i = c->slots - 1; i > 0; i--) {      /* Fisher-Yates */
    s = mix64(s + 0x9e3779b97f4a7c15ULL);
    size_t j = (size_t)(s % (i + 1));
    size_t tmp = c->perm[i]; c->perm[i] = c->perm[j]; c->perm[j] = tmp;
  }
}

/* Times of one phase: open, transfers, close (the slowest rank's). */
struct times { double open, xfer, close, total; };

static struct times phase(const struct opts *o, const struct config *c, const char *name,
                          unsigned char *buf, int writing)
{
  int amode = writing ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  MPI_File fh = open_or_die(name, c->shared, amode, o->info);
  MPI_Barrier(MPI_COMM_WORLD);
  double t1 = MPI_Wtime();
  for (int s = 0; s < o->segments; s++) {
    for (size_t k = 0; k < c->slots; k++) {
      size_t slot = c->perm[k];
      MPI_Offset off = file_offset(o, c, s, slot);
      unsigned char *p = buf + (size_t)s * c->block + slot * c->xfer;
      MPI_Status st;
      int rc, got = -1;
      if (writing)
        rc = o->collective ? MPI_File_write_at_all(fh, off, p, (int)c->xfer, MPI_BYTE, &st)
                           : MPI_File_write_at(fh, off, p, (int)c->xfer, MPI_BYTE, &st);
      else
        rc = o->collective ? MPI_File_read_at_all(fh, off, p, (int)c->xfer, MPI_BYTE, &st)
                           : MPI_File_read_at(fh, off, p, (int)c->xfer, MPI_BYTE, &st);
      if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        bench_error_string(rc, msg, (int)sizeof msg);
        bench_die("%s of %zu bytes at offset %lld of %s: %s", writing ? "write" : "read",
                  c->xfer, (long long)off, name, msg);
      }
      MPI_Get_count(&st, MPI_BYTE, &got);
      if (got != (int)c->xfer)
        bench_die("%s at offset %lld of %s moved %d of %zu bytes", writing ? "write" : "read",
                  (long long)off, name, got, c->xfer);
    }
  }
  if (writing && o->fsync_after) MPI_CHECK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  double t2 = MPI_Wtime();
  int rc = MPI_File_close(&fh);
  if (rc != MPI_SUCCESS) bench_die_mpi("MPI_File_close", rc);
  MPI_Barrier(MPI_COMM_WORLD);
  double t3 = MPI_Wtime();
  double mine[4] = {t1 - t0, t2 - t1, t3 - t2, t3 - t0}, mx[4];
  MPI_Allreduce(mine, mx, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return (struct times){mx[0], mx[1], mx[2], mx[3]};
}

/* The data read back against the pattern; on a mismatch every rank learns
 * of it, the file goes, and the run fails with the first bad byte named. */
static void verify(const struct opts *o, const struct config *c, const char *name,
                   const unsigned char *buf)
{
  unsigned char exp[65536];
  long long bad_off = -1;
  int bad_exp = 0, bad_got = 0;
  for (int s = 0; s < o->segments && bad_off < 0; s++) {
    MPI_Offset base = file_offset(o, c, s, 0);
    const unsigned char *p = buf + (size_t)s * c->block;
    for (size_t i = 0; i < c->block && bad_off < 0; i += sizeof exp) {
      size_t n = c->block - i < sizeof exp ? c->block - i : sizeof exp;
      pattern(exp, rank, base + (MPI_Offset)i, n);
      if (memcmp(exp, p + i, n) != 0) {
        size_t j = 0;
        while (exp[j] == p[i + j]) j++;
        bad_off = (long long)(base + (MPI_Offset)(i + j));
        bad_exp = exp[j];
        bad_got = p[i + j];
      }
    }
  }
  int bad = bad_off >= 0, any;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!any) return;
  if (bad)
    fprintf(stderr, "pio_bench: rank %d: DATA MISMATCH in %s at offset %lld: expected "
                    "0x%02x, read 0x%02x (transfer %zu bytes, %s, %s)\n", rank, name, bad_off,
            bad_exp, bad_got, c->xfer, c->shared ? "shared file" : "file per process",
            c->random ? "random order" : "sequential");
  delete_file(name, c->shared);
  if (rank == 0)
    fprintf(stderr, "pio_bench: the data read back is not what was written: FAILED\n");
  MPI_Finalize();
  exit(1);
}

static void print_phase(const struct opts *o, const struct target *t, const struct config *c,
                        int round, const char *ph, double bytes, double secs)
{
  if (rank != 0) return;
  char h[12000];
  head(h, sizeof h, o, t, c->shared, round, ph);
  printf("%s,\"order\":\"%s\",\"xfer\":%zu,\"block\":%zu,\"segments\":%d,\"bytes\":%.0f,"
         "\"seconds\":%.9f,\"GBps\":%.6f}\n", h, c->random ? "random" : "seq", c->xfer,
         c->block, o->segments, bytes, secs, secs > 0 ? bytes / secs / 1e9 : 0.0);
}

static void data_phases(const struct opts *o, const struct target *t, struct config *c,
                        int round, unsigned char *buf)
{
  char name[4096];
  file_name(name, sizeof name, t->prefix, c->shared ? "shared" : "", c->shared);
  size_t mine = c->block * (size_t)o->segments;
  double bytes = (double)mine * nranks;
  for (int s = 0; s < o->segments; s++)
    pattern(buf + (size_t)s * c->block, rank, file_offset(o, c, s, 0), c->block);
  struct times w = phase(o, c, name, buf, 1);
  if (o->do_write) {
    print_phase(o, t, c, round, "write", bytes, w.xfer);
    print_phase(o, t, c, round, "write_total", bytes, w.total);
  }
  if (o->do_read) {
    memset(buf, 0, mine);
    struct times r = phase(o, c, name, buf, 0);
    if (o->corrupt && rank == nranks - 1) buf[mine / 2] ^= 0x5a;
    verify(o, c, name, buf);
    print_phase(o, t, c, round, "read", bytes, r.xfer);
    print_phase(o, t, c, round, "read_total", bytes, r.total);
  }
  fflush(stdout);
  delete_file(name, c->shared);
}

/* The k-th target measured in a round: A B ... in odd rounds, ... B A in
 * even ones, so that going first or last favours no target. */
static int turn(const struct opts *o, int round, int k)
{
  return round % 2 ? k : o->ntargets - 1 - k;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_CHECK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
  cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
  struct opts o;
  parse(argc, argv, &o);

  int usable = 0;
  for (int i = 0; i < o.ntargets; i++) {
    char err[MPI_MAX_ERROR_STRING + 4200];
    struct target *t = &o.targets[i];
    t->available = probe(t, &o, err, (int)sizeof err);
    usable += t->available;
    if (t->available) continue;
    if (!o.skip_unavailable)
      bench_die("target %s is not usable: %s", t->prefix, err);
    if (rank == 0) {
      char h[12000], e[sizeof err * 2];
      head(h, sizeof h, &o, t, 1, 0, "probe");
      json_escape(e, sizeof e, err);
      char lab[512];
      json_escape(lab, sizeof lab, t->label);
      printf("%s,\"available\":false,\"error\":\"%s\",\"note\":\"%s: not available (%s)\"}\n",
             h, e, lab, e);
      fprintf(stderr, "pio_bench: target %s left out: %s\n", t->prefix, err);
      fflush(stdout);
    }
  }

  size_t maxbytes = 0;
  for (int x = 0; x < o.nxfers; x++) {
    size_t blk = o.block / o.xfers[x] * o.xfers[x];
    if (blk == 0) blk = o.xfers[x];
    if (blk * (size_t)o.segments > maxbytes) maxbytes = blk * (size_t)o.segments;
  }
  unsigned char *buf = usable && (o.do_write || o.do_read) ? malloc(maxbytes) : NULL;
  if (usable && !buf) bench_die("cannot allocate %zu bytes of data", maxbytes);

  for (int round = 1; round <= o.reps; round++) {
    for (int l = 0; l < o.nlayouts && o.opens > 0; l++)
      for (int k = 0; k < o.ntargets; k++) {
        int i = turn(&o, round, k);
        if (o.targets[i].available) open_close(&o, &o.targets[i], o.layouts[l], round);
      }
    for (int l = 0; l < o.nlayouts; l++)
      for (int r = 0; r < o.norders; r++)
        for (int x = 0; x < o.nxfers; x++) {
          struct config c = {.shared = o.layouts[l], .random = o.orders[r],
                             .xfer = o.xfers[x]};
          c.block = o.block / c.xfer * c.xfer;
          if (c.block == 0) c.block = c.xfer;
          c.slots = c.block / c.xfer;
          make_perm(&o, &c);
          for (int k = 0; k < o.ntargets; k++) {
            int i = turn(&o, round, k);
            if (o.targets[i].available) data_phases(&o, &o.targets[i], &c, round, buf);
          }
          free(c.perm);
        }
  }
  free(buf);
  MPI_Info_free(&o.info);
  MPI_Finalize();
  return 0;
}
