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

/* Queues evictions until the blocks that stay fit with headroom. */
void mpisw_pager_maybe_evict_locked(struct mpisw_pager *pg) {
  uint64_t tries = pg->fifo.n;
  while (pg->held - pg->evq + pg->headroom > pg->max + pg->stuck && pg->fifo.n && tries--) {
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

void mpisw_pager_evict_block(struct mpisw_pager *pg, uint32_t i, char *slot) {
  struct block *bl = &pg->b[i];
  char *src = pg->addr + (uint64_t)i * pg->block;
  uint64_t n = pager_block_bytes(pg, i);
  pthread_mutex_lock(&pg->mu);
  bl->state = EVICTING;
  bl->flags &= ~(unsigned)F_EVICTQ;
  pg->evq--;
  pg->nevicting++;
  pthread_mutex_unlock(&pg->mu);
  int dirty = mpisw_pager_scan_written(pg, src, n, 0, NULL) != 0; /* errors count as dirty */
  int moved = mpisw_pager_move(pg, slot, src, n, UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES, 100) == 0;
  if (!moved) { /* pinned or shared pages: keep the block */
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
    return;
  }
  pthread_mutex_lock(&pg->mu); /* out of the window now: no write can follow */
  int refl = (bl->flags & F_REFLUSH) != 0, readerr = (bl->flags & F_READERR) != 0;
  bl->flags &= ~(unsigned)(F_REFLUSH | F_READERR);
  pthread_mutex_unlock(&pg->mu);
  if (!dirty) dirty = refl || mpisw_pager_hash_block(slot, n) != bl->hash;
  if (readerr && dirty) /* its zeros must not replace the file's data */
    mpisw_pager_set_error(pg, EIO, "write-back of a block the file could not be read into");
  if (readerr) dirty = 0;
  uint64_t wrote = 0;
  int rc = dirty ? mpisw_pager_write_block(pg, i, slot, &wrote) : 0;
  if (rc) { /* keep the data: back into the window, marked written again */
    mpisw_pager_set_error(pg, rc, "write-back");
    mpisw_pager_move_back(pg, slot, src, n);
    mpisw_pager_unprotect(pg, src, n);
  }
  madvise(slot, pg->block, MADV_DONTNEED);
  pthread_mutex_lock(&pg->mu);
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
    mpisw_pager_scan_written(pg, src, n, 1, NULL);
    PAGER_WINDOW_ACCESS_BEGIN(); /* the application may write meanwhile */
    h = mpisw_pager_hash_block(src, n);
    rc = mpisw_pager_write_block(pg, i, src, &wrote);
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
  mpisw_pager_scan_written(pg, src, len, 1, NULL);
  PAGER_WINDOW_ACCESS_BEGIN(); /* the application may write meanwhile */
  for (uint32_t j = 0; j < k; j++)
    h[j] = mpisw_pager_hash_block(src + (uint64_t)j * pg->block, pager_block_bytes(pg, i + j));
  int rc = mpisw_pager_write_run(pg, i, k, src, &wrote);
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
