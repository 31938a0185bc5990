/* The window calls mpisw owns. Each wrapper only routes: pass-through when
 * disabled, otherwise the window module decides. */
#include "win/info_keys.h"
#include "win/internal.h"

MPISW_EXPORT int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                  void *baseptr, MPI_Win *win) {
  if (mpisw_disabled) return PMPI_Win_allocate(size, disp_unit, info, comm, baseptr, win);
  int rc = mpisw_win_allocate("MPI_Win_allocate", size, disp_unit, info, comm, baseptr, win, 0);
  if (rc == MPI_SUCCESS) mpisw_rmax_created(*win, info, 0);
  if (rc == MPI_SUCCESS) mpisw_open_win(*win, size);
  return rc;
}

MPISW_EXPORT int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info,
                                         MPI_Comm comm, void *baseptr, MPI_Win *win) {
  if (mpisw_disabled) return PMPI_Win_allocate_shared(size, disp_unit, info, comm, baseptr, win);
  int rc = mpisw_win_allocate_shared("MPI_Win_allocate_shared", size, disp_unit, info, comm,
                                     baseptr, win, 0);
  if (rc == MPI_SUCCESS) mpisw_rmax_created(*win, info, 0);
  if (rc == MPI_SUCCESS) mpisw_open_win(*win, size);
  return rc;
}

MPISW_EXPORT int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
                                      void *baseptr) {
  if (!mpisw_disabled) {
    win = mpisw_rmax_sync_win(win);
    MPI_Aint disp = 0;
    int handled = 0;
    int rc = mpisw_win_shared_query(win, rank, size, &disp, baseptr, &handled);
    if (handled) {
      if (rc == MPI_SUCCESS) *disp_unit = (int)disp;
      return rc;
    }
  }
  return PMPI_Win_shared_query(win, rank, size, disp_unit, baseptr);
}

MPISW_EXPORT int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                                MPI_Comm comm, MPI_Win *win) {
  int rc = mpisw_disabled ? MPI_SUCCESS : mpisw_win_keys_agree("MPI_Win_create", info, comm);
  if (rc == MPI_SUCCESS) rc = PMPI_Win_create(base, size, disp_unit, info, comm, win);
  if (rc == MPI_SUCCESS && !mpisw_disabled) mpisw_win_created(*win, base, size);
  if (rc == MPI_SUCCESS && !mpisw_disabled) mpisw_rmax_created(*win, info, 0);
  if (rc == MPI_SUCCESS && !mpisw_disabled) mpisw_open_win(*win, size);
  return rc;
}

MPISW_EXPORT int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size) {
  if (!mpisw_disabled) win = mpisw_rmax_sync_win(win);
  int rc = PMPI_Win_attach(win, base, size);
  if (rc == MPI_SUCCESS && !mpisw_disabled) mpisw_win_attached(win, base, size);
  return rc;
}

MPISW_EXPORT int MPI_Win_detach(MPI_Win win, const void *base) {
  if (!mpisw_disabled) win = mpisw_rmax_sync_win(win);
  int rc = PMPI_Win_detach(win, base);
  if (rc == MPI_SUCCESS && !mpisw_disabled) mpisw_win_detached(win, base);
  return rc;
}

MPISW_EXPORT int MPI_Win_sync(MPI_Win win) {
  if (mpisw_disabled) return PMPI_Win_sync(win);
  return mpisw_win_sync(mpisw_rmax_sync_win(win));
}

MPISW_EXPORT int MPI_Win_free(MPI_Win *win) {
  if (mpisw_disabled) return PMPI_Win_free(win);
  int handled = 0;
  MPI_Win was = *win;
  int rc = mpisw_rmax_free(win, &handled);
  if (!handled) rc = mpisw_win_free(win);
  if (rc == MPI_SUCCESS) mpisw_closed_win(was);
  return rc;
}

MPISW_EXPORT int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used) {
  if (mpisw_disabled) return PMPI_Win_get_info(win, info_used);
  int rc = mpisw_win_get_info(mpisw_rmax_sync_win(win), info_used);
  if (rc == MPI_SUCCESS) mpisw_rmax_put_info(win, *info_used);
  return rc;
}

MPISW_EXPORT int MPI_Win_get_attr(MPI_Win win, int keyval, void *value, int *flag) {
  if (!mpisw_disabled) {
    int handled = 0;
    int rc = mpisw_rmax_get_attr(win, keyval, value, flag, &handled);
    if (handled) return rc;
  }
  if (!mpisw_disabled && mpisw_node_shared_attr(win, keyval, value, flag)) return MPI_SUCCESS;
  if (!mpisw_disabled && keyval == MPI_WIN_CREATE_FLAVOR) {
    int *flavor;
    if (mpisw_win_flavor(win, &flavor)) {
      *(int **)value = flavor;
      *flag = 1;
      return MPI_SUCCESS;
    }
  }
  return PMPI_Win_get_attr(win, keyval, value, flag);
}
