/* One word of a rank's segment, and the lock words. On the local path
 * (every rank on this node) the segments are mapped here: processor
 * atomics. On the rma path every metadata word goes through the MPI's
 * atomics on the world window (so atomics of this node and of others
 * agree); each call completes (flush) before it returns. Ranges of bytes:
 * data.c. The MPI's own calls (mpisw_next.X): a PMPI tool in front sees
 * none of this. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "pmpi/pmpi.h"
#include "pool/internal.h"

static uint64_t *word(int r, uint64_t d) { return (uint64_t *)(P->seg[r] + d); }

/* A failed MPI call is remembered (the first one): lock waits give it as
 * their error instead of trying again (mpisw_pool_rm_wait). */
static void mpi_failed(int r, int rc) {
  if (!P->mpi_rc) P->mpi_rank = r, P->mpi_rc = rc;
}

/* 1 dead, 0 alive, -1 cannot tell from here (another node). */
static int holder_dead(int h) {
  if (h == P->rank) return 0; /* another thread of this process */
  if (h < 0 || h >= P->nranks || !P->pidfd || P->pidfd[h] < 0) return -1;
  struct pollfd p = {P->pidfd[h], POLLIN, 0};
  return poll(&p, 1, 0) == 1 ? 1 : 0; /* readable: the process ended */
}

/* Across nodes an MPI call to a dead rank may never return (MPICH 4.0 over
 * UCX waits in the flush for good): a rank known dead (one this kernel
 * runs, a simulated node) is not called; it counts as a failed call. */
int mpisw_pool_rm_gone(int r) {
  if (holder_dead(r) != 1) return 0;
  if (!P->mpi_rc) P->mpi_rank = r, P->mpi_rc = MPI_ERR_OTHER, P->mpi_dead = 1;
  return 1;
}

static uint64_t mpi_op(int r, uint64_t d, uint64_t v, MPI_Op op) {
  uint64_t old = 0;
  if (mpisw_pool_rm_gone(r)) return 0;
  int rc = mpisw_next.Fetch_and_op(&v, &old, MPI_UINT64_T, r, (MPI_Aint)d, op, P->world);
  if (rc == MPI_SUCCESS) rc = mpisw_next.Win_flush(r, P->world);
  if (rc != MPI_SUCCESS) mpi_failed(r, rc);
  return old;
}

uint64_t mpisw_pool_rm_load(int r, uint64_t d) {
  if (!P->rma) return __atomic_load_n(word(r, d), __ATOMIC_ACQUIRE);
  return mpi_op(r, d, 0, MPI_NO_OP);
}

void mpisw_pool_rm_store(int r, uint64_t d, uint64_t v) {
  if (!P->rma) __atomic_store_n(word(r, d), v, __ATOMIC_RELEASE);
  else mpi_op(r, d, v, MPI_REPLACE);
}

