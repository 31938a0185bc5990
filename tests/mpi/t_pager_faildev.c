/*
 * The pager on a device whose writes fail (issue 13), under
 * tests/tools/faildev.sh: once broken (MPISW_FAILDEV_BREAK) the device
 * fails every write to a block never written before, until healed
 * (MPISW_FAILDEV_HEAL). Each rank's window is 16 MiB of the device at
 * offset rank*16M; its first 4 MiB are written and synced before the break,
 * so they still take writes afterwards, the rest does not.
 *   evict     1 MiB of pager memory: filling the window must not hang
 *             although most evictions cannot write (those blocks stay in
 *             memory beyond the budget); every sync reports the error, the
 *             window keeps every byte; once the device is healed the next
 *             sync succeeds and the device holds the data
 *   evict_free     the same, but MPI_Win_free reports the error
 *   noevict   as evict with memory for the whole window (only syncs write)
 *   noevict_free   MPI_Win_free, never synced after the break, reports it
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

/* Rank 0 runs the device's break or heal command; the others wait. */
static void device(const char *var) {
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every rank is done with the device as it was */
  if (tl_rank == 0) CHECK(system(getenv(var)) == 0, "%s failed: %s", var, getenv(var));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  const char *dev = getenv("MPISW_FAILDEV");
  CHECK(dev && *dev && getenv("MPISW_FAILDEV_BREAK") && getenv("MPISW_FAILDEV_HEAL"),
        "run under tests/tools/faildev.sh (MPISW_FAILDEV, MPISW_FAILDEV_BREAK, _HEAL)");
  int evict = !strncmp(mode, "evict", 5);
  int end_in_free = strstr(mode, "_free") != NULL;
  CHECK(evict || !strncmp(mode, "noevict", 7), "unknown mode '%s'", mode);
  char off[64];
  snprintf(off, sizeof off, "storage_alloc_offset=%lld", (long long)tl_rank * WS);
  unsigned char *base;
  MPI_Win win;
  TL_WALLOC(WS, MPI_COMM_WORLD, (void **)&base, &win, dev, off, "storage_backend=pager",
            evict ? "storage_pager_memory=1M" : "storage_pager_memory=64M");
  tl_require_pager(&win);
  tl_fill(base, WS / 4, 40 + (unsigned)tl_rank, 0);
  CHECK_MPI(sync_rc(win)); /* the device has these blocks now */
  CHECK_FILE_PATTERN(dev, (off_t)tl_rank * WS, WS / 4, 40 + (unsigned)tl_rank, 0);
  device("MPISW_FAILDEV_BREAK");
  unsigned seed = 50 + (unsigned)tl_rank;
  tl_fill(base, WS, seed, 0); /* evict: writes back, and mostly fails, all along */
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
  device("MPISW_FAILDEV_HEAL");
  CHECK_MPI(sync_rc(win));
  CHECK_FILE_PATTERN(dev, (off_t)tl_rank * WS, WS, seed, 0);
  check_window(base, seed, "after the successful sync");
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_FILE_PATTERN(dev, (off_t)tl_rank * WS, WS, seed, 0);
  return tl_finish();
}
