/* Synchronization entry points the interposed MPI_Win_* calls use. */
#ifndef MPISW_RMAX_EPOCH_API_H
#define MPISW_RMAX_EPOCH_API_H

#include "rmax/rmax.h"

int rmax_lock(struct rmax_win *w, int type, int rank, int assert);
int rmax_unlock(struct rmax_win *w, int rank);
int rmax_lock_all(struct rmax_win *w, int assert);
int rmax_unlock_all(struct rmax_win *w);
int rmax_flush(struct rmax_win *w, int rank, int local);
int rmax_active_target(struct rmax_win *w, const char *routine, MPI_Win *real);

#endif
