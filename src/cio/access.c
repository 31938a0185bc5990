/* Stage 1: the offsets and lengths of this rank's access. The view maps the
 * call's stream bytes to file pieces in stream order, which MPI's rule for
 * filetypes (displacements monotonically non-decreasing) makes file order:
 * the list comes out sorted, adjacent pieces merged. The view of an
 * ordinary file is the engine's map of its types (file.c), a pooled file's
 * the one pfile keeps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cio/engine.h"
#include "pfile/pfile.h"

static int add_piece(void *ctx, MPI_Offset file_off, MPI_Count data_off, MPI_Count len) {
  struct cio_access *a = ctx;
  if (a->n == a->cap) {
    MPI_Count cap = a->cap ? 2 * a->cap : 64;
    MPI_Offset *off = realloc(a->off, (size_t)cap * sizeof *off);
    if (off) a->off = off;
    MPI_Count *l = realloc(a->len, (size_t)cap * sizeof *l);
    if (l) a->len = l;
    MPI_Count *p = realloc(a->pos, (size_t)cap * sizeof *p);
    if (p) a->pos = p;
    if (!off || !l || !p) return MPI_ERR_NO_MEM;
    a->cap = cap;
  }
  a->off[a->n] = file_off;
  a->len[a->n] = len;
  a->pos[a->n] = data_off;
  a->n++;
  if (file_off < a->start) a->start = file_off;
  if (file_off + len > a->end) a->end = file_off + len;
  return 0;
}

int mpisw_cio_access(struct cio_file *f, MPI_Count spos, MPI_Count bytes,
                     struct cio_access *a, char *why, size_t whylen) {
  memset(a, 0, sizeof *a);
  a->start = INT64_MAX;
  a->end = 0;
  a->bytes = bytes;
  if (bytes == 0) return MPI_SUCCESS;
  /* a pooled file's view is pfile's own: mapped there, not copied here */
  int rc = f->pooled ? mpisw_pfile_view_map(f->fh, spos, bytes, add_piece, a)
                     : mpisw_view_map(&f->view, spos, bytes, add_piece, a);
  if (rc == MPI_ERR_NO_MEM) snprintf(why, whylen, "no memory for the file pieces of the access");
  else if (rc) snprintf(why, whylen, "the view cannot map this access");
  return rc;
}

void mpisw_cio_access_free(struct cio_access *a) {
  free(a->off);
  free(a->len);
  free(a->pos);
  memset(a, 0, sizeof *a);
}
