/* The collective I/O benchmarks' shared driver (cio_run.h).
 *
 *   cio_cube|cio_btio [--size N | --size AxBxC] [--strategies LIST]
 *       [--rounds R] [--path DIR] [--cb-nodes N] [--cb-buffer-size BYTES]
 *       [--hint KEY=VALUE]... [--fsync outside|inside|none] [--read]
 *       [--verify] [--corrupt] [--label TEXT] [--order shuffle:SEED|R0,R1,...]
 *       [--no-warmup]
 *
 * Sides (LIST, default otp,latp,tatp,romio): otp, latp, tatp open the file
 * with the info key mpisw_cb_strategy=<side> (mpisw's collective I/O
 * engine), romio without it (the MPI's ROMIO untouched); a side named twice
 * with "-aa" (romio-aa) is the same again, for an A/A pair. Every round runs
 * every side once on a fresh file (deleted before each write), round r
 * starting at the r-th side (A B C D, B C D A, ...), after an untimed
 * warm-up write of every side (--no-warmup: none).
 *
 * Timed: from a barrier to the end of MPI_File_write_all (MPI_File_read_all
 * for --read), the slowest rank's time; open, set_view and close are not.
 * --fsync inside adds MPI_File_sync to the timed part, outside (default)
 * syncs after it, untimed, none never syncs; the same for every side.
 * --verify (untimed): after each write every rank reads its 1/P of the file
 * independently (default view, MPI_COMM_SELF open, no hints) and checks
 * every double: double i of the file holds the value i; after a --read the
 * buffer is checked the same way. A mismatch fails the run (exit 1,
 * "DATA MISMATCH in FILE at offset ..."); --corrupt flips one byte after the
 * first write to show that it does. --order renumbers the ranks (world
 * rank r is rank order[r] of the communicator the file is opened on): a
 * launcher places ranks on nodes in blocks or round robin, a busy machine's
 * scheduler anyhow.
 *
 * Records (rank 0, one JSON line each): "phase":"model" once: the
 * benchmark's own model of the call (file domains as ROMIO cuts them, the
 * engine's distance matrix D of src/cio/topo_ranks.c, the engine's rules:
 * cb_nodes domains, one per node by default; OTP in ROMIO's order of ranks,
 * LATP and TATP over every rank) with each
 * strategy's hop-bytes, bytes moved between processes and maximum link load
 * (src/core/cb_assign.c, src/topo/net.c); "phase":"write"/"read" per round
 * and side: bytes, seconds, GBps (bytes / seconds / 1e9), the model's
 * figures of the side's assignment (romio: OTP's) and the engine's per-call
 * figures read with MPI_File_get_info ("engine": 1 when the file answered
 * mpisw_cb_strategy; engine_time_* the slowest rank's stage times). The
 * model and the engine agree exactly when the engine cuts its domains as
 * ROMIO does (no striping_unit, no romio_min_fdomain_size). Every record
 * names the MPI-IO of the untouched side ("mpi_io": romio for MPICH; for
 * Open MPI its io component, OMPI_MCA_io when set, else ompio, 4.1's
 * default). */
#include "cio_run.h"

#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_mpi.h"
#include "bench_util.h"
#include "cio/cio.h"
#include "core/cb_assign.h"
#include "topo/topo.h"

#define MAX_SIDES 16
#define MAX_HINTS 16

struct opts {
  const char *name;
  long g[3];
  char sides[MAX_SIDES][16];
  int nsides, rounds, cb_nodes, read, verify, corrupt, warmup;
  long cb_buffer;
  const char *dir, *label, *fsync, *order;
  char hints[MAX_HINTS][2][128];
  int nhints;
};

/* The model of one collective call: each strategy's figures. */
enum { OTP, LATP, TATP, NSTRAT };
static const char *strat_name[NSTRAT] = {"otp", "latp", "tatp"};

struct model {
  int nodes, flat;
  int two_phase_domains;          /* domains when the call has two phases */
  int domains;                    /* the write's: 0 without two phases */
  int independent, independent_read; /* ROMIO's rule: no two phases */
  double hopbytes[NSTRAT], moved[NSTRAT], max_link[NSTRAT];
  char topology[1024];
};

