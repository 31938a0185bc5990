/* Remote-completing requests (paper, section 5.2). Neither Debian MPI can
 * tell when one operation is complete at its target, so the correct
 * fallback is: issue the operation, flush its target (the flush of a
 * duplicate or memory-handle window goes where its operations went), and
 * return a request that is already complete. The call therefore blocks for
 * one flush; MPI_Test on the request is then always true. */
#include "rmax/api.h"
#include "rmax/rmax.h"

static int query(void *extra, MPI_Status *status) {
  (void)extra;
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  return MPI_SUCCESS;
}
static int release(void *extra) {
  (void)extra;
  return MPI_SUCCESS;
}
static int cancel(void *extra, int complete) {
  (void)extra;
  (void)complete;
  return MPI_SUCCESS;
}

int mpisw_rmax_request_done(MPI_Request *request) {
  int rc = PMPI_Grequest_start(query, release, cancel, NULL, request);
  if (rc == MPI_SUCCESS) rc = PMPI_Grequest_complete(*request);
  return rc;
}

int mpisw_rmax_remote_complete(MPI_Win win, int rank, MPI_Request *request) {
  int rc = mpisw_rmax_win_flush(win, rank); /* routes duplicates and handles */
  if (rc != MPI_SUCCESS) return rc;
  return mpisw_rmax_request_done(request);
}
