/*
 * storage_sync=atomic (docs/DURABILITY.md "Atomic sync").
 *   t_atomic basic B     B: mmap or pager. MPI_Win_get_info shows storage_sync=atomic,
 *                        storage_sync_scope=local and the backend; nothing reaches the file
 *                        between syncs, each sync writes what changed; the journal is gone
 *                        after the free. The same for a combined window (storage first,
 *                        offset 100) and for MPI_Alloc_mem + MPI_Win_create.
 *   t_atomic evict       the pager with room for 4 blocks of 16 KiB, a window of 16: the
 *                        written blocks it evicts between syncs do not reach the file, and
 *                        read back right (from the journal) before the sync.
 *   t_atomic crash DIR   the job is killed (SIGKILL, every rank) after a sync and more
 *                        writes; then "recreate DIR": a new window on the same files
 *                        holds exactly the synced state (tests/tools/atomic_crash.sh).
 *   t_atomic recreate DIR
 *   t_atomic full B      under tests/tools/atomic_full.sh (B: mmap or pager): the journal
 *                        does not fit the file system: the sync fails (MPISW_ERR_NOSPACE
 *                        naming the journal), the file keeps the last synced state;
 *                        given room, the next sync writes everything since.
 *   t_atomic journal     a journal a crash left with a complete commit is replayed when a
 *                        window is made on the file (any window: this one is plain), one
 *                        with a torn commit is dropped, one of other bytes is refused
 *                        (MPISW_ERR_USAGE naming the journal).
 *   t_atomic fallback    windows that cannot be atomic say so: a shared window shows
 *                        storage_sync=plain; storage_node_shared=true gives way (false).
 *   t_atomic loop DIR B [WINDIR]
 *                        for tests/tools/atomic_kill.sh and atomic_powercut.sh: syncs
 *                        forever (steps of atomic_steps.h) on WINDIR/loop-r<rank> (WINDIR:
 *                        DIR by default), appending each returned sync's number to
 *                        DIR/returned-r<rank>; DIR/pid-r<rank> once the window exists.
 *                        B "plain": a plain mmap window, the control that must tear.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_steps.h"
#include "core/journal.h"
#include "testlib.h"

static const char *journal_of(const char *path, unsigned long long off) {
  char *b = malloc(4200); /* never freed, as tl_path's */
  CHECK(b != NULL, "malloc");
  snprintf(b, 4200, "%s.mpisw-journal-%llu", path, off);
  return b;
}

static int file_is(const char *path, off_t off, size_t len, int byte) {
  char *b = malloc(len);
  int ok = tl_pread(path, off, b, len) == (ssize_t)len;
  for (size_t i = 0; ok && i < len; i++) ok = b[i] == (char)byte;
  free(b);
  return ok;
}

