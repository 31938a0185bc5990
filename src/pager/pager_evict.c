/* The pager's memory budget and the two jobs that write: evictions (the
 * block moved out with UFFDIO_MOVE, then written if it changed) and
 * write-backs for a sync. The worker threads that run them are
 * pager_worker.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pager/pager_internal.h"

/* Queues evictions when the blocks that stay would not fit with headroom,
 * then down to a batch below that (a low watermark): adjacent blocks leave
 * together, in one write, and the next loads find room without waiting. */
void mpisw_pager_maybe_evict_locked(struct mpisw_pager *pg) {
  uint64_t limit = pg->max + pg->stuck;
  if (pg->held - pg->evq + pg->headroom <= limit) return;
  uint64_t low = limit - (pg->evict_batch - 1), tries = pg->fifo.n;
  while (pg->held - pg->evq + pg->headroom > low && pg->fifo.n && tries--) {
    uint32_t i = ring_pop(&pg->fifo);
    struct block *bl = &pg->b[i];
    /* a sync writes it now: later; an unwritable block waits for a sync */
    if (bl->flags & (F_FLUSHING | F_WFAIL)) {
      ring_push(&pg->fifo, i);
      continue;
    }
    bl->flags |= F_EVICTQ;
    pg->evq++;
    ring_push(&pg->q_evict, i);
    pthread_cond_signal(&pg->qcv);
  }
}

/* Block i could not be moved out (pages pinned, or shared with a forked
 * child): back into the window whole, kept beyond the budget (F_STUCK), and
 * written in place if it changed (or a sync counted on this eviction). */
static void keep_unmovable(struct mpisw_pager *pg, uint32_t i, char *slot, int dirty) {
  struct block *bl = &pg->b[i];
  char *src = pg->addr + (uint64_t)i * pg->block;
  uint64_t n = pager_block_bytes(pg, i);
  if (pg->debug) fprintf(stderr, "mpisw pager: UFFDIO_MOVE of block %u: %s\n", i, strerror(errno));
  mpisw_pager_move_back(pg, slot, src, n);
  pthread_mutex_lock(&pg->mu);
  int first = !(bl->flags & F_STUCK);
  pthread_mutex_unlock(&pg->mu);
  /* Pages shared copy-on-write with a forked child can be moved once they
   * are this process's own; make them so while the block is still ours. */
  if (first) {
    PAGER_WINDOW_ACCESS_BEGIN(); /* atomic adds of zero beside the application's writes */
    mpisw_pager_touch_present(pg, src, n);
    PAGER_WINDOW_ACCESS_END();
  }
  pthread_mutex_lock(&pg->mu);
  bl->state = PRESENT;
  ring_push(&pg->fifo, i);
  /* Written, or a sync counted on this eviction: write it in place (a
   * block the file could not be read into: flush() reports the error). */
  if (dirty || (bl->flags & F_REFLUSH)) {
    bl->flags = (unsigned)((bl->flags & ~F_REFLUSH) | F_FLUSHING);
    pg->flush_pending++;
    ring_push(&pg->q_flush, i);
    pthread_cond_signal(&pg->qcv);
  }
  if (!(bl->flags & F_STUCK)) { /* faults must not wait for it */
    bl->flags |= F_STUCK;
    pg->stuck++;
  }
  pg->nevicting--;
  pg->st.move_failures++;
  pthread_cond_broadcast(&pg->cv);
  pthread_mutex_unlock(&pg->mu);
}

/* After block i's eviction (under mu): gone (ABSENT), or, its write having
 * failed, back in the window beyond the budget until a sync writes it. */
static void evict_done_locked(struct mpisw_pager *pg, uint32_t i, int dirty, int rc,
                              uint64_t wrote) {
  struct block *bl = &pg->b[i];
  if (rc) { /* kept beyond the budget, so the fault waiting for room goes on */
    bl->state = PRESENT;
    ring_push(&pg->fifo, i);
    bl->flags |= F_WFAIL;
    if (!(bl->flags & F_STUCK)) {
      bl->flags |= F_STUCK;
      pg->stuck++;
    }
  } else {
    bl->state = ABSENT;
    /* A sync that marked it while it was moving out found what this wrote. */
    bl->flags &= ~(unsigned)F_REFLUSH;
    if (dirty) bl->flags |= F_ONFILE;
    if (bl->flags & F_STUCK) {
      bl->flags &= ~(unsigned)F_STUCK;
      pg->stuck--;
    }
    pg->held--;
    pg->st.evictions++;
    if (dirty) pg->st.writebacks++;
    pg->st.bytes_written += wrote;
  }
  pg->nevicting--;
}

