/* The paper's new calls (declared in mpisw.h), and the window calls a
 * duplicate must answer as its parent (group) or with its own keys (info).
 * MPI_Win_create_dynamic is tracked: memory handles hang off it. User
 * attributes of duplicates are noted (their handles are recycled). */
#include "mpisw.h"
#include "rmax/api.h"
#include "win/info_keys.h"
#include "rmax/rmax.h"

static int off(const char *routine) {
  return rmax_error(routine, MPI_WIN_NULL, "the RMA extensions are off (MPISW_DISABLE=1)");
}

MPISW_EXPORT int MPIX_Win_dup_with_info(MPI_Win win, MPI_Info info, MPI_Win *newwin) {
  if (mpisw_disabled) return off("MPIX_Win_dup_with_info");
  return rmax_dup_with_info(win, info, newwin);
}

MPISW_EXPORT int MPIX_Memhandle_create(void *base, MPI_Aint size, MPI_Win win, void *memhandle,
                                       int *memhandle_size) {
  if (mpisw_disabled) return off("MPIX_Memhandle_create");
  return rmax_memhandle_create(base, size, win, memhandle, memhandle_size);
}

MPISW_EXPORT int MPIX_Win_from_memhandle(const void *memhandle, MPI_Aint size, int disp_unit,
                                         MPI_Info info, int target, MPI_Win win,
                                         MPI_Win *newwin) {
  if (mpisw_disabled) return off("MPIX_Win_from_memhandle");
  return rmax_win_from_memhandle(memhandle, size, disp_unit, info, target, win, newwin);
}

MPISW_EXPORT int MPIX_Memhandle_release(void *memhandle, MPI_Win win) {
  if (mpisw_disabled) return off("MPIX_Memhandle_release");
  return rmax_memhandle_release(memhandle, win);
}

MPISW_EXPORT int MPIX_Win_op_intrinsic(MPI_Win win, const char *ops, int max_count,
                                       MPI_Datatype datatype, int *flag) {
  if (mpisw_disabled) return off("MPIX_Win_op_intrinsic");
  return rmax_op_intrinsic(win, ops, max_count, datatype, flag);
}

MPISW_EXPORT int MPIX_Rrput(const void *oa, int oc, MPI_Datatype odt, int tr, MPI_Aint td, int tc,
                            MPI_Datatype tdt, MPI_Win win, MPI_Request *req) {
  int rc = MPI_Put(oa, oc, odt, tr, td, tc, tdt, win);
  if (rc != MPI_SUCCESS) return rc;
  return rmax_remote_complete(win, tr, req);
}

MPISW_EXPORT int MPIX_Rraccumulate(const void *oa, int oc, MPI_Datatype odt, int tr, MPI_Aint td,
                                   int tc, MPI_Datatype tdt, MPI_Op o, MPI_Win win,
                                   MPI_Request *req) {
  int rc = MPI_Accumulate(oa, oc, odt, tr, td, tc, tdt, o, win);
  if (rc != MPI_SUCCESS) return rc;
  return rmax_remote_complete(win, tr, req);
}

MPISW_EXPORT int MPIX_Rrget_accumulate(const void *oa, int oc, MPI_Datatype odt, void *ra, int rc,
                                       MPI_Datatype rdt, int tr, MPI_Aint td, int tc,
                                       MPI_Datatype tdt, MPI_Op o, MPI_Win win,
                                       MPI_Request *req) {
  int r = MPI_Get_accumulate(oa, oc, odt, ra, rc, rdt, tr, td, tc, tdt, o, win);
  if (r != MPI_SUCCESS) return r;
  return rmax_remote_complete(win, tr, req);
}

MPISW_EXPORT int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win) {
  int rc = mpisw_disabled ? MPI_SUCCESS : mpisw_win_keys_agree("MPI_Win_create_dynamic", info, comm);
  if (rc == MPI_SUCCESS) rc = PMPI_Win_create_dynamic(info, comm, win);
  if (rc == MPI_SUCCESS && !mpisw_disabled) mpisw_rmax_created(*win, info, 1);
  if (rc == MPI_SUCCESS && !mpisw_disabled) mpisw_open_win(*win, 0);
  return rc;
}

MPISW_EXPORT int MPI_Win_set_info(MPI_Win win, MPI_Info info) {
  if (mpisw_disabled) return PMPI_Win_set_info(win, info);
  return rmax_set_info(win, info);
}

MPISW_EXPORT int MPI_Win_get_group(MPI_Win win, MPI_Group *group) {
  if (mpisw_disabled) return PMPI_Win_get_group(win, group);
  return rmax_get_group(win, group);
}

/* User attributes on a duplicate or memory-handle window are remembered, so
 * that its MPI_Win_free can delete them before the handle is recycled. */
MPISW_EXPORT int MPI_Win_set_attr(MPI_Win win, int keyval, void *value) {
  int rc = PMPI_Win_set_attr(win, keyval, value);
  if (rc == MPI_SUCCESS && !mpisw_disabled && mpisw_rmax_live) {
    struct rmax_win *w = rmax_lookup(win);
    if (w && w->kind != RMAX_PLAIN) rmax_attr_note(w, keyval, 1);
  }
  return rc;
}

MPISW_EXPORT int MPI_Win_delete_attr(MPI_Win win, int keyval) {
  int rc = PMPI_Win_delete_attr(win, keyval);
  if (rc == MPI_SUCCESS && !mpisw_disabled && mpisw_rmax_live) {
    struct rmax_win *w = rmax_lookup(win);
    if (w && w->kind != RMAX_PLAIN) rmax_attr_note(w, keyval, 0);
  }
  return rc;
}
