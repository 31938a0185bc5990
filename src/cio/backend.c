/* Where the engine's calls on a file land, chosen at open: an ordinary
 * file's handle is the MPI's and its bytes go through our own descriptor
 * (pwrite/pread; the page cache is the one ROMIO's descriptor sees, so a
 * later ROMIO call on the handle reads these bytes); a pooled file's handle
 * and bytes are pfile's (its calls, and whole ranges through the pool). */
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "cio/engine.h"
#include "core/storage.h"
#include "pfile/pfile.h"

/* ---- ordinary files ---- */
static int fd_write(struct cio_file *f, const void *buf, size_t len, MPI_Offset off) {
  return mpisw_pwrite_all(f->fd, buf, len, (uint64_t)off);
}

static int fd_writev(struct cio_file *f, struct iovec *iov, int n, MPI_Offset off) {
  return mpisw_pwritev_all(f->fd, iov, n, (uint64_t)off);
}

static int fd_read(struct cio_file *f, void *buf, size_t len, MPI_Offset off) {
  uint64_t got;
  int err = mpisw_pread_upto(f->fd, buf, len, (uint64_t)off, &got);
  if (!err && got < len) /* past the end of the file: zeros, as ROMIO's buffer holds */
    memset((char *)buf + got, 0, len - got);
  return err;
}

static int mpi_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype ftype,
                        const char *datarep, MPI_Info info) {
  return mpisw_next.File_set_view(fh, disp, etype, ftype, datarep, info);
}
static int mpi_get_info(MPI_File fh, MPI_Info *info) { return mpisw_next.File_get_info(fh, info); }
static int mpi_set_info(MPI_File fh, MPI_Info info) { return mpisw_next.File_set_info(fh, info); }
static int mpi_set_atomicity(MPI_File fh, int flag) {
  return mpisw_next.File_set_atomicity(fh, flag);
}
static int mpi_get_position(MPI_File fh, MPI_Offset *pos) {
  return mpisw_next.File_get_position(fh, pos);
}
static int mpi_seek(MPI_File fh, MPI_Offset off, int whence) {
  return mpisw_next.File_seek(fh, off, whence);
}
static int mpi_call_errhandler(MPI_File fh, int code) {
  return mpisw_next.File_call_errhandler(fh, code);
}
static int mpi_close(MPI_File *fh) { return mpisw_next.File_close(fh); }

const struct cio_backend mpisw_cio_fd_backend = {
    "pwrite",     "pread",          1, fd_write, fd_writev, fd_read, mpi_set_view,
    mpi_get_info, mpi_set_info,     mpi_set_atomicity, mpi_get_position, mpi_seek,
    mpi_call_errhandler, mpi_close};

/* ---- pooled files ---- */
static int pool_write(struct cio_file *f, const void *buf, size_t len, MPI_Offset off) {
  struct mpisw_error e = {0, ""};
  int err = mpisw_pfile_write_range(f->fh, buf, len, off, &e);
  if (err) snprintf(f->io_msg, sizeof f->io_msg, "%s", e.msg);
  return err;
}

static int pool_read(struct cio_file *f, void *buf, size_t len, MPI_Offset off) {
  struct mpisw_error e = {0, ""};
  int err = mpisw_pfile_read_range(f->fh, buf, len, off, &e);
  if (err) snprintf(f->io_msg, sizeof f->io_msg, "%s", e.msg);
  return err;
}

static int pool_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype ftype,
                         const char *datarep, MPI_Info info) {
  return mpisw_pfile_File_set_view(fh, disp, etype, ftype, datarep, info);
}

const struct cio_backend mpisw_cio_pool_backend = {
    "pool write", "pool read", 0 /* RMA on the pool: MPI */, pool_write, NULL, pool_read,
    pool_set_view,
    mpisw_pfile_File_get_info, mpisw_pfile_File_set_info, mpisw_pfile_File_set_atomicity,
    mpisw_pfile_File_get_position, mpisw_pfile_File_seek, mpisw_pfile_File_call_errhandler,
    mpisw_pfile_close};
