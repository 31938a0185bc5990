/* Command line of hacc_io. Ranks come from mpiexec -n. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/hints.h"
#include "hacc_io.h"

static const char usage[] =
    "usage: mpiexec -n RANKS hacc_io [options]\n"
    "  --particles N     particles over all ranks (default 100M = 3.8 GB; K, M, G suffixes\n"
    "                    are powers of 1024); each rank holds its share, 38 bytes each\n"
    "  --method M        indep (MPI_File_write_at, the CORAL kernel's way) | coll\n"
    "                    (MPI_File_write_at_all) | win (storage windows over the file) |\n"
    "                    pool (a mem: pooled file; checkpoint and restart in one job) |\n"
    "                    ckpt (mpisw_ckpt_take / mpisw_ckpt_restart) (default indep)\n"
    "  --path P          the shared checkpoint file, or a directory for hacc_io.ckpt in it\n"
    "                    (default $TMPDIR or /tmp); pool: its name in the pool\n"
    "                    (mem:/hacc/NAME);\n"
    "                    ckpt: the set's LOCAL directory is P.ckpt.d\n"
    "  --steps K         checkpoints taken, one per step, each overwriting the last\n"
    "                    (default 1)\n"
    "  --restart-only    no checkpoint: restart from the file an earlier job wrote\n"
    "                    (indep and coll at any rank count; win and ckpt at the writer's)\n"
    "  --no-restart      checkpoint only (the file stays, for a later --restart-only)\n"
    "  --no-verify       do not check the restarted particles\n"
    "  --warm            restart from the page cache (default: the file's ranges are\n"
    "                    written back and dropped from it first, posix_fadvise DONTNEED)\n"
    "  --remove          remove the checkpoint file (or images) at the end\n"
    "  --backend B       win: storage_backend hint, auto | mmap | pager (default auto,\n"
    "                    the library's choice: the pager out of core, else mmap)\n"
    "  --access S        win: access_style hint (e.g. sequential)\n"
    "  --settle S        before each timed phase, sync the file system (syncfs) and\n"
    "                    wait S seconds, so no phase inherits device work of the one\n"
    "                    before (default: none)\n"
    "  --readers K       win restart: K threads bring the section into memory, each a\n"
    "                    part (default 0 = auto: 2 per rank alone on a node, else 1)\n"
    "  --fill F          win checkpoint: the arrays go into the window by store (memcpy)\n"
    "                    or put (MPI_Put to the rank's own window) (default store)\n"
    "  --quiet           no summary lines on stderr\n"
    "exit codes: 0 ok, 1 a restarted byte differs, 2 bad option, 3 not a (complete,\n"
    "            matching) hacc_io checkpoint, 4 I/O, MPI, window or checkpoint error\n";

__attribute__((format(printf, 2, 3))) static int bad(int rank, const char *fmt, ...) {
  if (rank == 0) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "hacc_io: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n%s", usage);
    va_end(ap);
  }
  return HACC_BAD_OPTION;
}

const char *hacc_method_name(enum hacc_method m) {
  static const char *names[] = {"indep", "coll", "win", "pool", "ckpt"};
  return names[m];
}

int hacc_parse_options(int argc, char **argv, int rank, struct hacc_options *o) {
  static const struct option longopts[] = {
      {"particles", required_argument, 0, 'n'}, {"method", required_argument, 0, 'm'},
      {"path", required_argument, 0, 'p'},      {"steps", required_argument, 0, 's'},
      {"restart-only", no_argument, 0, 'R'},    {"no-restart", no_argument, 0, 'C'},
      {"no-verify", no_argument, 0, 'V'},       {"warm", no_argument, 0, 'w'},
      {"remove", no_argument, 0, 'x'},          {"backend", required_argument, 0, 'b'},
      {"access", required_argument, 0, 'a'},    {"quiet", no_argument, 0, 'q'},
      {"settle", required_argument, 0, 'S'},    {"readers", required_argument, 0, 'r'},
      {"fill", required_argument, 0, 'F'},
      {"help", no_argument, 0, 'h'},            {0, 0, 0, 0}};
  static char defpath[4096];
  const char *tmp = getenv("TMPDIR");
  snprintf(defpath, sizeof defpath, "%s/hacc_io.ckpt", tmp && *tmp ? tmp : "/tmp");
  *o = (struct hacc_options){.particles = 100000000, .method = HACC_INDEP, .path = defpath,
                             .steps = 1, .verify = 1, .cold = 1, .backend = "auto",
                             .settle = -1};
  int c, path_given = 0, win_given = 0;
  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    switch (c) {
      case 'n': {
        uint64_t v;
        if (mpisw_parse_size(optarg, &v) || v == 0)
          return bad(rank, "--particles: '%s' is not a positive count", optarg);
        o->particles = v;
        o->particles_given = 1;
        break;
      }
      case 'm':
        if (!strcmp(optarg, "indep")) o->method = HACC_INDEP;
        else if (!strcmp(optarg, "coll")) o->method = HACC_COLL;
        else if (!strcmp(optarg, "win")) o->method = HACC_WIN;
        else if (!strcmp(optarg, "pool")) o->method = HACC_POOL;
        else if (!strcmp(optarg, "ckpt")) o->method = HACC_CKPT;
        else return bad(rank, "--method: '%s' is not indep, coll, win, pool or ckpt", optarg);
        break;
      case 'p':
        if (!*optarg) return bad(rank, "--path: empty");
        o->path = optarg;
        path_given = 1;
        break;
      case 's': {
        char *end;
        long v = strtol(optarg, &end, 10);
        if (end == optarg || *end || v < 1 || v > 1000000)
          return bad(rank, "--steps: '%s' is not a count from 1 to 1000000", optarg);
        o->steps = (int)v;
        break;
      }
      case 'R': o->restart_only = 1; break;
      case 'C': o->no_restart = 1; break;
      case 'V': o->verify = 0; break;
      case 'w': o->cold = 0; break;
      case 'x': o->remove = 1; break;
      case 'b':
        if (strcmp(optarg, "auto") && strcmp(optarg, "mmap") && strcmp(optarg, "pager"))
          return bad(rank, "--backend: '%s' is not auto, mmap or pager", optarg);
        o->backend = optarg;
        win_given = 1;
        break;
      case 'a':
        if (!*optarg) return bad(rank, "--access: empty");
        o->access = optarg;
        win_given = 1;
        break;
      case 'q': o->quiet = 1; break;
      case 'F':
        if (!strcmp(optarg, "put")) o->fill_put = 1;
        else if (strcmp(optarg, "store")) return bad(rank, "--fill: '%s' is not store or put", optarg);
        win_given = 1;
        break;
      case 'S': {
        char *end;
        double v = strtod(optarg, &end);
        if (end == optarg || *end || !(v >= 0 && v <= 60))
          return bad(rank, "--settle: '%s' is not a number of seconds from 0 to 60", optarg);
        o->settle = v;
        break;
      }
      case 'r': {
        char *end;
        long v = strtol(optarg, &end, 10);
        if (end == optarg || *end || v < 0 || v > 64)
          return bad(rank, "--readers: '%s' is not a count from 0 to 64", optarg);
        o->readers = (int)v;
        win_given = 1;
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
  if (win_given && o->method != HACC_WIN)
    return bad(rank, "--backend, --access, --readers and --fill are options of --method win");
  if (o->restart_only && o->no_restart)
    return bad(rank, "--restart-only and --no-restart exclude each other");
  if (o->method == HACC_POOL && (o->restart_only || o->no_restart))
    return bad(rank, "--method pool: a pooled file lives as long as the job, so it "
               "checkpoints and restarts in one job (no --restart-only, --no-restart)");
  if (o->method == HACC_POOL) {
    static char name[4096];
    const char *base = strrchr(o->path, '/');
    base = base ? base + 1 : o->path;
    if (!strncmp(o->path, "mem:", 4)) snprintf(name, sizeof name, "%s", o->path);
    else snprintf(name, sizeof name, "mem:/hacc/%s", *base ? base : "hacc_io.ckpt");
    o->path = name;
  } else if (!strncmp(o->path, "mem:", 4)) {
    return bad(rank, "--path %s is a pooled name: use --method pool", o->path);
  }
  /* A directory (the benchmark driver's --path): the file hacc_io.ckpt in it. */
  struct stat st;
  if (path_given && o->method != HACC_POOL && stat(o->path, &st) == 0 && S_ISDIR(st.st_mode)) {
    snprintf(defpath, sizeof defpath, "%s/hacc_io.ckpt", o->path);
    o->path = defpath;
  }
  if (o->particles > (1ull << 40))
    return bad(rank, "--particles: at most 1T");
  if (o->particles < (uint64_t)hacc_nranks() && !o->restart_only)
    return bad(rank, "--particles %llu: fewer than the %d ranks", 
               (unsigned long long)o->particles, hacc_nranks());
  return 0;
}