static int rank, nprocs;
/* The job's communicator: MPI_COMM_WORLD, or its ranks renumbered by --order. */
static MPI_Comm comm = MPI_COMM_NULL;

/* --order: world rank r becomes rank order[r] of the job's communicator:
 * "shuffle:SEED" a permutation from SEED (the same on every rank), or the
 * list itself. A launcher puts ranks on nodes in blocks; this puts the
 * application's ranks on them the way a busy machine's scheduler does. */
static void reorder(const char *spec, int wrank, int wsize) {
  int *perm = malloc(sizeof *perm * (size_t)wsize), n = 0;
  if (!perm) bench_die("--order: out of memory");
  for (int r = 0; r < wsize; r++) perm[r] = r;
  if (!spec) {
    n = wsize;
  } else if (!strncmp(spec, "shuffle:", 8)) {
    char *end = NULL;
    unsigned long seed = strtoul(spec + 8, &end, 10);
    if (*end || end == spec + 8) bench_die("--order '%s': shuffle:SEED (a number)", spec);
    for (int r = wsize - 1; r > 0; r--) {
      seed = (seed * 6364136223846793005ul + 1442695040888963407ul);
      int j = (int)((seed >> 33) % (unsigned long)(r + 1)), t = perm[r];
      perm[r] = perm[j];
      perm[j] = t;
    }
    n = wsize;
  } else {
    char buf[4096], *save = NULL;
    snprintf(buf, sizeof buf, "%s", spec);
    unsigned char *seen = calloc((size_t)wsize, 1);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
      char *end = NULL;
      long v = strtol(t, &end, 10);
      if (*end || v < 0 || v >= wsize || n >= wsize || seen[v])
        bench_die("--order '%s': a permutation of 0..%d, each once", spec, wsize - 1);
      seen[v] = 1;
      perm[n++] = (int)v;
    }
    free(seen);
  }
  if (n != wsize) bench_die("--order '%s': %d ranks for %d processes", spec, n, wsize);
  MPI_Comm_split(MPI_COMM_WORLD, 0, perm[wrank], &comm);
  free(perm);
}

static void usage(const char *name) {
  if (rank == 0)
    fprintf(stderr,
            "usage: %s [--size N|AxBxC] [--strategies otp,latp,tatp,romio[,SIDE-aa]] "
            "[--rounds R] [--path DIR] [--cb-nodes N] [--cb-buffer-size BYTES] "
            "[--hint KEY=VALUE]... [--fsync outside|inside|none] [--read] [--verify] "
            "[--corrupt] [--label TEXT] [--order shuffle:SEED|R0,R1,...] [--no-warmup]\n",
            name);
}

static int side_strategy(const char *side, char *out, size_t len) {
  snprintf(out, len, "%s", side);
  char *aa = strstr(out, "-aa");
  if (aa && aa[3] == 0) *aa = 0;
  return strcmp(out, "otp") && strcmp(out, "latp") && strcmp(out, "tatp") && strcmp(out, "romio")
             ? -1
             : 0;
}

