/* The data path of every read and write on a pooled file: which data-stream
 * bytes (explicit offset, individual or shared pointer, in etypes), the
 * user's buffer as a byte stream (packed when its datatype has holes), the
 * file bytes they land on (the view), the pool, and the status. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "pfile/internal.h"

struct piece_ctx {
  struct mpisw_pfile *f;
  char *data;
  int write;
  uint64_t done; /* stream bytes moved */
  int rc;        /* MPISW_POOL_* of the first failure */
  struct mpisw_error e;
};

static int piece(uint64_t file_off, uint64_t at, uint64_t n, void *arg) {
  struct piece_ctx *c = arg;
  if (c->write) {
    c->rc = mpisw_pool_write(c->f->pf, file_off, c->data + at, n, &c->e);
    if (c->rc != MPISW_POOL_OK) return 1;
    c->done = at + n;
    return 0;
  }
  uint64_t got = 0;
  c->rc = mpisw_pool_read(c->f->pf, file_off, c->data + at, n, &got, &c->e);
  if (c->rc != MPISW_POOL_OK) return 1;
  c->done = at + got;
  return got < n; /* the end of the file */
}


static double now(void) { return mpisw_now(); }

int mpisw_pfile_access(struct mpisw_pfile *f, const char *routine, int write, int where,
                       MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype dt,
                       MPI_Status *status) {
  if (write && (f->amode & MPI_MODE_RDONLY))
    return mpisw_pfile_error(f, MPI_ERR_READ_ONLY, routine, "%s was opened MPI_MODE_RDONLY",
                             f->shown);
  if (!write && (f->amode & MPI_MODE_WRONLY))
    return mpisw_pfile_error(f, MPI_ERR_ACCESS, routine, "%s was opened MPI_MODE_WRONLY",
                             f->shown);
  if (count < 0) return mpisw_pfile_error(f, MPI_ERR_COUNT, routine, "count %lld is negative", (long long)count);
  if (dt == MPI_DATATYPE_NULL) return mpisw_pfile_error(f, MPI_ERR_TYPE, routine, "datatype is MPI_DATATYPE_NULL");
  if (where == PFILE_AT && offset < 0)
    return mpisw_pfile_error(f, MPI_ERR_ARG, routine, "offset %lld is negative", (long long)offset);
  MPI_Count tsize = 0;
  PMPI_Type_size_x(dt, &tsize);
  uint64_t total = (uint64_t)count * (uint64_t)tsize;
  if (f->view.external32) { /* the stream is the external32 form of the buffer */
    MPI_Aint one = 0;
    PMPI_Pack_external_size("external32", 1, dt, &one);
    tsize = one;
    total = (uint64_t)count * (uint64_t)one;
  }
  if (total % (uint64_t)f->view.etype_size)
    return mpisw_pfile_error(f, MPI_ERR_TYPE, routine,
                             "%llu bytes are not a whole number of etypes of %ld bytes",
                             (unsigned long long)total, (long)f->view.etype_size);
  double t0 = now();
  struct mpisw_error e;
  int64_t pos; /* in etypes */
  if (where == PFILE_AT) pos = offset;
  else if (where == PFILE_INDIVIDUAL) pos = f->ptr;
  else {
    int rc = mpisw_pool_shared_ptr(f->pf, (int64_t)(total / (uint64_t)f->view.etype_size), &pos, &e);
    if (rc != MPISW_POOL_OK) return mpisw_pfile_pool_error(f, rc, routine, &e);
  }
  /* the user's buffer as a byte stream: itself when its type is one run of
   * bytes, else packed (written) or unpacked (read) through the type's map */
  struct mpisw_typemap *map = NULL;
  char why[256] = "", *data = NULL, *tmp = NULL;
  int cls = mpisw_typemap_get(dt, &map, why, sizeof why);
  if (cls != MPI_SUCCESS) return mpisw_pfile_error(f, cls, routine, "%s", why);
  if (f->view.external32 && total > 0) {
    tmp = malloc(total);
    if (!tmp) {
      mpisw_typemap_release(map);
      return mpisw_pfile_error(f, MPI_ERR_NO_MEM, routine, "no memory to convert %llu bytes",
                               (unsigned long long)total);
    }
    MPI_Aint p = 0;
    if (write) PMPI_Pack_external("external32", buf, (int)count, dt, tmp, (MPI_Aint)total, &p);
    data = tmp;
  } else if (map->dense || total == 0) {
    data = (char *)buf + map->true_lb;
  } else {
    tmp = malloc(total);
    if (!tmp) {
      mpisw_typemap_release(map);
      return mpisw_pfile_error(f, MPI_ERR_NO_MEM, routine, "no memory to pack %llu bytes",
                               (unsigned long long)total);
    }
    if (write) mpisw_typemap_pack(map, buf, count, 0, (MPI_Count)total, tmp);
    data = tmp;
  }
  struct piece_ctx c = {f, data, write, 0, MPISW_POOL_OK, {0, ""}};
  if (f->atomic) {
    int rc = mpisw_pool_lock(f->pf, &e);
    if (rc != MPISW_POOL_OK) {
      free(tmp);
      mpisw_typemap_release(map);
      return mpisw_pfile_pool_error(f, rc, routine, &e);
    }
  }
  uint64_t stream = (uint64_t)pos * (uint64_t)f->view.etype_size;
  int stop = mpisw_pfile_view_pieces(&f->view, stream, total, piece, &c);
  if (f->atomic) mpisw_pool_unlock(f->pf, &e);
  if (!write && tmp && c.done > 0 && f->view.external32) {
    MPI_Aint p = 0;
    int whole = tsize > 0 ? (int)(c.done / (uint64_t)tsize) : 0;
    if (whole > 0)
      PMPI_Unpack_external("external32", tmp, (MPI_Aint)c.done, &p, buf, whole, dt);
  } else if (!write && tmp && c.done > 0) {
    mpisw_typemap_unpack(map, tmp, 0, (MPI_Count)c.done, buf, count);
  }
  free(tmp);
  mpisw_typemap_release(map);
  if (stop < 0 && c.rc == MPISW_POOL_OK)
    return mpisw_pfile_error(f, MPI_ERR_ARG, routine, "the view of %s cannot map this range",
                             f->shown);
  if (where == PFILE_INDIVIDUAL)
    f->ptr = pos + (int64_t)(c.done / (uint64_t)f->view.etype_size);
  if (status != MPI_STATUS_IGNORE) {
    status->MPI_SOURCE = MPI_UNDEFINED; /* as for the MPI's own file calls */
    status->MPI_TAG = MPI_UNDEFINED;
    status->MPI_ERROR = MPI_SUCCESS; /* the nonblocking calls' requests return it */
    PMPI_Status_set_elements_x(status, MPI_BYTE, (MPI_Count)c.done);
    PMPI_Status_set_cancelled(status, 0);
  }
  pthread_mutex_lock(&mpisw_lock);
  if (write) f->st.bytes_written += (double)c.done;
  else f->st.bytes_read += (double)c.done;
  f->st.ops++;
  f->st.seconds += now() - t0;
  pthread_mutex_unlock(&mpisw_lock);
  if (c.rc != MPISW_POOL_OK) return mpisw_pfile_pool_error(f, c.rc, routine, &c.e);
  return MPI_SUCCESS;
}

/* ---- completed requests for the nonblocking calls ---- */
static int query(void *extra, MPI_Status *status) {
  *status = *(MPI_Status *)extra;
  return MPI_SUCCESS;
}
static int release(void *extra) {
  free(extra);
  return MPI_SUCCESS;
}
static int cancel(void *extra, int complete) { return MPI_SUCCESS; }

int mpisw_pfile_done_request(const MPI_Status *st, MPI_Request *request) {
  MPI_Status *copy = malloc(sizeof *copy);
  if (!copy) return MPI_ERR_NO_MEM;
  *copy = *st;
  int rc = PMPI_Grequest_start(query, release, cancel, copy, request);
  if (rc != MPI_SUCCESS) {
    free(copy);
    return rc;
  }
  return PMPI_Grequest_complete(*request);
}
