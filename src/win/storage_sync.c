/* A window's storage made durable: its placement, or each MPI_Alloc_mem
 * range of storage under a window made with MPI_Win_create. Below
 * MPI_Win_sync (sync.c), remote sync (remote_sync.c), pooled files and the
 * checkpoint levels, which all call it. */
#include <stdlib.h>
#include <string.h>

#include "win/internal.h"

int mpisw_win_sync_storage(struct mpisw_win *w, struct mpisw_error *e) {
  int rc = 0;
  if (w->kind == MPISW_WIN_STORAGE || w->kind == MPISW_WIN_SHARED)
    return mpisw_place_sync(&w->p, e);
  if (w->kind == MPISW_WIN_USER) {
    /* Copy the list: the sync must not run under the registry lock's nose. */
    pthread_mutex_lock(&mpisw_lock);
    int n = w->nallocs;
    struct mpisw_alloc **list = n ? malloc((size_t)n * sizeof *list) : NULL;
    if (list) memcpy(list, w->allocs, (size_t)n * sizeof *list);
    for (int i = 0; list && i < n; i++) {
      struct mpisw_error e1;
      if (mpisw_place_sync(&list[i]->p, &e1) && !rc) {
        *e = e1;
        rc = -1;
      }
    }
    pthread_mutex_unlock(&mpisw_lock);
    free(list);
  }
  return rc;
}
