/* Collective I/O benchmark, the source document's second pattern (issue
 * 18): NAS BT-IO's file access ("full" MPI-IO mode). An N^3 grid of 5
 * doubles per point, the block-tridiagonal (diagonal multi-partition)
 * decomposition of P = q^2 processes: each process owns q cells, one per
 * slice, cio_pattern.h says which. One MPI_File_write_all per process covers
 * all its cells: the view is a struct of one subarray per cell (all at
 * displacement 0, in file order, so the type map increases as a file type's
 * must), the element 5 contiguous doubles, as BT-IO does. Options, sides and
 * records: bench/cio_run.c. */
#include "cio_run.h"

static void btio_view(const struct cio_pattern *pt, int rank, MPI_Datatype *etype,
                      MPI_Datatype *ftype) {
  struct cio_box b[CIO_MAX_CELLS];
  int ncells = cio_pattern_boxes(pt, rank, b);
  MPI_Type_contiguous(5, MPI_DOUBLE, etype);
  MPI_Type_commit(etype);
  MPI_Datatype cell[CIO_MAX_CELLS];
  int blocklen[CIO_MAX_CELLS];
  MPI_Aint disp[CIO_MAX_CELLS];
  for (int c = 0; c < ncells; c++) {
    int sizes[3], sub[3], starts[3];
    for (int k = 0; k < 3; k++) {
      sizes[k] = (int)pt->g[k];
      sub[k] = (int)b[c].n[k];
      starts[k] = (int)b[c].lo[k];
    }
    MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, *etype, &cell[c]);
    blocklen[c] = 1;
    disp[c] = 0;
  }
  MPI_Type_create_struct(ncells, blocklen, disp, cell, ftype);
  MPI_Type_commit(ftype);
  for (int c = 0; c < ncells; c++) MPI_Type_free(&cell[c]);
}

int main(int argc, char **argv) {
  return cio_run_main(argc, argv, "cio_btio", CIO_BTIO, btio_view);
}
