/* Process-wide settings from the environment, the statistics behind
 * MPISW_REPORT, and the memory budget behind storage_alloc_factor=auto. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/hints.h"
#include "core/memlimit.h"
#include "win/internal.h"

int mpisw_disabled;
struct mpisw_stats mpisw_stats;
/* Recursive: syncing every place at finalize runs under the registry lock. */
pthread_mutex_t mpisw_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static const char *env_hints;
static int report;
static int has_limit;
static uint64_t limit_bytes;
static uint64_t budget_used; /* memory parts of live mpisw placements */

int mpisw_env_true(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") && strcasecmp(v, "false") && strcasecmp(v, "no");
}

/* Read before main() so that MPISW_DISABLE holds for every call. */
__attribute__((constructor)) static void read_env(void) {
  mpisw_disabled = mpisw_env_true("MPISW_DISABLE");
  report = mpisw_env_true("MPISW_REPORT");
  env_hints = getenv("MPISW_HINTS");
  if (env_hints && !*env_hints) env_hints = NULL;
  int lim = mpisw_memory_limit_env(&limit_bytes);
  has_limit = lim != 0;
  if (lim < 0)
    fprintf(stderr, "mpisw: MPISW_MEMORY_LIMIT='%s' is not a byte count; using 0\n",
            getenv("MPISW_MEMORY_LIMIT"));
}

void mpisw_state_init(void) { /* settings are read by the constructor */ }

const char *mpisw_env_hints(void) { return env_hints; }
int mpisw_report_enabled(void) { return report; }

static int local_ranks(void) {
  const char *names[] = {"MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE", "PMI_LOCAL_SIZE",
                         "SLURM_NTASKS_PER_NODE", NULL};
  for (int i = 0; names[i]; i++) {
    const char *v = getenv(names[i]);
    if (v && atoi(v) > 0) return atoi(v);
  }
  return 1;
}

uint64_t mpisw_budget_left(int ranks_sharing) {
  uint64_t budget;
  if (has_limit) {
    budget = limit_bytes * (uint64_t)(ranks_sharing > 0 ? ranks_sharing : 1);
  } else {
    uint64_t avail = mpisw_node_memory();
    if (avail == UINT64_MAX) return UINT64_MAX;
    /* The node's memory is shared by the node's ranks. */
    budget = avail / (uint64_t)local_ranks() * (uint64_t)(ranks_sharing > 0 ? ranks_sharing : 1);
  }
  pthread_mutex_lock(&mpisw_lock);
  uint64_t used = budget_used;
  pthread_mutex_unlock(&mpisw_lock);
  return budget > used ? budget - used : 0;
}

int mpisw_budget_enforced(void) { return has_limit; }

int mpisw_budget_check(uint64_t mem_bytes, int ranks_sharing, struct mpisw_error *e) {
  if (!has_limit) return 0;
  uint64_t left = mpisw_budget_left(ranks_sharing);
  if (mem_bytes <= left) return 0;
  return mpisw_fail(e, MPISW_K_NOMEM,
                    "%llu bytes of memory exceed MPISW_MEMORY_LIMIT (%llu bytes per process, "
                    "%llu still free); put the excess on storage with alloc_type=storage "
                    "and storage_alloc_factor=auto",
                    (unsigned long long)mem_bytes, (unsigned long long)limit_bytes,
                    (unsigned long long)left);
}

void mpisw_budget_take(int64_t bytes) {
  pthread_mutex_lock(&mpisw_lock);
  budget_used = (uint64_t)((int64_t)budget_used + bytes);
  pthread_mutex_unlock(&mpisw_lock);
}

double mpisw_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