void mpisw_pager_evict_run(struct mpisw_pager *pg, uint32_t i, uint32_t n, char *slot) {
  int dirty[PAGER_RUN_MAX_BLOCKS], moved[PAGER_RUN_MAX_BLOCKS], rc[PAGER_RUN_MAX_BLOCKS];
  uint64_t wrote[PAGER_RUN_MAX_BLOCKS];
  pthread_mutex_lock(&pg->mu);
  for (uint32_t k = 0; k < n; k++) {
    pg->b[i + k].state = EVICTING;
    pg->b[i + k].flags &= ~(unsigned)F_EVICTQ;
  }
  pg->evq -= n;
  pg->nevicting += (int)n;
  pthread_mutex_unlock(&pg->mu);
  for (uint32_t k = 0; k < n; k++) { /* out of the window, each as alone */
    char *src = pg->addr + (uint64_t)(i + k) * pg->block, *to = slot + (uint64_t)k * pg->block;
    uint64_t bytes = pager_block_bytes(pg, i + k), t0 = pager_clock(pg);
    dirty[k] = mpisw_pager_scan_written(pg, src, bytes, 0, NULL) != 0; /* errors: dirty */
    pager_timed(pg, PT_SCAN, t0);
    t0 = pager_clock(pg);
    moved[k] = mpisw_pager_move(pg, to, src, bytes, UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES, 100) == 0;
    pager_timed(pg, PT_MOVE, t0);
    if (!moved[k]) keep_unmovable(pg, i + k, to, dirty[k]);
  }
  for (uint32_t k = 0; k < n; k++) { /* out of the window now: no write can follow */
    struct block *bl = &pg->b[i + k];
    rc[k] = 0;
    wrote[k] = 0;
    if (!moved[k]) continue;
    pthread_mutex_lock(&pg->mu);
    int refl = (bl->flags & F_REFLUSH) != 0, readerr = (bl->flags & F_READERR) != 0;
    bl->flags &= ~(unsigned)(F_REFLUSH | F_READERR);
    pthread_mutex_unlock(&pg->mu);
    uint64_t t0 = pager_clock(pg);
    if (!dirty[k])
      dirty[k] = refl || mpisw_pager_hash_block(slot + (uint64_t)k * pg->block,
                                                pager_block_bytes(pg, i + k)) != bl->hash;
    pager_timed(pg, PT_HASH, t0);
    if (readerr && dirty[k]) /* its zeros must not replace the file's data */
      mpisw_pager_set_error(pg, EIO, "write-back of a block the file could not be read into");
    if (readerr) dirty[k] = 0;
  }
  /* the changed blocks, adjacent ones in one request each */
  for (uint32_t k = 0, m; k < n; k += m) {
    for (m = 1; moved[k] && dirty[k] && k + m < n && moved[k + m] && dirty[k + m];) m++;
    if (!moved[k] || !dirty[k]) continue;
    char *from = slot + (uint64_t)k * pg->block;
    uint64_t t0 = pager_clock(pg);
    int r = mpisw_pager_write_run(pg, i + k, m, from, &wrote[k]);
    pager_timed(pg, PT_WRITE, t0);
    for (uint32_t j = k; j < k + m; j++) rc[j] = r;
    if (!r) continue;
    mpisw_pager_set_error(pg, r, "write-back");
    for (uint32_t j = k; j < k + m; j++) { /* keep the data: back, marked written again */
      char *src = pg->addr + (uint64_t)(i + j) * pg->block;
      mpisw_pager_move_back(pg, slot + (uint64_t)j * pg->block, src, pager_block_bytes(pg, i + j));
      mpisw_pager_unprotect(pg, src, pager_block_bytes(pg, i + j));
    }
  }
  uint64_t t0 = pager_clock(pg);
  madvise(slot, (uint64_t)n * pg->block, MADV_DONTNEED);
  pager_timed(pg, PT_FREE, t0);
  pthread_mutex_lock(&pg->mu);
  for (uint32_t k = 0; k < n; k++)
    if (moved[k]) evict_done_locked(pg, i + k, dirty[k], rc[k], wrote[k]);
  pthread_cond_broadcast(&pg->cv);
  pthread_mutex_unlock(&pg->mu);
}

/* After a write-back of block i (under mu): its hash and flags; flushed
 * again when a sync found it written meanwhile (F_REFLUSH). */
static void flush_done_locked(struct mpisw_pager *pg, uint32_t i, int present, int rc, uint64_t h,
                              uint64_t wrote) {
  struct block *bl = &pg->b[i];
  if (present && !rc) {
    bl->hash = h;
    bl->flags = (bl->flags | F_ONFILE) & ~(unsigned)F_WLOAD; /* write-protected whole now */
    pg->st.writebacks++;
    pg->st.bytes_written += wrote;
    if (bl->flags & F_WFAIL) { /* written at last: evictable, back under the budget */
      bl->flags &= ~(unsigned)(F_WFAIL | F_STUCK);
      pg->stuck--;
      mpisw_pager_maybe_evict_locked(pg);
    }
  }
  if (present && (bl->flags & F_REFLUSH)) { /* again, still pending */
    ring_push(&pg->q_flush, i);
    pthread_cond_signal(&pg->qcv);
  } else {
    bl->flags &= ~(unsigned)F_FLUSHING;
    pg->flush_pending--;
  }
}

