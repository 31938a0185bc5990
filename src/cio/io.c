/* The aggregators' I/O: whole ranges through the file's backend
 * (backend.c), and the calls without two phases. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/uio.h>

#include "cio/engine.h"

int mpisw_cio_write(struct cio_file *f, const void *buf, size_t len, MPI_Offset off) {
  return f->be->write(f, buf, len, off);
}

int mpisw_cio_read(struct cio_file *f, void *buf, size_t len, MPI_Offset off) {
  return f->be->read(f, buf, len, off);
}

char *mpisw_cio_user_bytes(const struct cio_op *op) {
  return op->mem->dense && op->mem->n == 1 ? (char *)op->buf + op->mem->piece[0].disp : NULL;
}

static int cmp_run(const void *x, const void *y) {
  const struct cio_run *a = x, *b = y;
  return a->off < b->off ? -1 : a->off > b->off;
}

int mpisw_cio_runs_sort(struct cio_run *runs, MPI_Count n) {
  qsort(runs, (size_t)n, sizeof *runs, cmp_run);
  for (MPI_Count i = 0; i + 1 < n; i++)
    if (runs[i].off + runs[i].len > runs[i + 1].off) return 1;
  return 0;
}

int mpisw_cio_write_runs(struct cio_file *f, const char *cbuf, MPI_Offset wlo,
                         struct cio_run *runs, MPI_Count n) {
  struct iovec iov[IOV_MAX];
  MPI_Count i = 0;
  while (i < n) {
    MPI_Offset s = runs[i].off, e = s + runs[i].len;
    MPI_Count j = i + 1;
    while (j < n && runs[j].off <= e) {
      if (runs[j].off + runs[j].len > e) e = runs[j].off + runs[j].len;
      j++;
    }
    int err = 0;
    if (!runs[i].src) { /* from the collective buffer, one write */
      err = mpisw_cio_write(f, cbuf + (s - wlo), (size_t)(e - s), s);
    } else { /* adjacent runs from where they lie, IOV_MAX at a time */
      for (MPI_Count k = i; k < j && !err;) {
        int m = 0;
        MPI_Offset at = runs[k].off;
        for (; k < j && m < IOV_MAX; k++, m++)
          iov[m] = (struct iovec){(void *)runs[k].src, (size_t)runs[k].len};
        err = f->be->writev(f, iov, m, at);
      }
    }
    if (err) return err;
    i = j;
  }
  return 0;
}

int mpisw_cio_io_error(struct cio_file *f, int writing, int err, char *why, size_t whylen) {
  snprintf(why, whylen, "%s of %s failed: %s", writing ? f->be->write_name : f->be->read_name,
           f->path, f->io_msg[0] ? f->io_msg : strerror(err));
  return err == ENOSPC ? MPI_ERR_NO_SPACE : err == EDQUOT ? MPI_ERR_QUOTA : MPI_ERR_IO;
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
  char *base = mpisw_cio_user_bytes(op);
  if (base) { /* contiguous in memory: no copy at all */
    int err = 0;
    double t0 = PMPI_Wtime();
    for (MPI_Count i = 0; i < a->n && !err; i++)
      err = op->writing ? mpisw_cio_write(f, base + a->pos[i], (size_t)a->len[i], a->off[i])
                        : mpisw_cio_read(f, base + a->pos[i], (size_t)a->len[i], a->off[i]);
    op->r->t_io += PMPI_Wtime() - t0;
    int cls = MPI_SUCCESS;
    if (err) cls = mpisw_cio_io_error(f, op->writing, err, why, whylen);
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
      err = op->writing ? mpisw_cio_write(f, tmp + at, (size_t)n, a->off[i] + skip)
                        : mpisw_cio_read(f, tmp + at, (size_t)n, a->off[i] + skip);
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
  if (err) cls = mpisw_cio_io_error(f, op->writing, err, why, whylen);
  return mpisw_cio_agree(f->comm, cls, why, whylen);
}
