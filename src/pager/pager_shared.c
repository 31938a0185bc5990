/* A pager range that other processes map too (mpisw_pager_opts.shared;
 * docs/PAGER.md "Pager windows on one node"). The range is a memfd mapped
 * MAP_SHARED, which the ranks of one node map into their node-shared
 * window (src/win/node_shared.c), so their RMA runs at shared-memory speed
 * instead of through the MPI's MPI_Win_create path.
 *
 * Other processes' page tables are not the pager's: a page they touch that
 * the pager never loaded would be a new zero page of the memfd, never a
 * fault here, and their writes leave no trace in the pager's write-protect
 * bits. So the range is loaded whole before anyone else can map it (it
 * fits in the pager's memory: nothing is ever evicted), and each sync
 * compares every block with the hash of what the file holds, to find the
 * blocks others wrote. */
#include <errno.h>
#include <stdlib.h>

#include "pager/pager_internal.h"

void mpisw_pager_load_all(struct mpisw_pager *pg) {
  char *buf = NULL;
  if (posix_memalign((void **)&buf, PAGER_ALIGN, pg->block)) {
    mpisw_pager_set_error(pg, ENOMEM, "loading the shared range");
    return;
  }
  for (uint64_t i = 0; i < pg->nblocks; i++) {
    pthread_mutex_lock(&pg->mu);
    int absent = pg->b[i].state == ABSENT;
    if (absent) {
      pg->b[i].state = LOADING;
      pg->held++;
      pg->loading++;
    }
    pthread_mutex_unlock(&pg->mu);
    /* a read error leaves zeros and fails the next sync, as for any load */
    if (absent) mpisw_pager_load(pg, i, buf, 0);
  }
  free(buf);
}

void mpisw_pager_find_foreign_writes(struct mpisw_pager *pg) {
  for (uint64_t i = 0; i < pg->nblocks; i++) {
    struct block *bl = &pg->b[i];
    pthread_mutex_lock(&pg->mu);
    int check = bl->state == PRESENT && !(bl->flags & F_READERR);
    uint64_t saved = bl->hash;
    pthread_mutex_unlock(&pg->mu);
    if (!check) continue;
    char *p = pg->addr + i * pg->block;
    uint64_t n = pager_block_bytes(pg, i);
    PAGER_WINDOW_ACCESS_BEGIN(); /* others may write it meanwhile */
    uint64_t now = mpisw_pager_hash_block(p, n);
    PAGER_WINDOW_ACCESS_END();
    if (now != saved) mpisw_pager_unprotect(pg, p, n); /* the scan then finds it written */
  }
}
