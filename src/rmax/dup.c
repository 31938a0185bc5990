/* MPIX_Win_dup_with_info: a local call. The duplicate shares memory and
 * synchronization with its parent and carries its own info keys. */
#include <stdlib.h>
#include <string.h>

#include "rmax/keys.h"
#include "rmax/rmax.h"
#include "rmax/api.h"

int mpisw_rmax_dup_with_info(MPI_Win win, MPI_Info info, MPI_Win *newwin) {
  static const char *routine = "MPIX_Win_dup_with_info";
  if (!newwin) return mpisw_rmax_error(routine, win, "newwin is NULL");
  if (win == MPI_WIN_NULL) return mpisw_rmax_error(routine, MPI_WIN_NULL, "win is MPI_WIN_NULL");
  int bad = mpisw_rmax_keys_check(routine, win, info);
  if (bad != MPI_SUCCESS) return bad;
  struct rmax_win *from = mpisw_rmax_lookup(win);
  if (from && from->kind == RMAX_MEMH)
    return mpisw_rmax_error(routine, win, "a memory-handle window cannot be duplicated");
  struct rmax_win *root = from ? from->root : mpisw_rmax_root_of(win);
  if (!root) return mpisw_rmax_error(routine, win, "out of memory for the duplicate's state");
  MPI_Win nw;
  int rc = mpisw_rmax_local_handle(routine, root->handle, &nw);
  if (rc != MPI_SUCCESS) return rc;
  struct rmax_win *d = mpisw_rmax_new(nw, RMAX_DUP);
  if (d) {
    d->root = root;
    d->via = root->handle;
    d->keys = (from ? from : root)->keys;   /* inherited ... */
    mpisw_rmax_keys_apply(d, info);                /* ... and overridden */
    d->nranks = root->nranks;
    d->pending = calloc((size_t)d->nranks, 1);
  }
  if (!d || !d->pending || mpisw_rmax_insert(d)) {
    mpisw_rmax_destroy(d);
    mpisw_next.Win_free(&nw);
    return mpisw_rmax_error(routine, win, "out of memory for the duplicate's state");
  }
  __atomic_add_fetch(&root->refs, 1, __ATOMIC_SEQ_CST);
  *newwin = nw;
  return MPI_SUCCESS;
}

/* MPI_Win_free of a duplicate or memory-handle window frees only it. A root
 * is dropped from the table after the MPI freed it; its state stays while
 * children hold it (freeing a parent first is erroneous, never a crash) and
 * goes with the last of them. */
int mpisw_rmax_free(MPI_Win *win, int *handled) {
  struct rmax_win *w = mpisw_rmax_lookup(*win);
  *handled = 0;
  if (!w) return MPI_SUCCESS;
  if (w->kind == RMAX_PLAIN) {
    mpisw_rmax_remove(w);
    /* The window module's arrays go with the MPI window; duplicates that
     * outlive it must not read them. */
    w->shift = w->shift_du = NULL;
    __atomic_store_n(&w->atomic, 0, __ATOMIC_RELEASE); /* the segments go too */
    if (__atomic_sub_fetch(&w->refs, 1, __ATOMIC_SEQ_CST) == 0) mpisw_rmax_destroy(w);
    return MPI_SUCCESS; /* the caller frees the MPI window */
  }
  *handled = 1;
  mpisw_rmax_remove(w);
  int rc = mpisw_rmax_handle_release(w, win);
  struct rmax_win *root = w->root;
  mpisw_rmax_destroy(w);
  if (__atomic_sub_fetch(&root->refs, 1, __ATOMIC_SEQ_CST) == 0) mpisw_rmax_destroy(root);
  return rc;
}
