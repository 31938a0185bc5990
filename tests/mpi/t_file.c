/*
 * The effect of each file hint on MPI_Win_allocate storage windows.
 *   t_file filename   %r %h %% expansion, %r is the rank in the window's communicator
 *   t_file directory  a directory gives a unique file per window, removed at free (kept with unlink=false)
 *   t_file offset     window bytes land at storage_alloc_offset; K/M suffixes; unaligned offset 100
 *   t_file offset_sf  unaligned offset with a combined storage_first window
 *   t_file unlink     storage_alloc_unlink true/false/default
 *   t_file discard    free with storage_alloc_discard=true succeeds, the file stays
 *   t_file perm       file_perm (umask 022) and the 0600 default, no effect on existing files
 *   t_file access     access_style and striping_* accepted (ext4 /tmp and tmpfs /dev/shm)
 *   t_file getinfo    MPI_Win_get_info reports the effective values
 *   t_file reuse      existing files: content seen, never truncated, grown, shared at offsets
 *   t_file leaks      40 allocate/free rounds (and failed ones) leave no fd, mapping or file
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"

#define WS (256 * 1024)

static const char *hostname(void) {
  static char h[256];
  if (!h[0]) {
    CHECK(gethostname(h, sizeof h - 1) == 0, "gethostname: %s", strerror(errno));
  }
  return h;
}

static void check_info_eq(MPI_Win win, const char *key, const char *want) {
  const char *v = tl_win_info(win, key);
  CHECK(v != NULL, "MPI_Win_get_info has no '%s' (expected '%s')", key, want);
  CHECK(strcmp(v, want) == 0, "MPI_Win_get_info '%s' is '%s', expected '%s'", key, v, want);
}

static long long info_ll(MPI_Win win, const char *key) {
  const char *v = tl_win_info(win, key);
  CHECK(v != NULL, "MPI_Win_get_info has no '%s'", key);
  char *end;
  errno = 0;
  long long x = strtoll(v, &end, 0);
  CHECK(errno == 0 && *v && *end == 0, "MPI_Win_get_info '%s' is '%s', not an integer", key, v);
  return x;
}

/* ---------------------------------------------------------------- */
static void test_filename(void) {
  char want[PATH_MAX];
  void *base;
  MPI_Win win;
  /* %r %h %% on MPI_COMM_WORLD */
  char tmpl[PATH_MAX];
  snprintf(tmpl, sizeof tmpl, "%s/w-%%r-%%h-100%%%%", tl_scratch());
  snprintf(want, sizeof want, "%s/w-%d-%s-100%%", tl_scratch(), tl_rank, hostname());
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, tmpl);
  CHECK(tl_exists(want), "expanded file %s does not exist (template %s)", want, tmpl);
  CHECK(tl_file_size(want) >= WS, "%s is %lld bytes, window is %d", want, (long long)tl_file_size(want), WS);
  check_info_eq(win, "storage_alloc_filename", want);
  tl_fill(base, WS, 40 + tl_rank, 0);
  TL_SYNC(win);
  CHECK_FILE_PATTERN(want, 0, WS, 40 + tl_rank, 0);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(tl_exists(want), "named file %s removed at free (default storage_alloc_unlink is false)", want);
  CHECK_FILE_PATTERN(want, 0, WS, 40 + tl_rank, 0);
  CHECK(tl_count_dir(tl_scratch(), "w-") == tl_size, "expected %d files w-*, found %d", tl_size,
        tl_count_dir(tl_scratch(), "w-"));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* %r is the rank in the window's communicator: reverse the ranks */
  MPI_Comm rev;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, tl_size - tl_rank, &rev));
  int rrank;
  MPI_Comm_rank(rev, &rrank);
  CHECK(rrank == tl_size - 1 - tl_rank, "split did not reverse ranks");
  snprintf(tmpl, sizeof tmpl, "%s/c-%%r-x%%r", tl_scratch());
  snprintf(want, sizeof want, "%s/c-%d-x%d", tl_scratch(), rrank, rrank);
  TL_WALLOC(WS, rev, &base, &win, tmpl);
  CHECK(tl_exists(want), "file %s (rank %d in the window's communicator) does not exist", want, rrank);
  check_info_eq(win, "storage_alloc_filename", want);
  tl_fill(base, WS, 50 + tl_rank, 0);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_FILE_PATTERN(want, 0, WS, 50 + tl_rank, 0);
  MPI_Comm_free(&rev);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  /* a relative name is relative to the working directory */
  {
    char cwd[PATH_MAX];
    CHECK(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
    CHECK(chdir(tl_scratch()) == 0, "chdir");
    snprintf(want, sizeof want, "%s/rel-%d", tl_scratch(), tl_rank);
    TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, "rel-%r");
    CHECK(tl_exists(want), "relative name rel-%%r: %s not created", want);
    const char *v = tl_win_info(win, "storage_alloc_filename");
    char tail[64];
    snprintf(tail, sizeof tail, "rel-%d", tl_rank);
    CHECK(v && strlen(v) >= strlen(tail) && !strcmp(v + strlen(v) - strlen(tail), tail),
          "get_info filename '%s' for relative rel-%%r", v ? v : "(absent)");
    CHECK_MPI(MPI_Win_free(&win));
    CHECK(chdir(cwd) == 0, "chdir back");
  }
  /* %% alone and a literal % followed by another char */
  snprintf(tmpl, sizeof tmpl, "%s/pct%%%%r-%%r", tl_scratch());
  snprintf(want, sizeof want, "%s/pct%%r-%d", tl_scratch(), tl_rank);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, tmpl, "storage_alloc_unlink=true");
  CHECK(tl_exists(want), "'%%%%r' should give a literal '%%r': %s does not exist", want);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(!tl_exists(want), "storage_alloc_unlink=true: %s still exists after free", want);
}

