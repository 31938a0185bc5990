/* Synchronization through rmax handles. A duplicate synchronizes its parent
 * (so a lock through one is a lock on both); a memory-handle window allows
 * passive target only and synchronizes its parent at its one target. Once
 * an ordered handle exists, its root counts its passive epochs so that the
 * handle knows when a flush is legal; roots flush the arena when
 * memory-handle operations went there. */
#include <string.h>

#include "rmax/rmax.h"
#include "rmax/epoch_api.h"

void mpisw_rmax_epoch_init(struct rmax_win *root, int counting) {
  __atomic_store_n(&root->ep.lock_all, 0, __ATOMIC_RELAXED);
  for (int r = 0; root->ep.locks && r < root->ep.nranks; r++)
    __atomic_store_n(&root->ep.locks[r], 0, __ATOMIC_RELAXED);
  __atomic_store_n(&root->ep.counting, counting, __ATOMIC_RELAXED);
  __atomic_store_n(&root->ep.known, 1, __ATOMIC_RELEASE);
}

void mpisw_rmax_epoch_watch(struct rmax_win *root) {
  if (__atomic_load_n(&root->ep.counting, __ATOMIC_ACQUIRE)) return;
  /* an epoch may be open already: a missing lock is no longer certain */
  __atomic_store_n(&root->ep.known, 0, __ATOMIC_RELEASE);
  __atomic_store_n(&root->ep.counting, 1, __ATOMIC_RELEASE);
}

int mpisw_rmax_flush_guarded(MPI_Win win, int rank) {
  MPI_Errhandler eh = mpisw_win_errors_return(win);
  int rc = mpisw_next.Win_flush(rank, win);
  mpisw_win_errors_restore(win, eh);
  return rc;
}

/* Adds delta to a lock depth, never below 0 (an unlock of a lock taken
 * before the window was tracked). Atomic, not under the root's mutex: every
 * epoch passes here twice, and a mutex pair was a quarter of an 8-byte
 * lock/get/unlock on Open MPI's shared-memory windows. */
static void add_depth(int *depth, int delta) {
  int v = __atomic_load_n(depth, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(depth, &v, v + delta < 0 ? 0 : v + delta, 1,
                                      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
  }
}

static void count_lock(struct rmax_win *r, int rank, int delta) {
  if (!__atomic_load_n(&r->ep.counting, __ATOMIC_ACQUIRE)) return;
  if (rank < 0) add_depth(&r->ep.lock_all, delta);
  else if (rank < r->ep.nranks) add_depth(&r->ep.locks[rank], delta);
}

/* Operations of memory-handle windows that went to the arena complete with
 * their parent's flush and unlock. */
static int flush_arena(struct rmax_win *r) {
  /* read first: an exchange on every flush would bounce the line */
  if (!__atomic_load_n(&r->arena_dirty, __ATOMIC_RELAXED) ||
      !__atomic_exchange_n(&r->arena_dirty, 0, __ATOMIC_ACQ_REL))
    return MPI_SUCCESS;
  return mpisw_next.Win_flush_all(mpisw_rmax_arena_win());
}

static void clear_pending(struct rmax_win *w, int rank) {
  if (!w->pending || !w->keys.order) return;
  if (w->kind == RMAX_MEMH || rank < 0) memset(w->pending, 0, (size_t)w->nranks);
  else if (rank < w->nranks) w->pending[rank] = 0;
}

/* For a memory-handle window: the parent's rank of the one target. */
static int memh_rank(const char *routine, struct rmax_win *w, int rank, int *out) {
  if (w->kind != RMAX_MEMH) {
    *out = rank;
    return MPI_SUCCESS;
  }
  if (rank != w->target)
    return mpisw_rmax_error(routine, w->handle,
                      "target %d is not the memory-handle window's only target %d", rank,
                      w->target);
  *out = rank;
  return MPI_SUCCESS;
}

int mpisw_rmax_lock(struct rmax_win *w, int type, int rank, int assert) {
  int r = rank, rc = memh_rank("MPI_Win_lock", w, rank, &r);
  if (rc) return rc;
  rc = mpisw_next.Win_lock(type, r, assert, w->root->handle);
  if (rc == MPI_SUCCESS) count_lock(w->root, r, 1);
  return rc;
}

int mpisw_rmax_unlock(struct rmax_win *w, int rank) {
  int r = rank, rc = memh_rank("MPI_Win_unlock", w, rank, &r);
  if (rc) return rc;
  struct rmax_win *root = w->root;
  rc = flush_arena(root);
  if (rc == MPI_SUCCESS) rc = mpisw_next.Win_unlock(r, root->handle);
  if (rc == MPI_SUCCESS) {
    count_lock(root, r, -1);
    clear_pending(root, r);
    clear_pending(w, r);
  }
  return rc;
}

int mpisw_rmax_lock_all(struct rmax_win *w, int assert) {
  int rc = mpisw_next.Win_lock_all(assert, w->root->handle);
  if (rc == MPI_SUCCESS) count_lock(w->root, -1, 1);
  return rc;
}

int mpisw_rmax_unlock_all(struct rmax_win *w) {
  struct rmax_win *root = w->root;
  int rc = flush_arena(root);
  if (rc == MPI_SUCCESS) rc = mpisw_next.Win_unlock_all(root->handle);
  if (rc == MPI_SUCCESS) {
    count_lock(root, -1, -1);
    clear_pending(root, -1);
    clear_pending(w, -1);
  }
  return rc;
}

/* flush, flush_local (local != 0), for one rank or all (rank < 0). */
int mpisw_rmax_flush(struct rmax_win *w, int rank, int local) {
  const char *routine = local ? "MPI_Win_flush_local" : "MPI_Win_flush";
  int rc;
  if (w->kind == RMAX_MEMH) {
    int r = w->target;
    if (rank >= 0 && (rc = memh_rank(routine, w, rank, &r))) return rc;
    rc = local ? mpisw_next.Win_flush_local(w->via_rank, w->via) : mpisw_next.Win_flush(w->via_rank, w->via);
    if (rc == MPI_SUCCESS && !local) clear_pending(w, -1);
    return rc;
  }
  struct rmax_win *root = w->root;
  rc = flush_arena(root);
  if (rc != MPI_SUCCESS) return rc;
  if (rank < 0) rc = local ? mpisw_next.Win_flush_local_all(root->handle) : mpisw_next.Win_flush_all(root->handle);
  else rc = local ? mpisw_next.Win_flush_local(rank, root->handle) : mpisw_next.Win_flush(rank, root->handle);
  if (rc == MPI_SUCCESS && !local) {
    clear_pending(root, rank);
    if (w != root) clear_pending(w, rank);
  }
  return rc;
}

/* Active target calls: duplicates go to the parent; memory-handle windows
 * refuse them (the paper allows passive target only). */
int mpisw_rmax_active_target(struct rmax_win *w, const char *routine, MPI_Win *real) {
  if (w->kind == RMAX_MEMH)
    return mpisw_rmax_error(routine, w->handle,
                      "memory-handle windows allow passive target synchronization only "
                      "(lock/unlock on the parent window, flush)");
  *real = w->root->handle;
  return MPI_SUCCESS;
}

int mpisw_rmax_win_flush(MPI_Win win, int rank) {
  struct rmax_win *w = mpisw_rmax_live ? mpisw_rmax_lookup(win) : NULL;
  return w ? mpisw_rmax_flush(w, rank, 0) : mpisw_next.Win_flush(rank, win);
}
