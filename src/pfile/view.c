/* File views: which file bytes a range of the data stream lands on. The
 * default view (disp 0, etype and filetype MPI_BYTE) and views whose
 * filetype is contiguous are mapped here directly; other filetypes are
 * flattened into pieces (typemap.c). */
#include <string.h>

#include "pfile/internal.h"

static int predefined_type(MPI_Datatype t) {
  int ni, na, nd, comb;
  PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
  return comb == MPI_COMBINER_NAMED;
}

void mpisw_pfile_view_default(struct pfile_view *v) {
  memset(v, 0, sizeof *v);
  v->etype = v->filetype = MPI_BYTE;
  v->etype_size = 1;
  v->contiguous = 1;
  v->ft_size = v->ft_extent = 1;
  strcpy(v->datarep, "native");
}

void mpisw_pfile_view_release(struct pfile_view *v) {
  if (!predefined_type(v->etype)) PMPI_Type_free(&v->etype);
  if (!predefined_type(v->filetype)) PMPI_Type_free(&v->filetype);
  mpisw_pfile_view_default(v);
}

int mpisw_pfile_view_pieces(const struct pfile_view *v, uint64_t pos, uint64_t len,
                            int (*fn)(uint64_t file_off, uint64_t at, uint64_t n, void *arg),
                            void *arg) {
  if (len == 0) return 0;
  if (v->contiguous) return fn((uint64_t)v->disp + pos, 0, len, arg);
  return -1; /* set_view refuses such filetypes until they are flattened */
}

uint64_t mpisw_pfile_view_stream_end(const struct pfile_view *v, uint64_t size) {
  if (size <= (uint64_t)v->disp) return 0;
  return size - (uint64_t)v->disp;
}
