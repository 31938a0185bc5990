/* Cold restarts: a rank's byte range of a file written back and dropped from
 * the page cache (posix_fadvise POSIX_FADV_DONTNEED, which works without
 * root and touches no other file, unlike /proc/sys/vm/drop_caches), and the
 * bytes of a range still cached (mincore), to show that it worked.
 * Settling (--settle): the file system's pending work finished before a
 * timed phase, so each phase starts from the same quiet device. */
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hacc_io.h"

int64_t hacc_cache_resident(const char *path, uint64_t off, uint64_t len) {
  if (len == 0) return 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  long page = sysconf(_SC_PAGESIZE);
  uint64_t start = off / (uint64_t)page * (uint64_t)page, span = off + len - start;
  void *map = mmap(NULL, span, PROT_READ, MAP_SHARED, fd, (off_t)start);
  close(fd);
  if (map == MAP_FAILED) return -1;
  size_t pages = (span + (uint64_t)page - 1) / (uint64_t)page;
  unsigned char *vec = malloc(pages);
  int64_t bytes = -1;
  if (vec && mincore(map, span, vec) == 0) {
    bytes = 0;
    for (size_t i = 0; i < pages; i++) bytes += (vec[i] & 1) ? page : 0;
  }
  free(vec);
  munmap(map, span);
  return bytes;
}

int64_t hacc_cache_drop(const char *path, uint64_t off, uint64_t len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  /* Dirty pages are not dropped: write them back first (a no-op after the
   * checkpoint's own sync). */
  fdatasync(fd);
  /* Whole pages only are dropped: widen the range to page boundaries (a
   * neighbour's page dropped too does no harm). len 0: to the end. */
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), start = off / page * page;
  uint64_t span = len ? (off + len + page - 1) / page * page - start : 0;
  int rc = posix_fadvise(fd, (off_t)start, (off_t)span, POSIX_FADV_DONTNEED);
  close(fd);
  if (rc) return -1;
  return hacc_cache_resident(path, off, len);
}

/* Why: a checkpoint that starts while the previous job's dirty pages are
 * still being written back, or while the blocks of a file it removed are
 * being discarded (ext4 mounted with discard issues them at the next
 * journal commit, up to 5 s later), pays for that work. syncfs waits for
 * both; the wait after it lets the device's own queue drain. */
void hacc_settle(const char *path, double seconds) {
  if (seconds < 0) return;
  char copy[4096];
  snprintf(copy, sizeof copy, "%s", path);
  int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    syncfs(fd); /* best effort: a phase that cannot settle is still measured */
    close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  while (nanosleep(&ts, &ts) != 0) {
  }
}
