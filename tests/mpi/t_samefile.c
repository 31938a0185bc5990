/*
 * Windows that would overwrite each other's bytes of one file are refused
 * (issue 13, "ranks silently share one file"); sharing asked for works.
 *   t_samefile info      a fixed name without %r in MPI_Info (new file, a name
 *                        like /scratch that does not exist, an existing file):
 *                        MPISW_ERR_USAGE on every rank, nothing created left
 *   t_samefile env       the same through MPISW_HINTS (envrun.sh: @DIR@/same)
 *   t_samefile offsets   distinct storage_alloc_offset ranges of one file,
 *                        unaligned and adjacent: work, every byte kept
 *   t_samefile shared    a shared window on a fixed name works
 *   t_samefile twowin    two live windows (or MPI_Alloc_mem ranges) of one
 *                        process on overlapping bytes: the second fails until
 *                        the first is freed; disjoint ranges work
 *   t_samefile hold F / intrude F   a job holding a window on F, and a second
 *                        job asking for the same bytes (tests/tools/samefile_jobs.sh)
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

#define WS 65536

/* MPI_Win_allocate of size bytes at offset off of fn; the MPI error. */
static int walloc(MPI_Comm comm, const char *fn, long off, MPI_Aint size, void **base, MPI_Win *win) {
  MPI_Info info = tl_info("alloc_type=storage", NULL);
  tl_info_setf(info, "storage_alloc_filename", "%s", fn);
  tl_info_setf(info, "storage_alloc_offset", "%ld", off);
  int rc = MPI_Win_allocate(size, 1, info, comm, base, win);
  MPI_Info_free(&info);
  return rc;
}

/* Every rank must get the sharing error naming fn. */
static void expect_shared_error(int rc, const char *fn) {
  EXPECT_ERR(rc, MPISW_ERR_USAGE, fn, "%r");
  CHECK(tl_allsum(rc != MPI_SUCCESS) == tl_size, "not every rank got the error");
}

static void test_info(void) {
  if (tl_size < 2) tl_skip("sharing needs 2 ranks");
  void *base;
  MPI_Win win;
  /* a new file */
  const char *fn = tl_path("same");
  expect_shared_error(walloc(MPI_COMM_WORLD, fn, 0, WS, &base, &win), fn);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(!tl_exists(fn), "the refused window left %s behind", fn);
  /* a directory-looking name that does not exist (the README's /scratch) */
  const char *scratch = tl_path("scratch");
  expect_shared_error(walloc(MPI_COMM_WORLD, scratch, 0, WS, &base, &win), scratch);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(!tl_exists(scratch), "the refused window left %s behind", scratch);
  /* an existing file: refused, kept as it was */
  const char *old = tl_path("existing");
  if (tl_rank == 0) tl_write_pattern_file(old, 0, 4096, 5, 0600);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  expect_shared_error(walloc(MPI_COMM_WORLD, old, 0, WS, &base, &win), old);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(tl_file_size(old) == 4096, "the refused window changed %s to %lld bytes", old,
        (long long)tl_file_size(old));
  CHECK_FILE_PATTERN(old, 0, 4096, 5, 0);
  /* overlapping offsets (rank r at r*1000, 2000 bytes each) */
  const char *ov = tl_path("overlap");
  expect_shared_error(walloc(MPI_COMM_WORLD, ov, 1000L * tl_rank, 2000, &base, &win), ov);
  /* MPI_Win_allocate_shared over a node's ranks is sharing asked for; but
   * MPI_Alloc_mem of every rank on one name is not */
  const char *am = tl_path("allocmem");
  MPI_Info info = tl_info("alloc_type=storage", NULL);
  tl_info_setf(info, "storage_alloc_filename", "%s", am);
  void *p = NULL;
  int rc = MPI_Alloc_mem(WS, info, &p);
  int ok = tl_allsum(rc == MPI_SUCCESS);
  CHECK(ok == 1, "%d ranks got an MPI_Alloc_mem range on the same bytes of %s", ok, am);
  if (rc == MPI_SUCCESS) CHECK_MPI(MPI_Free_mem(p));
  else EXPECT_ERR(rc, MPISW_ERR_USAGE, am, "%r");
  MPI_Info_free(&info);
}

static void test_env(void) {
  if (tl_size < 2) tl_skip("sharing needs 2 ranks");
  const char *dir = getenv("MPISW_TEST_DIR");
  CHECK(dir != NULL, "MPISW_TEST_DIR is not set (run under envrun.sh)");
  char fn[PATH_MAX];
  snprintf(fn, sizeof fn, "%s/same", dir);
  void *base;
  MPI_Win win;
  expect_shared_error(MPI_Win_allocate(WS, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win), fn);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(!tl_exists(fn), "the refused window left %s behind", fn);
  /* %r in the info fixes it */
  MPI_Info info = tl_info(NULL);
  tl_info_setf(info, "storage_alloc_filename", "%s/same-%%r", dir);
  CHECK_MPI(MPI_Win_allocate(WS, 1, info, MPI_COMM_WORLD, &base, &win));
  MPI_Info_free(&info);
  CHECK_MPI(MPI_Win_free(&win));
}

static void test_offsets(void) {
  const char *fn = tl_path("adjacent");
  void *base;
  MPI_Win win;
  int rc = walloc(MPI_COMM_WORLD, fn, 1000L * tl_rank, 1000, &base, &win);
  if (rc != MPI_SUCCESS) tl_fail(__FILE__, __LINE__, "adjacent offsets refused: %s", tl_errstr(rc));
  tl_win_errors_return(win);
  tl_fill(base, 1000, 40 + (unsigned)tl_rank, 0);
  TL_SYNC(win);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  for (int r = 0; r < tl_size; r++) CHECK_FILE_PATTERN(fn, 1000L * r, 1000, 40 + (unsigned)r, 0);
}

