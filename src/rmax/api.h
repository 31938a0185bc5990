/* What src/interpose/ calls into the RMA extensions. */
#ifndef MPISW_RMAX_API_H
#define MPISW_RMAX_API_H

#include <mpi.h>

int rmax_local_handle(const char *routine, MPI_Win parent, MPI_Win *nw);
int rmax_dup_with_info(MPI_Win win, MPI_Info info, MPI_Win *newwin);
int rmax_free(MPI_Win *win, int *handled);
int rmax_memhandle_create(void *base, MPI_Aint size, MPI_Win win, void *memhandle,
                          int *memhandle_size);
int rmax_win_from_memhandle(const void *memhandle, MPI_Aint size, int disp_unit, MPI_Info info,
                            int target, MPI_Win win, MPI_Win *newwin);
int rmax_memhandle_release(void *memhandle, MPI_Win win);
int rmax_op_intrinsic(MPI_Win win, const char *ops, int max_count, MPI_Datatype datatype,
                      int *flag);
/* Completes the operation just issued at (rank, win) at the target and
 * returns a completed request. */
int rmax_remote_complete(MPI_Win win, int rank, MPI_Request *request);
int rmax_set_info(MPI_Win win, MPI_Info info);
int rmax_get_group(MPI_Win win, MPI_Group *group);

#endif