/* ---------------------------------------------------------------- */
static void test_directory(void) {
  const char *dir = tl_path("dir");
  if (tl_rank == 0) CHECK(mkdir(dir, 0700) == 0, "mkdir %s: %s", dir, strerror(errno));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  void *a, *b;
  MPI_Win wa, wb;
  TL_WALLOC(WS, MPI_COMM_WORLD, &a, &wa, dir);
  TL_WALLOC(WS / 2, MPI_COMM_WORLD, &b, &wb, dir);
  char fa[PATH_MAX], fb[PATH_MAX];
  snprintf(fa, sizeof fa, "%s", tl_win_info(wa, "storage_alloc_filename") ? tl_win_info(wa, "storage_alloc_filename") : "");
  snprintf(fb, sizeof fb, "%s", tl_win_info(wb, "storage_alloc_filename") ? tl_win_info(wb, "storage_alloc_filename") : "");
  CHECK(fa[0] && fb[0], "MPI_Win_get_info has no storage_alloc_filename for a directory window");
  CHECK(strcmp(fa, fb) != 0, "two windows in one directory use the same file %s", fa);
  CHECK(strncmp(fa, dir, strlen(dir)) == 0 && fa[strlen(dir)] == '/' && !strchr(fa + strlen(dir) + 1, '/'),
        "file %s is not directly inside %s", fa, dir);
  /* unique files have no name in the directory (they go with the job);
   * the process reaches them through its descriptors */
  CHECK(!tl_exists(fa) && !tl_exists(fb), "unique file %s has a name in the directory", fa);
  char pa[64], pb[64];
  CHECK(tl_file_of(a) && tl_file_of(b), "no descriptor on the windows' files");
  snprintf(pa, sizeof pa, "%s", tl_file_of(a));
  snprintf(pb, sizeof pb, "%s", tl_file_of(b));
  struct stat st;
  CHECK(stat(pa, &st) == 0 && S_ISREG(st.st_mode), "%s is not a regular file", fa);
  CHECK((st.st_mode & 0777) == 0600, "unique file %s has mode %o, expected 0600", fa, st.st_mode & 0777);
  CHECK(st.st_size >= WS, "unique file %s is %lld bytes, window %d", fa, (long long)st.st_size, WS);
  check_info_eq(wa, "storage_alloc_unlink", "true");
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int n = tl_count_dir(dir, NULL);
  CHECK(n == 0, "directory holds %d names while unique windows live, expected none", n);
  tl_fill(a, WS, 60 + tl_rank, 0);
  tl_fill(b, WS / 2, 70 + tl_rank, 0);
  TL_SYNC(wa);
  TL_SYNC(wb);
  CHECK_FILE_PATTERN(pa, 0, WS, 60 + tl_rank, 0);
  CHECK_FILE_PATTERN(pb, 0, WS / 2, 70 + tl_rank, 0);
  CHECK_MPI(MPI_Win_free(&wa));
  CHECK(!tl_exists(fa), "unique file %s not removed at free", fa);
  CHECK_MPI(MPI_Win_free(&wb));
  CHECK(!tl_exists(fb), "unique file %s not removed at free", fb);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  n = tl_count_dir(dir, NULL);
  CHECK(n == 0, "directory holds %d entries after all windows were freed", n);

  /* storage_alloc_unlink=false keeps the unique file: it gets its name at free */
  TL_WALLOC(WS, MPI_COMM_WORLD, &a, &wa, dir, "storage_alloc_unlink=false");
  snprintf(fa, sizeof fa, "%s", tl_win_info(wa, "storage_alloc_filename"));
  check_info_eq(wa, "storage_alloc_unlink", "false");
  tl_fill(a, WS, 80 + tl_rank, 0);
  CHECK(!tl_exists(fa), "storage_alloc_unlink=false: %s has a name before free", fa);
  CHECK_MPI(MPI_Win_free(&wa));
  CHECK(tl_exists(fa), "storage_alloc_unlink=false: unique file %s removed at free", fa);
  CHECK_FILE_PATTERN(fa, 0, WS, 80 + tl_rank, 0);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  n = tl_count_dir(dir, NULL);
  CHECK(n == tl_size, "directory holds %d files, expected %d kept files", n, tl_size);

  /* a directory name with a trailing slash works too */
  char slash[PATH_MAX];
  snprintf(slash, sizeof slash, "%s/", dir);
  TL_WALLOC(WS, MPI_COMM_WORLD, &a, &wa, slash);
  snprintf(fa, sizeof fa, "%s", tl_win_info(wa, "storage_alloc_filename"));
  CHECK(!strncmp(fa, slash, strlen(slash)) && !strchr(fa + strlen(slash), '/') && tl_file_of(a),
        "directory with trailing slash: file %s", fa);
  CHECK_MPI(MPI_Win_free(&wa));
  CHECK(!tl_exists(fa), "unique file %s not removed", fa);
}

