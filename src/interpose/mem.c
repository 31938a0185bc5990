/* MPI_Alloc_mem / MPI_Free_mem: storage ranges for dynamic windows and for
 * MPI_Win_create. */
#include "win/internal.h"

MPISW_EXPORT int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr) {
  if (mpisw_disabled) return PMPI_Alloc_mem(size, info, baseptr);
  int rc = mpisw_alloc_mem(size, info, baseptr);
  if (rc == MPI_SUCCESS) mpisw_open_mem(*(void **)baseptr, size);
  return rc;
}

MPISW_EXPORT int MPI_Free_mem(void *base) {
  if (mpisw_disabled) return PMPI_Free_mem(base);
  int rc = mpisw_free_mem(base);
  if (rc == MPI_SUCCESS) mpisw_closed_mem(base);
  return rc;
}
