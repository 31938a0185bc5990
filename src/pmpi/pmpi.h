/* The library's thin layer over the MPI's own calls: its error classes and
 * codes carrying readable messages, raising them on the right object, and
 * the MPI's window calls in their int or MPI-4 MPI_Aint form. Below the
 * window module (src/win/); uses src/process/ (the lock) and src/core/. */
#ifndef MPISW_PMPI_PMPI_H
#define MPISW_PMPI_PMPI_H

#include <mpi.h>

#include "core/error.h"
#include "process/process.h"

/* ---- errors.c ---- */
/* Turns a core error into an MPI error code whose string is
 * "mpisw: <routine>: <message>". */
int mpisw_error_code(const char *routine, const struct mpisw_error *e);
int mpisw_raise_comm(MPI_Comm comm, int code);
int mpisw_raise_win(MPI_Win win, int code);
/* Errors of calls without an object (MPI_Alloc_mem): MPI-4 raises them on
 * MPI_COMM_SELF, MPI-3 on MPI_COMM_WORLD. */
int mpisw_raise_noobj(int code);
/* MPI calls made between these pairs return their errors instead of raising
 * them: *_errors_return sets MPI_ERRORS_RETURN and gives the handler it
 * replaced, *_errors_restore puts it back and releases the reference. */
MPI_Errhandler mpisw_win_errors_return(MPI_Win win);
void mpisw_win_errors_restore(MPI_Win win, MPI_Errhandler eh);
MPI_Errhandler mpisw_comm_errors_return(MPI_Comm comm);
void mpisw_comm_errors_restore(MPI_Comm comm, MPI_Errhandler eh);
/* Frees a handler reference from *_get_errhandler unless it is predefined. */
void mpisw_errhandler_release(MPI_Errhandler *eh);

/* ---- mpi_calls.c: the MPI's own window calls; large selects the MPI-4
 * variants with an MPI_Aint displacement unit ---- */
int mpisw_mpi_win_create(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                         MPI_Comm comm, MPI_Win *win, int large);
int mpisw_mpi_win_allocate(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                           void *baseptr, MPI_Win *win, int large);
int mpisw_mpi_win_allocate_shared(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                  MPI_Comm comm, void *baseptr, MPI_Win *win, int large);

#endif