/* ---------------------------------------------------------------- */
static void test_offset(void) {
  void *base;
  MPI_Win win;
  /* existing file of 16 KiB, window at 8 KiB */
  const char *f = tl_path("off-r%d", tl_rank);
  tl_write_pattern_file(f, 0, 16384, 100, 0600);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, f, "storage_alloc_offset=8192");
  CHECK(info_ll(win, "storage_alloc_offset") == 8192, "offset in get_info is %lld", info_ll(win, "storage_alloc_offset"));
  /* the window starts with the old file bytes at 8192 */
  CHECK(tl_verify(base, 8192, 100, 8192) < 0, "window does not show the file's bytes from offset 8192");
  tl_fill(base, WS, 110 + tl_rank, 0);
  TL_SYNC(win);
  CHECK_FILE_PATTERN(f, 0, 8192, 100, 0);
  CHECK_FILE_PATTERN(f, 8192, WS, 110 + tl_rank, 0);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(tl_file_size(f) >= 8192 + WS, "file is %lld bytes, expected at least %d", (long long)tl_file_size(f), 8192 + WS);
  CHECK_FILE_PATTERN(f, 0, 8192, 100, 0);
  CHECK_FILE_PATTERN(f, 8192, WS, 110 + tl_rank, 0);

  /* suffixes: 1M */
  const char *g = tl_path("offM-r%d", tl_rank);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, g, "storage_alloc_offset=1M");
  CHECK(info_ll(win, "storage_alloc_offset") == 1048576, "offset 1M reported as %lld", info_ll(win, "storage_alloc_offset"));
  tl_fill(base, WS, 120 + tl_rank, 0);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_FILE_PATTERN(g, 1048576, WS, 120 + tl_rank, 0);
  /* 4K */
  const char *k = tl_path("offK-r%d", tl_rank);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, k, "storage_alloc_offset=4K");
  CHECK(info_ll(win, "storage_alloc_offset") == 4096, "offset 4K reported as %lld", info_ll(win, "storage_alloc_offset"));
  tl_fill(base, WS, 125 + tl_rank, 0);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_FILE_PATTERN(k, 4096, WS, 125 + tl_rank, 0);

  /* 1G: a sparse file, the window at 1 GiB */
  const char *gg = tl_path("offG-r%d", tl_rank);
  TL_WALLOC(65536, MPI_COMM_WORLD, &base, &win, gg, "storage_alloc_offset=1G");
  CHECK(info_ll(win, "storage_alloc_offset") == 1073741824LL, "offset 1G reported as %lld",
        info_ll(win, "storage_alloc_offset"));
  tl_fill(base, 65536, 127 + tl_rank, 0);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_FILE_PATTERN(gg, 1073741824LL, 65536, 127 + tl_rank, 0);
  CHECK(tl_file_size(gg) == 1073741824LL + 65536, "file size %lld", (long long)tl_file_size(gg));
  unlink(gg);

  /* unaligned offset 100 on a new file, odd window size: every byte lands */
  const size_t odd = WS + 123;
  const char *u = tl_path("off100-r%d", tl_rank);
  TL_WALLOC((MPI_Aint)odd, MPI_COMM_WORLD, &base, &win, u, "storage_alloc_offset=100");
  CHECK(info_ll(win, "storage_alloc_offset") == 100, "offset reported as %lld", info_ll(win, "storage_alloc_offset"));
  tl_fill(base, odd, 130 + tl_rank, 0);
  TL_SYNC(win);
  CHECK_FILE_PATTERN(u, 100, odd, 130 + tl_rank, 0);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(tl_file_size(u) >= (off_t)(100 + odd), "file is %lld bytes, expected >= %zu", (long long)tl_file_size(u), 100 + odd);
  CHECK_FILE_PATTERN(u, 100, odd, 130 + tl_rank, 0);
  unsigned char head[100];
  CHECK(tl_pread(u, 0, head, 100) == 100, "short read");
  for (int i = 0; i < 100; i++) CHECK(head[i] == 0, "byte %d before the offset is 0x%02x, expected 0", i, head[i]);

  /* remote puts into a window at the unaligned offset 100 land at window byte 0 */
  const char *v = tl_path("off100rma-r%d", tl_rank);
  TL_WALLOC((MPI_Aint)odd, MPI_COMM_WORLD, &base, &win, v, "storage_alloc_offset=100");
  memset(base, 0, odd);
  int to = (tl_rank + 1) % tl_size, from = (tl_rank + tl_size - 1) % tl_size;
  char *src = malloc(odd);
  tl_fill(src, odd, 135 + tl_rank, 0);
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Put(src, (int)odd, MPI_BYTE, to, 0, (int)odd, MPI_BYTE, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  free(src);
  long bad = tl_verify(base, odd, 135 + from, 0);
  CHECK(bad < 0, "MPI_Put at displacement 0 of a window at file offset 100: window byte %ld on holds %s", bad,
        bad < 0 ? "" : tl_describe((char *)base + bad, odd - (size_t)bad, (size_t)bad));
  TL_SYNC(win);
  CHECK_FILE_PATTERN(v, 100, odd, 135 + from, 0);
  CHECK_MPI(MPI_Win_free(&win));
}

