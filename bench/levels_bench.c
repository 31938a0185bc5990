/* levels_bench: the cost of the PARTNER and XOR checkpoint levels through
 * the public API (mpisw_ckpt_*), on ranks that sit on distinct (simulated)
 * nodes, and whether a lost node comes back byte-exact.
 *
 *   --mode local    LOCAL only (the baseline: take and restart times)
 *   --mode partner  ckpt_partner_every=1: every checkpoint copied to a
 *                   partner rank on the next node
 *   --mode xor      ckpt_xor_every=1, ckpt_xor_size=--xor-size (4): parity
 *                   over groups of that many ranks on distinct nodes
 *
 * Each rank protects --size bytes of memory; --iters checkpoints (every byte
 * rewritten before each, so every take writes everything), each take timed
 * (slowest rank). Then the bytes on disk of each level (apparent size and
 * allocated blocks, as du counts them) over every rank's files: LOCAL slot
 * images, PARTNER window files, XOR parity files (ckpt_keep versions of
 * each; "data_bytes" is one version's data of all ranks). Then the set is freed, the last node's LOCAL directory removed
 * (partner, xor; local restarts with nothing lost), and a new set's
 * mpisw_ckpt_restart is timed (slowest rank; it includes the rebuild);
 * every restored byte is compared with the newest version's data.
 * One JSON record; exit 1 when "byte_exact" is false. --corrupt flips one
 * restored byte on a lost rank before the comparison (its self-check). */
#include <dirent.h>
#include <errno.h>
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
#include "mpisw.h"

#define MAX_ITERS 100
#define KEEP 2          /* ckpt_keep: versions each level holds */
#define SET "lvbench"   /* the set's name, part of every file name */

static int rank, nranks;

static void usage(void) {
  fprintf(stderr, "usage: levels_bench --path DIR [--mode local|partner|xor] [--size BYTES] "
                  "[--iters N] [--xor-size K] [--corrupt]\n");
  exit(2);
}

static void check_mpi(int rc, const char *what) {
  if (rc == MPI_SUCCESS) return;
  char s[MPI_MAX_ERROR_STRING];
  int n;
  MPI_Error_string(rc, s, &n);
  bench_die("%s: %s", what, s);
}

/* The data of iteration it: every byte depends on it and on the rank. */
static uint64_t word(int it, size_t i) {
  return ((uint64_t)it * 0x9E3779B97F4A7C15ull + (uint64_t)rank * 0xBF58476D1CE4E5B9ull) ^
         (i * 0xD1B54A32D192ED03ull);
}

static void fill(unsigned char *d, size_t n, int it) {
  for (size_t i = 0; i < n / 8; i++) memcpy(d + 8 * i, &(uint64_t){word(it, i)}, 8);
  for (size_t i = n / 8 * 8; i < n; i++) d[i] = (unsigned char)word(it, i);
}

/* Offset of the first byte that is not iteration it's, or -1. */
static long first_diff(const unsigned char *d, size_t n, int it) {
  for (size_t i = 0; i < n / 8; i++) {
    uint64_t w = word(it, i);
    if (memcmp(d + 8 * i, &w, 8))
      for (size_t b = 0;; b++)
        if (d[8 * i + b] != ((unsigned char *)&w)[b]) return (long)(8 * i + b);
  }
  for (size_t i = n / 8 * 8; i < n; i++)
    if (d[i] != (unsigned char)word(it, i)) return (long)i;
  return -1;
}

/* This rank's files in its LOCAL directory, per level: [level][0] apparent
 * bytes, [1] allocated bytes (st_blocks), [2] files. Levels: 0 LOCAL slot
 * images "SET.r<rank>.s<n>.ckpt", 1 PARTNER "SET.partner.r<rank>", 2 XOR
 * "SET.xor.r<rank>.v<n>". */
static void level_files(const char *dir, double out[3][3]) {
  char slot[64], partner[64], xor[64];
  snprintf(slot, sizeof slot, SET ".r%d.s", rank);
  snprintf(partner, sizeof partner, SET ".partner.r%d", rank);
  snprintf(xor, sizeof xor, SET ".xor.r%d.v", rank);
  memset(out, 0, sizeof(double) * 9);
  DIR *dh = opendir(dir);
  if (!dh) bench_die("opendir %s: %s", dir, strerror(errno));
  struct dirent *e;
  while ((e = readdir(dh))) {
    const char *n = e->d_name;
    size_t len = strlen(n);
    int lv = -1;
    if (!strncmp(n, slot, strlen(slot)) && len > 5 && !strcmp(n + len - 5, ".ckpt")) lv = 0;
    else if (!strcmp(n, partner)) lv = 1;
    else if (!strncmp(n, xor, strlen(xor)) && !strchr(n + strlen(xor), '.')) lv = 2;
    if (lv < 0) continue;
    char p[1400];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, n);
    if (stat(p, &st) != 0) bench_die("stat %s: %s", p, strerror(errno));
    out[lv][0] += (double)st.st_size;
    out[lv][1] += (double)st.st_blocks * 512;
    out[lv][2] += 1;
  }
  closedir(dh);
}

