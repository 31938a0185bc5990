/* A file view whose filetype is a struct of blocks with and without
 * explicit bounds, as parallel HDF5 builds for a collective write of
 * chunks: blocks made by MPI_Type_create_resized next to blocks whose
 * bounds come from their data. MPI's rule: lb = min(disp + lb(block)),
 * ub = max(disp + lb(block) + extent(block)). Open MPI 4.1.4 ignores the
 * blocks without explicit bounds (lb 4000, extent 200 for the type below,
 * where the rule and MPICH give 1480 and 2720), so the filetype's copies
 * would overlap; a pooled file must tile the view by the rule.
 *
 *   t_struct_bounds   (any number of ranks; each writes its own mem: file)
 * Writes two copies of the filetype (600 bytes) through the view, reads
 * the file back with no view, and checks every byte is where the rule puts
 * it: copy k's 100 bytes at 1480 + 2720 k, its 200 bytes at 4000 + 2720 k. */
#include <stdio.h>
#include <string.h>

#include "testlib.h"

#define A_AT 1480
#define A_LEN 100
#define B_AT 4000
#define B_LEN 200
#define EXTENT (B_AT + B_LEN - A_AT) /* by the rule */

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  MPI_Datatype a, b0, b, ft;
  int len = A_LEN;
  MPI_Aint at = A_AT;
  CHECK_MPI(MPI_Type_create_hindexed(1, &len, &at, MPI_BYTE, &a)); /* bounds from its data */
  CHECK_MPI(MPI_Type_contiguous(B_LEN, MPI_BYTE, &b0));
  CHECK_MPI(MPI_Type_create_resized(b0, 0, B_LEN, &b)); /* explicit bounds */
  MPI_Datatype types[2] = {a, b};
  int bl[2] = {1, 1};
  MPI_Aint disp[2] = {0, B_AT};
  CHECK_MPI(MPI_Type_create_struct(2, bl, disp, types, &ft));
  CHECK_MPI(MPI_Type_commit(&ft));
  MPI_Aint lb, ext;
  MPI_Type_get_extent(ft, &lb, &ext);
  tl_log("the MPI says the filetype has lb %ld, extent %ld (MPI's rule: %d, %d)", (long)lb,
         (long)ext, A_AT, EXTENT);

  char name[128];
  snprintf(name, sizeof name, "mem:/mpisw-struct-bounds/%d", tl_rank);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL));
  unsigned char out[2 * (A_LEN + B_LEN)];
  tl_fill(out, sizeof out, 7 + (unsigned)tl_rank, 0);
  MPI_Status st;
  CHECK_MPI(MPI_File_write_at_all(fh, 0, out, (int)sizeof out, MPI_BYTE, &st));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  MPI_Offset size = -1;
  CHECK_MPI(MPI_File_get_size(fh, &size));
  CHECK(size == B_AT + B_LEN + EXTENT, "file size %lld, expected %d", (long long)size,
        B_AT + B_LEN + EXTENT);
  static unsigned char back[B_AT + B_LEN + EXTENT];
  CHECK_MPI(MPI_File_read_at(fh, 0, back, (int)size, MPI_BYTE, &st));
  CHECK_MPI(MPI_File_close(&fh));
  CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
  const unsigned char *p = out;
  for (int k = 0; k < 2; k++) {
    CHECK(!memcmp(back + A_AT + k * EXTENT, p, A_LEN), "copy %d: the hindexed block is not at %d",
          k, A_AT + k * EXTENT);
    p += A_LEN;
    CHECK(!memcmp(back + B_AT + k * EXTENT, p, B_LEN), "copy %d: the resized block is not at %d",
          k, B_AT + k * EXTENT);
    p += B_LEN;
  }
  MPI_Type_free(&ft);
  MPI_Type_free(&b);
  MPI_Type_free(&b0);
  MPI_Type_free(&a);
  return tl_finish();
}
