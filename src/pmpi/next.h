/* The MPI's own implementation of every call mpisw takes over
 * (pmpi/calls.def). mpisw defines both MPI_X and PMPI_X, so a plain call to
 * PMPI_X from inside the library would come back to it; the library reaches
 * the MPI (or a PMPI tool stacked below it) only through mpisw_next.X.
 * Calls mpisw does not take over (PMPI_Comm_rank, ...) are called directly. */
#ifndef MPISW_PMPI_NEXT_H
#define MPISW_PMPI_NEXT_H

#include <mpi.h>

/* Expands a parenthesized list without its parentheses. */
#define MPISW_UNPAREN(...) __VA_ARGS__

struct mpisw_next_calls {
#define MPISW_COUNT int
#define MPISW_DISP int
#define MPISW_CALL(name, params, args) int(*name) params;
#define MPISW_CALL_C(name, params, args) int(*name) params;
#define MPISW_CALL4(name, params, args)
#define MPISW_CALL_T(type, name, params, args) type(*name) params;
#include "pmpi/calls.def"
#define MPISW_CALL_C(name, params, args) int(*name##_c) params;
#define MPISW_CALL4(name, params, args) int(*name) params;
#include "pmpi/calls_c.def"
};

/* Filled when the library is loaded (pmpi/next.c): the next definition
 * after mpisw in the link order (dlsym RTLD_NEXT), else the MPI library's
 * own. A call the MPI lacks answers MPI_ERR_OTHER with a line on stderr. */
extern struct mpisw_next_calls mpisw_next;

#endif
