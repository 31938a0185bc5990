/* Synchronization entry points the interposed MPI_Win_* calls use. */
#ifndef MPISW_RMAX_EPOCH_API_H
#define MPISW_RMAX_EPOCH_API_H

#include "rmax/rmax.h"

int mpisw_rmax_lock(struct rmax_win *w, int type, int rank, int assert);
int mpisw_rmax_unlock(struct rmax_win *w, int rank);
int mpisw_rmax_lock_all(struct rmax_win *w, int assert);
int mpisw_rmax_unlock_all(struct rmax_win *w);
int mpisw_rmax_flush(struct rmax_win *w, int rank, int local);
int mpisw_rmax_active_target(struct rmax_win *w, const char *routine, MPI_Win *real);

#endif
