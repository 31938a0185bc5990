#include "core/config.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hints.h"

#define KIB 1024LL
#define MIB (1024LL * KIB)
#define GIB (1024LL * MIB)
#define TIB (1024LL * GIB)

/* The README's "Environment variables" table lists exactly these rows, with
 * these defaults (tests/unit/test_config.c compares them). */
const struct mpisw_cfg_var mpisw_cfg_vars[MPISW_CFG_COUNT] = {
    [MPISW_CFG_HINTS] = {"MPISW_HINTS", MPISW_CFG_HINTLIST, "unset", 0, 0, 0, 0, NULL,
                         "hints for every MPI_Win_allocate, MPI_Win_allocate_shared and "
                         "MPI_Alloc_mem that does not set the key in MPI_Info"},
    [MPISW_CFG_DISABLE] = {"MPISW_DISABLE", MPISW_CFG_BOOL, "0", 0, 0, 0, 0, NULL,
                           "pure pass-through: every call goes to the MPI library unchanged"},
    [MPISW_CFG_REPORT] = {"MPISW_REPORT", MPISW_CFG_BOOL, "0", 0, 0, 0, 0, NULL,
                          "rank 0 says on stderr that the library is active at MPI_Init, and "
                          "sums up windows, bytes written and leaks at MPI_Finalize"},
    [MPISW_CFG_MEMORY_LIMIT] = {"MPISW_MEMORY_LIMIT", MPISW_CFG_SIZE, "unset", 0, 0,
                                1024 * TIB, 0, NULL,
                                "memory budget per process: storage_alloc_factor=auto puts what "
                                "passes it on storage, and memory past it is refused"},
    [MPISW_CFG_ARENA_SIZE] = {"MPISW_ARENA_SIZE", MPISW_CFG_SIZE, "64M", 64 * MIB, 0, 1024 * TIB,
                              0, NULL,
                              "arena window per process made at MPI_Init to serve MPI_Alloc_mem "
                              "(0: none); larger than the memory budget: none, with a warning"},
    [MPISW_CFG_PAGER_BLOCK] = {"MPISW_PAGER_BLOCK", MPISW_CFG_SIZE, "2M", 2 * MIB, 4 * KIB, GIB,
                               1, NULL, "block size of the pager backend"},
    [MPISW_CFG_PAGER_WORKERS] = {"MPISW_PAGER_WORKERS", MPISW_CFG_INT, "4", 4, 1, 64, 0, NULL,
                                 "I/O threads of each pager window"},
    [MPISW_CFG_PAGER_READAHEAD] = {"MPISW_PAGER_READAHEAD", MPISW_CFG_INT,
                                   "16, at most a quarter of the pager's blocks", -1, 0, 1024, 0,
                                   NULL,
                                   "blocks the pager reads ahead of a sequential stream "
                                   "(access_style=random: 4)"},
    [MPISW_CFG_PAGER_DEBUG] = {"MPISW_PAGER_DEBUG", MPISW_CFG_BOOL, "0", 0, 0, 0, 0, NULL,
                               "pager fallback reasons and per-window statistics on stderr"},
    [MPISW_CFG_WRITEBEHIND] = {"MPISW_WRITEBEHIND", MPISW_CFG_CHOICE, "auto", 0, 0, 0, 0,
                               "auto|on|off",
                               "mmap backend: a thread starts the write-back of served windows' "
                               "dirty pages every 10 ms and marks them cold every 100 ms; auto "
                               "serves storage parts of at least a quarter of the memory "
                               "cgroup's limit"},
    [MPISW_CFG_MMAP_ADVICE] = {"MPISW_MMAP_ADVICE", MPISW_CFG_CHOICE, "auto", 0, 0, 0, 0,
                               "auto|hint",
                               "mmap backend's madvise: auto gives MADV_SEQUENTIAL only for "
                               "access_style=read_once without writes and never MADV_RANDOM; "
                               "hint maps access_style as before"},
    [MPISW_CFG_CONFIG] = {"MPISW_CONFIG", MPISW_CFG_CHOICE, "unset", 0, 0, 0, 0, "dump",
                          "dump: the speaking process prints the effective configuration on "
                          "stderr when the library is loaded"},
    /* The pool of pooled files (src/pool/, docs/POOLED_FILES.md). The default
     * is computed at MPI_Init (a quarter of the process's node share of
     * memory, see mpisw_pool_default_size), so def_value is 0 here and the
     * source FROM_DEFAULT tells the pool to compute it. */
    [MPISW_CFG_POOL_SIZE] = {"MPISW_POOL_SIZE", MPISW_CFG_SIZE, "unset", 0, 0, 1024 * TIB, 1,
                             NULL,
                             "memory (virtual: pages cost nothing until written) each rank "
                             "gives the pool of pooled files at MPI_Init; unset: a quarter of "
                             "MPISW_MEMORY_LIMIT or of the process's share of the node's "
                             "memory; 0: no pool"},
    [MPISW_CFG_POOL_HINTS] = {"MPISW_POOL_HINTS", MPISW_CFG_HINTLIST, "unset", 0, 0, 0, 0, NULL,
                              "window hints of the pool (alloc_type=storage spills it to "
                              "local disks); MPISW_HINTS does not apply to the pool"},
    [MPISW_CFG_MEM_PATHS] = {"MPISW_MEM_PATHS", MPISW_CFG_PATTERNS, "unset", 0, 0, 0, 0, NULL,
                             "files whose path matches one of these patterns are pooled files, "
                             "as if named mem:<path> (docs/POOLED_FILES.md)"},
    [MPISW_CFG_POOL_TIMEOUT] = {"MPISW_POOL_TIMEOUT", MPISW_CFG_INT, "60", 60, 0, 86400, 0, NULL,
                                "seconds a wait for a lock of the pool held by a rank on "
                                "another node lasts before it fails naming that rank (a "
                                "holder on this node is watched: its death fails the wait at "
                                "once); 0: no limit"},
    [MPISW_CFG_REMOTE_SYNC_TIMEOUT] = {"MPISW_REMOTE_SYNC_TIMEOUT", MPISW_CFG_INT, "60", 60, 1,
                                       86400, 0, NULL,
                                       "seconds a remote sync waits for a target's sync agent "
                                       "(its write-back included) before it fails naming that "
                                       "rank"},
    [MPISW_CFG_CKPT_LOCAL] = {"MPISW_CKPT_LOCAL", MPISW_CFG_PATH, "/tmp/mpisw-ckpt/%h", 0, 0, 0,
                              0, NULL,
                              "node-local directory of checkpoints (the LOCAL level; %h host "
                              "name, %r rank); made when missing"},
    [MPISW_CFG_CKPT_PFS] = {"MPISW_CKPT_PFS", MPISW_CFG_PATH, "unset", 0, 0, 0, 0, NULL,
                            "global directory of checkpoints (the PFS level, reached by every "
                            "node); unset: no PFS level"},
    [MPISW_CFG_CKPT_PARTNER_EVERY] = {"MPISW_CKPT_PARTNER_EVERY", MPISW_CFG_INT, "0", 0, 0,
                                      1000000, 0, NULL,
                                      "every n-th checkpoint is also copied to a partner rank "
                                      "on another node; 0: never"},
    [MPISW_CFG_CKPT_XOR_EVERY] = {"MPISW_CKPT_XOR_EVERY", MPISW_CFG_INT, "0", 0, 0, 1000000, 0,
                                  NULL,
                                  "every n-th checkpoint also gets XOR parity over groups of "
                                  "MPISW_CKPT_XOR_SIZE ranks on distinct nodes; 0: never"},
    [MPISW_CFG_CKPT_PFS_EVERY] = {"MPISW_CKPT_PFS_EVERY", MPISW_CFG_INT, "1", 1, 0, 1000000, 0,
                                  NULL,
                                  "every n-th checkpoint is drained to MPISW_CKPT_PFS; 0: "
                                  "never"},
    [MPISW_CFG_CKPT_XOR_SIZE] = {"MPISW_CKPT_XOR_SIZE", MPISW_CFG_INT, "4", 4, 2, 256, 0, NULL,
                                 "ranks of one XOR group (one lost node per group is "
                                 "recoverable; parity costs 1/(size-1) of the data)"},
    [MPISW_CFG_CKPT_KEEP] = {"MPISW_CKPT_KEEP", MPISW_CFG_INT, "2", 2, 1, 64, 0, NULL,
                             "complete versions kept on each level (older ones are removed "
                             "once a newer one is complete everywhere)"},
    [MPISW_CFG_CKPT_STAGING] = {"MPISW_CKPT_STAGING", MPISW_CFG_BOOL, "1", 1, 0, 0, 0, NULL,
                                "1: a checkpoint returns once its fastest level is durable "
                                "and a thread drains it to PFS; 0: PFS is written before it "
                                "returns"},
    [MPISW_CFG_CKPT_CHUNK] = {"MPISW_CKPT_CHUNK", MPISW_CFG_SIZE, "64K", 64 * 1024, 4096,
                              1024 * 1024 * 1024, 1, NULL,
                              "unit of incremental checkpoints: a chunk whose checksum did not "
                              "change since the version it overwrites is not written"},
    [MPISW_CFG_TOPOLOGY] = {"MPISW_TOPOLOGY", MPISW_CFG_PATH, "unset", 0, 0, 0, 0, NULL,
                            "the cluster's switch tree in Slurm's topology.conf format, read by "
                            "rank 0 for collective I/O's hop distances; unset: every pair of "
                            "nodes is 2 hops apart"},
    [MPISW_CFG_TOPO_HOSTNAME] = {"MPISW_TOPO_HOSTNAME", MPISW_CFG_PATH, "unset", 0, 0, 0, 0, NULL,
                                 "testing aid: the host name each rank gives the topology model "
                                 "(%r world rank, %h host; a hostlist a,a,b,b: rank r takes "
                                 "the r-th name), so one machine poses as several nodes"},
    [MPISW_CFG_CB_STRATEGY] = {"MPISW_CB_STRATEGY", MPISW_CFG_CHOICE, "unset", 0, 0, 0, 0,
                               "otp|latp|tatp|romio",
                               "collective I/O engine for every file opened (the hint "
                               "mpisw_cb_strategy of a file wins): otp, latp or tatp; unset or "
                               "romio: the MPI's own collective I/O"},
};