static void test_shared(void) {
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  const char *fn = tl_path("node");
  MPI_Info info = tl_sinfo(fn, NULL);
  void *base;
  MPI_Win win;
  int rc = MPI_Win_allocate_shared(WS, 1, info, node, &base, &win);
  if (rc != MPI_SUCCESS) tl_fail(__FILE__, __LINE__, "shared window on %s: %s", fn, tl_errstr(rc));
  tl_fill(base, WS, 50, 0);
  CHECK_MPI(MPI_Win_free(&win));
  /* a second shared window on the same bytes while the first lives: refused */
  CHECK_MPI(MPI_Win_allocate_shared(WS, 1, info, node, &base, &win));
  MPI_Win w2;
  void *b2;
  rc = MPI_Win_allocate_shared(WS, 1, info, node, &b2, &w2);
  EXPECT_ERR(rc, MPISW_ERR_USAGE, fn, NULL);
  CHECK_MPI(MPI_Win_free(&win));
  MPI_Info_free(&info);
  MPI_Comm_free(&node);
}

static void test_twowin(void) {
  const char *fn = tl_path("two-%d", tl_rank);
  void *a, *b;
  MPI_Win wa, wb;
  CHECK_MPI(walloc(MPI_COMM_SELF, fn, 0, 2 * WS, &a, &wa));
  EXPECT_ERR(walloc(MPI_COMM_SELF, fn, 0, WS, &b, &wb), MPISW_ERR_USAGE, fn, "%r");
  EXPECT_ERR(walloc(MPI_COMM_SELF, fn, WS + 100, WS, &b, &wb), MPISW_ERR_USAGE, fn, NULL);
  CHECK(tl_file_size(fn) == 2 * WS, "a refused window changed the file's size to %lld",
        (long long)tl_file_size(fn));
  /* disjoint: fine, even right after the first */
  CHECK_MPI(walloc(MPI_COMM_SELF, fn, 2 * WS, WS, &b, &wb));
  CHECK_MPI(MPI_Win_free(&wb));
  /* MPI_Alloc_mem on the first window's bytes */
  MPI_Info info = tl_info("alloc_type=storage", NULL);
  tl_info_setf(info, "storage_alloc_filename", "%s", fn);
  void *p;
  EXPECT_ERR(MPI_Alloc_mem(WS, info, &p), MPISW_ERR_USAGE, fn, NULL);
  /* freed: its bytes are free again */
  CHECK_MPI(MPI_Win_free(&wa));
  CHECK_MPI(MPI_Alloc_mem(WS, info, &p));
  EXPECT_ERR(walloc(MPI_COMM_SELF, fn, 0, WS, &b, &wb), MPISW_ERR_USAGE, fn, NULL);
  CHECK_MPI(MPI_Free_mem(p));
  CHECK_MPI(walloc(MPI_COMM_SELF, fn, 0, WS, &b, &wb));
  CHECK_MPI(MPI_Win_free(&wb));
  MPI_Info_free(&info);
}

/* A job that holds a window on fn until the file fn.go appears. */
static void hold(const char *fn) {
  char go[PATH_MAX], ready[PATH_MAX];
  snprintf(go, sizeof go, "%s.go", fn);
  snprintf(ready, sizeof ready, "%s.ready", fn);
  void *base;
  MPI_Win win;
  CHECK_MPI(walloc(MPI_COMM_WORLD, fn, (long)WS * tl_rank, WS, &base, &win));
  tl_fill(base, WS, 60 + (unsigned)tl_rank, 0);
  TL_SYNC(win);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (tl_rank == 0) {
    FILE *f = fopen(ready, "w");
    CHECK(f != NULL, "cannot write %s", ready);
    fclose(f);
  }
  for (int i = 0; i < 400 && !tl_exists(go); i++) usleep(100000);
  CHECK(tl_exists(go), "%s never appeared", go);
  CHECK(tl_verify(base, WS, 60 + (unsigned)tl_rank, 0) < 0, "the window's bytes changed");
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_FILE_PATTERN(fn, (off_t)WS * tl_rank, WS, 60 + (unsigned)tl_rank, 0);
}

/* A second job asking for the first one's bytes of fn: refused on every rank. */
static void intrude(const char *fn) {
  void *base;
  MPI_Win win;
  off_t size = tl_file_size(fn);
  int rc = walloc(MPI_COMM_WORLD, fn, (long)WS * tl_rank + 100, WS, &base, &win);
  EXPECT_ERR(rc, MPISW_ERR_USAGE, fn, NULL);
  CHECK(tl_allsum(rc != MPI_SUCCESS) == tl_size, "not every rank got the error");
  CHECK(tl_file_size(fn) == size, "the refused job changed the file's size");
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "info")) test_info();
  else if (!strcmp(mode, "env")) test_env();
  else if (!strcmp(mode, "offsets")) test_offsets();
  else if (!strcmp(mode, "shared")) test_shared();
  else if (!strcmp(mode, "twowin")) test_twowin();
  else if (!strcmp(mode, "hold") && argc > 2) hold(argv[2]);
  else if (!strcmp(mode, "intrude") && argc > 2) intrude(argv[2]);
  else tl_fail(__FILE__, __LINE__, "unknown mode '%s'", mode);
  return tl_finish();
}
