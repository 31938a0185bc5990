/*
 * kill -9 right after MPI_Win_sync (plain sync), both backends: what a sync
 * made durable survives the process (README "Durability": bytes not yet
 * synced, when the process dies).
 *   t_crash_sync loop DIR B   B: mmap or pager. A storage window of
 *                             CRASH_PAGES pages on DIR/loop-r<rank>; step
 *                             k = 1, 2, ... fills every page (word i of page
 *                             p holds CRASH_WORD(k, p)), MPI_Win_sync, then
 *                             appends k to DIR/returned-r<rank>;
 *                             DIR/pid-r<rank> once the window exists. The
 *                             pager keeps a quarter of the window in memory,
 *                             so evictions write back between syncs too.
 * Driven by tests/tools/atomic_kill.sh, checked by crash_sync_check.c.
 * CRASH_SYNC_CONTROL=1 in the environment records steps without syncing:
 * the control that shows the check can fail (the pager then loses them).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crash_sync.h"
#include "testlib.h"

static void loop(const char *dir, const char *backend) {
  size_t pg = tl_page;
  char path[4096], be[64], mem[64];
  snprintf(path, sizeof path, "%s/loop-r%d", dir, tl_rank);
  snprintf(be, sizeof be, "storage_backend=%s", backend);
  snprintf(mem, sizeof mem, "storage_pager_memory=%zu", CRASH_PAGES * pg / 4);
  uint64_t *base = NULL;
  MPI_Win win;
  TL_WALLOC(CRASH_PAGES * pg, MPI_COMM_WORLD, (void **)&base, &win, path, be, mem);
  if (!strcmp(backend, "pager")) tl_require_pager(&win);
  const char *got = tl_win_info(win, "storage_backend");
  CHECK(got && !strcmp(got, backend), "storage_backend=%s asked, %s in effect", backend,
        got ? got : "(none)");
  int rfd = tl_kill_loop_files(dir);
  size_t words = pg / sizeof *base;
  CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  for (uint64_t k = 1;; k++) {
    for (size_t p = 0; p < CRASH_PAGES; p++)
      for (size_t i = 0; i < words; i++) base[p * words + i] = CRASH_WORD(k, p);
    if (!getenv("CRASH_SYNC_CONTROL")) CHECK_MPI(MPI_Win_sync(win));
    CHECK(write(rfd, &k, sizeof k) == sizeof k, "cannot record sync %llu", (unsigned long long)k);
  }
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  if (argc > 3 && !strcmp(argv[1], "loop")) loop(argv[2], argv[3]);
  fprintf(stderr, "usage: t_crash_sync loop DIR mmap|pager\n");
  return 2;
}
