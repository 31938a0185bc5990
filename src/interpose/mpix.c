/* The paper's new calls (declared in mpisw.h): the library's own calls, not
 * the MPI's, so they have no PMPI_ names. The remote-completing ones issue
 * their operation through src/dispatch/ like MPI_Put, never through MPI_Put
 * itself (a PMPI tool in front of mpisw would count a call the user never
 * made). */
#include "dispatch/dispatch.h"
#include "mpisw.h"
#include "rmax/api.h"
#include "rmax/rmax.h"

static int off(const char *routine) {
  return mpisw_rmax_error(routine, MPI_WIN_NULL, "the RMA extensions are off (MPISW_DISABLE=1)");
}

MPISW_EXPORT int MPIX_Win_dup_with_info(MPI_Win win, MPI_Info info, MPI_Win *newwin) {
  if (mpisw_disabled) return off("MPIX_Win_dup_with_info");
  return mpisw_rmax_dup_with_info(win, info, newwin);
}

MPISW_EXPORT int MPIX_Memhandle_create(void *base, MPI_Aint size, MPI_Win win, void *memhandle,
                                       int *memhandle_size) {
  if (mpisw_disabled) return off("MPIX_Memhandle_create");
  return mpisw_rmax_memhandle_create(base, size, win, memhandle, memhandle_size);
}

MPISW_EXPORT int MPIX_Win_from_memhandle(const void *memhandle, MPI_Aint size, int disp_unit,
                                         MPI_Info info, int target, MPI_Win win,
                                         MPI_Win *newwin) {
  if (mpisw_disabled) return off("MPIX_Win_from_memhandle");
  return mpisw_rmax_win_from_memhandle(memhandle, size, disp_unit, info, target, win, newwin);
}

MPISW_EXPORT int MPIX_Memhandle_release(void *memhandle, MPI_Win win) {
  if (mpisw_disabled) return off("MPIX_Memhandle_release");
  return mpisw_rmax_memhandle_release(memhandle, win);
}

MPISW_EXPORT int MPIX_Win_op_intrinsic(MPI_Win win, const char *ops, int max_count,
                                       MPI_Datatype datatype, int *flag) {
  if (mpisw_disabled) return off("MPIX_Win_op_intrinsic");
  return mpisw_rmax_op_intrinsic(win, ops, max_count, datatype, flag);
}

MPISW_EXPORT int MPIX_Win_sync_target(MPI_Win win, int rank) {
  if (mpisw_disabled) return off("MPIX_Win_sync_target");
  return mpisw_do_Win_sync_target(win, rank);
}

MPISW_EXPORT int MPIX_Rrput(const void *oa, int oc, MPI_Datatype odt, int tr, MPI_Aint td, int tc,
                            MPI_Datatype tdt, MPI_Win win, MPI_Request *req) {
  int rc = mpisw_do_Put(oa, oc, odt, tr, td, tc, tdt, win, 0);
  if (rc != MPI_SUCCESS) return rc;
  return mpisw_rmax_remote_complete(win, tr, req);
}

MPISW_EXPORT int MPIX_Rraccumulate(const void *oa, int oc, MPI_Datatype odt, int tr, MPI_Aint td,
                                   int tc, MPI_Datatype tdt, MPI_Op o, MPI_Win win,
                                   MPI_Request *req) {
  int rc = mpisw_do_Accumulate(oa, oc, odt, tr, td, tc, tdt, o, win, 0);
  if (rc != MPI_SUCCESS) return rc;
  return mpisw_rmax_remote_complete(win, tr, req);
}

MPISW_EXPORT int MPIX_Rrget_accumulate(const void *oa, int oc, MPI_Datatype odt, void *ra, int rc,
                                       MPI_Datatype rdt, int tr, MPI_Aint td, int tc,
                                       MPI_Datatype tdt, MPI_Op o, MPI_Win win,
                                       MPI_Request *req) {
  int r = mpisw_do_Get_accumulate(oa, oc, odt, ra, rc, rdt, tr, td, tc, tdt, o, win, 0);
  if (r != MPI_SUCCESS) return r;
  return mpisw_rmax_remote_complete(win, tr, req);
}
