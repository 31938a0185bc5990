/* MPI_Finalize: sync what is still on storage and report, then finalize. */
#include "win/internal.h"

MPISW_EXPORT int MPI_Finalize(void) {
  if (!mpisw_disabled) mpisw_finalize();
  if (!mpisw_disabled) mpisw_rmax_finalize();
  return PMPI_Finalize();
}
