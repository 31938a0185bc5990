/* Write-behind: blocks the application has written whole since their last
 * write-back are queued for write-back while it goes on writing, as the
 * kernel's background write-back does for a file mapping. A sync then has
 * little left to write, and an eviction finds such a block clean. Nothing
 * changes for durability: the flush write-protects the block first, so a
 * later write is seen (and written) by the next sync as before.
 *
 * One worker runs it when idle (pager_worker.c), at most every
 * PAGER_BEHIND_MS, and only when the process took at least a block's worth
 * of page faults since (a write to a write-protected page is one): an idle
 * window costs a getrusage call per period, no page-table walk. Not with
 * storage_sync=atomic, where write-backs go to the journal in memory, and
 * not near the memory limit, where evictions write the written blocks. */
#include <sys/resource.h>

#include "pager/pager_internal.h"

/* Queues block i for write-back if it is in memory and nothing else
 * (a flush, an eviction, a load's error, a failed write) owns it. */
static void queue_locked(struct mpisw_pager *pg, uint64_t i) {
  struct block *bl = &pg->b[i];
  if (bl->state != PRESENT || (bl->flags & (F_FLUSHING | F_EVICTQ | F_READERR | F_WFAIL)))
    return;
  bl->flags |= F_FLUSHING;
  pg->flush_pending++;
  ring_push(&pg->q_flush, (uint32_t)i);
  pg->st.behind++;
  pthread_cond_signal(&pg->qcv);
}

/* The block being summed (its written bytes) ends: queued if written whole. */
static void block_done(struct mpisw_pager *pg) {
  if (pg->behind_cur == UINT64_MAX) return;
  if (pg->behind_bytes == pager_block_bytes(pg, pg->behind_cur)) {
    pthread_mutex_lock(&pg->mu);
    queue_locked(pg, pg->behind_cur);
    pthread_mutex_unlock(&pg->mu);
  }
  pg->behind_cur = UINT64_MAX;
  pg->behind_bytes = 0;
}

/* Written regions, in address order, a batch at a time: summed per block. */
static void on_written(struct mpisw_pager *pg, const struct page_region *v, long n) {
  for (long k = 0; k < n; k++) {
    for (uint64_t s = v[k].start - (uintptr_t)pg->addr, e = v[k].end - (uintptr_t)pg->addr;
         s < e;) {
      uint64_t i = s / pg->block, to = (i + 1) * pg->block < e ? (i + 1) * pg->block : e;
      if (i != pg->behind_cur) {
        block_done(pg);
        pg->behind_cur = i;
      }
      pg->behind_bytes += to - s;
      s = to;
    }
  }
}

/* Out of core (evictions under way or near), evictions write what was
 * written: write-behind would only write some blocks twice. */
static int evicting(struct mpisw_pager *pg) {
  pthread_mutex_lock(&pg->mu);
  int near = pg->held + pg->headroom >= pg->max + pg->stuck || pg->evq || pg->nevicting;
  pthread_mutex_unlock(&pg->mu);
  return near;
}

void mpisw_pager_write_behind(struct mpisw_pager *pg) {
  if (pg->jr || evicting(pg)) return;
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return;
  uint64_t faults = (uint64_t)ru.ru_minflt + (uint64_t)ru.ru_majflt;
  if (faults - pg->behind_faults < pg->block / 4096) return; /* too few writes to matter */
  pg->behind_faults = faults;
  pg->behind_cur = UINT64_MAX;
  pg->behind_bytes = 0;
  mpisw_pager_scan_written(pg, pg->addr, pg->len, 0, on_written);
  block_done(pg);
}