static void parse(int argc, char **argv, enum cio_kind kind, struct opts *o) {
  static const struct option lo[] = {
      {"size", 1, 0, 's'},       {"strategies", 1, 0, 'S'}, {"rounds", 1, 0, 'r'},
      {"path", 1, 0, 'p'},       {"cb-nodes", 1, 0, 'n'},   {"cb-buffer-size", 1, 0, 'b'},
      {"hint", 1, 0, 'h'},       {"fsync", 1, 0, 'f'},      {"read", 0, 0, 'R'},
      {"verify", 0, 0, 'v'},     {"corrupt", 0, 0, 'c'},    {"label", 1, 0, 'l'},
      {"order", 1, 0, 'o'},      {"no-warmup", 0, 0, 'w'},  {0, 0, 0, 0}};
  long n = kind == CIO_CUBE ? 64 : 32;
  o->g[0] = o->g[1] = o->g[2] = n;
  o->nsides = 4;
  strcpy(o->sides[0], "otp");
  strcpy(o->sides[1], "latp");
  strcpy(o->sides[2], "tatp");
  strcpy(o->sides[3], "romio");
  o->rounds = 1;
  o->warmup = 1;
  o->dir = "/tmp";
  o->label = "";
  o->fsync = "outside";
  int c;
  while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
    char *end = NULL;
    size_t sz;
    switch (c) {
    case 's': {
      int k = sscanf(optarg, "%ldx%ldx%ld", &o->g[0], &o->g[1], &o->g[2]);
      if (k == 1) o->g[1] = o->g[2] = o->g[0];
      if ((k != 1 && k != 3) || (k == 3 && kind == CIO_BTIO) || o->g[0] < 1 || o->g[1] < 1 ||
          o->g[2] < 1)
        bench_die("--size '%s': N%s (elements per dimension, >= 1)", optarg,
                  kind == CIO_CUBE ? " or AxBxC" : "");
      break;
    }
    case 'S': {
      o->nsides = 0;
      char buf[512], *save = NULL, strat[16];
      snprintf(buf, sizeof buf, "%s", optarg);
      for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (o->nsides == MAX_SIDES || strlen(t) >= sizeof o->sides[0] ||
            side_strategy(t, strat, sizeof strat))
          bench_die("--strategies: '%s' is not otp, latp, tatp or romio (or one of them with "
                    "-aa), or more than %d sides", t, MAX_SIDES);
        strcpy(o->sides[o->nsides++], t);
      }
      if (!o->nsides) bench_die("--strategies: empty list");
      break;
    }
    case 'r':
      o->rounds = (int)strtol(optarg, &end, 10);
      if (*end || o->rounds < 1) bench_die("--rounds '%s': a number >= 1", optarg);
      break;
    case 'p': o->dir = optarg; break;
    case 'n':
      o->cb_nodes = (int)strtol(optarg, &end, 10);
      if (*end || o->cb_nodes < 1) bench_die("--cb-nodes '%s': a number >= 1", optarg);
      break;
    case 'b':
      if (bench_parse_bytes(optarg, &sz) || sz < 1)
        bench_die("--cb-buffer-size '%s': bytes (K, M, G suffixes), > 0", optarg);
      o->cb_buffer = (long)sz;
      break;
    case 'h': {
      const char *eq = strchr(optarg, '=');
      if (!eq || eq == optarg || o->nhints == MAX_HINTS || eq - optarg >= 128 ||
          strlen(eq + 1) >= 128)
        bench_die("--hint '%s': KEY=VALUE (at most %d, 127 characters each)", optarg,
                  MAX_HINTS);
      snprintf(o->hints[o->nhints][0], 128, "%.*s", (int)(eq - optarg), optarg);
      snprintf(o->hints[o->nhints][1], 128, "%s", eq + 1);
      o->nhints++;
      break;
    }
    case 'f':
      if (strcmp(optarg, "outside") && strcmp(optarg, "inside") && strcmp(optarg, "none"))
        bench_die("--fsync '%s': outside, inside or none", optarg);
      o->fsync = optarg;
      break;
    case 'R': o->read = 1; break;
    case 'v': o->verify = 1; break;
    case 'c': o->corrupt = 1; break;
    case 'l': o->label = optarg; break;
    case 'o': o->order = optarg; break;
    case 'w': o->warmup = 0; break;
    default:
      usage(argv[0]);
      MPI_Finalize();
      exit(2);
    }
  }
  if (optind < argc) {
    usage(argv[0]);
    bench_die("unexpected argument '%s'", argv[optind]);
  }
}

/* ---- the model: each strategy's assignment of the call's file domains ---- */

