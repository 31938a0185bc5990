/* After kill -9 of a plain-sync loop (t_crash_sync loop, atomic_kill.sh):
 * each rank's file must hold at least what its last returned sync made
 * durable. S = the last step in returned-r<rank> (0: none returned). With
 * S > 0 every word of page p holds CRASH_WORD(k, p) for a step k with
 * S <= k <= S + 2 (the sync after S may have returned but not been recorded,
 * and the step after it may be half written and partly written back: plain
 * syncs are not atomic, only durable). With S = 0 a word may also still be
 * 0. MPI-free: no job per check.
 *   crash_sync_check DIR NRANKS   exit 0 ok, 1 a file lost synced data */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "crash_sync.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: crash_sync_check DIR NRANKS\n");
    return 2;
  }
  long pg = sysconf(_SC_PAGESIZE);
  size_t words = (size_t)pg / 8, n = CRASH_PAGES * words;
  uint64_t *have = malloc(n * 8);
  int bad = 0;
  for (int r = 0; r < atoi(argv[2]); r++) {
    char path[4096], ret[4096];
    snprintf(path, sizeof path, "%s/loop-r%d", argv[1], r);
    snprintf(ret, sizeof ret, "%s/returned-r%d", argv[1], r);
    uint64_t last = 0, k;
    int fd = open(ret, O_RDONLY);
    while (fd >= 0 && read(fd, &k, sizeof k) == sizeof k) last = k;
    if (fd >= 0) close(fd);
    fd = open(path, O_RDONLY);
    if (fd < 0) {
      printf("rank %d: no file (killed before the window was made)\n", r);
      continue;
    }
    ssize_t got = pread(fd, have, n * 8, 0);
    close(fd);
    if (got != (ssize_t)(n * 8)) {
      printf("rank %d: %s holds %zd bytes, the window %zu\n", r, path, got, n * 8);
      bad = 1;
      continue;
    }
    size_t wrong = 0, first = 0;
    uint64_t newest = 0;
    for (size_t i = 0; i < n; i++) {
      uint64_t p = i / words, v = have[i];
      int ok = v == 0 ? last == 0 : 0;
      for (uint64_t s = last ? last : 1; !ok && s <= last + 2; s++) ok = v == CRASH_WORD(s, p);
      if (!ok && !wrong++) first = i;
      if (v && (v >> 20 & 0x7ffffffffffULL) > newest) newest = v >> 20 & 0x7ffffffffffULL;
    }
    if (wrong) {
      printf("rank %d: %zu words lost synced data (state %llu returned): the first, word %zu of "
             "page %zu, holds 0x%llx\n", r, wrong, (unsigned long long)last, first % words,
             first / words, (unsigned long long)have[first]);
      bad = 1;
    } else {
      printf("rank %d: state %llu returned, the file holds it or newer (up to step %llu)%s\n", r,
             (unsigned long long)last, (unsigned long long)newest,
             newest > last ? ", in flight" : "");
    }
  }
  free(have);
  return bad;
}
