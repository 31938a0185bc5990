/* The collective I/O engine's module table (process/module.h): with
 * MPISW_REPORT=1, one line at MPI_Finalize with the calls the engine served
 * and their bytes over all ranks (each call's own line is report.c's). */
#include <stdio.h>

#include "cio/engine.h"
#include "process/module.h"
#include "process/process.h"

/* calls and their bytes (all ranks' bytes, as every rank sees them): the
 * largest over the ranks is reported, files on subcommunicators included */
static double served[2];

void mpisw_cio_count_call(double bytes) {
  served[0] += 1;
  served[1] += bytes;
}

static void report(void) {
  double total[2] = {0, 0};
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Reduce(served, total, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0 && total[0] > 0)
    fprintf(stderr, "mpisw: collective I/O engine: %.0f collective calls, %.0f bytes\n",
            total[0], total[1]);
}

const struct mpisw_module mpisw_cio_module = {
    .name = "cio",
    .report = report,
};
