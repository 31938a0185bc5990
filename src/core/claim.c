#include "core/claim.h"

#include "core/path.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int mpisw_claim_range(int fd, const char *path, uint64_t off, uint64_t len,
                      struct mpisw_error *e) {
  if (fd < 0 || len == 0) return 0; /* l_len 0 would mean "to the end of the file" */
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = (off_t)off;
  fl.l_len = (off_t)len;
  int rc;
  do rc = fcntl(fd, F_OFD_SETLK, &fl);
  while (rc != 0 && errno == EINTR);
  if (rc == 0) return 0;
  if (errno != EAGAIN && errno != EACCES) return 0; /* no locks here (ENOLCK, EINVAL): unchecked */
  /* short and %r early: Open MPI cuts error strings at 256 characters */
  return mpisw_fail(e, MPISW_K_USAGE,
                    "storage_alloc_filename: '%s': windows would share bytes %llu-%llu of it "
                    "(put %%r in the name, name a directory, or give each rank its own "
                    "storage_alloc_offset range); held by another rank of this window, a live "
                    "window of this node or another job",
                    path, (unsigned long long)off, (unsigned long long)(off + len));
}

void mpisw_claim_drop_orphan(struct mpisw_file *f) {
  if (!f->created || !f->claim_lost || f->unique || f->fd >= 0) return;
  f->claim_lost = 0;
  int fd = open(f->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return;
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET; /* l_start 0, l_len 0: the whole file */
  if (fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type == F_UNLCK) mpisw_path_unlink(f->path);
  close(fd);
}
