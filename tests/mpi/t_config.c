/*
 * Configuration, hints and messages as a program meets them (the stderr
 * side is checked by tests/tools/expect_stderr.sh, see tests/areas/config.cmake).
 *   t_config longpath   MPISW_HINTS names a ~1000-character path in a missing
 *                       directory: MPI_Error_string still says why
 *   t_config file_perm  file_perm=06777 (set-uid) -> MPISW_ERR_HINT, no file
 *   t_config arena      MPI_Init returned (MPISW_ARENA_SIZE far beyond memory
 *                       makes no arena) and MPI_Alloc_mem still works
 *   t_config hintwarn   MPISW_HINTS with a typo (alloc-type): the key is
 *                       ignored, so windows stay in memory; warned once
 *   t_config plain      allocate and free one window (environment warnings)
 *   t_config version    mpisw_version() and mpisw_config_string()
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define WS (64 * 1024)

/* MPISW_HINTS names a ~1000-character path in a missing directory (an
 * MPI_Info value cannot: Open MPI keeps 255 characters of it). */
static void test_longpath(void) {
  const char *dir = getenv("MPISW_TEST_DIR"), *hints = getenv("MPISW_HINTS");
  CHECK(dir && hints && strlen(hints) > 1000, "run under envrun.sh with a long MPISW_HINTS");
  void *base = NULL;
  MPI_Win win = MPI_WIN_NULL;
  int rc = MPI_Win_allocate(WS, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  /* the reason and the file's own name (every rank reports rank 0's error),
   * inside the MPI's error string (Open MPI keeps 256 characters) */
  EXPECT_ERR(rc, MPISW_ERR_NOFILE, "does not exist", "file-r0'");
  char s[MPI_MAX_ERROR_STRING], head[16];
  int len = 0;
  MPI_Error_string(rc, s, &len);
  snprintf(head, sizeof head, "'%.12s", dir);
  CHECK(strstr(s, head) != NULL, "the path's start is gone: %s", s);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(tl_count_dir(dir, NULL) == 0, "something was created in %s", dir);
}

static void test_file_perm(void) {
  const char *fn = tl_path("perm-r%d", tl_rank);
  const char *modes[] = {"06777", "04755", "01777", NULL};
  for (int i = 0; modes[i]; i++) {
    MPI_Info info = tl_sinfo(fn, NULL);
    CHECK_MPI(MPI_Info_set(info, "file_perm", (char *)modes[i]));
    void *base = NULL;
    MPI_Win win = MPI_WIN_NULL;
    int rc = MPI_Win_allocate(WS, 1, info, MPI_COMM_WORLD, &base, &win);
    MPI_Info_free(&info);
    EXPECT_ERR(rc, MPISW_ERR_HINT, "file_perm", modes[i]);
    CHECK(!tl_exists(fn), "file_perm=%s created %s", modes[i], fn);
  }
  /* 0777 is still a mode (the umask applies) */
  MPI_Info info = tl_sinfo(fn, NULL);
  CHECK_MPI(MPI_Info_set(info, "file_perm", "0777"));
  void *base = NULL;
  MPI_Win win = MPI_WIN_NULL;
  CHECK_MPI(MPI_Win_allocate(WS, 1, info, MPI_COMM_WORLD, &base, &win));
  MPI_Info_free(&info);
  mode_t m = tl_file_mode(fn);
  CHECK(m != (mode_t)-1 && !(m & 07000), "file mode %o", (unsigned)m);
  CHECK_MPI(MPI_Win_free(&win));
  unlink(fn);
}

static void test_arena(void) {
  /* MPI_Alloc_mem falls back to the MPI's own memory and works. */
  char *p = NULL;
  CHECK_MPI(MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &p));
  memset(p, 7, 1 << 20);
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(p, 1 << 20, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_fence(0, win));
  int v = 40 + tl_rank;
  CHECK_MPI(MPI_Put(&v, 1, MPI_INT, (tl_rank + 1) % tl_size, 0, 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK(*(int *)p == 40 + (tl_rank + tl_size - 1) % tl_size, "put gave %d", *(int *)p);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Free_mem(p));
}

static void test_hintwarn(void) {
  const char *dir = getenv("MPISW_TEST_DIR");
  CHECK(dir != NULL, "run under envrun.sh");
  for (int i = 0; i < 3; i++) {
    void *base = NULL;
    MPI_Win win = MPI_WIN_NULL;
    CHECK_MPI(MPI_Win_allocate(WS, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    const char *t = tl_win_info(win, "alloc_type");
    CHECK(!t || !strcmp(t, "memory"), "alloc-type was taken for alloc_type: %s", t);
    CHECK_MPI(MPI_Win_free(&win));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(tl_count_dir(dir, NULL) == 0, "a file was made in %s", dir);
}

static void test_plain(void) {
  void *base = NULL;
  MPI_Win win = MPI_WIN_NULL;
  CHECK_MPI(MPI_Win_allocate(WS, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  CHECK_MPI(MPI_Win_free(&win));
}

static void test_version(void) {
  char want[32];
  snprintf(want, sizeof want, "%d.%d.%d", MPISW_VERSION_MAJOR, MPISW_VERSION_MINOR,
           MPISW_VERSION_PATCH);
  CHECK(!strcmp(mpisw_version(), want), "mpisw_version() = %s, header %s", mpisw_version(), want);
  int need = mpisw_config_string(NULL, 0);
  CHECK(need > 100, "configuration text of %d bytes", need);
  char *s = malloc((size_t)need + 1);
  CHECK(mpisw_config_string(s, need + 1) == need && (int)strlen(s) == need, "whole text");
  CHECK(strstr(s, "MPISW_PAGER_WORKERS    3 (environment)") != NULL, "%s", s);
  CHECK(strstr(s, "MPISW_ARENA_SIZE       64M (default)") != NULL, "%s", s);
  CHECK(strstr(s, "MPISW_REPORT           0 (default; the environment's 'yes' is not valid)"),
        "%s", s);
  char small[8];
  CHECK(mpisw_config_string(small, sizeof small) == need && strlen(small) == 7, "truncation");
  free(s);
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "longpath")) test_longpath();
  else if (!strcmp(mode, "file_perm")) test_file_perm();
  else if (!strcmp(mode, "arena")) test_arena();
  else if (!strcmp(mode, "hintwarn")) test_hintwarn();
  else if (!strcmp(mode, "plain")) test_plain();
  else if (!strcmp(mode, "version")) test_version();
  else tl_fail(__FILE__, __LINE__, "unknown mode '%s'", mode);
  return tl_finish();
}
