/* Where one RMA call goes. A duplicate's calls go to its parent unchanged;
 * a memory-handle window's go to the arena window (memory from
 * MPI_Alloc_mem) or to the parent dynamic window (other memory), with the
 * target and displacement translated. Ordered windows (mpi_win_order=true)
 * flush a target before a second operation to it. */
#include "rmax/rmax.h"

/* 1: in a passive epoch at rank, 0: not, -1: cannot tell. A lock seen and
 * not yet released is certain even when the window was tracked only later
 * (a duplicate made mid-way); its absence is certain only for windows
 * tracked since creation. */
int mpisw_rmax_in_passive_epoch(struct rmax_win *root, int rank) {
  if (__atomic_load_n(&root->ep.lock_all, __ATOMIC_ACQUIRE) > 0 ||
      (rank >= 0 && rank < root->ep.nranks &&
       __atomic_load_n(&root->ep.locks[rank], __ATOMIC_ACQUIRE) > 0))
    return 1;
  return __atomic_load_n(&root->ep.known, __ATOMIC_ACQUIRE) ? 0 : -1;
}

/* Completes the earlier operations of the sequence at op's target before
 * the next one is issued. MPICH and Open MPI order neither puts nor gets
 * to one target, so a flush is the correct fallback. */
static void order_before(struct rmax_win *w, const struct rmax_op *op) {
  int idx = w->kind == RMAX_MEMH ? 0 : op->rank;
  if (idx < 0 || idx >= w->nranks || !w->pending) return;
  if (__atomic_exchange_n(&w->pending[idx], 1, __ATOMIC_ACQ_REL) == 0) return;
  if (op->win == mpisw_rmax_arena_win()) {
    mpisw_next.Win_flush(op->rank, op->win); /* the arena is always in a lock_all epoch */
    return;
  }
  int passive = mpisw_rmax_in_passive_epoch(w->root, op->rank);
  if (passive > 0) mpisw_next.Win_flush(op->rank, op->win);
  else if (passive < 0) mpisw_rmax_flush_guarded(op->win, op->rank);
  /* active target epochs: operations complete at the closing call */
}

int mpisw_rmax_route_w(const char *routine, struct rmax_win *w, MPI_Win win, int rank, MPI_Aint disp,
                 struct rmax_op *op) {
  op->win = win;
  op->rank = rank;
  op->disp = disp;
  if (!w) return MPI_SUCCESS;
  if (w->kind == RMAX_DUP) {
    op->win = w->via;
  } else if (w->kind == RMAX_MEMH) {
    if (rank != w->target)
      return mpisw_rmax_error(routine, win,
                        "target %d is not the memory-handle window's only target %d", rank,
                        w->target);
    op->win = w->via;
    op->rank = w->via_rank;
    op->disp = w->base_disp + disp * w->disp_unit;
    /* read first: a store on every operation would bounce the line */
    if (w->from_arena && !__atomic_load_n(&w->root->arena_dirty, __ATOMIC_RELAXED))
      __atomic_store_n(&w->root->arena_dirty, 1, __ATOMIC_RELEASE);
  }
  /* a duplicate's parent may be a storage window with shifted segments */
  const struct rmax_win *root = w->kind == RMAX_MEMH ? NULL : w->root;
  if (root && root->shift && op->rank >= 0 && op->rank < root->nranks)
    op->disp = root->shift[op->rank] + op->disp * root->shift_du[op->rank];
  if (w->keys.order) order_before(w, op);
  return MPI_SUCCESS;
}

int mpisw_rmax_target_slow(const char *routine, MPI_Win *win, int *rank, MPI_Aint *disp) {
  return mpisw_rmax_target_w(routine, mpisw_rmax_lookup(*win), win, rank, disp);
}

int mpisw_rmax_target_w(const char *routine, struct rmax_win *w, MPI_Win *win, int *rank,
                        MPI_Aint *disp) {
  if (!w) return MPI_SUCCESS;
  struct rmax_op op;
  int rc = mpisw_rmax_route_w(routine, w, *win, *rank, *disp, &op);
  *win = op.win;
  *rank = op.rank;
  *disp = op.disp;
  return rc;
}

MPI_Win mpisw_rmax_sync_win(MPI_Win win) {
  if (!mpisw_rmax_live) return win;
  struct rmax_win *w = mpisw_rmax_lookup(win);
  if (!w || w->kind == RMAX_PLAIN) return win;
  return w->root->handle;
}