static void test_offset_sf(void) {
  /* storage_first with an unaligned offset: the storage part starts at offset 100 */
  void *base;
  MPI_Win win;
  const char *u = tl_path("sf100-r%d", tl_rank);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, u, "storage_alloc_offset=100", "storage_alloc_factor=0.5",
            "storage_alloc_order=storage_first");
  tl_fill(base, WS, 140 + tl_rank, 0);
  TL_SYNC(win);
  size_t low = WS / 2 - tl_page; /* the storage part is at least this long */
  CHECK_FILE_PATTERN(u, 100, low, 140 + tl_rank, 0);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_FILE_PATTERN(u, 100, low, 140 + tl_rank, 0);
  off_t sz = tl_file_size(u);
  CHECK(sz < (off_t)(100 + WS), "factor 0.5: file is %lld bytes, the whole window (%d) went to storage",
        (long long)sz, WS);
}

/* ---------------------------------------------------------------- */
static void test_unlink(void) {
  void *base;
  MPI_Win win;
  const char *t = tl_path("ul-true-r%d", tl_rank);
  const char *f = tl_path("ul-false-r%d", tl_rank);
  const char *d = tl_path("ul-default-r%d", tl_rank);
  const char *e = tl_path("ul-existing-r%d", tl_rank);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, t, "storage_alloc_unlink=true");
  CHECK(tl_exists(t), "%s missing while the window is alive", t);
  check_info_eq(win, "storage_alloc_unlink", "true");
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(!tl_exists(t), "storage_alloc_unlink=true: %s still exists after free", t);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, f, "storage_alloc_unlink=false");
  tl_fill(base, WS, 150, 0);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(tl_exists(f), "storage_alloc_unlink=false: %s removed", f);
  CHECK_FILE_PATTERN(f, 0, WS, 150, 0);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, d);
  check_info_eq(win, "storage_alloc_unlink", "false");
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(tl_exists(d), "default storage_alloc_unlink for a named file must be false: %s removed", d);
  tl_write_pattern_file(e, 0, 4096, 151, 0600);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, e, "storage_alloc_unlink=TRUE");
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(!tl_exists(e), "storage_alloc_unlink=TRUE on an existing file: %s not removed", e);
}