struct value {
  int source;
  int64_t num;
  char *text; /* as given in the environment (owned) */
};

static struct value values[MPISW_CFG_COUNT];
static int loaded;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
/* 4096 -> "4K": the largest exact suffix, so bounds read as they are typed. */
void mpisw_cfg_format_size(uint64_t v, char *buf, int len) {
  const char *suffix = "KMGT";
  int i = -1;
  while (v && v % 1024 == 0 && i < 3) v /= 1024, i++;
  if (i < 0) snprintf(buf, len, "%llu", (unsigned long long)v);
  else snprintf(buf, len, "%llu%c", (unsigned long long)v, suffix[i]);
}

void mpisw_cfg_forms(int id, char *buf, int len) {
  const struct mpisw_cfg_var *v = &mpisw_cfg_vars[id];
  char lo[32], hi[32];
  switch (v->type) {
  case MPISW_CFG_BOOL:
    snprintf(buf, len, "%s", MPISW_BOOL_FORMS);
    break;
  case MPISW_CFG_SIZE:
    mpisw_cfg_format_size((uint64_t)v->min, lo, sizeof lo);
    mpisw_cfg_format_size((uint64_t)v->max, hi, sizeof hi);
    snprintf(buf, len,
             "a byte count: digits with an optional suffix K, M, G or T (powers of 1024), "
             "from %s to %s%s",
             lo, hi, v->page_multiple ? ", a multiple of the page size" : "");
    break;
  case MPISW_CFG_INT:
    snprintf(buf, len, "an integer from %lld to %lld", (long long)v->min, (long long)v->max);
    break;
  case MPISW_CFG_HINTLIST:
    snprintf(buf, len, "key=value;key=value;... (the hints)");
    break;
  case MPISW_CFG_PATH:
    snprintf(buf, len, "a path (%%h host name, %%r rank, %%%% a %%)");
    break;
  case MPISW_CFG_PATTERNS:
    snprintf(buf, len, "pattern:pattern:... (shell wildcards *, ?, [...]; a pattern matches "
                       "the whole path; * matches / too)");
    break;
  default:
    snprintf(buf, len, "%s", v->choices);
    break;
  }
}

