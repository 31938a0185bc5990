/* The MPI_Win a duplicate or memory-handle window is: a size-0 window on
 * MPI_COMM_SELF. It is a real handle, so MPI_Win_set_name, attributes,
 * error handlers and MPI_Win_free work on it; RMA and synchronization
 * through it are routed elsewhere. Each one costs the MPI a communicator
 * context id: MPICH has about 2048 per process, so at about 2044 live
 * handles the MPI refuses, and that refusal becomes a clear error. */
#include <stdio.h>

#include "rmax/rmax.h"

int rmax_local_handle(const char *routine, MPI_Win parent, MPI_Win *nw) {
  MPI_Errhandler eh;
  PMPI_Comm_get_errhandler(MPI_COMM_SELF, &eh);
  PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int rc = PMPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_SELF, nw);
  PMPI_Comm_set_errhandler(MPI_COMM_SELF, eh);
  if (eh != MPI_ERRORS_RETURN && eh != MPI_ERRORS_ARE_FATAL) PMPI_Errhandler_free(&eh);
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    PMPI_Error_string(rc, text, &len);
    *nw = MPI_WIN_NULL;
    return rmax_error(routine, parent,
                      "the MPI refused a new window handle (each duplicate or memory-handle "
                      "window takes one communicator context; MPICH allows about 2044 alive): %s",
                      text);
  }
  /* errors through the new handle go where the parent's go */
  MPI_Errhandler peh;
  if (PMPI_Win_get_errhandler(parent, &peh) == MPI_SUCCESS) {
    PMPI_Win_set_errhandler(*nw, peh);
    if (peh != MPI_ERRORS_RETURN && peh != MPI_ERRORS_ARE_FATAL) PMPI_Errhandler_free(&peh);
  }
  return MPI_SUCCESS;
}