static void test_discard(void) {
  void *base;
  MPI_Win win;
  const char *f = tl_path("discard-r%d", tl_rank);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, f, "storage_alloc_discard=true");
  check_info_eq(win, "storage_alloc_discard", "true");
  tl_fill(base, WS, 160, 0);
  int rc = MPI_Win_free(&win);
  if (rc != MPI_SUCCESS) tl_fail(__FILE__, __LINE__, "MPI_Win_free with discard=true failed: %s", tl_errstr(rc));
  CHECK(tl_exists(f), "discard=true must not remove the file (unlink is false): %s missing", f);
  CHECK(tl_file_size(f) >= WS, "file %s shrank to %lld", f, (long long)tl_file_size(f));
  /* discard=true together with unlink=true: nothing left */
  const char *g = tl_path("discard-ul-r%d", tl_rank);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, g, "storage_alloc_discard=1", "storage_alloc_unlink=1");
  tl_fill(base, WS, 161, 0);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(!tl_exists(g), "discard+unlink: %s still exists", g);
  /* default discard=false is reported */
  const char *h = tl_path("discard-def-r%d", tl_rank);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, h);
  check_info_eq(win, "storage_alloc_discard", "false");
  tl_fill(base, WS, 162, 0);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_FILE_PATTERN(h, 0, WS, 162, 0);
}

/* ---------------------------------------------------------------- */
static void test_perm(void) {
  umask(022);
  void *base;
  MPI_Win win;
  struct {
    const char *hint;
    mode_t want;
  } cases[] = {{NULL, 0600}, {"file_perm=0640", 0640}, {"file_perm=0666", 0644}, {"file_perm=0600", 0600},
               {"file_perm=0604", 0604}};
  for (int i = 0; i < 5; i++) {
    const char *f = tl_path("perm-%d-r%d", i, tl_rank);
    TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, f, cases[i].hint);
    mode_t m = tl_file_mode(f);
    CHECK(m == cases[i].want, "%s with umask 022: mode %04o, expected %04o", cases[i].hint ? cases[i].hint : "default",
          (unsigned)m, (unsigned)cases[i].want);
    const char *v = tl_win_info(win, "file_perm");
    CHECK(v != NULL, "MPI_Win_get_info has no file_perm");
    long pv = strtol(v, NULL, 8);
    mode_t asked = cases[i].hint ? (mode_t)strtol(strchr(cases[i].hint, '=') + 1, NULL, 8) : 0600;
    CHECK((mode_t)pv == asked, "get_info file_perm is '%s', expected %04o", v, (unsigned)asked);
    CHECK_MPI(MPI_Win_free(&win));
    CHECK(tl_file_mode(f) == cases[i].want, "mode changed at free");
  }
  /* existing file: its mode is not touched */
  const char *e = tl_path("perm-existing-r%d", tl_rank);
  tl_write_pattern_file(e, 0, 4096, 170, 0644);
  CHECK(chmod(e, 0644) == 0, "chmod");
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, e, "file_perm=0600");
  CHECK(tl_file_mode(e) == 0644, "file_perm changed the mode of an existing file to %04o", (unsigned)tl_file_mode(e));
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(tl_file_mode(e) == 0644, "mode of an existing file changed to %04o", (unsigned)tl_file_mode(e));
  /* directory mode: the unique file gets file_perm */
  const char *dir = tl_path("permdir-r%d", tl_rank);
  CHECK(mkdir(dir, 0700) == 0, "mkdir");
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, dir, "file_perm=0640");
  const char *u = tl_file_of(base);
  CHECK(u && tl_file_mode(u) == 0640, "unique file %s has mode %04o, expected 0640", u ? u : "?",
        u ? (unsigned)tl_file_mode(u) : 0u);
  CHECK_MPI(MPI_Win_free(&win));
}

/* ---------------------------------------------------------------- */
static char shm_dir[PATH_MAX];

