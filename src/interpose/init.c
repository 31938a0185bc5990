/* MPI_Init / MPI_Init_thread: pass through, after working around known
 * bugs of the MPI underneath (win/quirks.c). */
#include "win/internal.h"

MPISW_EXPORT int MPI_Init(int *argc, char ***argv) {
  if (!mpisw_disabled) mpisw_quirks_before_init();
  int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS && !mpisw_disabled) mpisw_rmax_init();
  return rc;
}

MPISW_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  if (!mpisw_disabled) mpisw_quirks_before_init();
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS && !mpisw_disabled) mpisw_rmax_init();
  return rc;
}
