/* MPI-4 large-count one-sided calls (MPICH 4 has them), routed like rma.c. */
#include "rmax/rmax.h"

#if MPI_VERSION >= 4
#define ROUTE(routine, win, rank, disp)                \
  struct rmax_op op;                                   \
  int rc_ = rmax_route_w(routine, w_, win, rank, disp, &op);\
  if (rc_ != MPI_SUCCESS) return rc_

/* Looks the window up once; the route uses what was found. */
#define plain(win) (!(w_ = (mpisw_disabled || !mpisw_rmax_live) ? NULL : rmax_lookup(win)))

MPISW_EXPORT int MPI_Put_c(const void *oa, MPI_Count oc, MPI_Datatype odt, int tr, MPI_Aint td,
                           MPI_Count tc, MPI_Datatype tdt, MPI_Win win) {
  struct rmax_win *w_;
  if (plain(win)) return PMPI_Put_c(oa, oc, odt, tr, td, tc, tdt, win);
  ROUTE("MPI_Put_c", win, tr, td);
  return PMPI_Put_c(oa, oc, odt, op.rank, op.disp, tc, tdt, op.win);
}

MPISW_EXPORT int MPI_Get_c(void *oa, MPI_Count oc, MPI_Datatype odt, int tr, MPI_Aint td,
                           MPI_Count tc, MPI_Datatype tdt, MPI_Win win) {
  struct rmax_win *w_;
  if (plain(win)) return PMPI_Get_c(oa, oc, odt, tr, td, tc, tdt, win);
  ROUTE("MPI_Get_c", win, tr, td);
  return PMPI_Get_c(oa, oc, odt, op.rank, op.disp, tc, tdt, op.win);
}

MPISW_EXPORT int MPI_Accumulate_c(const void *oa, MPI_Count oc, MPI_Datatype odt, int tr,
                                  MPI_Aint td, MPI_Count tc, MPI_Datatype tdt, MPI_Op o,
                                  MPI_Win win) {
  struct rmax_win *w_;
  if (plain(win)) return PMPI_Accumulate_c(oa, oc, odt, tr, td, tc, tdt, o, win);
  ROUTE("MPI_Accumulate_c", win, tr, td);
  return PMPI_Accumulate_c(oa, oc, odt, op.rank, op.disp, tc, tdt, o, op.win);
}

MPISW_EXPORT int MPI_Get_accumulate_c(const void *oa, MPI_Count oc, MPI_Datatype odt, void *ra,
                                      MPI_Count rc, MPI_Datatype rdt, int tr, MPI_Aint td,
                                      MPI_Count tc, MPI_Datatype tdt, MPI_Op o, MPI_Win win) {
  struct rmax_win *w_;
  if (plain(win)) return PMPI_Get_accumulate_c(oa, oc, odt, ra, rc, rdt, tr, td, tc, tdt, o, win);
  ROUTE("MPI_Get_accumulate_c", win, tr, td);
  return PMPI_Get_accumulate_c(oa, oc, odt, ra, rc, rdt, op.rank, op.disp, tc, tdt, o, op.win);
}

MPISW_EXPORT int MPI_Rput_c(const void *oa, MPI_Count oc, MPI_Datatype odt, int tr, MPI_Aint td,
                            MPI_Count tc, MPI_Datatype tdt, MPI_Win win, MPI_Request *req) {
  struct rmax_win *w_;
  if (plain(win)) return PMPI_Rput_c(oa, oc, odt, tr, td, tc, tdt, win, req);
  ROUTE("MPI_Rput_c", win, tr, td);
  return PMPI_Rput_c(oa, oc, odt, op.rank, op.disp, tc, tdt, op.win, req);
}

MPISW_EXPORT int MPI_Rget_c(void *oa, MPI_Count oc, MPI_Datatype odt, int tr, MPI_Aint td,
                            MPI_Count tc, MPI_Datatype tdt, MPI_Win win, MPI_Request *req) {
  struct rmax_win *w_;
  if (plain(win)) return PMPI_Rget_c(oa, oc, odt, tr, td, tc, tdt, win, req);
  ROUTE("MPI_Rget_c", win, tr, td);
  return PMPI_Rget_c(oa, oc, odt, op.rank, op.disp, tc, tdt, op.win, req);
}

MPISW_EXPORT int MPI_Raccumulate_c(const void *oa, MPI_Count oc, MPI_Datatype odt, int tr,
                                   MPI_Aint td, MPI_Count tc, MPI_Datatype tdt, MPI_Op o,
                                   MPI_Win win, MPI_Request *req) {
  struct rmax_win *w_;
  if (plain(win)) return PMPI_Raccumulate_c(oa, oc, odt, tr, td, tc, tdt, o, win, req);
  ROUTE("MPI_Raccumulate_c", win, tr, td);
  return PMPI_Raccumulate_c(oa, oc, odt, op.rank, op.disp, tc, tdt, o, op.win, req);
}

MPISW_EXPORT int MPI_Rget_accumulate_c(const void *oa, MPI_Count oc, MPI_Datatype odt, void *ra,
                                       MPI_Count rc, MPI_Datatype rdt, int tr, MPI_Aint td,
                                       MPI_Count tc, MPI_Datatype tdt, MPI_Op o, MPI_Win win,
                                       MPI_Request *req) {
  struct rmax_win *w_;
  if (plain(win))
    return PMPI_Rget_accumulate_c(oa, oc, odt, ra, rc, rdt, tr, td, tc, tdt, o, win, req);
  ROUTE("MPI_Rget_accumulate_c", win, tr, td);
  return PMPI_Rget_accumulate_c(oa, oc, odt, ra, rc, rdt, op.rank, op.disp, tc, tdt, o, op.win,
                                req);
}
#endif
