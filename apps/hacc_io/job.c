/* The job: this rank, the ranks, one result for all of them, an MPI error
 * in words. Used by every file of hacc_io (main.c at the top calls down into
 * the methods, which use these). */
#include <stdio.h>

#include "hacc_io.h"

int hacc_rank(void) {
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int hacc_nranks(void) {
  int p;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

int hacc_agree(int rc) {
  int all;
  MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

void hacc_mpi_why(int err, const char *what, char *why, size_t n) {
  char s[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(err, s, &len) != MPI_SUCCESS) snprintf(s, sizeof s, "error %d", err);
  snprintf(why, n, "%s: %s", what, s);
}
