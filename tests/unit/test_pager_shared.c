/* A shared pager range (mpisw_pager_opts.shared, src/pager/pager_shared.c)
 * without MPI: the range is a memfd another mapping sees (as a peer rank's
 * node-shared window does), loaded whole at the start (the file's bytes
 * through the second mapping, before anyone touched the range), never
 * evicted; bytes written through the second mapping, which the pager's
 * write-protection cannot see, and through the range itself are in the
 * file after a sync, down to one byte in one block; a range larger than the
 * pager's memory is refused. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "pager/pager.h"

#define BLOCK (64u << 10)
#define LEN (16 * BLOCK + 4096) /* 17 blocks, the last one short */

static char path[256];

static unsigned char pattern(uint64_t i, unsigned seed) {
  return (unsigned char)((i * 2654435761u) >> 13) ^ (unsigned char)seed;
}

static int file_matches(const unsigned char *want, uint64_t len) {
  unsigned char *f = malloc(len);
  int fd = open(path, O_RDONLY);
  int ok = f && fd >= 0 && pread(fd, f, len, 0) == (ssize_t)len && memcmp(f, want, len) == 0;
  if (fd >= 0) close(fd);
  free(f);
  return ok;
}

static struct mpisw_pager *start(char *a, int fd, uint64_t memory, struct mpisw_error *e) {
  struct mpisw_pager_opts o = {.block = BLOCK, .memory = memory, .workers = 2,
                               .readahead = -1, .shared = 1};
  return mpisw_pager_start(a, LEN, fd, 0, 0, LEN, LEN, &o, e);
}

int main(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(path, sizeof path, "%s/mpisw-test-pager-shared-%ld", tmp ? tmp : "/tmp",
           (long)getpid());
  struct mpisw_error e;
  if (mpisw_pager_probe(&e)) {
    printf("SKIP: the pager cannot run here: %s\n", e.msg);
    return 77;
  }
  unsigned char *want = malloc(LEN);
  for (uint64_t i = 0; i < LEN; i++) want[i] = pattern(i, 3);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0 && pwrite(fd, want, LEN, 0) == LEN && fsync(fd) == 0);
  char *a = mmap(NULL, LEN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

  /* too large for its memory (4 blocks at least, here asked 4): refused */
  CHECK(start(a, fd, 4 * BLOCK, &e) == NULL);

  struct mpisw_pager *pg = start(a, fd, 32 * BLOCK, &e);
  CHECK(pg != NULL);
  if (!pg) {
    fprintf(stderr, "pager_start: %s\n", e.msg);
    return check_summary("test_pager_shared");
  }
  int mfd = mpisw_pager_shared_fd(pg);
  CHECK(mfd >= 0);
  /* the "peer": a second mapping of the memfd, which sees the file's bytes
   * without touching the range first (every block was loaded at start) */
  unsigned char *peer = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
  CHECK(peer != MAP_FAILED);
  CHECK(memcmp(peer, want, LEN) == 0);

  /* the peer writes a run across two blocks and one byte in another; the
   * range's own write in a third */
  memset(peer + 3 * BLOCK - 100, 0x5A, 300);
  memset(want + 3 * BLOCK - 100, 0x5A, 300);
  peer[9 * BLOCK + 17] ^= 0xFF;
  want[9 * BLOCK + 17] ^= 0xFF;
  a[LEN - 1] = 0x11;
  want[LEN - 1] = 0x11;
  CHECK(memcmp(a, peer, LEN) == 0); /* one memory */
  CHECK(mpisw_pager_sync(pg, &e) == 0);
  CHECK(file_matches(want, LEN));

  /* a second sync writes nothing new; a later peer write is found again */
  struct mpisw_pager_stats s0, s1;
  mpisw_pager_get_stats(pg, &s0);
  CHECK(mpisw_pager_sync(pg, &e) == 0);
  mpisw_pager_get_stats(pg, &s1);
  CHECK(s1.bytes_written == s0.bytes_written);
  peer[0] = (char)0x77;
  want[0] = 0x77;
  CHECK(mpisw_pager_sync(pg, &e) == 0);
  CHECK(file_matches(want, LEN));
  mpisw_pager_get_stats(pg, &s1);
  CHECK(s1.evictions == 0 && s1.loads == 17);

  munmap(peer, LEN);
  mpisw_pager_stop(pg);
  munmap(a, LEN);
  close(fd);
  unlink(path);
  free(want);
  return check_summary("test_pager_shared");
}