static void basic(const char *backend) {
  size_t pg = tl_page, n = 16 * pg;
  const char *path = tl_path("basic-r%d", tl_rank);
  char be[64];
  snprintf(be, sizeof be, "storage_backend=%s", backend);
  char *base = NULL;
  MPI_Win win;
  TL_WALLOC(n, MPI_COMM_WORLD, (void **)&base, &win, path, "storage_sync=atomic", be,
            "storage_alloc_unlink=false");
  const char *v = tl_win_info(win, "storage_sync");
  CHECK(v && !strcmp(v, "atomic"), "storage_sync is %s, not atomic", v ? v : "(none)");
  v = tl_win_info(win, "storage_sync_scope");
  CHECK(v && !strcmp(v, "local"), "storage_sync_scope is %s, not local", v ? v : "(none)");
  if (!strcmp(backend, "pager")) tl_require_pager(&win);
  v = tl_win_info(win, "storage_backend");
  CHECK(v && !strcmp(v, backend), "storage_backend is %s, not %s", v ? v : "(none)", backend);
  memset(base + 2 * pg, 'a', 2 * pg);
  TL_SYNC(win);
  CHECK(file_is(path, 2 * pg, 2 * pg, 'a'), "the synced pages are not in the file");
  memset(base + 5 * pg, 'b', pg);
  base[2 * pg + 9] = 'c';
  usleep(100000);
  CHECK(file_is(path, 5 * pg, pg, 0) && file_is(path, 2 * pg + 9, 1, 'a'),
        "bytes written after the last sync reached the file before the next sync");
  CHECK(tl_exists(journal_of(path, 0)), "no journal %s next to the file", journal_of(path, 0));
  TL_SYNC(win);
  CHECK(file_is(path, 5 * pg, pg, 'b') && file_is(path, 2 * pg + 9, 1, 'c'),
        "the second sync's pages are not in the file");
  CHECK(base[2 * pg + 10] == 'a' && base[0] == 0, "the window lost its contents");
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(!tl_exists(journal_of(path, 0)), "the journal is left after the free");
  CHECK(file_is(path, 5 * pg, pg, 'b'), "the free lost the synced bytes");

  /* a combined window, storage part first, at an unaligned offset: only the
   * storage part's bytes reach the file, at that offset, and only at syncs */
  path = tl_path("combined-r%d", tl_rank);
  TL_WALLOC(n, MPI_COMM_WORLD, (void **)&base, &win, path, "storage_sync=atomic", be,
            "storage_alloc_factor=0.5", "storage_alloc_order=storage_first",
            "storage_alloc_offset=100");
  v = tl_win_info(win, "storage_sync");
  CHECK(v && !strcmp(v, "atomic"), "combined window: storage_sync is %s", v ? v : "(none)");
  off_t end = tl_file_size(path); /* the storage part: [100, end), page-split in the window */
  CHECK(end > 100 + (off_t)pg && end < 100 + (off_t)n, "combined window: file of %lld bytes",
        (long long)end);
  tl_fill(base, n, 7, 0);
  CHECK(file_is(path, 0, end, 0), "combined window: bytes reached the file before a sync");
  TL_SYNC(win);
  CHECK_FILE_PATTERN(path, 100, end - 100, 7, 0);
  CHECK(file_is(path, 0, 100, 0), "combined window: bytes before the offset were written");
  CHECK(tl_exists(journal_of(path, 100)), "no journal %s", journal_of(path, 100));
  CHECK_MPI(MPI_Win_free(&win));

  /* MPI_Alloc_mem on storage exposed by MPI_Win_create: the same */
  path = tl_path("mem-r%d", tl_rank);
  MPI_Info info = tl_sinfo(path, "storage_sync=atomic", be, NULL);
  char *mem = NULL;
  CHECK_MPI(MPI_Alloc_mem((MPI_Aint)(8 * pg), info, &mem));
  MPI_Info_free(&info);
  CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)(8 * pg), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  memset(mem + pg, 'm', pg);
  CHECK(file_is(path, pg, pg, 0), "MPI_Alloc_mem: bytes reached the file before a sync");
  TL_SYNC(win);
  CHECK(file_is(path, pg, pg, 'm'), "MPI_Alloc_mem: the synced page is not in the file");
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Free_mem(mem));
}

static void evict(void) {
  size_t pg = tl_page, n = 64 * pg; /* 16 blocks of 16 KiB (MPISW_PAGER_BLOCK=16K) */
  const char *path = tl_path("evict-r%d", tl_rank);
  char *base = NULL;
  MPI_Win win;
  TL_WALLOC(n, MPI_COMM_WORLD, (void **)&base, &win, path, "storage_sync=atomic",
            "storage_backend=pager", "storage_pager_memory=64K");
  tl_require_pager(&win);
  for (int round = 1; round <= 3; round++) {
    tl_fill(base, n, (unsigned)round, 0); /* every block written: most are evicted */
    CHECK(tl_verify(base, n, (unsigned)round, 0) < 0, "round %d: the window reads back wrong "
          "before the sync (%s)", round, tl_describe(base, n, 0));
    if (round == 1)
      CHECK(file_is(path, 0, n, 0), "round 1: evicted blocks reached the file before a sync");
    else
      CHECK_FILE_PATTERN(path, 0, n, (unsigned)round - 1, 0);
    TL_SYNC(win);
    CHECK_FILE_PATTERN(path, 0, n, (unsigned)round, 0);
  }
  CHECK_MPI(MPI_Win_free(&win));
}

/* First half: sync state A (pages 1-2 'A'), then write B (pages 2-4 'B') and die. */
static const char *crash_file(const char *dir) {
  char *b = malloc(4200); /* never freed, as tl_path's */
  CHECK(b != NULL, "malloc");
  snprintf(b, 4200, "%s/crash-r%d", dir, tl_rank);
  return b;
}

static void crash(const char *dir) {
  size_t pg = tl_page;
  char *base = NULL;
  MPI_Win win;
  TL_WALLOC(8 * pg, MPI_COMM_WORLD, (void **)&base, &win, crash_file(dir), "storage_sync=atomic");
  memset(base + pg, 'A', 2 * pg);
  TL_SYNC(win);
  memset(base + 2 * pg, 'B', 3 * pg);
  MPI_Barrier(MPI_COMM_WORLD);
  raise(SIGKILL);
}

