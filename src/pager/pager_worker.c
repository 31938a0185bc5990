/* The pager's worker threads: each takes, in this order, evictions,
 * write-backs for a sync (pager_evict.c) and read-ahead loads
 * (pager_fault.c) from the queues the fault thread and syncs fill. */
#include <stdlib.h>

#include "pager/pager_internal.h"

/* Block i was just popped from q: also pops the blocks that follow it there
 * and in the window (i+1, i+2, ...), up to max in all, to go in one
 * request. Returns how many that is, i included. */
static uint32_t pop_adjacent(struct ring *q, uint32_t i, uint32_t max) {
  uint32_t n = 1;
  while (n < max && q->n && q->v[q->head] == i + n) {
    ring_pop(q);
    n++;
  }
  return n;
}

void *mpisw_pager_worker_main(void *arg) {
  struct worker_arg *wa = arg;
  struct mpisw_pager *pg = wa->pg;
  char *slot = pg->slots + (uint64_t)wa->id * pg->run_write * pg->block;
  char *buf = NULL;
  if (posix_memalign((void **)&buf, PAGER_ALIGN, (uint64_t)pg->run_read * pg->block)) buf = NULL;
  free(wa);
  pthread_mutex_lock(&pg->mu);
  for (;;) {
    while (!pg->stop && !pg->q_evict.n && !pg->q_flush.n && !pg->q_load.n)
      pthread_cond_wait(&pg->qcv, &pg->mu);
    if (pg->stop) break;
    if (pg->q_evict.n) {
      uint32_t i = ring_pop(&pg->q_evict), n = pop_adjacent(&pg->q_evict, i, pg->run_write);
      pthread_mutex_unlock(&pg->mu);
      mpisw_pager_evict_run(pg, i, n, slot);
    } else if (pg->q_flush.n) {
      uint32_t i = ring_pop(&pg->q_flush), n = pop_adjacent(&pg->q_flush, i, pg->run_write);
      pthread_mutex_unlock(&pg->mu);
      mpisw_pager_flush_run(pg, i, n);
    } else {
      uint32_t i = ring_pop(&pg->q_load);
      struct block *bl = &pg->b[i];
      int gone = (bl->flags & F_LOADGONE) != 0; /* loaded by a fault meanwhile */
      bl->flags &= ~(unsigned)(F_LOADQ | F_LOADGONE);
      /* read-ahead never waits for room: dropped when there is none */
      if (gone || bl->state != ABSENT || pg->held + 1 > pg->max + pg->stuck || !buf) {
        if (!pg->q_load.n) pthread_cond_broadcast(&pg->cv); /* for get_stats */
        continue;
      }
      uint32_t n = 0;
      do { /* the next queued blocks too, while there is room: one request */
        if (n) {
          bl = &pg->b[ring_pop(&pg->q_load)];
          bl->flags &= ~(unsigned)F_LOADQ;
        }
        bl->state = LOADING;
        pg->held++;
        pg->loading++;
        pg->st.readaheads++;
        n++;
      } while (n < pg->run_read && pg->q_load.n && pg->q_load.v[pg->q_load.head] == i + n &&
               pg->b[i + n].state == ABSENT && !(pg->b[i + n].flags & F_LOADGONE) &&
               pg->held + 1 <= pg->max + pg->stuck);
      pthread_mutex_unlock(&pg->mu);
      mpisw_pager_load_run(pg, i, n, buf);
    }
    pthread_mutex_lock(&pg->mu);
  }
  pthread_mutex_unlock(&pg->mu);
  free(buf);
  return NULL;
}