static void test_access(void) {
  void *base;
  MPI_Win win;
  const char *f = tl_path("acc-r%d", tl_rank);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, f, "access_style=sequential,random");
  const char *v = tl_win_info(win, "access_style");
  CHECK(v && strstr(v, "sequential") && strstr(v, "random"), "get_info access_style is '%s'", v ? v : "(absent)");
  tl_fill(base, WS, 180, 0);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_FILE_PATTERN(f, 0, WS, 180, 0);
  /* sequential / random reach madvise: VmFlags "sr" / "rr" on the storage mapping */
  {
    const char *g = tl_path("acc-seq-r%d", tl_rank);
    TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, g, "access_style=sequential");
    const char *fl = tl_vmflags(base);
    CHECK(strstr(fl, " sr") || !strncmp(fl, "sr", 2) || strstr(fl, "sr "),
          "access_style=sequential: storage mapping VmFlags '%s' lack 'sr' (MADV_SEQUENTIAL)", fl);
    CHECK_MPI(MPI_Win_free(&win));
    g = tl_path("acc-rnd-r%d", tl_rank);
    TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, g, "access_style=random");
    fl = tl_vmflags(base);
    CHECK(strstr(fl, " rr") || !strncmp(fl, "rr", 2) || strstr(fl, "rr "),
          "access_style=random: storage mapping VmFlags '%s' lack 'rr' (MADV_RANDOM)", fl);
    CHECK_MPI(MPI_Win_free(&win));
    g = tl_path("acc-none-r%d", tl_rank);
    TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, g);
    fl = tl_vmflags(base);
    CHECK(!strstr(fl, " rr") && !strstr(fl, " sr"), "no access_style, but VmFlags '%s'", fl);
    CHECK_MPI(MPI_Win_free(&win));
  }
  const char *styles[] = {"read_once", "write_once", "read_mostly", "write_mostly", "reverse_sequential"};
  for (int i = 0; i < 5; i++) {
    char hint[64];
    snprintf(hint, sizeof hint, "access_style=%s", styles[i]);
    const char *g = tl_path("acc-%d-r%d", i, tl_rank);
    TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, g, hint);
    tl_fill(base, WS, 181 + i, 0); /* a write_once/read_once window is still writable */
    CHECK(tl_verify(base, WS, 181 + i, 0) < 0, "read back");
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_FILE_PATTERN(g, 0, WS, 181 + i, 0);
  }
  /* striping on ext4 (/tmp) and on tmpfs (/dev/shm): accepted and ignored */
  const char *s1 = tl_path("stripe-r%d", tl_rank);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, s1, "striping_factor=4", "striping_unit=1048576");
  tl_fill(base, WS, 190, 0);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_FILE_PATTERN(s1, 0, WS, 190, 0);
  if (tl_rank == 0) {
    snprintf(shm_dir, sizeof shm_dir, "/dev/shm/mpisw-test-XXXXXX");
    if (!mkdtemp(shm_dir)) shm_dir[0] = 0;
  }
  CHECK_MPI(MPI_Bcast(shm_dir, sizeof shm_dir, MPI_CHAR, 0, MPI_COMM_WORLD));
  if (shm_dir[0]) {
    char s2[PATH_MAX];
    snprintf(s2, sizeof s2, "%s/stripe-r%d", shm_dir, tl_rank);
    TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, s2, "striping_factor=2", "striping_unit=65536");
    tl_fill(base, WS, 191, 0);
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_FILE_PATTERN(s2, 0, WS, 191, 0);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (tl_rank == 0) tl_rm_rf(shm_dir);
  } else if (tl_rank == 0) {
    tl_log("note: /dev/shm not usable, tmpfs striping case skipped");
  }
}

/* ---------------------------------------------------------------- */
static void test_getinfo(void) {
  void *base;
  MPI_Win win;
  const char *f = tl_path("gi-r%d", tl_rank);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, f);
  check_info_eq(win, "alloc_type", "storage");
  check_info_eq(win, "storage_alloc_filename", f);
  CHECK(info_ll(win, "storage_alloc_offset") == 0, "default offset");
  CHECK(tl_win_info_number(win, "storage_alloc_factor") == 1.0, "default factor is %g", tl_win_info_number(win, "storage_alloc_factor"));
  check_info_eq(win, "storage_alloc_order", "memory_first");
  check_info_eq(win, "storage_alloc_unlink", "false");
  check_info_eq(win, "storage_alloc_discard", "false");
  CHECK(strtol(tl_win_info(win, "file_perm") ? tl_win_info(win, "file_perm") : "x", NULL, 8) == 0600,
        "default file_perm reported as '%s'", tl_win_info(win, "file_perm") ? tl_win_info(win, "file_perm") : "(absent)");
  CHECK(tl_win_info(win, "access_style") == NULL, "access_style reported ('%s') though not given",
        tl_win_info(win, "access_style"));
  CHECK_MPI(MPI_Win_free(&win));

  const char *g = tl_path("gi2-r%d", tl_rank);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, g, "storage_alloc_offset=4K", "storage_alloc_factor=0.5",
            "storage_alloc_order=storage_first", "storage_alloc_unlink=True", "storage_alloc_discard=0",
            "file_perm=0640", "access_style=random", "some_unknown_key=1");
  check_info_eq(win, "alloc_type", "storage");
  check_info_eq(win, "storage_alloc_filename", g);
  CHECK(info_ll(win, "storage_alloc_offset") == 4096, "offset");
  double fct = tl_win_info_number(win, "storage_alloc_factor");
  CHECK(fct == 0.5, "factor reported as %g, expected 0.5 (window of %d bytes is a page multiple)", fct, WS);
  check_info_eq(win, "storage_alloc_order", "storage_first");
  check_info_eq(win, "storage_alloc_unlink", "true");
  check_info_eq(win, "storage_alloc_discard", "false");
  CHECK(strtol(tl_win_info(win, "file_perm"), NULL, 8) == 0640, "file_perm reported as '%s'", tl_win_info(win, "file_perm"));
  check_info_eq(win, "access_style", "random");
  CHECK_MPI(MPI_Win_free(&win));
}