static void build_model(const struct cio_pattern *pt, const struct opts *o, struct model *md) {
  struct mpisw_cio_topo t;
  struct mpisw_error e;
  memset(md, 0, sizeof *md);
  if (mpisw_cio_topo_build(comm, &t, &e))
    bench_die("the distance matrix (MPISW_TOPOLOGY, MPISW_TOPO_HOSTNAME): %s", e.msg);
  md->nodes = t.nnodes;
  md->flat = t.flat;
  snprintf(md->topology, sizeof md->topology, "%s", t.file);
  /* The engine's rules (src/cio/assign.c, calls.c): cb_nodes domains (by
   * default one per node, at most P); OTP gives domain d to the d-th rank of
   * ROMIO's order (the first rank of each node, nodes in rank order, then
   * the second of each, ...); LATP and TATP may choose any rank, each rank
   * one domain at most, each node one at most when m <= nodes. */
  long *romio = malloc(sizeof *romio * (size_t)nprocs), *all = malloc(sizeof *all * (size_t)nprocs);
  if (!romio || !all) bench_die("the model: out of memory");
  int n = 0;
  for (int round = 0; n < nprocs; round++)
    for (int node = 0; node < t.nnodes; node++)
      for (int p = 0, seen = 0; p < nprocs; p++)
        if (t.node_of[p] == node && seen++ == round) {
          romio[n++] = p;
          break;
        }
  for (int p = 0; p < nprocs; p++) all[p] = p;
  int m = o->cb_nodes ? o->cb_nodes : t.nnodes;
  if (m > nprocs) m = nprocs;
  /* ROMIO's rule, the engine's too (romio_cb_write): without interleaving
   * (automatic) or with disable, no two phases: each rank writes its own
   * pieces, no domain, nothing crosses. */
  const char *cbw = "automatic", *cbr = "automatic";
  for (int h = 0; h < o->nhints; h++) {
    if (!strcmp(o->hints[h][0], "romio_cb_write")) cbw = o->hints[h][1];
    if (!strcmp(o->hints[h][0], "romio_cb_read")) cbr = o->hints[h][1];
  }
  int inter = cio_pattern_interleaved(pt);
  md->independent = !strcmp(cbw, "disable") || (strcmp(cbw, "enable") && !inter);
  md->independent_read = !strcmp(cbr, "disable") || (strcmp(cbr, "enable") && !inter);
  md->two_phase_domains = m;
  md->domains = md->independent ? 0 : m;
  if (rank == 0 && m > 0) {
    double *C = malloc(sizeof *C * (size_t)nprocs * (size_t)m);
    uint64_t *traffic = calloc((size_t)t.nnodes * (size_t)t.nnodes, sizeof *traffic);
    uint64_t *up = malloc(sizeof *up * (size_t)t.net.nverts);
    uint64_t *down = malloc(sizeof *down * (size_t)t.net.nverts);
    if (!C || !traffic || !up || !down) bench_die("the model: out of memory");
    cio_pattern_comm_matrix(pt, m, C);
    struct mpisw_cb_problem pb = {(size_t)nprocs, (size_t)m, C, t.D, all, (size_t)nprocs,
                                  t.node_of, (size_t)t.nnodes};
    long *agg = malloc(sizeof *agg * (size_t)m);
    if (!agg) bench_die("the model: out of memory");
    for (int s = 0; s < NSTRAT; s++) {
      pb.cand = s == OTP ? romio : all;
      int rc = s == OTP    ? mpisw_cb_otp(&pb, agg)
               : s == LATP ? mpisw_cb_latp(&pb, agg)
                           : mpisw_cb_tatp(&pb, 1, NULL, agg);
      if (rc) bench_die("the model: %s assignment failed (code %d)", strat_name[s], rc);
      md->hopbytes[s] = mpisw_cb_hopbytes(&pb, agg);
      md->moved[s] = mpisw_cb_moved_bytes(&pb, agg);
      memset(traffic, 0, sizeof *traffic * (size_t)t.nnodes * (size_t)t.nnodes);
      for (int d = 0; d < m; d++)
        for (int q = 0; q < nprocs; q++) {
          int a = t.node_of[agg[d]], b = t.node_of[q];
          if (a != b) traffic[(size_t)b * (size_t)t.nnodes + (size_t)a] +=
                          (uint64_t)C[(size_t)q * (size_t)m + (size_t)d];
        }
      md->max_link[s] = (double)mpisw_topo_link_loads(&t.net, traffic, up, down, NULL, NULL);
    }
    free(agg);
    free(C);
    free(traffic);
    free(up);
    free(down);
  }
  free(romio);
  free(all);
  mpisw_cio_topo_free(&t);
}