/* Writes block i in place. Its pages are write-protected first and hashed
 * before the write, so a write landing meanwhile is seen as written (and its
 * block as changed) afterwards; one a sync found during the flush (flag
 * F_REFLUSH) makes it flush again before the sync can return. */
void mpisw_pager_flush_block(struct mpisw_pager *pg, uint32_t i) {
  struct block *bl = &pg->b[i];
  char *src = pg->addr + (uint64_t)i * pg->block;
  uint64_t n = pager_block_bytes(pg, i);
  pthread_mutex_lock(&pg->mu);
  int present = bl->state == PRESENT, readerr = (bl->flags & F_READERR) != 0;
  bl->flags &= ~(unsigned)F_REFLUSH;
  pthread_mutex_unlock(&pg->mu);
  uint64_t wrote = 0, h = 0;
  int rc = 0;
  if (present && readerr) { /* its zeros must not replace the file's data */
    rc = EIO;
    mpisw_pager_set_error(pg, rc, "write-back of a block the file could not be read into");
  } else if (present) {
    uint64_t t0 = pager_clock(pg);
    mpisw_pager_scan_written(pg, src, n, 1, NULL);
    pager_timed(pg, PT_SCAN, t0);
    PAGER_WINDOW_ACCESS_BEGIN(); /* the application may write meanwhile */
    t0 = pager_clock(pg);
    h = mpisw_pager_hash_block(src, n);
    pager_timed(pg, PT_HASH, t0);
    t0 = pager_clock(pg);
    rc = mpisw_pager_write_run(pg, i, 1, src, &wrote);
    pager_timed(pg, PT_WRITE, t0);
    PAGER_WINDOW_ACCESS_END();
    if (rc) { /* not saved: marked written again, for the next sync */
      mpisw_pager_set_error(pg, rc, "write-back");
      mpisw_pager_unprotect(pg, src, n);
    }
  }
  pthread_mutex_lock(&pg->mu);
  flush_done_locked(pg, i, present, rc, h, wrote);
  pthread_cond_broadcast(&pg->cv);
  pthread_mutex_unlock(&pg->mu);
}

/* Blocks [i, i+k) written as flush_block writes one: write-protected, each
 * hashed, then one request for all. Each is present (F_FLUSHING keeps
 * evictions away) and was read whole. */
static void flush_writable(struct mpisw_pager *pg, uint32_t i, uint32_t k) {
  char *src = pg->addr + (uint64_t)i * pg->block;
  uint64_t len = (uint64_t)(k - 1) * pg->block + pager_block_bytes(pg, i + k - 1);
  uint64_t h[PAGER_RUN_MAX_BLOCKS], wrote = 0;
  pthread_mutex_lock(&pg->mu);
  for (uint32_t j = 0; j < k; j++) pg->b[i + j].flags &= ~(unsigned)F_REFLUSH;
  pthread_mutex_unlock(&pg->mu);
  uint64_t t0 = pager_clock(pg);
  mpisw_pager_scan_written(pg, src, len, 1, NULL);
  pager_timed(pg, PT_SCAN, t0);
  PAGER_WINDOW_ACCESS_BEGIN(); /* the application may write meanwhile */
  t0 = pager_clock(pg);
  for (uint32_t j = 0; j < k; j++)
    h[j] = mpisw_pager_hash_block(src + (uint64_t)j * pg->block, pager_block_bytes(pg, i + j));
  pager_timed(pg, PT_HASH, t0);
  t0 = pager_clock(pg);
  int rc = mpisw_pager_write_run(pg, i, k, src, &wrote);
  pager_timed(pg, PT_WRITE, t0);
  PAGER_WINDOW_ACCESS_END();
  if (rc) { /* not saved: marked written again, for the next sync */
    mpisw_pager_set_error(pg, rc, "write-back");
    mpisw_pager_unprotect(pg, src, len);
  }
  pthread_mutex_lock(&pg->mu);
  for (uint32_t j = 0; j < k; j++) flush_done_locked(pg, i + j, 1, rc, h[j], j ? 0 : wrote);
  pthread_cond_broadcast(&pg->cv);
  pthread_mutex_unlock(&pg->mu);
}

void mpisw_pager_flush_run(struct mpisw_pager *pg, uint32_t i, uint32_t n) {
  while (n) {
    pthread_mutex_lock(&pg->mu);
    uint32_t k = 0; /* the blocks from i on that can go in one request */
    while (k < n && pg->b[i + k].state == PRESENT && !(pg->b[i + k].flags & F_READERR)) k++;
    pthread_mutex_unlock(&pg->mu);
    if (k < 2) {
      k = 1;
      mpisw_pager_flush_block(pg, i);
    } else {
      flush_writable(pg, i, k);
    }
    i += k;
    n -= k;
  }
}
