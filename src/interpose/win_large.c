/* MPI-4 large-count window calls (MPICH 4 has them; mpi4py uses them). */
#include "win/info_keys.h"
#include "win/internal.h"

#if MPI_VERSION >= 4
MPISW_EXPORT int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                    MPI_Comm comm, void *baseptr, MPI_Win *win) {
  if (mpisw_disabled) return PMPI_Win_allocate_c(size, disp_unit, info, comm, baseptr, win);
  int rc = mpisw_win_allocate("MPI_Win_allocate_c", size, disp_unit, info, comm, baseptr, win, 1);
  if (rc == MPI_SUCCESS) mpisw_rmax_created(*win, info, 0);
  if (rc == MPI_SUCCESS) mpisw_open_win(*win, size);
  return rc;
}

MPISW_EXPORT int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                           MPI_Comm comm, void *baseptr, MPI_Win *win) {
  if (mpisw_disabled)
    return PMPI_Win_allocate_shared_c(size, disp_unit, info, comm, baseptr, win);
  int rc = mpisw_win_allocate_shared("MPI_Win_allocate_shared_c", size, disp_unit, info, comm,
                                     baseptr, win, 1);
  if (rc == MPI_SUCCESS) mpisw_rmax_created(*win, info, 0);
  if (rc == MPI_SUCCESS) mpisw_open_win(*win, size);
  return rc;
}

MPISW_EXPORT int MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size,
                                        MPI_Aint *disp_unit, void *baseptr) {
  if (!mpisw_disabled) {
    win = mpisw_rmax_sync_win(win);
    int handled = 0;
    int rc = mpisw_win_shared_query(win, rank, size, disp_unit, baseptr, &handled);
    if (handled) return rc;
  }
  return PMPI_Win_shared_query_c(win, rank, size, disp_unit, baseptr);
}

MPISW_EXPORT int MPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                  MPI_Comm comm, MPI_Win *win) {
  int rc = mpisw_disabled ? MPI_SUCCESS : mpisw_win_keys_agree("MPI_Win_create_c", info, comm);
  if (rc == MPI_SUCCESS) rc = PMPI_Win_create_c(base, size, disp_unit, info, comm, win);
  if (rc == MPI_SUCCESS && !mpisw_disabled) mpisw_win_created(*win, base, size);
  if (rc == MPI_SUCCESS && !mpisw_disabled) mpisw_rmax_created(*win, info, 0);
  if (rc == MPI_SUCCESS && !mpisw_disabled) mpisw_open_win(*win, size);
  return rc;
}
#endif
