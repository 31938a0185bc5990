/* MPI-4 large-count one-sided calls (MPICH 4 has them), routed like rma.c. */
#include "rmax/rmax.h"

#if MPI_VERSION >= 4
MPISW_EXPORT int MPI_Put_c(const void *oa, MPI_Count oc, MPI_Datatype odt, int tr, MPI_Aint td,
                           MPI_Count tc, MPI_Datatype tdt, MPI_Win win) {
  struct rmax_win *w_;
  if (RMAX_UNTRACKED(win)) {
    RMAX_PUT_HINT(win, tr, td, tc, tdt);
    return PMPI_Put_c(oa, oc, odt, tr, td, tc, tdt, win);
  }
  RMAX_ROUTE("MPI_Put_c", win, tr, td);
  RMAX_PUT_HINT(op.win, op.rank, op.disp, tc, tdt);
  return PMPI_Put_c(oa, oc, odt, op.rank, op.disp, tc, tdt, op.win);
}

MPISW_EXPORT int MPI_Get_c(void *oa, MPI_Count oc, MPI_Datatype odt, int tr, MPI_Aint td,
                           MPI_Count tc, MPI_Datatype tdt, MPI_Win win) {
  struct rmax_win *w_;
  if (RMAX_UNTRACKED(win)) return PMPI_Get_c(oa, oc, odt, tr, td, tc, tdt, win);
  RMAX_ROUTE("MPI_Get_c", win, tr, td);
  return PMPI_Get_c(oa, oc, odt, op.rank, op.disp, tc, tdt, op.win);
}

MPISW_EXPORT int MPI_Accumulate_c(const void *oa, MPI_Count oc, MPI_Datatype odt, int tr,
                                  MPI_Aint td, MPI_Count tc, MPI_Datatype tdt, MPI_Op o,
                                  MPI_Win win) {
  struct rmax_win *w_;
  if (RMAX_UNTRACKED(win)) return PMPI_Accumulate_c(oa, oc, odt, tr, td, tc, tdt, o, win);
  RMAX_ATOMIC(rmax_atomic_accumulate, oa, oc, odt, tr, td, tc, tdt, o);
  RMAX_ROUTE("MPI_Accumulate_c", win, tr, td);
  return PMPI_Accumulate_c(oa, oc, odt, op.rank, op.disp, tc, tdt, o, op.win);
}

MPISW_EXPORT int MPI_Get_accumulate_c(const void *oa, MPI_Count oc, MPI_Datatype odt, void *ra,
                                      MPI_Count rc, MPI_Datatype rdt, int tr, MPI_Aint td,
                                      MPI_Count tc, MPI_Datatype tdt, MPI_Op o, MPI_Win win) {
  struct rmax_win *w_;
  if (RMAX_UNTRACKED(win)) return PMPI_Get_accumulate_c(oa, oc, odt, ra, rc, rdt, tr, td, tc, tdt, o, win);
  RMAX_ATOMIC(rmax_atomic_get_accumulate, oa, oc, odt, ra, rc, rdt, tr, td, tc, tdt, o);
  RMAX_ROUTE("MPI_Get_accumulate_c", win, tr, td);
  return PMPI_Get_accumulate_c(oa, oc, odt, ra, rc, rdt, op.rank, op.disp, tc, tdt, o, op.win);
}

MPISW_EXPORT int MPI_Rput_c(const void *oa, MPI_Count oc, MPI_Datatype odt, int tr, MPI_Aint td,
                            MPI_Count tc, MPI_Datatype tdt, MPI_Win win, MPI_Request *req) {
  struct rmax_win *w_;
  if (RMAX_UNTRACKED(win)) {
    RMAX_PUT_HINT(win, tr, td, tc, tdt);
    return PMPI_Rput_c(oa, oc, odt, tr, td, tc, tdt, win, req);
  }
  RMAX_ROUTE("MPI_Rput_c", win, tr, td);
  RMAX_PUT_HINT(op.win, op.rank, op.disp, tc, tdt);
  return PMPI_Rput_c(oa, oc, odt, op.rank, op.disp, tc, tdt, op.win, req);
}

MPISW_EXPORT int MPI_Rget_c(void *oa, MPI_Count oc, MPI_Datatype odt, int tr, MPI_Aint td,
                            MPI_Count tc, MPI_Datatype tdt, MPI_Win win, MPI_Request *req) {
  struct rmax_win *w_;
  if (RMAX_UNTRACKED(win)) return PMPI_Rget_c(oa, oc, odt, tr, td, tc, tdt, win, req);
  RMAX_ROUTE("MPI_Rget_c", win, tr, td);
  return PMPI_Rget_c(oa, oc, odt, op.rank, op.disp, tc, tdt, op.win, req);
}

MPISW_EXPORT int MPI_Raccumulate_c(const void *oa, MPI_Count oc, MPI_Datatype odt, int tr,
                                   MPI_Aint td, MPI_Count tc, MPI_Datatype tdt, MPI_Op o,
                                   MPI_Win win, MPI_Request *req) {
  struct rmax_win *w_;
  if (RMAX_UNTRACKED(win)) return PMPI_Raccumulate_c(oa, oc, odt, tr, td, tc, tdt, o, win, req);
  RMAX_ATOMIC(rmax_atomic_raccumulate, oa, oc, odt, tr, td, tc, tdt, o, req);
  RMAX_ROUTE("MPI_Raccumulate_c", win, tr, td);
  return PMPI_Raccumulate_c(oa, oc, odt, op.rank, op.disp, tc, tdt, o, op.win, req);
}

MPISW_EXPORT int MPI_Rget_accumulate_c(const void *oa, MPI_Count oc, MPI_Datatype odt, void *ra,
                                       MPI_Count rc, MPI_Datatype rdt, int tr, MPI_Aint td,
                                       MPI_Count tc, MPI_Datatype tdt, MPI_Op o, MPI_Win win,
                                       MPI_Request *req) {
  struct rmax_win *w_;
  if (RMAX_UNTRACKED(win))
    return PMPI_Rget_accumulate_c(oa, oc, odt, ra, rc, rdt, tr, td, tc, tdt, o, win, req);
  RMAX_ATOMIC(rmax_atomic_rget_accumulate, oa, oc, odt, ra, rc, rdt, tr, td, tc, tdt, o, req);
  RMAX_ROUTE("MPI_Rget_accumulate_c", win, tr, td);
  return PMPI_Rget_accumulate_c(oa, oc, odt, ra, rc, rdt, op.rank, op.disp, tc, tdt, o, op.win,
                                req);
}
#endif
