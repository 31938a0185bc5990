/* Proves the sanitizer pass can fail (tests/areas/sanitize.cmake): an MPI
 * program, built like every test of the ASan+UBSan tree, that makes the
 * error it is asked for on rank 0. Run through mpiexec with the pass's
 * options, the report must abort the job and fail it. */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char *what = argc > 1 ? argv[1] : "none";
  int rc = 0;
  if (rank == 0 && !strcmp(what, "heap")) {
    char *volatile p = malloc(16);
    size_t volatile i = 16;
    p[i] = 1; /* one past the end: AddressSanitizer heap-buffer-overflow */
    rc = p[0];
    free(p);
  } else if (rank == 0 && !strcmp(what, "ubsan")) {
    int volatile big = INT_MAX;
    rc = big + argc; /* signed overflow: UBSan, no recovery */
    printf("sum %d\n", rc);
    rc = 0;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