static void recreate(const char *dir) {
  size_t pg = tl_page;
  char *base = NULL;
  MPI_Win win;
  TL_WALLOC(8 * pg, MPI_COMM_WORLD, (void **)&base, &win, crash_file(dir), "storage_sync=atomic");
  for (size_t i = 0; i < 8 * pg; i++) {
    char want = i >= pg && i < 3 * pg ? 'A' : 0;
    CHECK(base[i] == want, "byte %zu is %d, the last synced state has %d", i, base[i], want);
  }
  CHECK_MPI(MPI_Win_free(&win));
}

/* Writes a committed journal of 'N' over pages 2-3 of path's first 16
 * pages; damage: 1 flips a byte of its body. */
static void left_journal(const char *path, uint64_t roff, uint64_t rlen, int damage) {
  struct mpisw_journal j;
  struct mpisw_error e;
  char *buf = malloc(2 * tl_page);
  memset(buf, 'N', 2 * tl_page);
  CHECK(mpisw_journal_open(&j, journal_of(path, roff), roff, rlen, 6, &e) == 0, "%s", e.msg);
  CHECK(mpisw_journal_add(&j, 2 * tl_page, buf, 2 * tl_page, &e) != NULL, "%s", e.msg);
  CHECK(mpisw_journal_commit(&j, &e) == 0, "%s", e.msg);
  if (damage) {
    char b = 0;
    CHECK(pread(j.fd, &b, 1, MPISW_JOURNAL_HEAD + 100) == 1, "pread");
    b ^= 1;
    CHECK(pwrite(j.fd, &b, 1, MPISW_JOURNAL_HEAD + 100) == 1, "pwrite");
  }
  mpisw_journal_close(&j, 0);
  free(buf);
}

static void journal(void) {
  size_t pg = tl_page, n = 16 * pg;
  const char *path = tl_path("journal-r%d", tl_rank);
  for (int damage = 0; damage < 2; damage++) {
    tl_write_pattern_file(path, 0, n, 1, 0600);
    left_journal(path, 0, n, damage);
    char *base;
    MPI_Win win;
    TL_WALLOC(n, MPI_COMM_WORLD, (void **)&base, &win, path); /* plain: recovery is for every window */
    for (size_t i = 0; i < n; i++) {
      int in = !damage && i >= 2 * pg && i < 4 * pg;
      char want = in ? 'N' : (char)tl_pat(1, i);
      CHECK(base[i] == want, "%s journal: byte %zu is %d, not %d", damage ? "torn" : "complete",
            i, base[i], want);
    }
    CHECK_MPI(MPI_Win_free(&win));
  }
  /* a committed journal of bytes [0, 16 pages): a window on [0, 8 pages) cannot replay it */
  left_journal(path, 0, n, 0);
  MPI_Info info = tl_sinfo(path, NULL);
  char *base = NULL;
  MPI_Win win;
  int rc = MPI_Win_allocate(8 * pg, 1, info, MPI_COMM_WORLD, &base, &win);
  MPI_Info_free(&info);
  EXPECT_ERR(rc, MPISW_ERR_USAGE, "mpisw-journal-0", "outside this window");
  TL_WALLOC(n, MPI_COMM_WORLD, (void **)&base, &win, path);
  CHECK(base[2 * pg] == 'N', "the journal was not replayed by the window of its range");
  CHECK_MPI(MPI_Win_free(&win));
}

