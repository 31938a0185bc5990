/* After kill -9 of an atomic-sync loop (t_atomic loop, atomic_kill.sh):
 * for each rank, recovers its file's journal as window creation does
 * (mpisw_journal_recover, core/journal.c) and checks that the file holds
 * exactly the state after the last sync that returned (its number is the
 * last int in returned-r<rank>), or after the one in flight when that one
 * had reached its commit. MPI-free: no job per check.
 *   atomic_check DIR NRANKS [WINDIR]   files in WINDIR (default DIR); exit 0 ok,
 *                                      1 a file holds no synced state */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_steps.h"
#include "core/journal.h"
#include "core/storage.h"

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4) {
    fprintf(stderr, "usage: atomic_check DIR NRANKS [WINDIR]\n");
    return 2;
  }
  size_t page = mpisw_page_size(), n = ATOMIC_PAGES * page;
  char *want = malloc(n), *have = malloc(n);
  int bad = 0;
  for (int r = 0; r < atoi(argv[2]); r++) {
    char path[4096], jp[4200], ret[4096];
    snprintf(path, sizeof path, "%s/loop-r%d", argc > 3 ? argv[3] : argv[1], r);
    snprintf(ret, sizeof ret, "%s/returned-r%d", argv[1], r);
    int last = 0, k, fd = open(ret, O_RDONLY);
    while (fd >= 0 && read(fd, &k, sizeof k) == sizeof k) last = k;
    if (fd >= 0) close(fd);
    fd = open(path, O_RDWR);
    if (fd < 0) { /* killed before its window existed */
      printf("rank %d: no file (killed before the window was made)\n", r);
      continue;
    }
    struct mpisw_error e;
    int what = 0;
    if (mpisw_journal_name(path, 0, jp, sizeof jp, &e) ||
        mpisw_journal_recover(jp, fd, 0, n, &what, NULL, &e)) {
      printf("rank %d: recovery failed: %s\n", r, e.msg);
      bad = 1;
      close(fd);
      continue;
    }
    memset(have, 0, n); /* a file not grown yet reads as zeros */
    if (pread(fd, have, n, 0) < 0) bad = 1;
    close(fd);
    const char *whats[] = {"no journal", "journal applied", "journal replayed",
                           "journal discarded"};
    atomic_state_after(r, last, want, page);
    if (!memcmp(have, want, n)) {
      printf("rank %d: state %d (last returned; %s)\n", r, last, whats[what]);
      continue;
    }
    atomic_state_after(r, last + 1, want, page);
    if (!memcmp(have, want, n)) {
      printf("rank %d: state %d (in flight, committed; %s)\n", r, last + 1, whats[what]);
      continue;
    }
    size_t at = 0;
    while (at < n && have[at] == want[at]) at++;
    printf("rank %d: FAIL: the file is neither state %d nor %d (first difference at page %zu; "
           "%s)\n", r, last, last + 1, at / page, whats[what]);
    bad = 1;
  }
  free(want);
  free(have);
  return bad;
}
