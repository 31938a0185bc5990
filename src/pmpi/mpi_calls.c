/* The MPI's own calls that have an MPI-4 "_c" twin, in one form taking the
 * wide types (MPI_Count counts, MPI_Aint displacement units) and a flag
 * choosing the twin, so that the layers above need not care which of the
 * two the user called. */
#include "pmpi/pmpi.h"

#define MPISW_COUNT MPI_Count
#define MPISW_DISP MPI_Aint
#define MPISW_CALL(name, params, args)
#define MPISW_CALL4(name, params, args)
#if MPI_VERSION >= 4
#define MPISW_CALL_C(name, params, args)                           \
  int mpisw_mpi_##name(MPISW_UNPAREN params, int large) {          \
    return large ? mpisw_next.name##_c args : mpisw_next.name args; \
  }
#else
#define MPISW_CALL_C(name, params, args)                  \
  int mpisw_mpi_##name(MPISW_UNPAREN params, int large) { \
    (void)large;                                          \
    return mpisw_next.name args;                          \
  }
#endif
#include "pmpi/calls.def"