/* ---------------------------------------------------------------- */
static void test_reuse(void) {
  void *base, *b2;
  MPI_Win win, w2;
  /* reopen sees old content */
  const char *f = tl_path("reuse-r%d", tl_rank);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, f);
  tl_fill(base, WS, 200 + tl_rank, 0);
  CHECK_MPI(MPI_Win_free(&win));
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, f);
  long bad = tl_verify(base, WS, 200 + tl_rank, 0);
  CHECK(bad < 0, "reopened window does not show the old content (first difference at byte %ld)", bad);
  tl_fill((char *)base + WS / 2, WS / 2, 210 + tl_rank, WS / 2);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_FILE_PATTERN(f, 0, WS / 2, 200 + tl_rank, 0);
  CHECK_FILE_PATTERN(f, WS / 2, WS / 2, 210 + tl_rank, WS / 2);

  /* a larger existing file is never truncated */
  const char *big = tl_path("big-r%d", tl_rank);
  tl_write_pattern_file(big, 0, 3 * WS, 220, 0600);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, big);
  CHECK(tl_file_size(big) == 3 * WS, "existing file of %d bytes now %lld bytes while the window is alive", 3 * WS,
        (long long)tl_file_size(big));
  CHECK(tl_verify(base, WS, 220, 0) < 0, "window over an existing file does not show its bytes");
  tl_fill(base, WS, 221, 0);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(tl_file_size(big) == 3 * WS, "existing file of %d bytes now %lld bytes after free", 3 * WS,
        (long long)tl_file_size(big));
  CHECK_FILE_PATTERN(big, 0, WS, 221, 0);
  CHECK_FILE_PATTERN(big, WS, 2 * WS, 220, WS);

  /* a smaller one is grown, its content kept */
  const char *small = tl_path("small-r%d", tl_rank);
  tl_write_pattern_file(small, 0, 4096, 230, 0600);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, small);
  CHECK(tl_file_size(small) >= WS, "smaller file not grown: %lld bytes", (long long)tl_file_size(small));
  CHECK(tl_verify(base, 4096, 230, 0) < 0, "window does not show the small file's content");
  for (size_t i = 4096; i < WS; i++) CHECK(((unsigned char *)base)[i] == 0, "grown part not zero at %zu", i);
  tl_fill((char *)base + 4096, WS - 4096, 231, 4096);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_FILE_PATTERN(small, 0, 4096, 230, 0);
  CHECK_FILE_PATTERN(small, 4096, WS - 4096, 231, 4096);

  /* two windows of one rank share a file at different offsets */
  const char *sh = tl_path("two-r%d", tl_rank);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, sh, "storage_alloc_offset=0");
  TL_WALLOC(WS, MPI_COMM_WORLD, &b2, &w2, sh, "storage_alloc_offset=262144");
  CHECK(base != b2, "two windows got the same address");
  tl_fill(base, WS, 240, 0);
  tl_fill(b2, WS, 241, 0);
  CHECK(tl_verify(base, WS, 240, 0) < 0, "first window disturbed by the second");
  TL_SYNC(win);
  TL_SYNC(w2);
  CHECK_FILE_PATTERN(sh, 0, WS, 240, 0);
  CHECK_FILE_PATTERN(sh, WS, WS, 241, 0);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(tl_verify(b2, WS, 241, 0) < 0, "second window disturbed by freeing the first");
  tl_fill(b2, WS, 242, 0);
  CHECK_MPI(MPI_Win_free(&w2));
  CHECK_FILE_PATTERN(sh, 0, WS, 240, 0);
  CHECK_FILE_PATTERN(sh, WS, WS, 242, 0);

  /* all ranks share one file, rank r at offset r*WS (concurrent creation) */
  const char *common = tl_path("common");
  char off[64];
  snprintf(off, sizeof off, "storage_alloc_offset=%d", tl_rank * WS);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, common, off);
  tl_fill(base, WS, 250 + tl_rank, 0);
  TL_SYNC(win);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  for (int r = 0; r < tl_size; r++) CHECK_FILE_PATTERN(common, (off_t)r * WS, WS, 250 + r, 0);
  CHECK(tl_verify(base, WS, 250 + tl_rank, 0) < 0, "own window disturbed by the other ranks");
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(tl_file_size(common) == (off_t)tl_size * WS, "common file is %lld bytes, expected %lld",
        (long long)tl_file_size(common), (long long)tl_size * WS);
  for (int r = 0; r < tl_size; r++) CHECK_FILE_PATTERN(common, (off_t)r * WS, WS, 250 + r, 0);
}