uint64_t mpisw_pool_rm_cas(int r, uint64_t d, uint64_t expect, uint64_t v) {
  if (!P->rma) {
    __atomic_compare_exchange_n(word(r, d), &expect, v, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    return expect; /* the old value either way */
  }
  uint64_t old = 0;
  if (mpisw_pool_rm_gone(r)) return ~expect;
  int rc = mpisw_next.Compare_and_swap(&v, &expect, &old, MPI_UINT64_T, r, (MPI_Aint)d, P->world);
  if (rc == MPI_SUCCESS) rc = mpisw_next.Win_flush(r, P->world);
  if (rc != MPI_SUCCESS) {
    mpi_failed(r, rc);
    return ~expect; /* not swapped: a lock is not taken on a failure */
  }
  return old;
}

uint64_t mpisw_pool_rm_fadd(int r, uint64_t d, uint64_t add) {
  if (!P->rma) return __atomic_fetch_add(word(r, d), add, __ATOMIC_ACQ_REL);
  return mpi_op(r, d, add, MPI_SUM);
}

uint64_t mpisw_pool_rm_fmax(int r, uint64_t d, uint64_t v) {
  if (!P->rma) {
    uint64_t old = __atomic_load_n(word(r, d), __ATOMIC_ACQUIRE);
    while (old < v &&
           !__atomic_compare_exchange_n(word(r, d), &old, v, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
    }
    return old;
  }
  return mpi_op(r, d, v, MPI_MAX);
}

/* Waiting for another process: spin briefly, then yield, then sleep, and
 * on the rma path let the MPI progress (a flush) so remote ops complete. */
void mpisw_pool_rm_backoff(int round) {
  if (round < 16) return;
  if (round < 64) {
    sched_yield();
    return;
  }
  struct timespec ts = {0, round < 1024 ? 10000 : 200000};
  nanosleep(&ts, NULL);
}

int mpisw_pool_rm_trylock(int r, uint64_t d) {
  return rm_cas(r, d, 0, (uint64_t)P->rank + 1) == 0;
}

/* ---- a lock's holder may die ----
 * A lock word holds its holder's rank + 1. A waiter looks at the holder
 * every CHECK_NS (not on every spin): a holder whose process this kernel
 * runs (pidfd, module.c) is dead when its pidfd polls readable; one on
 * another node cannot be seen, so its lock is given up after
 * MPISW_POOL_TIMEOUT seconds without a change of holder. A lock whose
 * holder died stays taken (what it guarded may be half-changed): every
 * waiter gets the error. */
#define CHECK_NS 5000000LL

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}


static int failed_mpi(const char *what, int r, const char *name, struct mpisw_error *e) {
  char s[MPI_MAX_ERROR_STRING];
  int n = 0;
  s[0] = 0;
  if (P->mpi_dead) snprintf(s, sizeof s, "rank %d died: pid %d ended", P->mpi_rank,
                            P->pid[P->mpi_rank]);
  else PMPI_Error_string(P->mpi_rc, s, &n);
  mpisw_fail(e, MPISW_K_IO,
             "pooled file %s: waiting for the %s on rank %d: the MPI failed reaching rank %d "
             "(%s); a rank of the job may have died",
             name ? name : "(none)", what, r, P->mpi_rank, s);
  return MPISW_POOL_IO;
}

void mpisw_pool_rm_wait_init(struct mpisw_pool_wait *w) {
  memset(w, 0, sizeof *w);
  w->holder = -1;
}

int mpisw_pool_rm_wait(struct mpisw_pool_wait *w, int r, uint64_t d, const char *what,
                       const char *name, struct mpisw_error *e) {
  if (P->mpi_rc) return failed_mpi(what, r, name, e);
  mpisw_pool_rm_backoff(w->round);
  if (w->round < 64) {
    w->round++;
    return MPISW_POOL_OK;
  }
  int64_t t = now_ns();
  if (!w->checked) w->checked = w->since = t;
  if (t - w->checked < CHECK_NS) return MPISW_POOL_OK;
  w->checked = t;
  uint64_t v = rm_load(r, d);
  if (P->mpi_rc) return failed_mpi(what, r, name, e);
  int h = (int)v - 1;
  if (v == 0 || h != w->holder) { /* free now, or a new holder: its own time */
    w->holder = h;
    w->since = t;
    if (v == 0) return MPISW_POOL_OK;
  }
  int dead = holder_dead(h);
  if (dead == 1) {
    mpisw_fail(e, MPISW_K_IO,
               "pooled file %s: the %s on rank %d is held by rank %d, which died (pid %d "
               "ended); the lock stays taken (what it guards may be half-changed): end the job",
               name ? name : "(none)", what, r, h, P->pid[h]);
    return MPISW_POOL_IO;
  }
  int64_t limit = (int64_t)P->timeout * 1000000000LL;
  if (dead < 0 && limit > 0 && t - w->since >= limit) {
    mpisw_fail(e, MPISW_K_IO,
               "pooled file %s: the %s on rank %d is held by rank %d, which did not let go "
               "within MPISW_POOL_TIMEOUT=%d s (it runs on another node, where this process "
               "cannot see whether it lives); it may have died: end the job, or raise "
               "MPISW_POOL_TIMEOUT",
               name ? name : "(none)", what, r, h, P->timeout);
    return MPISW_POOL_IO;
  }
  return MPISW_POOL_OK;
}

int mpisw_pool_rm_lock(int r, uint64_t d, const char *what, const char *name,
                       struct mpisw_error *e) {
  struct mpisw_pool_wait w;
  mpisw_pool_rm_wait_init(&w);
  while (!mpisw_pool_rm_trylock(r, d)) {
    int rc = mpisw_pool_rm_wait(&w, r, d, what, name, e);
    if (rc) return rc;
  }
  return MPISW_POOL_OK;
}

void mpisw_pool_rm_unlock(int r, uint64_t d) {
  mpisw_pool_rm_publish(); /* what was written under the lock, before it */
  rm_store(r, d, 0);
}

void mpisw_pool_rm_publish(void) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (P->rma) mpisw_next.Win_sync(P->world);
}
