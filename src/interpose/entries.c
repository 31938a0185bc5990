/* The library's MPI entry points, generated from the table of the calls it
 * takes over (pmpi/calls.def): MPI_X, its MPI-4 twin MPI_X_c, and PMPI_X
 * and PMPI_X_c as aliases of the same code, so that programs and bindings
 * that call the profiling names (MPICH's Fortran 2008 module, a PMPI tool
 * stacked in front of mpisw) reach the library too. Each entry point makes
 * one call, into src/dispatch/; the library never calls these from inside
 * (it reaches the MPI through pmpi/next.h), so a tool stacked in front of
 * it sees one call per user call. */
#include "dispatch/dispatch.h"
#include "process/process.h"

/* When loaded: a wrong MPI must be caught before the program's first MPI
 * call. MPI_Init checks again for MPIs loaded later (dlopen, as mpi4py). */
__attribute__((constructor)) static void check_mpi_when_loaded(void) { mpisw_identity_check(); }

#define ENTRY(name, params, call)                                                   \
  MPISW_EXPORT int MPI_##name params { return call; }                               \
  MPISW_EXPORT int PMPI_##name params __attribute__((alias("MPI_" #name)));

#define MPISW_COUNT int
#define MPISW_DISP int
#define MPISW_CALL(name, params, args) ENTRY(name, params, mpisw_do_##name args)
#define MPISW_CALL_C(name, params, args) \
  ENTRY(name, params, mpisw_do_##name(MPISW_UNPAREN args, 0))
#define MPISW_CALL4(name, params, args)
#define MPISW_CALL_T(type, name, params, args)                                  \
  MPISW_EXPORT type MPI_##name params { return mpisw_do_##name args; }          \
  MPISW_EXPORT type PMPI_##name params __attribute__((alias("MPI_" #name)));
#include "pmpi/calls.def"

#define MPISW_CALL_C(name, params, args) \
  ENTRY(name##_c, params, mpisw_do_##name(MPISW_UNPAREN args, 1))
#define MPISW_CALL4(name, params, args) ENTRY(name, params, mpisw_do_##name args)
#include "pmpi/calls_c.def"
