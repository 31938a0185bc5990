/* File views: which file bytes a range of the data stream lands on. The
 * default view (disp 0, etype and filetype MPI_BYTE) and views whose
 * filetype has no holes map directly; any other filetype through its
 * flattened map (typemap_view.c). */
#include <string.h>

#include "pfile/internal.h"

int mpisw_pfile_type_named(MPI_Datatype t) {
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
  if (!mpisw_pfile_type_named(v->etype)) PMPI_Type_free(&v->etype);
  if (!mpisw_pfile_type_named(v->filetype)) PMPI_Type_free(&v->filetype);
  if (v->mapped) mpisw_view_free(&v->m);
  mpisw_pfile_view_default(v);
}

struct adapter {
  int (*fn)(uint64_t file_off, uint64_t at, uint64_t n, void *arg);
  void *arg;
};

static int adapt(void *ctx, MPI_Offset file_off, MPI_Count data_off, MPI_Count len) {
  struct adapter *a = ctx;
  return a->fn((uint64_t)file_off, (uint64_t)data_off, (uint64_t)len, a->arg);
}

int mpisw_pfile_view_pieces(const struct pfile_view *v, uint64_t pos, uint64_t len,
                            int (*fn)(uint64_t file_off, uint64_t at, uint64_t n, void *arg),
                            void *arg) {
  if (len == 0) return 0;
  if (!v->mapped) return fn((uint64_t)v->disp + pos, 0, len, arg);
  struct adapter a = {fn, arg};
  int rc = mpisw_view_map(&v->m, (MPI_Count)pos, (MPI_Count)len, adapt, &a);
  return rc == MPI_ERR_ARG ? -1 : rc;
}

uint64_t mpisw_pfile_view_stream_end(const struct pfile_view *v, uint64_t size) {
  if (!v->mapped) return size <= (uint64_t)v->disp ? 0 : size - (uint64_t)v->disp;
  MPI_Count pos = 0;
  mpisw_view_stream_pos(&v->m, (MPI_Offset)size, &pos);
  return (uint64_t)pos;
}

uint64_t mpisw_pfile_view_byte_offset(const struct pfile_view *v, uint64_t pos) {
  if (!v->mapped) return (uint64_t)v->disp + pos;
  MPI_Offset off = v->disp;
  mpisw_view_byte_offset(&v->m, (MPI_Count)pos, &off);
  return (uint64_t)off;
}