static int parse_int(const char *s, int64_t *out) {
  if (!isdigit((unsigned char)*s)) return -1; /* no sign, no space */
  errno = 0;
  char *end;
  long long x = strtoll(s, &end, 10);
  if (errno || *end) return -1;
  *out = x;
  return 0;
}

static int choice_ok(const char *choices, const char *s) {
  size_t n = strlen(s);
  for (const char *p = choices; *p;) {
    size_t k = strcspn(p, "|");
    if (k == n && !strncmp(p, s, n)) return 1;
    p += k + (p[k] == '|');
  }
  return 0;
}

/* 0 and *num when s is in a documented form of v. */
static int parse_value(const struct mpisw_cfg_var *v, const char *s, int64_t *num) {
  uint64_t u;
  int b;
  switch (v->type) {
  case MPISW_CFG_BOOL:
    if (mpisw_parse_bool(s, &b)) return -1;
    *num = b;
    return 0;
  case MPISW_CFG_SIZE:
    if (mpisw_parse_size(s, &u) || u < (uint64_t)v->min || u > (uint64_t)v->max) return -1;
    if (v->page_multiple && u % (uint64_t)sysconf(_SC_PAGESIZE)) return -1;
    *num = (int64_t)u;
    return 0;
  case MPISW_CFG_INT:
    if (parse_int(s, num) || *num < v->min || *num > v->max) return -1;
    return 0;
  case MPISW_CFG_CHOICE:
    *num = 0;
    return choice_ok(v->choices, s) ? 0 : -1;
  case MPISW_CFG_PATTERNS: /* no empty pattern: "a::b" or a trailing ":" is a typo */
    *num = 0;
    return !*s || strstr(s, "::") || *s == ':' || s[strlen(s) - 1] == ':' ? -1 : 0;
  default:
    *num = 0;
    return 0;
  }
}

