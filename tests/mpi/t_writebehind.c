/*
 * The mmap backend's write-behind and advice (docs/DURABILITY.md
 * "Write-behind"; src/win/writebehind.c, src/core/storage.c).
 *
 *   t_writebehind on    MPISW_WRITEBEHIND=on: the thread runs while a window
 *                       exists and is gone after the free; pages written
 *                       without a sync are written back by it (the file's
 *                       dirty pages drop to 0, Linux >= 6.5 cachestat);
 *                       bytes rewritten meanwhile and synced are in the file
 *   t_writebehind off   MPISW_WRITEBEHIND=off: no thread, data still right
 *   t_writebehind advice STYLE FLAG|-   the window's mapping has VmFlags FLAG
 *                       (sr, rr) after access_style=STYLE, or neither with "-"
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testlib.h"

/* The data window's size: 8 MiB unless the test names another (the
 * sanitizer build runs in a larger cgroup, its own memory being larger). */
static size_t SIZE = 8u << 20;

/* Threads of this process named like the write-behind thread. */
static int writebehind_threads(void) {
  DIR *d = opendir("/proc/self/task");
  int n = 0;
  struct dirent *de;
  while (d && (de = readdir(d))) {
    char path[300], name[64] = "";
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", de->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    if (fgets(name, sizeof name, f) && !strncmp(name, "mpisw-wbehind", 13)) n++;
    fclose(f);
  }
  if (d) closedir(d);
  return n;
}

#ifndef SYS_cachestat
#define SYS_cachestat 451
#endif
struct cs_range { uint64_t off, len; };
struct cs { uint64_t cache, dirty, writeback, evicted, recently_evicted; };

/* Dirty pages of the file mapped at base, or -1 when the kernel cannot tell. */
static long dirty_pages(const void *base) {
  const char *fdpath = tl_file_of(base);
  CHECK(fdpath, "no descriptor of the window's file found");
  int fd = open(fdpath, O_RDONLY);
  CHECK(fd >= 0, "open %s: %s", fdpath, strerror(errno));
  struct cs_range r = {0, 0}; /* 0: to the end of the file */
  struct cs c;
  long n = syscall(SYS_cachestat, fd, &r, &c, 0) == 0 ? (long)c.dirty : -1;
  close(fd);
  return n;
}

static void data(int on) {
  char *base;
  MPI_Win win;
  CHECK(writebehind_threads() == 0, "a write-behind thread before any window");
  TL_WALLOC(SIZE, MPI_COMM_WORLD, (void **)&base, &win, tl_path("wb-r%d", tl_rank),
            "storage_backend=mmap"); /* the mmap backend's thread */
  CHECK(writebehind_threads() == on, "%d write-behind threads with the window, want %d",
        writebehind_threads(), on);
  tl_fill(base, SIZE, 1, 0);
  if (on) {
    /* No sync: only the thread (every 10 ms) starts these pages' write-back;
     * the kernel's own flusher would wait 30 s (dirty_expire_centisecs). */
    long dirty = dirty_pages(base);
    for (int i = 0; i < 1000 && dirty > 0; i++) {
      usleep(10000);
      dirty = dirty_pages(base);
    }
    if (dirty < 0) tl_log("cachestat not available: write-back not observed\n");
    CHECK(dirty <= 0, "%ld pages still dirty 10 s after they were written", dirty);
  }
  /* Rewritten while (or after) the thread wrote them: the sync must still
   * carry the new bytes to the file. */
  tl_fill(base, SIZE / 2, 2, 0);
  TL_SYNC(win);
  CHECK_FILE_PATTERN(tl_path("wb-r%d", tl_rank), 0, SIZE / 2, 2, 0);
  CHECK_FILE_PATTERN(tl_path("wb-r%d", tl_rank), SIZE / 2, SIZE / 2, 1, SIZE / 2);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(writebehind_threads() == 0, "the write-behind thread outlives the last window");
}

static void advice(const char *style, const char *flag) {
  char *base;
  MPI_Win win;
  char kv[128];
  snprintf(kv, sizeof kv, "access_style=%s", style);
  TL_WALLOC(SIZE, MPI_COMM_WORLD, (void **)&base, &win, tl_path("adv-r%d", tl_rank), kv,
            "storage_backend=mmap");
  const char *flags = tl_vmflags(base);
  int sr = strstr(flags, " sr") != NULL || !strncmp(flags, "sr", 2);
  int rr = strstr(flags, " rr") != NULL || !strncmp(flags, "rr", 2);
  if (!strcmp(flag, "-")) CHECK(!sr && !rr, "access_style=%s: VmFlags '%s' advise", style, flags);
  else if (!strcmp(flag, "sr")) CHECK(sr && !rr, "access_style=%s: VmFlags '%s' lack sr", style, flags);
  else CHECK(rr && !sr, "access_style=%s: VmFlags '%s' lack rr", style, flags);
  CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  if (argc >= 3 && (!strcmp(argv[1], "on") || !strcmp(argv[1], "off")))
    SIZE = (size_t)strtoull(argv[2], NULL, 10) << 20; /* MiB */
  if (argc >= 5 && !strcmp(argv[1], "advice")) SIZE = (size_t)strtoull(argv[4], NULL, 10) << 20;
  if (argc >= 2 && !strcmp(argv[1], "on")) data(1);
  else if (argc >= 2 && !strcmp(argv[1], "off")) data(0);
  else if (argc >= 4 && !strcmp(argv[1], "advice")) advice(argv[2], argv[3]);
  else CHECK(0, "usage: t_writebehind on|off [MiB] | advice STYLE FLAG [MiB]");
  return tl_finish();
}
