/* Window synchronization calls. Untracked windows go straight to the MPI;
 * a duplicate synchronizes its parent (a lock through one is a lock on
 * both), a memory-handle window allows passive target only, and tracked
 * windows count their epochs (src/rmax/epoch.c). */
#include "rmax/epoch_api.h"
#include "rmax/rmax.h"

static inline struct rmax_win *known(MPI_Win win) {
  return mpisw_disabled || !mpisw_rmax_live ? NULL : rmax_lookup(win);
}

MPISW_EXPORT int MPI_Win_lock(int type, int rank, int assert, MPI_Win win) {
  struct rmax_win *w = known(win);
  return w ? rmax_lock(w, type, rank, assert) : PMPI_Win_lock(type, rank, assert, win);
}

MPISW_EXPORT int MPI_Win_unlock(int rank, MPI_Win win) {
  struct rmax_win *w = known(win);
  return w ? rmax_unlock(w, rank) : PMPI_Win_unlock(rank, win);
}

MPISW_EXPORT int MPI_Win_lock_all(int assert, MPI_Win win) {
  struct rmax_win *w = known(win);
  return w ? rmax_lock_all(w, assert) : PMPI_Win_lock_all(assert, win);
}

MPISW_EXPORT int MPI_Win_unlock_all(MPI_Win win) {
  struct rmax_win *w = known(win);
  return w ? rmax_unlock_all(w) : PMPI_Win_unlock_all(win);
}

MPISW_EXPORT int MPI_Win_flush(int rank, MPI_Win win) {
  struct rmax_win *w = known(win);
  return w ? rmax_flush(w, rank, 0) : PMPI_Win_flush(rank, win);
}

MPISW_EXPORT int MPI_Win_flush_all(MPI_Win win) {
  struct rmax_win *w = known(win);
  return w ? rmax_flush(w, -1, 0) : PMPI_Win_flush_all(win);
}

MPISW_EXPORT int MPI_Win_flush_local(int rank, MPI_Win win) {
  struct rmax_win *w = known(win);
  return w ? rmax_flush(w, rank, 1) : PMPI_Win_flush_local(rank, win);
}

MPISW_EXPORT int MPI_Win_flush_local_all(MPI_Win win) {
  struct rmax_win *w = known(win);
  return w ? rmax_flush(w, -1, 1) : PMPI_Win_flush_local_all(win);
}

/* Active target: a duplicate's call is its parent's. */
#define ACTIVE(routine, win)                                    \
  struct rmax_win *w = known(win);                              \
  if (w) {                                                      \
    int rc_ = rmax_active_target(w, routine, &win);             \
    if (rc_ != MPI_SUCCESS) return rc_;                         \
  }

MPISW_EXPORT int MPI_Win_fence(int assert, MPI_Win win) {
  ACTIVE("MPI_Win_fence", win);
  return PMPI_Win_fence(assert, win);
}

MPISW_EXPORT int MPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
  ACTIVE("MPI_Win_post", win);
  return PMPI_Win_post(group, assert, win);
}

MPISW_EXPORT int MPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
  ACTIVE("MPI_Win_start", win);
  return PMPI_Win_start(group, assert, win);
}

MPISW_EXPORT int MPI_Win_complete(MPI_Win win) {
  ACTIVE("MPI_Win_complete", win);
  return PMPI_Win_complete(win);
}

MPISW_EXPORT int MPI_Win_wait(MPI_Win win) {
  ACTIVE("MPI_Win_wait", win);
  return PMPI_Win_wait(win);
}

MPISW_EXPORT int MPI_Win_test(MPI_Win win, int *flag) {
  ACTIVE("MPI_Win_test", win);
  return PMPI_Win_test(win, flag);
}
