/* The process, not one window: settings read once from the environment,
 * the statistics and leak list behind MPISW_REPORT and its lines, the memory
 * budget, MPI bugs worked around before MPI_Init, and the MPI this library
 * was built for. Below the window module (src/win/); uses only src/core/
 * and the MPI's own PMPI calls. */
#ifndef MPISW_PROCESS_PROCESS_H
#define MPISW_PROCESS_PROCESS_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>

#include "core/error.h"
#include "mpisw.h" /* MPISW_EXPORT: a public entry point (the rest is hidden) */

/* ---- state.c: process-wide settings, read once ---- */
struct mpisw_stats {
  long windows_memory;         /* windows left in memory (passed to the MPI) */
  long windows_storage;        /* windows entirely on storage */
  long windows_combined;       /* windows split between memory and storage */
  long windows_shared;         /* shared windows on storage */
  long allocs_storage;         /* MPI_Alloc_mem ranges on storage */
  double bytes_memory;         /* placed in memory by mpisw windows */
  double bytes_storage;        /* placed on storage */
  double bytes_synced;         /* bytes written to storage by syncs (dirty pages, not window sizes) */
  double sync_seconds;         /* time spent in storage syncs */
  long syncs;
};

extern int mpisw_disabled;                 /* MPISW_DISABLE=1 */
extern struct mpisw_stats mpisw_stats;
extern pthread_mutex_t mpisw_lock;         /* registry, stats, budget, error codes */

void mpisw_state_init(void);               /* idempotent; needs MPI initialized */
const char *mpisw_env_hints(void);         /* MPISW_HINTS or NULL */
/* Until restored, mpisw_env_hints() answers text (may be NULL) in the
 * calling thread: the pool's windows take MPISW_POOL_HINTS, not MPISW_HINTS. */
void mpisw_env_hints_replace(const char *text);
void mpisw_env_hints_restore(void);
int mpisw_report_enabled(void);
/* Memory a window may still take under the budget (auto factor). */
uint64_t mpisw_budget_left(int ranks_sharing);
void mpisw_budget_take(int64_t bytes);     /* negative to give back */
/* With MPISW_MEMORY_LIMIT set: fails (NOMEM) when mem_bytes more would pass
 * the budget. Without it: always 0 (the kernel's overcommit decides). */
int mpisw_budget_check(uint64_t mem_bytes, int ranks_sharing, struct mpisw_error *e);
int mpisw_budget_enforced(void);
/* This process's share of the node's memory (MemAvailable and the memory
 * cgroup divided by the node's ranks), whatever MPISW_MEMORY_LIMIT says. */
uint64_t mpisw_node_share(void);
double mpisw_now(void);

/* ---- leaks.c: windows and MPI_Alloc_mem ranges not freed yet (kept with
 * MPISW_REPORT=1 only; the interposed calls report successes) ---- */
enum { MPISW_OPEN_WIN = 0, MPISW_OPEN_MEM = 1 };
void mpisw_open_win(MPI_Win win, MPI_Aint bytes);  /* bytes: this rank's size */
void mpisw_closed_win(MPI_Win win);
void mpisw_open_mem(const void *base, MPI_Aint bytes);
void mpisw_closed_mem(const void *base);
void mpisw_open_count(int what, long *count, double *bytes);

/* ---- quirks.c: MPI bugs worked around before MPI_Init ---- */
void mpisw_quirks_before_init(void);

/* ---- identity.c: the MPI this library was built for ---- */
#define MPISW_EXIT_WRONG_MPI 3
const char *mpisw_built_for(void);                   /* "MPICH" or "Open MPI" */
/* When the process runs the other MPI (a libmpisw for MPICH preloaded into
 * an Open MPI program, or the reverse): one line on stderr naming both, then
 * _exit(MPISW_EXIT_WRONG_MPI). Called when loaded and again at MPI_Init. */
void mpisw_identity_check(void);

/* ---- report.c: MPISW_REPORT=1 ---- */
/* Collective over MPI_COMM_WORLD: rank 0 gets every rank's n records of
 * size bytes, in rank order, in one calloc'd array (*total of them, one
 * zeroed spare after them; free it); other ranks get NULL. For the modules'
 * report lines, which rank 0 sums by name. */
void *mpisw_report_gather(const void *records, int n, size_t size, int *total);
/* After PMPI_Init: rank 0 says the library is active, its version and the
 * MPI it was built for. */
void mpisw_report_init(void);
/* Before PMPI_Finalize (collective over MPI_COMM_WORLD): the summary, with
 * what the program did not free. Does nothing without MPISW_REPORT=1. */
void mpisw_report_finalize(void);
/* bytes with the unit that suits them ("512 B", "4.0 KiB", "1.5 MiB"). */
const char *mpisw_format_bytes(double bytes, char *buf, int len);

#endif
