/* MPI one-sided communication calls. Windows the RMA extensions do not know
 * go straight to the MPI (one load when none are live); duplicates and
 * memory-handle windows are routed by src/rmax/route.c; intrinsic
 * accumulates on node-shared storage windows that asked for them run as
 * processor atomics (RMAX_ATOMIC, src/rmax/atomic.c). Storage windows are
 * plain MPI windows here, except that a put into this process's own pager
 * window first tells the pager which blocks it overwrites whole. */
#include "rmax/rmax.h"

MPISW_EXPORT int MPI_Put(const void *oa, int oc, MPI_Datatype odt, int tr, MPI_Aint td, int tc,
                         MPI_Datatype tdt, MPI_Win win) {
  struct rmax_win *w_;
  if (RMAX_UNTRACKED(win)) {
    RMAX_PUT_HINT(win, tr, td, tc, tdt);
    return PMPI_Put(oa, oc, odt, tr, td, tc, tdt, win);
  }
  RMAX_ROUTE("MPI_Put", win, tr, td);
  RMAX_PUT_HINT(op.win, op.rank, op.disp, tc, tdt);
  return PMPI_Put(oa, oc, odt, op.rank, op.disp, tc, tdt, op.win);
}

MPISW_EXPORT int MPI_Get(void *oa, int oc, MPI_Datatype odt, int tr, MPI_Aint td, int tc,
                         MPI_Datatype tdt, MPI_Win win) {
  struct rmax_win *w_;
  if (RMAX_UNTRACKED(win)) return PMPI_Get(oa, oc, odt, tr, td, tc, tdt, win);
  RMAX_ROUTE("MPI_Get", win, tr, td);
  return PMPI_Get(oa, oc, odt, op.rank, op.disp, tc, tdt, op.win);
}

MPISW_EXPORT int MPI_Accumulate(const void *oa, int oc, MPI_Datatype odt, int tr, MPI_Aint td,
                                int tc, MPI_Datatype tdt, MPI_Op o, MPI_Win win) {
  struct rmax_win *w_;
  if (RMAX_UNTRACKED(win)) return PMPI_Accumulate(oa, oc, odt, tr, td, tc, tdt, o, win);
  RMAX_ATOMIC(rmax_atomic_accumulate, oa, oc, odt, tr, td, tc, tdt, o);
  RMAX_ROUTE("MPI_Accumulate", win, tr, td);
  return PMPI_Accumulate(oa, oc, odt, op.rank, op.disp, tc, tdt, o, op.win);
}

MPISW_EXPORT int MPI_Get_accumulate(const void *oa, int oc, MPI_Datatype odt, void *ra, int rc,
                                    MPI_Datatype rdt, int tr, MPI_Aint td, int tc,
                                    MPI_Datatype tdt, MPI_Op o, MPI_Win win) {
  struct rmax_win *w_;
  if (RMAX_UNTRACKED(win)) return PMPI_Get_accumulate(oa, oc, odt, ra, rc, rdt, tr, td, tc, tdt, o, win);
  RMAX_ATOMIC(rmax_atomic_get_accumulate, oa, oc, odt, ra, rc, rdt, tr, td, tc, tdt, o);
  RMAX_ROUTE("MPI_Get_accumulate", win, tr, td);
  return PMPI_Get_accumulate(oa, oc, odt, ra, rc, rdt, op.rank, op.disp, tc, tdt, o, op.win);
}

MPISW_EXPORT int MPI_Fetch_and_op(const void *oa, void *ra, MPI_Datatype dt, int tr, MPI_Aint td,
                                  MPI_Op o, MPI_Win win) {
  struct rmax_win *w_;
  if (RMAX_UNTRACKED(win)) return PMPI_Fetch_and_op(oa, ra, dt, tr, td, o, win);
  RMAX_ATOMIC(rmax_atomic_fetch_and_op, oa, ra, dt, tr, td, o);
  RMAX_ROUTE("MPI_Fetch_and_op", win, tr, td);
  return PMPI_Fetch_and_op(oa, ra, dt, op.rank, op.disp, o, op.win);
}