/* ---- the data: double i of the file holds the value i ---- */

static double *fill_buffer(const struct cio_pattern *pt, long *count_elems) {
  struct cio_box b[CIO_MAX_CELLS];
  int nb = cio_pattern_boxes(pt, rank, b);
  long per = pt->elem / 8, n = cio_pattern_rank_bytes(pt, rank) / 8;
  double *buf = malloc(sizeof *buf * (size_t)(n ? n : 1)), *p = buf;
  if (!buf) bench_die("buffer of %ld doubles: out of memory", n);
  for (int i = 0; i < nb; i++)
    for (long z = b[i].lo[0]; z < b[i].lo[0] + b[i].n[0]; z++)
      for (long y = b[i].lo[1]; y < b[i].lo[1] + b[i].n[1]; y++)
        for (long x = b[i].lo[2]; x < b[i].lo[2] + b[i].n[2]; x++)
          for (long c = 0; c < per; c++)
            *p++ = (double)(((z * pt->g[1] + y) * pt->g[2] + x) * per + c);
  *count_elems = n / per;
  return buf;
}

/* Every rank checks its 1/P of the file; the number of bad doubles of all. */
static long verify_file(const char *path, long fbytes) {
  MPI_File fh;
  long bad = 0, total = fbytes / 8;
  long lo = total * rank / nprocs, hi = total * (rank + 1) / nprocs;
  int rc = MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  if (rc != MPI_SUCCESS) bench_die_mpi("verify: MPI_File_open", rc);
  MPI_Offset size = 0;
  MPI_File_get_size(fh, &size);
  if (size != fbytes) {
    if (rank == 0)
      fprintf(stderr, "%s: DATA MISMATCH in %s: %lld bytes, expected %ld\n",
              program_invocation_short_name, path, (long long)size, fbytes);
    bad++;
  }
  enum { CHUNK = 1 << 20 };
  double *buf = malloc(sizeof *buf * CHUNK);
  if (!buf) bench_die("verify: out of memory");
  for (long at = lo; at < hi && !bad; at += CHUNK) {
    int n = (int)(hi - at < CHUNK ? hi - at : CHUNK);
    memset(buf, 0xff, sizeof *buf * (size_t)n);
    rc = MPI_File_read_at(fh, (MPI_Offset)at * 8, buf, n, MPI_DOUBLE, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) bench_die_mpi("verify: MPI_File_read_at", rc);
    for (int i = 0; i < n; i++)
      if (buf[i] != (double)(at + i)) {
        if (!bad)
          fprintf(stderr, "%s: rank %d: DATA MISMATCH in %s at offset %ld: expected %.0f, "
                  "found %.17g\n", program_invocation_short_name, rank, path, (at + i) * 8,
                  (double)(at + i), buf[i]);
        bad++;
      }
  }
  free(buf);
  MPI_File_close(&fh);
  long all = 0;
  MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, comm);
  return all;
}

/* ---- the engine's figures of the last call ---- */

static const char *engine_keys[] = {
    "mpisw_cb_strategy", "mpisw_cb_aggregators", "mpisw_cb_hopbytes",
    "mpisw_cb_max_link_load", "mpisw_cb_time_metadata", "mpisw_cb_time_assign",
    "mpisw_cb_time_shuffle", "mpisw_cb_time_io", "mpisw_cb_hopbytes_otp",
    "mpisw_cb_hopbytes_latp", "mpisw_cb_hopbytes_tatp", "mpisw_cb_domains",
    "mpisw_cb_rounds", "mpisw_cb_rounds_behind", "mpisw_cb_rounds_direct",
    "mpisw_cb_rounds_placed"};
#define NKEYS (sizeof engine_keys / sizeof *engine_keys)