static void full(const char *backend) {
  size_t pg = tl_page, n = 128 * pg; /* 512 KiB of a 1 MiB file system */
  const char *dir = getenv("MPISW_FULL_DIR"), *heal = getenv("MPISW_FULL_HEAL");
  CHECK(dir && heal, "MPISW_FULL_DIR is not set: run under tests/tools/atomic_full.sh");
  char path[4096], be[64];
  snprintf(path, sizeof path, "%s/full-r%d", dir, tl_rank);
  snprintf(be, sizeof be, "storage_backend=%s", backend);
  char *base = NULL;
  MPI_Win win;
  TL_WALLOC(n, MPI_COMM_WORLD, (void **)&base, &win, path, "storage_sync=atomic", be);
  if (!strcmp(backend, "pager")) {
    const char *v = tl_win_info(win, "storage_backend"); /* tmpfs: no O_DIRECT, no pager */
    if (v && strcmp(v, "pager")) {
      CHECK_MPI(MPI_Win_free(&win));
      tl_skip("the pager cannot run on a tmpfs (no O_DIRECT)");
    }
  }
  tl_fill(base, 32 * pg, 1, 0); /* a journal of 128 KiB fits */
  TL_SYNC(win);
  CHECK_FILE_PATTERN(path, 0, 32 * pg, 1, 0);
  tl_fill(base, n, 2, 0); /* one of 512 KiB does not */
  CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  int rc = MPI_Win_sync(win);
  CHECK_MPI(MPI_Win_unlock_all(win));
  EXPECT_ERR(rc, MPISW_ERR_NOSPACE, "mpisw-journal-0", "No space left");
  CHECK_FILE_PATTERN(path, 0, 32 * pg, 1, 0); /* the last synced state, whole */
  CHECK(file_is(path, 32 * pg, n - 32 * pg, 0), "a failed atomic sync wrote into the file");
  CHECK(system(heal) == 0, "%s failed", heal);
  TL_SYNC(win); /* everything written since the last good sync, this time */
  CHECK_FILE_PATTERN(path, 0, n, 2, 0);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(!tl_exists(journal_of(path, 0)), "the journal is left after the free");
}

static void fallback(void) {
  char *base = NULL;
  MPI_Win win;
  MPI_Info info = tl_sinfo(tl_path("shared"), "storage_sync=atomic", NULL);
  CHECK_MPI(MPI_Win_allocate_shared(4 * tl_page, 1, info, MPI_COMM_WORLD, &base, &win));
  MPI_Info_free(&info);
  const char *v = tl_win_info(win, "storage_sync");
  CHECK(v && !strcmp(v, "plain"), "a shared window shows storage_sync=%s", v ? v : "(none)");
  CHECK_MPI(MPI_Win_free(&win));
  TL_WALLOC(4 * tl_page, MPI_COMM_WORLD, (void **)&base, &win, tl_path("ns-r%d", tl_rank),
            "storage_sync=atomic", "storage_node_shared=true");
  v = tl_win_info(win, "storage_sync");
  CHECK(v && !strcmp(v, "atomic"), "storage_sync=%s with storage_node_shared", v ? v : "(none)");
  v = tl_win_info(win, "storage_node_shared");
  CHECK(v && !strcmp(v, "false"), "storage_node_shared=%s on an atomic window", v ? v : "(none)");
  CHECK_MPI(MPI_Win_free(&win));
}

static void loop(const char *dir, const char *backend, const char *windir) {
  size_t pg = tl_page;
  char path[4096], be[64];
  snprintf(path, sizeof path, "%s/loop-r%d", windir, tl_rank);
  snprintf(be, sizeof be, "storage_backend=%s", backend);
  char *base = NULL;
  MPI_Win win;
  /* the pager with room for half the window: evictions between syncs too;
   * "plain": today's sync, for showing that the trials can fail */
  int plain = !strcmp(backend, "plain");
  if (plain) snprintf(be, sizeof be, "storage_backend=mmap");
  TL_WALLOC(ATOMIC_PAGES * pg, MPI_COMM_WORLD, (void **)&base, &win, path,
            plain ? "storage_sync=plain" : "storage_sync=atomic", be, "storage_pager_memory=64K");
  int rfd = tl_kill_loop_files(dir);
  CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  for (int k = 1;; k++) {
    int p[ATOMIC_CHANGE];
    atomic_step_pages(tl_rank, k, p);
    for (int i = 0; i < ATOMIC_CHANGE; i++) memset(base + p[i] * pg, atomic_step_byte(k), pg);
    CHECK_MPI(MPI_Win_sync(win));
    CHECK(write(rfd, &k, sizeof k) == sizeof k, "cannot record sync %d", k);
  }
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "loop") && argc > 3) loop(argv[2], argv[3], argc > 4 ? argv[4] : argv[2]);
  if (!strcmp(mode, "crash") && argc > 2) crash(argv[2]);
  if (!strcmp(mode, "recreate") && argc > 2) {
    recreate(argv[2]);
    return tl_finish();
  }
  tl_scratch();
  if (!strcmp(mode, "basic")) basic(argc > 2 ? argv[2] : "mmap");
  else if (!strcmp(mode, "journal")) journal();
  else if (!strcmp(mode, "evict")) evict();
  else if (!strcmp(mode, "full")) full(argc > 2 ? argv[2] : "mmap");
  else if (!strcmp(mode, "fallback")) fallback();
  else CHECK(0, "unknown mode '%s'", mode);
  return tl_finish();
}