MPISW_EXPORT int MPI_Compare_and_swap(const void *oa, const void *ca, void *ra, MPI_Datatype dt,
                                      int tr, MPI_Aint td, MPI_Win win) {
  struct rmax_win *w_;
  if (RMAX_UNTRACKED(win)) return PMPI_Compare_and_swap(oa, ca, ra, dt, tr, td, win);
  RMAX_ATOMIC(rmax_atomic_compare_and_swap, oa, ca, ra, dt, tr, td);
  RMAX_ROUTE("MPI_Compare_and_swap", win, tr, td);
  return PMPI_Compare_and_swap(oa, ca, ra, dt, op.rank, op.disp, op.win);
}

MPISW_EXPORT int MPI_Rput(const void *oa, int oc, MPI_Datatype odt, int tr, MPI_Aint td, int tc,
                          MPI_Datatype tdt, MPI_Win win, MPI_Request *req) {
  struct rmax_win *w_;
  if (RMAX_UNTRACKED(win)) {
    RMAX_PUT_HINT(win, tr, td, tc, tdt);
    return PMPI_Rput(oa, oc, odt, tr, td, tc, tdt, win, req);
  }
  RMAX_ROUTE("MPI_Rput", win, tr, td);
  RMAX_PUT_HINT(op.win, op.rank, op.disp, tc, tdt);
  return PMPI_Rput(oa, oc, odt, op.rank, op.disp, tc, tdt, op.win, req);
}

MPISW_EXPORT int MPI_Rget(void *oa, int oc, MPI_Datatype odt, int tr, MPI_Aint td, int tc,
                          MPI_Datatype tdt, MPI_Win win, MPI_Request *req) {
  struct rmax_win *w_;
  if (RMAX_UNTRACKED(win)) return PMPI_Rget(oa, oc, odt, tr, td, tc, tdt, win, req);
  RMAX_ROUTE("MPI_Rget", win, tr, td);
  return PMPI_Rget(oa, oc, odt, op.rank, op.disp, tc, tdt, op.win, req);
}

MPISW_EXPORT int MPI_Raccumulate(const void *oa, int oc, MPI_Datatype odt, int tr, MPI_Aint td,
                                 int tc, MPI_Datatype tdt, MPI_Op o, MPI_Win win,
                                 MPI_Request *req) {
  struct rmax_win *w_;
  if (RMAX_UNTRACKED(win)) return PMPI_Raccumulate(oa, oc, odt, tr, td, tc, tdt, o, win, req);
  RMAX_ATOMIC(rmax_atomic_raccumulate, oa, oc, odt, tr, td, tc, tdt, o, req);
  RMAX_ROUTE("MPI_Raccumulate", win, tr, td);
  return PMPI_Raccumulate(oa, oc, odt, op.rank, op.disp, tc, tdt, o, op.win, req);
}

MPISW_EXPORT int MPI_Rget_accumulate(const void *oa, int oc, MPI_Datatype odt, void *ra, int rc,
                                     MPI_Datatype rdt, int tr, MPI_Aint td, int tc,
                                     MPI_Datatype tdt, MPI_Op o, MPI_Win win, MPI_Request *req) {
  struct rmax_win *w_;
  if (RMAX_UNTRACKED(win))
    return PMPI_Rget_accumulate(oa, oc, odt, ra, rc, rdt, tr, td, tc, tdt, o, win, req);
  RMAX_ATOMIC(rmax_atomic_rget_accumulate, oa, oc, odt, ra, rc, rdt, tr, td, tc, tdt, o, req);
  RMAX_ROUTE("MPI_Rget_accumulate", win, tr, td);
  return PMPI_Rget_accumulate(oa, oc, odt, ra, rc, rdt, op.rank, op.disp, tc, tdt, o, op.win,
                              req);
}