/* Appends ,"engine":0|1 and the keys the file answered to out; times are the
 * slowest rank's (collective). */
static void engine_figures(MPI_File fh, char *out, size_t len) {
  MPI_Info info;
  char val[NKEYS][MPI_MAX_INFO_VAL + 1];
  int has[NKEYS];
  double t[4] = {-1, -1, -1, -1}, tmax[4];
  memset(has, 0, sizeof has);
  if (MPI_File_get_info(fh, &info) == MPI_SUCCESS) {
    for (size_t k = 0; k < NKEYS; k++) {
      MPI_Info_get(info, engine_keys[k], MPI_MAX_INFO_VAL, val[k], &has[k]);
      if (has[k] && k >= 4 && k < 8) t[k - 4] = strtod(val[k], NULL);
    }
    MPI_Info_free(&info);
  }
  MPI_Allreduce(t, tmax, 4, MPI_DOUBLE, MPI_MAX, comm);
  size_t at = strlen(out);
  at += (size_t)snprintf(out + at, len - at, ",\"engine\":%d", has[0] ? 1 : 0);
  for (size_t k = 0; k < NKEYS && at < len; k++) {
    if (!has[k]) continue;
    const char *field = engine_keys[k] + strlen("mpisw_cb_");
    char *end = NULL;
    double num = k >= 4 && k < 8 ? tmax[k - 4] : strtod(val[k], &end);
    int numeric = (k >= 4 && k < 8) || (end && end != val[k] && *end == 0 && isfinite(num));
    if (numeric)
      at += (size_t)snprintf(out + at, len - at, ",\"engine_%s\":%.17g", field, num);
    else { /* a text value, quotes and backslashes left out */
      at += (size_t)snprintf(out + at, len - at, ",\"engine_%s\":\"", field);
      for (const char *c = val[k]; *c && at + 3 < len; c++)
        if (*c != '"' && *c != '\\' && (unsigned char)*c >= 32) out[at++] = *c;
      at += (size_t)snprintf(out + at, len - at, "\"");
    }
  }
}

/* The MPI-IO the romio side runs: MPICH's ROMIO, or Open MPI's io
 * component (OMPI_MCA_io names it; ompio, 4.1's default, otherwise). */
static const char *mpi_io_name(void) {
#ifdef OPEN_MPI
  const char *io = getenv("OMPI_MCA_io");
  return io && *io && strlen(io) < 32 && !strpbrk(io, "\"\\") ? io : "ompio";
#else
  return "romio";
#endif
}

/* ---- one side: open with its hints, the timed call, close ---- */

static MPI_Info side_info(const struct opts *o, const char *strategy) {
  MPI_Info info;
  MPI_Info_create(&info);
  char v[32];
  if (strcmp(strategy, "romio")) MPI_Info_set(info, "mpisw_cb_strategy", strategy);
  if (o->cb_nodes) {
    snprintf(v, sizeof v, "%d", o->cb_nodes);
    MPI_Info_set(info, "cb_nodes", v);
  }
  if (o->cb_buffer) {
    snprintf(v, sizeof v, "%ld", o->cb_buffer);
    MPI_Info_set(info, "cb_buffer_size", v);
  }
  for (int h = 0; h < o->nhints; h++) MPI_Info_set(info, o->hints[h][0], o->hints[h][1]);
  return info;
}

struct call {
  double seconds;
  char figures[2048];
};