/* ---------------------------------------------------------------- */
static void test_leaks(void) {
  void *base;
  MPI_Win win;
  const char *dir = tl_path("leakdir-r%d", tl_rank);
  CHECK(mkdir(dir, 0700) == 0, "mkdir");
  /* warm up the MPI (first windows may open fds of its own): both kinds of
   * the loop below, which Open MPI serves by different components */
  for (int i = 0; i < 2; i++) {
    TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, dir, i % 2 ? "storage_alloc_factor=0.5" : "storage_alloc_factor=1");
    CHECK_MPI(MPI_Win_free(&win));
    void *p;
    MPI_Info info = tl_sinfo(dir, NULL);
    CHECK_MPI(MPI_Alloc_mem(WS, info, &p));
    CHECK_MPI(MPI_Free_mem(p));
    MPI_Info_free(&info);
  }
  int fds0 = tl_count_fds();
  for (int i = 0; i < 40; i++) {
    TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, dir, i % 2 ? "storage_alloc_factor=0.5" : "storage_alloc_factor=1");
    tl_fill(base, WS, (unsigned)i, 0);
    CHECK_MPI(MPI_Win_free(&win));
    CHECK(tl_count_maps(dir) == 0, "window %d still mapped after MPI_Win_free", i);
    void *p;
    MPI_Info info = tl_sinfo(dir, NULL);
    CHECK_MPI(MPI_Alloc_mem(WS, info, &p));
    CHECK_MPI(MPI_Free_mem(p));
    /* failed allocations leak nothing either */
    CHECK_MPI(MPI_Info_set(info, "storage_alloc_filename", tl_path("missing/x-r%d", tl_rank)));
    void *b2;
    MPI_Win w2;
    int rc = MPI_Win_allocate(WS, 1, info, MPI_COMM_WORLD, &b2, &w2);
    CHECK(rc != MPI_SUCCESS, "allocation in a missing directory succeeded");
    MPI_Info_free(&info);
  }
  int fds1 = tl_count_fds();
  CHECK(fds1 <= fds0, "file descriptors leaked: %d open before 40 allocate/free rounds, %d after", fds0, fds1);
  CHECK(tl_count_maps(dir) == 0, "%d mappings of freed storage still present", tl_count_maps(dir));
  CHECK(tl_count_dir(dir, NULL) == 0, "%d unique files left in %s", tl_count_dir(dir, NULL), dir);
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  tl_scratch();
  if (!strcmp(mode, "filename")) test_filename();
  else if (!strcmp(mode, "directory")) test_directory();
  else if (!strcmp(mode, "offset")) test_offset();
  else if (!strcmp(mode, "offset_sf")) test_offset_sf();
  else if (!strcmp(mode, "unlink")) test_unlink();
  else if (!strcmp(mode, "discard")) test_discard();
  else if (!strcmp(mode, "perm")) test_perm();
  else if (!strcmp(mode, "access")) test_access();
  else if (!strcmp(mode, "getinfo")) test_getinfo();
  else if (!strcmp(mode, "reuse")) test_reuse();
  else if (!strcmp(mode, "leaks")) test_leaks();
  else tl_fail(__FILE__, __LINE__, "unknown mode '%s'", mode);
  return tl_finish();
}
