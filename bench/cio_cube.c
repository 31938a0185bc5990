/* Collective I/O benchmark, the source document's first pattern (issue 18):
 * a 3-D global array of doubles stored in row-major order, cut into one box
 * per process (a p0 x p1 x p2 grid, as MPI_Dims_create makes it), written
 * with one MPI_File_write_all through a view of MPI_Type_create_subarray.
 * Options, sides and records: bench/cio_run.c. */
#include "cio_run.h"

static void cube_view(const struct cio_pattern *pt, int rank, MPI_Datatype *etype,
                      MPI_Datatype *ftype) {
  struct cio_box b;
  cio_pattern_boxes(pt, rank, &b);
  int sizes[3], sub[3], starts[3];
  for (int k = 0; k < 3; k++) {
    sizes[k] = (int)pt->g[k];
    sub[k] = (int)b.n[k];
    starts[k] = (int)b.lo[k];
  }
  MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, ftype);
  MPI_Type_commit(ftype);
  /* cio_run frees both: a duplicate of MPI_DOUBLE may be freed. */
  MPI_Type_dup(MPI_DOUBLE, etype);
}

int main(int argc, char **argv) {
  return cio_run_main(argc, argv, "cio_cube", CIO_CUBE, cube_view);
}
