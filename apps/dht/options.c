/* Command line of the DHT. Ranks come from mpiexec -n. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hints.h"
#include "dht.h"

static const char usage[] =
    "usage: mpiexec -n RANKS dht [options]\n"
    "  --elements N        entries in each rank's local volume (default 65536; K, M suffixes)\n"
    "  --heap-factor F     overflow heap entries per volume entry (default 4)\n"
    "  --fill F            each rank inserts F x elements keys, in (0,1] (default 0.8)\n"
    "  --kind K            memory | storage | combined | auto (default memory)\n"
    "  --factor F          combined: share of each window on storage, in [0,1] (default 0.5)\n"
    "  --order O           combined: memory_first | storage_first (default memory_first)\n"
    "  --path P            storage: a directory (one unique file per window, removed at the\n"
    "                      end) or a file name (\".%r\", the rank, added when missing;\n"
    "                      default $TMPDIR or /tmp)\n"
    "  --access S          access_style hint for the storage part (e.g. random)\n"
    "  --memory-limit B    run with MPISW_MEMORY_LIMIT=B (bytes; K, M, G suffixes)\n"
    "  --verify V          full (look every key up with MPI_Get, and check the chains) |\n"
    "                      local (each owner checks its chains) | none (default full)\n"
    "  --quiet             no summary line on stderr\n"
    "  --version           print the version and the MPI it was built for, then exit\n"
    "exit codes: 0 ok, 1 verify failed, 2 bad option, 3 over the memory budget,\n"
    "            4 allocation or MPI error, 5 an overflow heap is full\n";

/* Rank 0 says what is wrong (printf-style) and shows the usage. */
__attribute__((format(printf, 2, 3))) static int bad(int rank, const char *fmt, ...) {
  if (rank == 0) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "dht: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n%s", usage);
    va_end(ap);
  }
  return DHT_BAD_OPTION;
}

/* Counts and sizes as the library reads them (4096, 64K, 1M, 2G ...). */
static int parse_count(const char *s, uint64_t *out) {
  uint64_t v;
  if (!s || mpisw_parse_size(s, &v) || v == 0) return -1;
  *out = v;
  return 0;
}

static int parse_double(const char *s, double lo, double hi, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !(v >= lo && v <= hi)) return -1;
  *out = v;
  return 0;
}

void dht_human(char *buf, size_t n, double bytes) {
  if (bytes >= 1 << 30) snprintf(buf, n, "%.2f GiB", bytes / (1 << 30));
  else if (bytes >= 1 << 20) snprintf(buf, n, "%.1f MiB", bytes / (1 << 20));
  else snprintf(buf, n, "%.1f KiB", bytes / 1024);
}

const char *dht_kind_name(enum dht_kind k) {
  static const char *names[] = {"memory", "storage", "combined", "auto"};
  return names[k];
}

int dht_parse_options(int argc, char **argv, int rank, struct dht_options *o) {
  static const struct option longopts[] = {
      {"elements", required_argument, 0, 'e'}, {"heap-factor", required_argument, 0, 'H'},
      {"fill", required_argument, 0, 'f'},     {"kind", required_argument, 0, 'k'},
      {"factor", required_argument, 0, 'F'},   {"order", required_argument, 0, 'o'},
      {"path", required_argument, 0, 'p'},     {"access", required_argument, 0, 'a'},
      {"verify", required_argument, 0, 'v'},   {"quiet", no_argument, 0, 'q'},
      {"help", no_argument, 0, 'h'},           {"memory-limit", required_argument, 0, 'm'},           {0, 0, 0, 0}};
  const char *tmp = getenv("TMPDIR");
  *o = (struct dht_options){.elements = 65536, .heap_factor = 4, .fill = 0.8,
                            .kind = DHT_MEMORY, .factor = 0.5, .order = "memory_first",
                            .path = tmp && *tmp ? tmp : "/tmp", .verify = DHT_VERIFY_FULL};
  int factor_given = 0, order_given = 0, c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    switch (c) {
      case 'e':
        if (parse_count(optarg, &o->elements))
          return bad(rank, "--elements: '%s' is not a positive count", optarg);
        break;
      case 'H':
        if (parse_double(optarg, 0, 1e6, &o->heap_factor))
          return bad(rank, "--heap-factor: '%s' is not a number >= 0", optarg);
        break;
      case 'f':
        if (parse_double(optarg, 1e-9, 1, &o->fill))
          return bad(rank, "--fill: '%s' is not a number in (0,1]", optarg);
        break;
      case 'k':
        if (!strcmp(optarg, "memory")) o->kind = DHT_MEMORY;
        else if (!strcmp(optarg, "storage")) o->kind = DHT_STORAGE;
        else if (!strcmp(optarg, "combined")) o->kind = DHT_COMBINED;
        else if (!strcmp(optarg, "auto")) o->kind = DHT_AUTO;
        else return bad(rank, "--kind: '%s' is not memory, storage, combined or auto", optarg);
        break;
      case 'F':
        if (parse_double(optarg, 0, 1, &o->factor))
          return bad(rank, "--factor: '%s' is not a number in [0,1]", optarg);
        factor_given = 1;
        break;
      case 'o':
        if (strcmp(optarg, "memory_first") && strcmp(optarg, "storage_first"))
          return bad(rank, "--order: '%s' is not memory_first or storage_first", optarg);
        o->order = optarg;
        order_given = 1;
        break;
      case 'p':
        if (!*optarg) return bad(rank, "--path: empty");
        o->path = optarg;
        break;
      case 'a': o->access = optarg; break;
      case 'v':
        if (!strcmp(optarg, "full")) o->verify = DHT_VERIFY_FULL;
        else if (!strcmp(optarg, "local")) o->verify = DHT_VERIFY_LOCAL;
        else if (!strcmp(optarg, "none")) o->verify = DHT_VERIFY_NONE;
        else return bad(rank, "--verify: '%s' is not full, local or none", optarg);
        break;
      case 'q': o->quiet = 1; break;
      case 'm': { /* applied before MPI_Init (main.c); here only checked */
        uint64_t b;
        if (parse_count(optarg, &b))
          return bad(rank, "--memory-limit: '%s' is not a positive byte count", optarg);
        break;
      }
      case 'h':
        if (rank == 0) fputs(usage, stdout);
        return -1;
      default:
        return bad(rank, "unknown or incomplete option '%s'", argv[optind - 1]);
    }
  }
  if (optind < argc) return bad(rank, "unexpected argument '%s'", argv[optind]);
  if ((factor_given || order_given) && o->kind != DHT_COMBINED)
    return bad(rank, "--factor and --order need --kind combined");
  if ((uint64_t)(o->fill * (double)o->elements) == 0)
    return bad(rank, "--fill x --elements is less than one key per rank");
  if ((double)o->elements * (1 + o->heap_factor) * sizeof(struct dht_entry) > 9e18)
    return bad(rank, "--elements x --heap-factor is too large");
  return 0;
}