static void timed_call(const struct opts *o, const char *path, const char *strategy, int write,
                       double *buf, long count, MPI_Datatype etype, MPI_Datatype ftype,
                       struct call *out) {
  MPI_File fh;
  MPI_Info info = side_info(o, strategy);
  int amode = write ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY;
  int rc = MPI_File_open(comm, path, amode, info, &fh);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) bench_die_mpi(path, rc);
  rc = MPI_File_set_view(fh, 0, etype, ftype, "native", MPI_INFO_NULL);
  if (rc != MPI_SUCCESS) bench_die_mpi("MPI_File_set_view", rc);
  if (count > INT32_MAX) bench_die("%ld elements per rank: more than an int counts", count);
  MPI_Barrier(comm);
  double t0 = bench_now();
  rc = write ? MPI_File_write_all(fh, buf, (int)count, etype, MPI_STATUS_IGNORE)
             : MPI_File_read_all(fh, buf, (int)count, etype, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) bench_die_mpi(write ? "MPI_File_write_all" : "MPI_File_read_all", rc);
  if (write && !strcmp(o->fsync, "inside") && (rc = MPI_File_sync(fh)) != MPI_SUCCESS)
    bench_die_mpi("MPI_File_sync", rc);
  double mine = bench_now() - t0;
  out->figures[0] = 0;
  engine_figures(fh, out->figures, sizeof out->figures);
  if (write && !strcmp(o->fsync, "outside") && (rc = MPI_File_sync(fh)) != MPI_SUCCESS)
    bench_die_mpi("MPI_File_sync", rc);
  if ((rc = MPI_File_close(&fh)) != MPI_SUCCESS) bench_die_mpi("MPI_File_close", rc);
  MPI_Allreduce(&mine, &out->seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
}

static long check_buffer(const struct cio_pattern *pt, const double *got, const char *path) {
  long n = 0, bad = 0, all = 0;
  double *want = fill_buffer(pt, &n);
  n *= pt->elem / 8;
  for (long i = 0; i < n; i++)
    if (got[i] != want[i]) {
      if (!bad)
        fprintf(stderr, "%s: rank %d: DATA MISMATCH in %s: read_all gave %g for the value %.0f\n",
                program_invocation_short_name, rank, path, got[i], want[i]);
      bad++;
    }
  free(want);
  MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, comm);
  return all;
}

static void corrupt_one_byte(const char *path, long fbytes) {
  if (rank == 0) {
    int fd = open(path, O_RDWR);
    unsigned char c = 0;
    if (fd < 0 || pread(fd, &c, 1, fbytes / 2) != 1) bench_die("--corrupt: cannot read %s", path);
    c ^= 0x5a;
    if (pwrite(fd, &c, 1, fbytes / 2) != 1) bench_die("--corrupt: cannot write %s", path);
    close(fd);
  }
  MPI_Barrier(comm);
}