static mpisw_ckpt *make_set(const char *local, const char *mode, int xor_size) {
  MPI_Info info;
  char k[16];
  MPI_Info_create(&info);
  MPI_Info_set(info, "ckpt_local", local);
  MPI_Info_set(info, "ckpt_keep", "2");
  MPI_Info_set(info, "ckpt_staging", "0");
  MPI_Info_set(info, "ckpt_partner_every", !strcmp(mode, "partner") ? "1" : "0");
  MPI_Info_set(info, "ckpt_xor_every", !strcmp(mode, "xor") ? "1" : "0");
  snprintf(k, sizeof k, "%d", xor_size);
  MPI_Info_set(info, "ckpt_xor_size", k);
  mpisw_ckpt *ck = NULL;
  check_mpi(mpisw_ckpt_create(SET, MPI_COMM_WORLD, info, &ck), "mpisw_ckpt_create");
  MPI_Info_free(&info);
  return ck;
}

static double max_over_ranks(double x) {
  double m;
  MPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

static const char *level_name(int l) {
  return l == MPISW_CKPT_LEVEL_LOCAL     ? "LOCAL"
         : l == MPISW_CKPT_LEVEL_PARTNER ? "PARTNER"
         : l == MPISW_CKPT_LEVEL_XOR     ? "XOR"
         : l == MPISW_CKPT_LEVEL_PFS     ? "PFS"
                                         : "none";
}

int main(int argc, char **argv) {
  const char *mode = "xor", *path = NULL;
  size_t size = 64u << 20;
  int iters = 3, xor_size = 4, corrupt = 0;
  static const struct option lo[] = {{"mode", 1, 0, 'm'},     {"path", 1, 0, 'p'},
                                     {"size", 1, 0, 's'},     {"iters", 1, 0, 'i'},
                                     {"xor-size", 1, 0, 'k'}, {"corrupt", 0, 0, 'x'},
                                     {0, 0, 0, 0}};
  int ch;
  while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
    switch (ch) {
    case 'm': mode = optarg; break;
    case 'p': path = optarg; break;
    case 's':
      if (bench_parse_bytes(optarg, &size)) {
        fprintf(stderr, "levels_bench: --size: '%s' is not a byte count\n", optarg);
        return 2;
      }
      break;
    case 'i':
      iters = atoi(optarg);
      if (iters < KEEP || iters > MAX_ITERS) {
        fprintf(stderr, "levels_bench: --iters: %d to %d (every level then holds %d versions), "
                        "not '%s'\n", KEEP, MAX_ITERS, KEEP, optarg);
        return 2;
      }
      break;
    case 'k': xor_size = atoi(optarg); break;
    case 'x': corrupt = 1; break;
    default: usage();
    }
  }
  if (!path) usage();
  int lose = strcmp(mode, "local") != 0;
  if (strcmp(mode, "local") && strcmp(mode, "partner") && strcmp(mode, "xor")) {
    fprintf(stderr, "levels_bench: --mode is local, partner or xor, not '%s'\n", mode);
    return 2;
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  /* Host names: the simulated nodes (what %h expands to). */
  char host[256] = "", (*hosts)[256] = calloc((size_t)nranks, 256);
  gethostname(host, sizeof host - 1);
  char *dot = strchr(host, '.');
  if (dot) *dot = 0;
  MPI_Allgather(host, 256, MPI_CHAR, hosts, 256, MPI_CHAR, MPI_COMM_WORLD);
  int nodes = 0, first_on_host = 1;
  for (int i = 0; i < nranks; i++) {
    int seen = 0;
    for (int j = 0; j < i; j++) seen |= !strcmp(hosts[i], hosts[j]);
    nodes += !seen;
    if (i < rank && !strcmp(hosts[i], host)) first_on_host = 0;
  }
  const char *victim = hosts[nranks - 1];
  int lost = lose && !strcmp(host, victim);

  /* This run's directory: <path>/mpisw-levels-bench-<pid>/<host> per node. */
  char base[1024], local[1100], mine[1400];
  snprintf(base, sizeof base, "%s/mpisw-levels-bench-%d", path, (int)getpid());
  MPI_Bcast(base, sizeof base, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0 && mkdir(base, 0700) != 0) bench_die("mkdir %s: %s", base, strerror(errno));
  snprintf(local, sizeof local, "%s/%%h", base);
  snprintf(mine, sizeof mine, "%s/%s", base, host);
  MPI_Barrier(MPI_COMM_WORLD);

  unsigned char *data = aligned_alloc(4096, (size + 4095) / 4096 * 4096);
  if (!data) bench_die("no memory for %zu bytes", size);
  mpisw_ckpt *ck = make_set(local, mode, xor_size);
  check_mpi(mpisw_ckpt_protect_mem(ck, data, size), "mpisw_ckpt_protect_mem");
  int want_levels = MPISW_CKPT_LEVEL_LOCAL | (!strcmp(mode, "partner") ? MPISW_CKPT_LEVEL_PARTNER
                                              : !strcmp(mode, "xor")   ? MPISW_CKPT_LEVEL_XOR
                                                                       : 0);
  double take[MAX_ITERS];
  int v = -1;
  for (int it = 0; it < iters; it++) {
    fill(data, size, it);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    check_mpi(mpisw_ckpt_take(ck, &v), "mpisw_ckpt_take");
    take[it] = max_over_ranks(bench_now() - t0);
    struct mpisw_ckpt_status st;
    check_mpi(mpisw_ckpt_status(ck, &st), "mpisw_ckpt_status");
    if ((st.last_levels & want_levels) != want_levels)
      bench_die("version %d is on levels 0x%x, not on 0x%x", v, st.last_levels, want_levels);
  }
  int last = v;

  /* Bytes on disk per level, every rank's files (KEEP versions each). */
  double files[3][3], sum[3][3];
  level_files(mine, files);
  MPI_Reduce(files, sum, 9, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  check_mpi(mpisw_ckpt_free(&ck), "mpisw_ckpt_free");

  /* A node is lost: its LOCAL directory (images, partner copies, parity). */
  MPI_Barrier(MPI_COMM_WORLD);
  if (lost && first_on_host) {
    char cmd[1500];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", mine);
    if (system(cmd) != 0) bench_die("cannot remove %s", mine);
  }
  memset(data, 0, size);
  MPI_Barrier(MPI_COMM_WORLD);
  ck = make_set(local, mode, xor_size);
  check_mpi(mpisw_ckpt_protect_mem(ck, data, size), "mpisw_ckpt_protect_mem");
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = bench_now();
  int rv = -2;
  check_mpi(mpisw_ckpt_restart(ck, &rv), "mpisw_ckpt_restart");
  double restart = max_over_ranks(bench_now() - t0);
  struct mpisw_ckpt_status st;
  check_mpi(mpisw_ckpt_status(ck, &st), "mpisw_ckpt_status");
  if (corrupt && lost && size) data[size / 2] ^= 0x5a;
  long at = rv == last ? first_diff(data, size, iters - 1) : 0;
  if (at >= 0)
    fprintf(stderr, "levels_bench: rank %d (%s%s): restored version %d (want %d), byte %ld "
                    "differs from the data\n", rank, host, lost ? ", lost" : "", rv, last, at);
  int bad = at >= 0, anybad;
  MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  /* The level the lost ranks' data came from (rank 0 hears it from one). */
  int lvl = lost ? st.restored_level : (lose ? 0 : st.restored_level), level;
  MPI_Allreduce(&lvl, &level, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  int nlost;
  MPI_Reduce(&lost, &nlost, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  check_mpi(mpisw_ckpt_free(&ck), "mpisw_ckpt_free");

  if (rank == 0) {
    qsort(take, (size_t)iters, sizeof(double), bench_cmp_double);
    printf("{\"bench\":\"ckpt_levels\",\"mode\":\"%s\",\"nodes\":%d,\"ranks\":%d,\"xor_size\":%d,"
           "\"keep\":%d,\"size\":%zu,\"iters\":%d,\"data_bytes\":%.0f,"
           "\"local_bytes\":%.0f,\"local_du_bytes\":%.0f,\"local_files\":%.0f,"
           "\"partner_bytes\":%.0f,\"partner_du_bytes\":%.0f,\"partner_files\":%.0f,"
           "\"xor_bytes\":%.0f,\"xor_du_bytes\":%.0f,\"xor_files\":%.0f,"
           "\"take_s\":%.6f,\"take_min_s\":%.6f,\"take_max_s\":%.6f,\"restart_s\":%.6f,"
           "\"lost_node\":\"%s\",\"lost_ranks\":%d,\"version\":%d,\"restored_version\":%d,"
           "\"restored_level\":\"%s\",\"byte_exact\":%s,\"load1\":%.2f,\"cores\":%ld}\n",
           mode, nodes, nranks, xor_size, KEEP, size, iters, (double)size * nranks,
           sum[0][0], sum[0][1], sum[0][2], sum[1][0], sum[1][1], sum[1][2], sum[2][0], sum[2][1],
           sum[2][2], take[iters / 2], take[0], take[iters - 1], restart, lose ? victim : "",
           nlost, last, rv, level_name(level), anybad ? "false" : "true", bench_load1(),
           sysconf(_SC_NPROCESSORS_ONLN));
    fflush(stdout);
  }
  /* Leave nothing behind. */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0) fprintf(stderr, "levels_bench: cannot remove %s\n", base);
  }
  free(data);
  free(hosts);
  MPI_Finalize();
  return anybad;
}
