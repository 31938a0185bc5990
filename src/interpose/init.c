/* MPI_Init / MPI_Init_thread: pass through, after checking that the process
 * runs the MPI this library was built for (process/identity.c) and working around
 * known bugs of the MPI underneath (process/quirks.c); MPISW_REPORT=1 says the
 * library is active (process/report.c). */
#include "win/internal.h"

/* When loaded: a wrong MPI must be caught before the program's first MPI call.
 * MPI_Init checks again for MPIs loaded later (dlopen, as Python's mpi4py). */
__attribute__((constructor)) static void check_mpi_when_loaded(void) { mpisw_identity_check(); }

MPISW_EXPORT int MPI_Init(int *argc, char ***argv) {
  mpisw_identity_check();
  if (!mpisw_disabled) mpisw_quirks_before_init();
  int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS && !mpisw_disabled) mpisw_rmax_init();
  if (rc == MPI_SUCCESS) mpisw_report_init(); /* says "disabled" when it is */
  return rc;
}

MPISW_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  mpisw_identity_check();
  if (!mpisw_disabled) mpisw_quirks_before_init();
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS && !mpisw_disabled) mpisw_rmax_init();
  if (rc == MPI_SUCCESS) mpisw_report_init(); /* says "disabled" when it is */
  return rc;
}
