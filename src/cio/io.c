/* The aggregator's I/O on its own descriptor of the file: whole ranges,
 * retried on short transfers and EINTR (the page cache is the one ROMIO's
 * descriptor sees, so a later ROMIO call on the handle reads these bytes). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cio/engine.h"

int mpisw_cio_pwrite(int fd, const void *buf, size_t len, MPI_Offset off) {
  const char *p = buf;
  while (len) {
    ssize_t n = pwrite(fd, p, len, off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    p += n, len -= (size_t)n, off += n;
  }
  return 0;
}

int mpisw_cio_pread(int fd, void *buf, size_t len, MPI_Offset off) {
  char *p = buf;
  while (len) {
    ssize_t n = pread(fd, p, len, off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) { /* past the end of the file: zeros, as ROMIO's buffer holds */
      memset(p, 0, len);
      return 0;
    }
    p += n, len -= (size_t)n, off += n;
  }
  return 0;
}

/* ROMIO's rule for a collective call whose ranks do not interleave (or
 * romio_cb_write/_read=disable): no exchange, each rank moves its own
 * pieces. Consecutive pieces are consecutive stream bytes: a batch of them
 * (at most cb_buffer_size bytes) is packed or unpacked in one go, and each
 * piece is one pwrite/pread (the view merged adjacent ones). A buffer
 * contiguous in memory is written from (read into) directly. */
int mpisw_cio_independent(struct cio_op *op, char *why, size_t whylen) {
  struct cio_file *f = op->f;
  const struct cio_access *a = op->a;
  MPI_Offset cbs = f->h.cb_buffer_size;
  if (op->mem->dense && op->mem->n == 1) { /* contiguous in memory: no copy at all */
    char *base = (char *)op->buf + op->mem->piece[0].disp;
    int err = 0;
    double t0 = PMPI_Wtime();
    for (MPI_Count i = 0; i < a->n && !err; i++)
      err = op->writing ? mpisw_cio_pwrite(f->fd, base + a->pos[i], (size_t)a->len[i], a->off[i])
                        : mpisw_cio_pread(f->fd, base + a->pos[i], (size_t)a->len[i], a->off[i]);
    op->r->t_io += PMPI_Wtime() - t0;
    int cls = MPI_SUCCESS;
    if (err) {
      cls = err == ENOSPC ? MPI_ERR_NO_SPACE : err == EDQUOT ? MPI_ERR_QUOTA : MPI_ERR_IO;
      snprintf(why, whylen, "%s of %s failed: %s", op->writing ? "pwrite" : "pread", f->path,
               strerror(err));
    }
    return mpisw_cio_agree(f->comm, cls, why, whylen);
  }
  size_t cap = (size_t)(a->bytes < cbs ? a->bytes : cbs);
  char *tmp = a->n ? malloc(cap ? cap : 1) : NULL;
  int cls = a->n && !tmp ? MPI_ERR_NO_MEM : MPI_SUCCESS, err = 0;
  if (cls) snprintf(why, whylen, "no memory for a buffer of %zu bytes", cap);
  MPI_Count i = 0, skip = 0; /* piece i, of which skip bytes are done */
  while (!cls && !err && i < a->n) {
    /* the batch: pieces i.. until cap bytes */
    MPI_Count spos = a->pos[i] + skip, blen = 0, j = i, sk = skip;
    while (j < a->n && blen < (MPI_Count)cap) {
      MPI_Count take = a->len[j] - sk;
      if (blen + take > (MPI_Count)cap) take = (MPI_Count)cap - blen;
      blen += take;
      sk += take;
      if (sk == a->len[j]) j++, sk = 0;
    }
    double t0 = PMPI_Wtime();
    if (op->writing) mpisw_typemap_pack(op->mem, op->buf, op->count, spos, blen, tmp);
    double t1 = PMPI_Wtime();
    MPI_Count at = 0; /* bytes of the batch done */
    while (at < blen && !err) {
      MPI_Count n = a->len[i] - skip;
      if (n > blen - at) n = blen - at;
      err = op->writing ? mpisw_cio_pwrite(f->fd, tmp + at, (size_t)n, a->off[i] + skip)
                        : mpisw_cio_pread(f->fd, tmp + at, (size_t)n, a->off[i] + skip);
      at += n;
      skip += n;
      if (skip == a->len[i]) i++, skip = 0;
    }
    double t2 = PMPI_Wtime();
    if (!op->writing && !err) mpisw_typemap_unpack(op->mem, tmp, spos, blen, op->buf, op->count);
    op->r->t_shuffle += (t1 - t0) + (PMPI_Wtime() - t2);
    op->r->t_io += t2 - t1;
  }
  free(tmp);
  if (err) {
    cls = err == ENOSPC ? MPI_ERR_NO_SPACE : err == EDQUOT ? MPI_ERR_QUOTA : MPI_ERR_IO;
    snprintf(why, whylen, "%s of %s failed: %s", op->writing ? "pwrite" : "pread", f->path,
             strerror(err));
  }
  return mpisw_cio_agree(f->comm, cls, why, whylen);
}
