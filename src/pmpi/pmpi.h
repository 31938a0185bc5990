/* The library's thin layer over the MPI's own calls: its error classes and
 * codes carrying readable messages, raising them on the right object, and
 * the MPI's own calls (next.h, generated from calls.def, the table of
 * every call mpisw takes over). Below the
 * window module (src/win/); uses src/process/ (the lock) and src/core/. */
#ifndef MPISW_PMPI_PMPI_H
#define MPISW_PMPI_PMPI_H

#include <mpi.h>

#include "core/error.h"
#include "pmpi/next.h"
#include "process/process.h"

/* ---- errors.c ---- */
/* Turns a core error into an MPI error code whose string is
 * "mpisw: <routine>: <message>". */
int mpisw_error_code(const char *routine, const struct mpisw_error *e);
/* An error code of one of the MPI's own classes (MPI_ERR_NO_SUCH_FILE, ...,
 * as MPI-IO prescribes) whose string is "mpisw: <routine>: <msg>" where the
 * MPI keeps such strings (Open MPI); the class code itself where it does not
 * (MPICH 4.0 shows another text for codes added under its classes). */
int mpisw_error_code_in(int cls, const char *routine, const char *msg);
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

/* ---- mpi_calls.c: the MPI's own calls that have an MPI-4 "_c" twin, taking
 * the wide types; large selects the twin (mpisw_mpi_Put, mpisw_mpi_Win_create,
 * ... one per MPISW_CALL_C line of calls.def) ---- */
#define MPISW_COUNT MPI_Count
#define MPISW_DISP MPI_Aint
#define MPISW_CALL(name, params, args)
#define MPISW_CALL4(name, params, args)
#define MPISW_CALL_C(name, params, args) int mpisw_mpi_##name(MPISW_UNPAREN params, int large);
#include "pmpi/calls.def"

#endif
