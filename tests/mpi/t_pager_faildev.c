/*
 * The pager on a device whose writes fail (issue 13), under
 * tests/tools/faildev_pager.sh: MPISW_TEST_DEV fails writes once a few MiB
 * are used, until MPISW_TEST_FILLER is removed. Each rank's window is 16 MiB
 * of the device at offset rank*16M.
 *   evict     4 MiB of room, 1 MiB of pager memory: filling the window must
 *             not hang although evictions cannot write (the unwritable
 *             blocks stay in memory); every sync reports the error, the
 *             window keeps every byte; once the device has room the next
 *             sync succeeds and the device holds the data
 *   evict_free     the same, but MPI_Win_free reports the error
 *   noevict   as evict with memory for the whole window (only syncs write)
 *   noevict_free   MPI_Win_free, never synced before, reports the error
 *   t_pager_faildev MODE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define MIB (1024 * 1024)
#define WS (16 * MIB)

static int sync_rc(MPI_Win win) {
  CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  int rc = MPI_Win_sync(win);
  CHECK_MPI(MPI_Win_unlock_all(win));
  return rc;
}

/* The loop device reports ENOSPC (recent kernels) or EIO: either class,
 * and a message that says the write-back failed. */
static void expect_write_err(int rc, const char *what) {
  CHECK(rc != MPI_SUCCESS, "%s succeeded on a device that cannot take the data", what);
  int cls = -1, nospace = -2, io = -3;
  MPI_Error_class(rc, &cls);
  mpisw_error_class(MPISW_ERR_NOSPACE, &nospace);
  mpisw_error_class(MPISW_ERR_IO, &io);
  EXPECT_ERR(rc, cls == nospace ? MPISW_ERR_NOSPACE : MPISW_ERR_IO, "write-back", NULL);
}

static void check_window(const unsigned char *base, unsigned seed, const char *when) {
  long bad = tl_verify(base, WS, seed, 0);
  CHECK(bad < 0, "window byte %ld wrong %s: %s", bad, when,
        tl_describe(base + bad, 4096 - (size_t)bad % 4096, (size_t)bad));
}

static void make_room(void) {
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every rank's failing syncs are done */
  if (tl_rank == 0) CHECK(unlink(getenv("MPISW_TEST_FILLER")) == 0, "cannot remove the filler");
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  const char *dev = getenv("MPISW_TEST_DEV");
  CHECK(dev && *dev && getenv("MPISW_TEST_FILLER"),
        "run under tests/tools/faildev_pager.sh (MPISW_TEST_DEV, MPISW_TEST_FILLER)");
  int evict = !strncmp(mode, "evict", 5);
  int end_in_free = strstr(mode, "_free") != NULL;
  CHECK(evict || !strncmp(mode, "noevict", 7), "unknown mode '%s'", mode);
  char off[64];
  snprintf(off, sizeof off, "storage_alloc_offset=%lld", (long long)tl_rank * WS);
  unsigned char *base;
  MPI_Win win;
  TL_WALLOC(WS, MPI_COMM_WORLD, (void **)&base, &win, dev, off, "storage_backend=pager",
            evict ? "storage_pager_memory=1M" : "storage_pager_memory=64M");
  const char *b = tl_win_info(win, "storage_backend");
  if (!tl_allmin(b && !strcmp(b, "pager"))) {
    CHECK_MPI(MPI_Win_free(&win));
    tl_skip("the pager cannot run here (the window fell back to mmap)");
  }
  unsigned seed = 50 + (unsigned)tl_rank;
  tl_fill(base, WS, seed, 0); /* evict: writes back, and fails, all along */
  check_window(base, seed, "after failed write-backs");
  if (!(end_in_free && !evict)) {
    for (int k = 0; k < 2; k++) { /* the error stays until the data is written */
      int rc = sync_rc(win);
      expect_write_err(rc, "MPI_Win_sync");
    }
    check_window(base, seed, "after failed syncs");
  }
  if (end_in_free) {
    int rc = MPI_Win_free(&win);
    expect_write_err(rc, "MPI_Win_free");
    return tl_finish();
  }
  make_room();
  CHECK_MPI(sync_rc(win));
  CHECK_FILE_PATTERN(dev, (off_t)tl_rank * WS, WS, seed, 0);
  check_window(base, seed, "after the successful sync");
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_FILE_PATTERN(dev, (off_t)tl_rank * WS, WS, seed, 0);
  return tl_finish();
}
