/* The MPI_Win a duplicate or memory-handle window is: a size-0 window on
 * MPI_COMM_SELF. It is a real handle, so MPI_Win_set_name, attributes,
 * error handlers and MPI_Win_free work on it; RMA and synchronization
 * through it are routed elsewhere. Each one costs the MPI a communicator
 * context id: MPICH has about 2048 per process, so at about 2044 live
 * handles the MPI refuses, and that refusal becomes a clear error. */
#include <stdio.h>
#include <stdlib.h>

#include "rmax/rmax.h"

#define POOL_MAX 64

static MPI_Win pool[POOL_MAX];
static int npool;
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;

static void inherit_errhandler(MPI_Win parent, MPI_Win nw) {
  MPI_Errhandler peh;
  if (PMPI_Win_get_errhandler(parent, &peh) == MPI_SUCCESS) {
    PMPI_Win_set_errhandler(nw, peh);
    mpisw_errhandler_release(&peh);
  }
}

int mpisw_rmax_local_handle(const char *routine, MPI_Win parent, MPI_Win *nw) {
  pthread_mutex_lock(&pool_mu);
  *nw = npool ? pool[--npool] : MPI_WIN_NULL;
  pthread_mutex_unlock(&pool_mu);
  if (*nw != MPI_WIN_NULL) {
    inherit_errhandler(parent, *nw);
    return MPI_SUCCESS;
  }
  MPI_Errhandler eh = mpisw_comm_errors_return(MPI_COMM_SELF);
  int rc = mpisw_next.Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_SELF, nw);
  mpisw_comm_errors_restore(MPI_COMM_SELF, eh);
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    PMPI_Error_string(rc, text, &len);
    *nw = MPI_WIN_NULL;
    return mpisw_rmax_error(routine, parent,
                      "the MPI refused a new window handle (each duplicate or memory-handle "
                      "window takes one communicator context; MPICH allows about 2044 alive): %s",
                      text);
  }
  /* errors through the new handle go where the parent's go */
  inherit_errhandler(parent, *nw);
  return MPI_SUCCESS;
}

void mpisw_rmax_attr_note(struct rmax_win *w, int keyval, int set) {
  pthread_mutex_lock(&w->mu);
  int i = 0;
  while (i < w->nkeyvals && w->keyvals[i] != keyval) i++;
  if (set && i == w->nkeyvals) {
    int *n = realloc(w->keyvals, (size_t)(w->nkeyvals + 1) * sizeof *n);
    if (n) {
      w->keyvals = n;
      w->keyvals[w->nkeyvals++] = keyval;
    }
  } else if (!set && i < w->nkeyvals) {
    w->keyvals[i] = w->keyvals[--w->nkeyvals];
  }
  pthread_mutex_unlock(&w->mu);
}

int mpisw_rmax_handle_release(struct rmax_win *w, MPI_Win *win) {
  int rc = MPI_SUCCESS;
  for (int i = 0; i < w->nkeyvals; i++) {
    int r = mpisw_next.Win_delete_attr(*win, w->keyvals[i]);
    if (r != MPI_SUCCESS && rc == MPI_SUCCESS) rc = r;
  }
  if (rc != MPI_SUCCESS || w->nkeyvals > 8) { /* odd handles are not worth keeping */
    int f = mpisw_next.Win_free(win);
    return rc != MPI_SUCCESS ? rc : f;
  }
  PMPI_Win_set_name(*win, "");
  PMPI_Win_set_errhandler(*win, MPI_ERRORS_ARE_FATAL);
  pthread_mutex_lock(&pool_mu);
  int kept = npool < POOL_MAX;
  if (kept) pool[npool++] = *win;
  pthread_mutex_unlock(&pool_mu);
  if (!kept) return mpisw_next.Win_free(win);
  *win = MPI_WIN_NULL;
  return MPI_SUCCESS;
}

void mpisw_rmax_handle_pool_free(void) {
  pthread_mutex_lock(&pool_mu);
  while (npool) mpisw_next.Win_free(&pool[--npool]);
  pthread_mutex_unlock(&pool_mu);
}
