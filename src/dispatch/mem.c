/* MPI_Alloc_mem / MPI_Free_mem: a storage range when the info asks for one
 * (window module), else memory from the RMA extensions' arena, else the
 * MPI's. */
#include "dispatch/dispatch.h"
#include "process/process.h"
#include "rmax/api.h"
#include "win/internal.h"

int mpisw_do_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr) {
  if (mpisw_disabled) return mpisw_next.Alloc_mem(size, info, baseptr);
  int handled = 0;
  int rc = mpisw_alloc_mem(size, info, baseptr, &handled);
  if (!handled) rc = mpisw_rmax_alloc_mem(size, info, baseptr);
  if (rc == MPI_SUCCESS) mpisw_modules_mem_allocated(*(void **)baseptr, size);
  return rc;
}

int mpisw_do_Free_mem(void *base) {
  if (mpisw_disabled) return mpisw_next.Free_mem(base);
  int handled = 0;
  int rc = mpisw_free_mem(base, &handled);
  if (!handled) rc = mpisw_rmax_free_mem(base);
  if (rc == MPI_SUCCESS) mpisw_modules_mem_freed(base);
  return rc;
}