/* Caller holds mu. */
static void read_all(int verbose) {
  for (int id = 0; id < MPISW_CFG_COUNT; id++) {
    const struct mpisw_cfg_var *v = &mpisw_cfg_vars[id];
    struct value *x = &values[id];
    free(x->text);
    x->text = NULL;
    x->source = MPISW_CFG_FROM_DEFAULT;
    x->num = v->def_value;
    const char *s = getenv(v->name);
    if (!s || !*s) continue;
    x->text = strdup(s);
    int64_t num;
    if (x->text && parse_value(v, s, &num) == 0) {
      x->source = MPISW_CFG_FROM_ENV;
      x->num = num;
      continue;
    }
    x->source = MPISW_CFG_FROM_REJECTED;
    if (verbose) {
      char forms[256];
      mpisw_cfg_forms(id, forms, sizeof forms);
      mpisw_warn("%s='%s' is not valid (accepted: %s); using the default (%s)", v->name, s,
                 forms, v->def);
    }
  }
  if (verbose && values[MPISW_CFG_HINTS].source == MPISW_CFG_FROM_ENV)
    mpisw_hints_warn_unknown(values[MPISW_CFG_HINTS].text);
}

static void load(int verbose, int again) {
  pthread_mutex_lock(&mu);
  int fresh = again || !loaded;
  if (fresh) read_all(verbose);
  __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&mu);
  if (fresh && verbose && mpisw_cfg_text(MPISW_CFG_CONFIG) && mpisw_config_speaker()) {
    char text[8192];
    mpisw_config_format(text, sizeof text);
    FILE *f = mpisw_warn_stream();
    fprintf(f, "mpisw: effective configuration (MPISW_CONFIG=dump):\n");
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
      fprintf(f, "mpisw:   %s\n", line);
    fflush(f);
  }
}

void mpisw_config_load(int verbose) { load(verbose, 0); }
void mpisw_config_reload(int verbose) { load(verbose, 1); }

static const struct value *get(int id) {
  if (!__atomic_load_n(&loaded, __ATOMIC_ACQUIRE)) load(0, 0);
  return &values[id];
}

int mpisw_cfg_bool(int id) { return get(id)->num != 0; }
uint64_t mpisw_cfg_size(int id) { return (uint64_t)get(id)->num; }
int64_t mpisw_cfg_int(int id) { return get(id)->num; }
int mpisw_cfg_source(int id) { return get(id)->source; }

int mpisw_cfg_parse(int id, const char *text, int64_t *num) {
  if (id < 0 || id >= MPISW_CFG_COUNT || !text) return -1;
  if (mpisw_cfg_vars[id].type == MPISW_CFG_PATH && !*text) return -1;
  return parse_value(&mpisw_cfg_vars[id], text, num);
}

const char *mpisw_cfg_text(int id) {
  const struct value *x = get(id);
  return x->source == MPISW_CFG_FROM_ENV ? x->text : NULL;
}

int mpisw_config_format(char *buf, int len) {
  int n = 0;
  for (int id = 0; id < MPISW_CFG_COUNT; id++) {
    const struct mpisw_cfg_var *v = &mpisw_cfg_vars[id];
    const struct value *x = get(id);
    char line[4096 + 256];
    if (x->source == MPISW_CFG_FROM_ENV)
      snprintf(line, sizeof line, "%-22s %s (environment)\n", v->name, x->text);
    else if (x->source == MPISW_CFG_FROM_REJECTED)
      snprintf(line, sizeof line, "%-22s %s (default; the environment's '%s' is not valid)\n",
               v->name, v->def, x->text);
    else
      snprintf(line, sizeof line, "%-22s %s (default)\n", v->name, v->def);
    int k = (int)strlen(line);
    if (n < len - 1) { /* as much as fits, always NUL-terminated */
      int fit = k < len - 1 - n ? k : len - 1 - n;
      memcpy(buf + n, line, (size_t)fit);
      buf[n + fit] = 0;
    }
    n += k;
  }
  if (len > 0 && n == 0) buf[0] = 0;
  return n;
}
