/* What the collective I/O engine (src/cio/) needs of a pooled file it
 * serves: the file's own view (the engine maps its stages through it, no
 * copy of the types), and whole contiguous file ranges written and read
 * through the pool by the aggregators, counted in the file's figures. */
#include <errno.h>
#include <string.h>

#include "pfile/internal.h"

int mpisw_pfile_view_esize(MPI_File fh, MPI_Count *esize) {
  const struct mpisw_pfile *f = pfile_of(fh);
  *esize = f->view.etype_size;
  return f->view.external32 ? -1 : 0; /* converted bytes: the engine moves native ones */
}

int mpisw_pfile_view_map(MPI_File fh, MPI_Count pos, MPI_Count len, mpisw_view_piece_fn fn,
                         void *ctx) {
  const struct pfile_view *v = &pfile_of(fh)->view;
  if (len == 0) return 0;
  if (!v->mapped) return fn(ctx, v->disp + (MPI_Offset)pos, 0, len);
  return mpisw_view_map(&v->m, pos, len, fn, ctx);
}

/* A pool result as the errno value the engine reports. */
static int pool_errno(int rc) {
  switch (rc) {
  case MPISW_POOL_OK: return 0;
  case MPISW_POOL_NOSPACE: return ENOSPC;
  case MPISW_POOL_USAGE: return EINVAL;
  default: return EIO;
  }
}

static void count(struct mpisw_pfile *f, int write, uint64_t bytes) {
  pthread_mutex_lock(&mpisw_lock);
  if (write) f->st.bytes_written += (double)bytes;
  else f->st.bytes_read += (double)bytes;
  f->st.ops++;
  pthread_mutex_unlock(&mpisw_lock);
}

int mpisw_pfile_write_range(MPI_File fh, const void *buf, size_t len, MPI_Offset off,
                            struct mpisw_error *e) {
  struct mpisw_pfile *f = pfile_of(fh);
  int rc = mpisw_pool_write(f->pf, (uint64_t)off, buf, len, e);
  if (rc == MPISW_POOL_OK) count(f, 1, len);
  return pool_errno(rc);
}

int mpisw_pfile_read_range(MPI_File fh, void *buf, size_t len, MPI_Offset off,
                           struct mpisw_error *e) {
  struct mpisw_pfile *f = pfile_of(fh);
  uint64_t got = 0;
  int rc = mpisw_pool_read(f->pf, (uint64_t)off, buf, len, &got, e);
  if (rc != MPISW_POOL_OK) return pool_errno(rc);
  if (got < len) memset((char *)buf + got, 0, len - got); /* past the end: zeros */
  count(f, 0, got);
  return 0;
}
