/* The file methods' shared steps, done by rank 0 with MPI-IO on
 * MPI_COMM_SELF (on a real path or a mem: name alike):
 *   prepare: the file emptied and its header marked incomplete, before any
 *            section is written, so a checkpoint that fails half-way is
 *            never taken for a complete one;
 *   commit:  the complete header written and synced after every section is
 *            durable;
 *   header:  read and checked before a restart. */
#include <stdio.h>
#include <string.h>

#include "hacc_io.h"

static int write_header(const char *path, const struct hacc_header *h, int truncate,
                        char *why, size_t n) {
  MPI_File f;
  int err = MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                          MPI_INFO_NULL, &f);
  if (err != MPI_SUCCESS) {
    hacc_mpi_why(err, "cannot create the checkpoint file", why, n);
    return HACC_IO_ERROR;
  }
  char page[HACC_HEADER_BYTES] = {0};
  memcpy(page, h, sizeof *h);
  const char *what = "cannot empty the checkpoint file";
  if (truncate) err = MPI_File_set_size(f, 0);
  if (err == MPI_SUCCESS) {
    what = "cannot write the checkpoint file's header";
    err = MPI_File_write_at(f, 0, page, (int)sizeof page, MPI_BYTE, MPI_STATUS_IGNORE);
  }
  if (err == MPI_SUCCESS) {
    what = "cannot sync the checkpoint file's header";
    err = MPI_File_sync(f);
  }
  int cerr = MPI_File_close(&f);
  if (err == MPI_SUCCESS && cerr != MPI_SUCCESS) err = cerr, what = "cannot close the file";
  if (err != MPI_SUCCESS) {
    hacc_mpi_why(err, what, why, n);
    return HACC_IO_ERROR;
  }
  return 0;
}

int hacc_file_prepare(const struct hacc_options *o, char *why, size_t n) {
  int rc = 0;
  if (hacc_rank() == 0) {
    struct hacc_header h;
    hacc_header_make(&h, o->particles, hacc_nranks(), 0, 0);
    rc = write_header(o->path, &h, 1, why, n);
  }
  return rc;
}

int hacc_file_commit(const struct hacc_options *o, uint64_t total, int p, int step, char *why,
                     size_t n) {
  int rc = 0;
  if (hacc_rank() == 0) {
    struct hacc_header h;
    hacc_header_make(&h, total, p, step, 1);
    rc = write_header(o->path, &h, 0, why, n);
  }
  return rc;
}

int hacc_file_header(const struct hacc_options *o, struct hacc_header *h, char *why, size_t n) {
  int rc = 0;
  memset(h, 0, sizeof *h);
  if (hacc_rank() == 0) {
    MPI_File f;
    MPI_Offset size = 0;
    int err = MPI_File_open(MPI_COMM_SELF, o->path, MPI_MODE_RDONLY, MPI_INFO_NULL, &f);
    if (err != MPI_SUCCESS) {
      hacc_mpi_why(err, "cannot open the checkpoint file", why, n);
      rc = HACC_IO_ERROR;
    } else {
      err = MPI_File_get_size(f, &size);
      if (err == MPI_SUCCESS && size >= (MPI_Offset)sizeof *h)
        err = MPI_File_read_at(f, 0, h, (int)sizeof *h, MPI_BYTE, MPI_STATUS_IGNORE);
      MPI_File_close(&f);
      if (err != MPI_SUCCESS) {
        hacc_mpi_why(err, "cannot read the checkpoint file's header", why, n);
        rc = HACC_IO_ERROR;
      } else {
        rc = hacc_header_check(h, (uint64_t)size, why, n);
      }
    }
  }
  MPI_Bcast(h, (int)sizeof *h, MPI_BYTE, 0, MPI_COMM_WORLD);
  return rc;
}
