/* Stage in and drain: a pooled file loaded from a real file at open
 * (hint mpisw_stage_in=PATH) and written to a real file at close
 * (mpisw_drain=PATH), in parallel: the file is cut in chunks of its stripe
 * unit, and each chunk is moved by the rank of the communicator that holds
 * it in the pool when there is one, else by the ranks in turn. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/storage.h"
#include "pfile/internal.h"

#define CHUNK (8u << 20)
#define PROGRESS_BYTES (1ull << 30) /* a progress line per GiB of large drains */

/* The rank of f->comm that moves the chunk at off. */
static int mover(struct mpisw_pfile *f, uint64_t off, uint64_t index, const int *world_of) {
  int owner = -1;
  uint64_t run = 0;
  if (mpisw_pool_owner(f->pf, off, &owner, &run) == 0)
    for (int r = 0; r < f->size; r++)
      if (world_of[r] == owner) return r;
  return (int)(index % (uint64_t)f->size);
}

static int *world_ranks(struct mpisw_pfile *f) {
  int *w = malloc(sizeof(int) * (size_t)f->size);
  if (!w) return NULL;
  int me = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &me);
  PMPI_Allgather(&me, 1, MPI_INT, w, 1, MPI_INT, f->comm);
  return w;
}

int mpisw_pfile_stage_in(struct mpisw_pfile *f, const char *path) {
  static const char *R = "MPI_File_open";
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return mpisw_pfile_error(NULL, errno == ENOENT ? MPI_ERR_NO_SUCH_FILE : MPI_ERR_ACCESS, R,
                             "mpisw_stage_in=%s: %s", path, strerror(errno));
  struct stat sb;
  fstat(fd, &sb);
  int *world_of = world_ranks(f);
  char *buf = malloc(CHUNK);
  int code = MPI_SUCCESS;
  struct mpisw_error e;
  if (!world_of || !buf) code = mpisw_pfile_error(NULL, MPI_ERR_NO_MEM, R, "no memory to stage in");
  uint64_t size = (uint64_t)sb.st_size, index = 0;
  for (uint64_t off = 0; code == MPI_SUCCESS && off < size; off += CHUNK, index++) {
    if (mover(f, off, index, world_of) != f->rank) continue;
    uint64_t n = size - off < CHUNK ? size - off : CHUNK;
    ssize_t got = pread(fd, buf, n, (off_t)off);
    if (got != (ssize_t)n) {
      code = mpisw_pfile_error(NULL, MPI_ERR_IO, R, "mpisw_stage_in=%s: read at %llu: %s", path,
                               (unsigned long long)off, got < 0 ? strerror(errno) : "short read");
      break;
    }
    int prc = mpisw_pool_write(f->pf, off, buf, n, &e);
    if (prc != MPISW_POOL_OK) code = mpisw_pfile_pool_error(NULL, prc, R, &e);
  }
  if (code == MPI_SUCCESS && f->rank == 0) { /* the size, also of an empty file */
    int prc = mpisw_pool_set_size(f->pf, size, &e);
    if (prc != MPISW_POOL_OK) code = mpisw_pfile_pool_error(NULL, prc, R, &e);
  }
  if (code == MPI_SUCCESS) {
    int prc = mpisw_pool_sync(f->pf, &e);
    if (prc != MPISW_POOL_OK) code = mpisw_pfile_pool_error(NULL, prc, R, &e);
  }
  close(fd);
  free(buf);
  free(world_of);
  if (f->size > 1) PMPI_Barrier(f->comm);
  return code;
}

int mpisw_pfile_drain(struct mpisw_pfile *f, const char *path) {
  static const char *R = "MPI_File_close";
  struct mpisw_error e;
  uint64_t size = 0;
  int code = MPI_SUCCESS, fd = -1;
  int prc = mpisw_pool_get_size(f->pf, &size, &e);
  if (prc != MPISW_POOL_OK) return mpisw_pfile_pool_error(f, prc, R, &e);
  /* rank 0 makes the file at its final size; then everyone writes its chunks */
  int made = 0;
  if (f->rank == 0) {
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    made = fd >= 0 && ftruncate(fd, (off_t)size) == 0;
    if (!made) made = -errno;
    if (fd >= 0) close(fd);
  }
  if (f->size > 1) PMPI_Bcast(&made, 1, MPI_INT, 0, f->comm);
  if (made <= 0)
    return mpisw_pfile_error(f, MPI_ERR_ACCESS, R, "mpisw_drain=%s: %s", path, strerror(-made));
  fd = open(path, O_WRONLY | O_CLOEXEC);
  int *world_of = world_ranks(f);
  char *buf = malloc(CHUNK);
  if (fd < 0 || !world_of || !buf)
    code = mpisw_pfile_error(f, MPI_ERR_IO, R, "mpisw_drain=%s: cannot write it", path);
  double t0 = mpisw_now();
  uint64_t index = 0, mine = 0;
  for (uint64_t off = 0; code == MPI_SUCCESS && off < size; off += CHUNK, index++) {
    if (mover(f, off, index, world_of) != f->rank) continue;
    uint64_t n = size - off < CHUNK ? size - off : CHUNK, got = 0;
    prc = mpisw_pool_read(f->pf, off, buf, n, &got, &e);
    if (prc != MPISW_POOL_OK) {
      code = mpisw_pfile_pool_error(f, prc, R, &e);
      break;
    }
    if (got < n) memset(buf + got, 0, n - got);
    int err = mpisw_pwrite_all(fd, buf, n, off);
    if (err) {
      code = mpisw_pfile_error(f, MPI_ERR_IO, R, "mpisw_drain=%s: write at %llu: %s", path,
                               (unsigned long long)off, strerror(err));
      break;
    }
    mine += n;
    if (f->rank == 0 && size >= PROGRESS_BYTES && mine / PROGRESS_BYTES != (mine - n) / PROGRESS_BYTES)
      fprintf(stderr, "mpisw: draining %s to %s: rank 0 wrote %.1f GiB of its share (%.0f s)\n",
              f->shown, path, (double)mine / (1 << 30), mpisw_now() - t0);
  }
  if (code == MPI_SUCCESS && fd >= 0 && fsync(fd) != 0)
    code = mpisw_pfile_error(f, MPI_ERR_IO, R, "mpisw_drain=%s: fsync: %s", path, strerror(errno));
  if (fd >= 0) close(fd);
  free(buf);
  free(world_of);
  if (f->size > 1) PMPI_Barrier(f->comm);
  return code;
}
