/* Process-wide settings from the environment (core/config.c's table), the
 * statistics behind MPISW_REPORT, the memory budget behind
 * storage_alloc_factor=auto, and the public version and configuration. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/config.h"
#include "core/hints.h"
#include "core/memlimit.h"
#include "mpisw.h"
#include "process/process.h"

int mpisw_disabled;
struct mpisw_stats mpisw_stats;
/* Recursive: syncing every place at finalize runs under the registry lock. */
pthread_mutex_t mpisw_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static int has_limit;
static uint64_t limit_bytes;
static uint64_t budget_used; /* memory parts of live mpisw placements */

/* The one place the environment is read (core/config.c's table), before
 * main() so that MPISW_DISABLE holds for every call; bad values are reported
 * here, once, and MPISW_CONFIG=dump prints what holds. */
__attribute__((constructor)) static void read_env(void) {
  mpisw_config_load(1);
  mpisw_disabled = mpisw_cfg_bool(MPISW_CFG_DISABLE);
  has_limit = mpisw_memory_limit_env(&limit_bytes);
}

void mpisw_state_init(void) { /* settings are read by the constructor */ }

/* A module making a window of its own (the pool, src/pool/) gives it other
 * defaults than MPISW_HINTS: set for the calling thread only, for the time
 * of that one collective call. */
static __thread const char *hints_instead;
static __thread int hints_replaced;
void mpisw_env_hints_replace(const char *text) {
  hints_instead = text;
  hints_replaced = 1;
}
void mpisw_env_hints_restore(void) { hints_replaced = 0; }
const char *mpisw_env_hints(void) {
  return hints_replaced ? hints_instead : mpisw_cfg_text(MPISW_CFG_HINTS);
}
int mpisw_report_enabled(void) { return mpisw_cfg_bool(MPISW_CFG_REPORT); }

#define STR_(x) #x
#define STR(x) STR_(x)
MPISW_EXPORT const char *mpisw_version(void) {
  return STR(MPISW_VERSION_MAJOR) "." STR(MPISW_VERSION_MINOR) "." STR(MPISW_VERSION_PATCH);
}

MPISW_EXPORT int mpisw_config_string(char *buf, int len) {
  char none[1];
  if (!buf || len <= 0) buf = none, len = 1;
  return mpisw_config_format(buf, len);
}

static int local_ranks(void) {
  const char *names[] = {"MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE", "PMI_LOCAL_SIZE",
                         "SLURM_NTASKS_PER_NODE", NULL};
  for (int i = 0; names[i]; i++) {
    const char *v = getenv(names[i]);
    if (v && atoi(v) > 0) return atoi(v);
  }
  return 1;
}

uint64_t mpisw_node_share(void) {
  uint64_t avail = mpisw_node_memory();
  return avail == UINT64_MAX ? avail : avail / (uint64_t)local_ranks();
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
