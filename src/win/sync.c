/* MPI_Win_sync and MPI_Win_free of windows with storage: the storage copy
 * is made durable after the MPI's own part of the call. */
#include <stdio.h>
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

/* The MPI's part of MPI_Win_sync on a window with storage. MPI allows the
 * call outside an epoch, but Open MPI's osc/ucx refuses it there
 * (MPI_ERR_RMA_SYNC); the storage sync must still happen, so treat that
 * refusal as the memory barrier it stands for. */
static int mpi_part_of_sync(MPI_Win win) {
  MPI_Errhandler eh = mpisw_win_errors_return(win);
  int rc = PMPI_Win_sync(win);
  mpisw_win_errors_restore(win, eh);
  if (rc == MPI_SUCCESS) return rc;
  int cls = MPI_ERR_OTHER;
  PMPI_Error_class(rc, &cls);
  if (cls == MPI_ERR_RMA_SYNC) {
    __sync_synchronize();
    return MPI_SUCCESS;
  }
  return mpisw_raise_win(win, rc);
}

int mpisw_win_sync(MPI_Win win) {
  struct mpisw_win *w = mpisw_win_lookup(win);
  if (!w || w->kind == MPISW_WIN_MEMORY) return PMPI_Win_sync(win);
  int rc = mpi_part_of_sync(win);
  if (rc != MPI_SUCCESS) return rc;
  struct mpisw_error e;
  if (mpisw_win_sync_storage(w, &e))
    return mpisw_raise_win(win, mpisw_error_code("MPI_Win_sync", &e));
  return MPI_SUCCESS;
}

/* The window is gone when a storage error shows up, so its error handler
 * cannot be called; act as the handler fetched before the free would. */
static int raise_after_free(MPI_Errhandler eh, int code) {
  if (eh == MPI_ERRORS_RETURN) return code;
  if (eh == MPI_ERRORS_ARE_FATAL) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    PMPI_Error_string(code, text, &len);
    fprintf(stderr, "%s\n", text);
    PMPI_Abort(MPI_COMM_WORLD, code);
  }
  return code;
}

int mpisw_win_free(MPI_Win *win) {
  struct mpisw_win *w = mpisw_win_lookup(*win);
  if (!w) return PMPI_Win_free(win);
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  PMPI_Win_get_errhandler(*win, &eh);
  /* MPI_Win_free has barrier semantics: after it, no RMA into our storage
   * is in flight, so the sync below covers everything. */
  int rc = PMPI_Win_free(win);
  if (rc != MPI_SUCCESS) {
    mpisw_errhandler_release(&eh);
    return rc;
  }
  mpisw_win_unregister(w);
  struct mpisw_error e;
  int failed = 0;
  if (w->kind == MPISW_WIN_STORAGE || w->kind == MPISW_WIN_SHARED)
    failed = mpisw_place_release(&w->p, 1, &e) != 0;
  mpisw_win_destroy(w);
  int out = MPI_SUCCESS;
  if (failed) out = raise_after_free(eh, mpisw_error_code("MPI_Win_free", &e));
  mpisw_errhandler_release(&eh);
  return out;
}
