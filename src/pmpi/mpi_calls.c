/* The MPI's own window calls, in their int or MPI_Aint (MPI-4 "_c")
 * displacement-unit form, so that modules need not care which. */
#include "pmpi/pmpi.h"

int mpisw_mpi_win_create(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                         MPI_Comm comm, MPI_Win *win, int large) {
#if MPI_VERSION >= 4
  if (large) return PMPI_Win_create_c(base, size, disp_unit, info, comm, win);
#endif
  (void)large;
  return PMPI_Win_create(base, size, (int)disp_unit, info, comm, win);
}

int mpisw_mpi_win_allocate(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                           void *baseptr, MPI_Win *win, int large) {
#if MPI_VERSION >= 4
  if (large) return PMPI_Win_allocate_c(size, disp_unit, info, comm, baseptr, win);
#endif
  (void)large;
  return PMPI_Win_allocate(size, (int)disp_unit, info, comm, baseptr, win);
}

int mpisw_mpi_win_allocate_shared(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                  MPI_Comm comm, void *baseptr, MPI_Win *win, int large) {
#if MPI_VERSION >= 4
  if (large) return PMPI_Win_allocate_shared_c(size, disp_unit, info, comm, baseptr, win);
#endif
  (void)large;
  return PMPI_Win_allocate_shared(size, (int)disp_unit, info, comm, baseptr, win);
}
