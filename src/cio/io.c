/* The aggregator's I/O on its own descriptor of the file: whole ranges,
 * retried on short transfers and EINTR (the page cache is the one ROMIO's
 * descriptor sees, so a later ROMIO call on the handle reads these bytes). */
#include <errno.h>
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
