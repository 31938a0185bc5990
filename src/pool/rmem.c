/* One word of a rank's segment, and the lock words. On the local path
 * (every rank on this node) the segments are mapped here: processor
 * atomics. On the rma path every metadata word goes through the MPI's
 * atomics on the world window (so atomics of this node and of others
 * agree); each call completes (flush) before it returns. Ranges of bytes:
 * data.c. The MPI's own calls (mpisw_next.X): a PMPI tool in front sees
 * none of this. */
#include <sched.h>
#include <time.h>

#include "pmpi/pmpi.h"
#include "pool/internal.h"

static uint64_t *word(int r, uint64_t d) { return (uint64_t *)(P->seg[r] + d); }

static uint64_t mpi_op(int r, uint64_t d, uint64_t v, MPI_Op op) {
  uint64_t old = 0;
  mpisw_next.Fetch_and_op(&v, &old, MPI_UINT64_T, r, (MPI_Aint)d, op, P->world);
  mpisw_next.Win_flush(r, P->world);
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
  mpisw_next.Compare_and_swap(&v, &expect, &old, MPI_UINT64_T, r, (MPI_Aint)d, P->world);
  mpisw_next.Win_flush(r, P->world);
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

void mpisw_pool_rm_lock(int r, uint64_t d) {
  for (int round = 0; !mpisw_pool_rm_trylock(r, d); round++) mpisw_pool_rm_backoff(round);
}

void mpisw_pool_rm_unlock(int r, uint64_t d) {
  mpisw_pool_rm_publish(); /* what was written under the lock, before it */
  rm_store(r, d, 0);
}

void mpisw_pool_rm_publish(void) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (P->rma) mpisw_next.Win_sync(P->world);
}
