/* Window synchronization. Windows the RMA extensions do not track go
 * straight to the MPI; a duplicate synchronizes its parent (a lock through
 * one is a lock on both), a memory-handle window allows passive target
 * only, and tracked windows count their epochs (src/rmax/epoch.c). */
#include "dispatch/dispatch.h"
#include "process/process.h"
#include "rmax/epoch_api.h"

static inline struct rmax_win *known(MPI_Win win) {
  return mpisw_disabled || !mpisw_rmax_live ? NULL : mpisw_rmax_lookup(win);
}

int mpisw_do_Win_lock(int type, int rank, int assert, MPI_Win win) {
  struct rmax_win *w = known(win);
  return w ? mpisw_rmax_lock(w, type, rank, assert) : mpisw_next.Win_lock(type, rank, assert, win);
}

int mpisw_do_Win_unlock(int rank, MPI_Win win) {
  struct rmax_win *w = known(win);
  return w ? mpisw_rmax_unlock(w, rank) : mpisw_next.Win_unlock(rank, win);
}

int mpisw_do_Win_lock_all(int assert, MPI_Win win) {
  struct rmax_win *w = known(win);
  return w ? mpisw_rmax_lock_all(w, assert) : mpisw_next.Win_lock_all(assert, win);
}

int mpisw_do_Win_unlock_all(MPI_Win win) {
  struct rmax_win *w = known(win);
  return w ? mpisw_rmax_unlock_all(w) : mpisw_next.Win_unlock_all(win);
}

/* all: every target (rank ignored); local: local completion only. */
static int flush(MPI_Win win, int rank, int all, int local) {
  struct rmax_win *w = known(win);
  if (w) return mpisw_rmax_flush(w, all ? -1 : rank, local);
  if (all) return local ? mpisw_next.Win_flush_local_all(win) : mpisw_next.Win_flush_all(win);
  return local ? mpisw_next.Win_flush_local(rank, win) : mpisw_next.Win_flush(rank, win);
}

int mpisw_do_Win_flush(int rank, MPI_Win win) { return flush(win, rank, 0, 0); }
int mpisw_do_Win_flush_all(MPI_Win win) { return flush(win, 0, 1, 0); }
int mpisw_do_Win_flush_local(int rank, MPI_Win win) { return flush(win, rank, 0, 1); }
int mpisw_do_Win_flush_local_all(MPI_Win win) { return flush(win, 0, 1, 1); }

/* Active target: a duplicate's call is its parent's. */
#define ACTIVE(routine, win)                                    \
  struct rmax_win *w = known(win);                              \
  if (w) {                                                      \
    int rc_ = mpisw_rmax_active_target(w, routine, &win);             \
    if (rc_ != MPI_SUCCESS) return rc_;                         \
  }

int mpisw_do_Win_fence(int assert, MPI_Win win) {
  ACTIVE("MPI_Win_fence", win);
  return mpisw_next.Win_fence(assert, win);
}

int mpisw_do_Win_post(MPI_Group group, int assert, MPI_Win win) {
  ACTIVE("MPI_Win_post", win);
  return mpisw_next.Win_post(group, assert, win);
}

int mpisw_do_Win_start(MPI_Group group, int assert, MPI_Win win) {
  ACTIVE("MPI_Win_start", win);
  return mpisw_next.Win_start(group, assert, win);
}

int mpisw_do_Win_complete(MPI_Win win) {
  ACTIVE("MPI_Win_complete", win);
  return mpisw_next.Win_complete(win);
}

int mpisw_do_Win_wait(MPI_Win win) {
  ACTIVE("MPI_Win_wait", win);
  return mpisw_next.Win_wait(win);
}

int mpisw_do_Win_test(MPI_Win win, int *flag) {
  ACTIVE("MPI_Win_test", win);
  return mpisw_next.Win_test(win, flag);
}