int cio_run_main(int argc, char **argv, const char *name, enum cio_kind kind, cio_view_fn view) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  struct opts o;
  memset(&o, 0, sizeof o);
  o.name = name;
  parse(argc, argv, kind, &o);
  reorder(o.order, rank, nprocs);
  MPI_Comm_rank(comm, &rank);
  struct cio_pattern pt;
  char why[256];
  if (cio_pattern_init(&pt, kind, o.g, nprocs, why, sizeof why)) {
    /* the same answer on every rank: one message and a clean exit (an abort
     * races the launcher's forwarding of the message) */
    if (rank == 0) fprintf(stderr, "%s: %s\n", name, why);
    MPI_Finalize();
    exit(1);
  }
  long fbytes = cio_pattern_file_bytes(&pt);

  struct model md;
  build_model(&pt, &o, &md);
  char host[MPI_MAX_PROCESSOR_NAME];
  int hlen = 0;
  MPI_Get_processor_name(host, &hlen);
  /* One file name for the job: rank 0's pid. */
  long id = (long)getpid();
  MPI_Bcast(&id, 1, MPI_LONG, 0, comm);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.%ld.dat", o.dir, name, id);
  char common[1152];
  snprintf(common, sizeof common,
           "\"bench\":\"%s\",\"pattern\":\"%s\",\"size\":\"%ldx%ldx%ld\",\"nprocs\":%d,"
           "\"nodes\":%d,\"label\":\"%s\",\"domains\":%d,\"cb_nodes\":%d,\"cb_buffer_size\":%ld,"
           "\"fsync\":\"%s\",\"order\":\"%s\",\"bytes\":%ld,\"mpi_io\":\"%s\"",
           name, kind == CIO_CUBE ? "cube" : "btio", o.g[0], o.g[1], o.g[2], nprocs, md.nodes,
           o.label, md.domains, o.cb_nodes, o.cb_buffer, o.fsync, o.order ? o.order : "", fbytes,
           mpi_io_name());
  if (rank == 0) {
    printf("{%s,\"phase\":\"model\",\"flat\":%d,\"topology\":\"%s\",\"independent\":%d,"
           "\"independent_read\":%d,\"two_phase_domains\":%d",
           common, md.flat, md.topology, md.independent, md.independent_read,
           md.two_phase_domains);
    for (int s = 0; s < NSTRAT; s++)
      printf(",\"hopbytes_%s\":%.17g,\"moved_%s\":%.17g,\"max_link_load_%s\":%.17g",
             strat_name[s], md.hopbytes[s], strat_name[s], md.moved[s], strat_name[s],
             md.max_link[s]);
    printf("}\n");
    fflush(stdout);
  }

  long count = 0;
  double *data = fill_buffer(&pt, &count);
  double *rbuf = o.read ? malloc(sizeof *rbuf * (size_t)(count * (pt.elem / 8) + 1)) : NULL;
  MPI_Datatype etype, ftype;
  view(&pt, rank, &etype, &ftype);
  long failed = 0;
  /* Warm-up, untimed, no record: one write of each side, so that no side
   * pays the job's first collective calls (connections, buffers). */
  for (int s = 0; s < o.nsides && o.warmup; s++) {
    char strategy[16];
    struct call c;
    side_strategy(o.sides[s], strategy, sizeof strategy);
    if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
    MPI_Barrier(comm);
    timed_call(&o, path, strategy, 1, data, count, etype, ftype, &c);
  }
  for (int round = 1; round <= o.rounds && !failed; round++)
    for (int k = 0; k < o.nsides && !failed; k++) {
      int s = (k + round - 1) % o.nsides; /* round r starts at side r: none always first */
      char strategy[16];
      side_strategy(o.sides[s], strategy, sizeof strategy);
      int mi = !strcmp(strategy, "latp") ? LATP : !strcmp(strategy, "tatp") ? TATP : OTP;
      if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
      MPI_Barrier(comm);
      for (int write = 1; write >= (o.read ? 0 : 1) && !failed; write--) {
        struct call c;
        if (!write) memset(rbuf, 0, sizeof *rbuf * (size_t)(count * (pt.elem / 8)));
        timed_call(&o, path, strategy, write, write ? data : rbuf, count, etype, ftype, &c);
        if (write && o.corrupt && round == 1 && k == 0) corrupt_one_byte(path, fbytes);
        long bad = 0;
        if (o.verify) bad = write ? verify_file(path, fbytes) : check_buffer(&pt, rbuf, path);
        if (rank == 0) {
          /* without two phases nothing moves: the model's figures are 0 */
          int none = write ? md.independent : md.independent_read;
          printf("{%s,\"phase\":\"%s\",\"side\":\"%s\",\"strategy\":\"%s\",\"round\":%d,"
                 "\"host0\":\"%s\",\"load1\":%.2f,\"seconds\":%.9f,\"GBps\":%.6f,"
                 "\"model_domains\":%d,\"model_hopbytes\":%.17g,\"model_moved\":%.17g,"
                 "\"model_max_link_load\":%.17g,\"verified\":%s%s}\n",
                 common, write ? "write" : "read", o.sides[s], strategy, round, host,
                 bench_load1(), c.seconds, fbytes / c.seconds / 1e9,
                 none ? 0 : md.two_phase_domains, none ? 0 : md.hopbytes[mi],
                 none ? 0 : md.moved[mi], none ? 0 : md.max_link[mi],
                 o.verify ? (bad ? "false" : "true") : "null", c.figures);
          fflush(stdout);
        }
        failed = bad;
      }
    }
  MPI_Barrier(comm);
  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
  MPI_Type_free(&etype);
  MPI_Type_free(&ftype);
  MPI_Comm_free(&comm);
  free(data);
  free(rbuf);
  MPI_Finalize();
  return failed ? 1 : 0;
}
