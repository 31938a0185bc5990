/*
 * Environment variables seen by a program linked with mpisw. Run through
 * tests/tools/envrun.sh, which makes a directory, exports it as
 * MPISW_TEST_DIR and replaces @DIR@ in the variables it sets.
 *   t_env hints      MPISW_HINTS="alloc_type=storage;storage_alloc_filename=@DIR@;storage_alloc_unlink=false"
 *                    applies to Win_allocate, Win_allocate_shared, Alloc_mem; info keys override it key by key
 *   t_env badhints   MPISW_HINTS with storage_alloc_factor=2 -> HINT unless the info sets the key
 *   t_env disable    MPISW_DISABLE=1 (+ MPISW_HINTS): pure pass-through, no file
 *   t_env active     no variables: mpisw_active() is 1
 *   t_env thread     MPI_Init_thread(MPI_THREAD_MULTIPLE) passes through; storage windows work
 *   t_env report     MPISW_REPORT=1: rank 0 (only) prints mpisw: lines at MPI_Finalize,
 *                    whose figures (ranks, windows, bytes placed and written, syncs,
 *                    leaks) are those of what the ranks did
 *   t_env noreport   no MPISW_REPORT: no mpisw: lines
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"

#define WS (256 * 1024)

static const char *dir(void) {
  const char *d = getenv("MPISW_TEST_DIR");
  CHECK(d && *d, "MPISW_TEST_DIR is not set: run under tests/tools/envrun.sh");
  return d;
}

static void test_hints(void) {
  const char *h = getenv("MPISW_HINTS");
  CHECK(h && strstr(h, dir()), "MPISW_HINTS should name %s: '%s'", dir(), h ? h : "(unset)");
  CHECK(mpisw_active(), "mpisw_active() is 0");
  void *base;
  MPI_Win win;
  /* 1. MPI_INFO_NULL: the environment puts the window in the directory */
  CHECK_MPI(MPI_Win_allocate(WS, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  const char *at = tl_win_info(win, "alloc_type");
  CHECK(at && !strcmp(at, "storage"), "MPISW_HINTS alloc_type=storage ignored (get_info alloc_type '%s')",
        at ? at : "(absent)");
  char f1[PATH_MAX];
  const char *fv = tl_win_info(win, "storage_alloc_filename");
  CHECK(fv && !strncmp(fv, dir(), strlen(dir())), "window file '%s' is not in %s", fv ? fv : "(absent)", dir());
  snprintf(f1, sizeof f1, "%s", fv);
  /* a unique file has no name while the window lives; unlink=false names it at free */
  CHECK(!tl_exists(f1) && tl_file_of(base), "window %s: a name before free, or not mapped from a file", f1);
  tl_fill(base, WS, 10 + tl_rank, 0);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(tl_exists(f1), "storage_alloc_unlink=false from MPISW_HINTS ignored: %s removed", f1);
  CHECK_FILE_PATTERN(f1, 0, WS, 10 + tl_rank, 0);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int n0 = tl_count_dir(dir(), NULL);
  CHECK(n0 == tl_size, "%d files in %s, expected %d", n0, dir(), tl_size);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* 2. alloc_type=memory in the info wins */
  MPI_Info info = tl_info("alloc_type=memory", NULL);
  CHECK_MPI(MPI_Win_allocate(WS, 1, info, MPI_COMM_WORLD, &base, &win));
  MPI_Info_free(&info);
  memset(base, 1, WS);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(tl_count_dir(dir(), NULL) == n0, "alloc_type=memory in the info still created a file");
  CHECK_MPI(MPI_Win_free(&win));

  /* 3. one key overridden, the others from the environment */
  info = tl_info("storage_alloc_unlink=true", NULL);
  CHECK_MPI(MPI_Win_allocate(WS, 1, info, MPI_COMM_WORLD, &base, &win));
  MPI_Info_free(&info);
  fv = tl_win_info(win, "storage_alloc_filename");
  CHECK(fv && !strncmp(fv, dir(), strlen(dir())), "file '%s' not from MPISW_HINTS", fv ? fv : "(absent)");
  char f3[PATH_MAX];
  snprintf(f3, sizeof f3, "%s", fv);
  CHECK(!tl_exists(f3) && tl_file_of(base), "%s: a name before free, or no file", f3);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(!tl_exists(f3), "info storage_alloc_unlink=true did not override MPISW_HINTS: %s kept", f3);

  /* 4. an explicit filename: the environment's directory is not used */
  const char *own = tl_path("own-r%d", tl_rank);
  info = tl_info(NULL);
  tl_info_setf(info, "storage_alloc_filename", "%s", own);
  CHECK_MPI(MPI_Win_allocate(WS, 1, info, MPI_COMM_WORLD, &base, &win));
  MPI_Info_free(&info);
  CHECK(tl_exists(own), "info filename %s not used", own);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(tl_count_dir(dir(), NULL) == n0, "a window with its own filename created a file in %s", dir());
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* 5. MPI_Win_allocate_shared */
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  CHECK_MPI(MPI_Win_allocate_shared(WS, 1, MPI_INFO_NULL, node, &base, &win));
  CHECK(tl_win_flavor(win) == MPI_WIN_FLAVOR_SHARED, "shared flavor");
  fv = tl_win_info(win, "storage_alloc_filename");
  CHECK(fv && !strncmp(fv, dir(), strlen(dir())), "shared window: file '%s' not from MPISW_HINTS",
        fv ? fv : "(absent)");
  CHECK(tl_file_of(base), "shared window not mapped from a file (%s)", fv);
  CHECK_MPI(MPI_Win_free(&win));
  MPI_Comm_free(&node);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int n1 = tl_count_dir(dir(), NULL);
  CHECK(n1 == n0 + 1, "shared window under MPISW_HINTS: %d files, expected %d (one node file)", n1, n0 + 1);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* 6. MPI_Alloc_mem */
  char *p = NULL;
  CHECK_MPI(MPI_Alloc_mem(WS, MPI_INFO_NULL, &p));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(tl_file_of(p), "MPI_Alloc_mem under MPISW_HINTS is not on a file");
  {
    off_t fo;
    char perms[5];
    CHECK(tl_backing(p, NULL, &fo, perms) == TL_OTHER, "MPI_Alloc_mem memory is not file-backed");
  }
  memset(p, 2, WS);
  CHECK_MPI(MPI_Free_mem(p));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(tl_count_dir(dir(), NULL) == n1 + tl_size, "MPI_Alloc_mem under MPISW_HINTS: %d files kept, expected %d",
        tl_count_dir(dir(), NULL), n1 + tl_size);
}

static void test_badhints(void) {
  void *base;
  MPI_Win win;
  int rc = MPI_Win_allocate(WS, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  EXPECT_ERR(rc, MPISW_ERR_HINT, "storage_alloc_factor", NULL);
  void *p;
  rc = MPI_Alloc_mem(WS, MPI_INFO_NULL, &p);
  EXPECT_ERR(rc, MPISW_ERR_HINT, "storage_alloc_factor", NULL);
  MPI_Info info = tl_info("storage_alloc_factor=1", NULL);
  rc = MPI_Win_allocate(WS, 1, info, MPI_COMM_WORLD, &base, &win);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) tl_fail(__FILE__, __LINE__, "info storage_alloc_factor=1 should override the bad MPISW_HINTS value: %s", tl_errstr(rc));
  CHECK_MPI(MPI_Win_free(&win));
}

static void test_disable(void) {
  CHECK(!mpisw_active(), "MPISW_DISABLE=1 but mpisw_active() is 1");
  void *base;
  MPI_Win win;
  const char *fn = tl_path("disabled-r%d", tl_rank);
  MPI_Info info = tl_sinfo(fn, NULL);
  int rc = MPI_Win_allocate(WS, 1, info, MPI_COMM_WORLD, &base, &win);
  if (rc != MPI_SUCCESS) tl_fail(__FILE__, __LINE__, "MPISW_DISABLE=1: MPI_Win_allocate failed: %s", tl_errstr(rc));
  CHECK(!tl_exists(fn), "MPISW_DISABLE=1 but %s was created", fn);
  memset(base, 1, WS);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Win_allocate(WS, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  CHECK_MPI(MPI_Win_free(&win));
  void *p;
  CHECK_MPI(MPI_Alloc_mem(WS, info, &p));
  CHECK(!tl_exists(fn), "MPISW_DISABLE=1 but MPI_Alloc_mem created %s", fn);
  CHECK_MPI(MPI_Free_mem(p));
  /* even a bad hint is not looked at */
  CHECK_MPI(MPI_Info_set(info, "storage_alloc_factor", "1.5"));
  rc = MPI_Win_allocate(WS, 1, info, MPI_COMM_WORLD, &base, &win);
  if (rc != MPI_SUCCESS) tl_fail(__FILE__, __LINE__, "MPISW_DISABLE=1 must not validate hints: %s", tl_errstr(rc));
  CHECK_MPI(MPI_Win_free(&win));
  MPI_Info_free(&info);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (getenv("MPISW_TEST_DIR")) CHECK(tl_count_dir(dir(), NULL) == 0, "files created in %s", dir());
  CHECK(tl_count_dir(tl_scratch(), NULL) == 0, "files created in %s", tl_scratch());
}

static void test_active(void) {
  CHECK(mpisw_active(), "mpisw_active() is 0 without MPISW_DISABLE");
  for (int k = 0; k < MPISW_ERR_KIND_COUNT; k++) {
    int c = -1;
    CHECK_MPI(mpisw_error_class(k, &c));
    for (int j = 0; j < k; j++) {
      int d = -1;
      mpisw_error_class(j, &d);
      CHECK(c != d, "kinds %d and %d share error class %d", j, k, c);
    }
    CHECK(c > 0, "class %d of kind %d", c, k);
  }
  int c;
  CHECK(mpisw_error_class(MPISW_ERR_KIND_COUNT, &c) != MPI_SUCCESS, "mpisw_error_class accepts an invalid kind");
}

static void *alloc_thread(void *arg) {
  const char *dir = arg;
  long bad = 0;
  for (int i = 0; i < 25; i++) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_type", "storage");
    MPI_Info_set(info, "storage_alloc_filename", dir);
    char *p = NULL;
    int rc = MPI_Alloc_mem(64 * 1024, info, &p);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS) {
      tl_log("thread MPI_Alloc_mem failed: %s", tl_errstr(rc));
      bad++;
      continue;
    }
    unsigned seed = (unsigned)(uintptr_t)p;
    tl_fill(p, 64 * 1024, seed, 0);
    if (tl_verify(p, 64 * 1024, seed, 0) >= 0) bad++;
    rc = MPI_Free_mem(p);
    if (rc != MPI_SUCCESS) {
      tl_log("thread MPI_Free_mem failed: %s", tl_errstr(rc));
      bad++;
    }
  }
  return (void *)bad;
}

static void test_thread(int provided) {
  int q = -1;
  CHECK_MPI(MPI_Query_thread(&q));
  CHECK(q == provided, "MPI_Query_thread %d, MPI_Init_thread provided %d", q, provided);
  CHECK(provided >= MPI_THREAD_FUNNELED, "MPI_Init_thread(MULTIPLE) provided only %d", provided);
  if (tl_rank == 0) tl_log("MPI_Init_thread(MPI_THREAD_MULTIPLE) provided %d", provided);
  void *base;
  MPI_Win win;
  const char *fn = tl_path("thr-r%d", tl_rank);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, fn);
  tl_fill(base, WS, 20, 0);
  TL_SYNC(win);
  CHECK_FILE_PATTERN(fn, 0, WS, 20, 0);
  CHECK_MPI(MPI_Win_free(&win));
  if (provided < MPI_THREAD_MULTIPLE) {
    if (tl_rank == 0) tl_log("note: no MPI_THREAD_MULTIPLE, concurrent MPI_Alloc_mem not tested");
    return;
  }
  /* MPI_Alloc_mem / MPI_Free_mem from 4 threads at once (local calls) */
  const char *dir = tl_path("thr-dir-r%d", tl_rank);
  CHECK(mkdir(dir, 0700) == 0, "mkdir");
  pthread_t th[4];
  for (int i = 0; i < 4; i++) CHECK(pthread_create(&th[i], NULL, alloc_thread, (void *)dir) == 0, "pthread_create");
  long bad = 0;
  for (int i = 0; i < 4; i++) {
    void *r = NULL;
    pthread_join(th[i], &r);
    bad += (long)r;
  }
  CHECK(bad == 0, "%ld concurrent MPI_Alloc_mem/MPI_Free_mem rounds went wrong (see above)", bad);
  CHECK(tl_count_dir(dir, NULL) == 0, "%d files left after concurrent MPI_Free_mem", tl_count_dir(dir, NULL));
}

/* A size of the report ("256.0 KiB", "12 B") in bytes; *tol gets half its
 * last printed digit. 0 when s does not start with one. */
static int report_size(const char *s, double *bytes, double *tol) {
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  char num[32], unit[8];
  if (sscanf(s, " %31[0-9.] %7[A-Za-z]", num, unit) != 2) return 0;
  for (int u = 0; u < 5; u++)
    if (!strcmp(unit, units[u])) {
      double scale = (double)(1ull << (10 * u));
      const char *dot = strchr(num, '.');
      *bytes = atof(num) * scale;
      *tol = scale / 2;
      for (size_t d = dot ? strlen(dot + 1) : 0; d > 0; d--) *tol /= 10;
      return 1;
    }
  return 0;
}

/* 1 when size s is want bytes (within the printed precision), else prints why. */
static int report_size_is(const char *line, const char *s, double want, const char *what) {
  double b, tol;
  if (!report_size(s, &b, &tol)) {
    fprintf(stderr, "FAIL rank 0: no size for %s in the report line: %s", what, line);
    return 0;
  }
  if (b - tol > want || b + tol < want) {
    fprintf(stderr, "FAIL rank 0: the report says %s is %.0f bytes (+- %.0f), expected %.0f: %s", what,
            b, tol, want, line);
    return 0;
  }
  return 1;
}

/* The figures rank 0 prints for NP ranks that each made one window of WS
 * bytes with storage_alloc_factor=0.5 (half in memory), wrote all of it,
 * synced once and freed it (which may sync once more, writing nothing). */
static int check_report_line(const char *line, int *seen) {
  double half = (double)tl_size * WS / 2;
  const char *p;
  int n[5], ranks;
  if (sscanf(line, "mpisw: report over %d ranks", &ranks) == 1) {
    seen[0]++;
    if (ranks == tl_size) return 1;
    fprintf(stderr, "FAIL rank 0: the report counts %d ranks, expected %d: %s", ranks, tl_size, line);
    return 0;
  }
  if ((p = strstr(line, "windows:"))) {
    seen[1]++;
    if (sscanf(p, "windows: %d in memory, %d on storage, %d combined, %d shared on storage; "
                  "%d MPI_Alloc_mem ranges on storage", &n[0], &n[1], &n[2], &n[3], &n[4]) == 5 &&
        n[0] == 0 && n[1] == 0 && n[2] == tl_size && n[3] == 0 && n[4] == 0)
      return 1;
    fprintf(stderr, "FAIL rank 0: expected 0 windows in memory, 0 on storage, %d combined, 0 shared, "
            "0 MPI_Alloc_mem ranges: %s", tl_size, line);
    return 0;
  }
  if ((p = strstr(line, "placed:"))) {
    seen[2]++;
    const char *s2 = strstr(p, ", ");
    return report_size_is(line, p + 7, half, "the memory placed") &&
           (s2 && strstr(s2, " on storage")) && report_size_is(line, s2 + 2, half, "the storage placed");
  }
  if ((p = strstr(line, "written:"))) {
    seen[3]++;
    const char *in = strstr(p, " in ");
    int syncs = -1;
    if (!report_size_is(line, p + 8, half, "the bytes written")) return 0;
    if (in && sscanf(in, " in %d sync", &syncs) == 1 && syncs >= tl_size && syncs <= 2 * tl_size)
      return 1;
    fprintf(stderr, "FAIL rank 0: the report counts %d syncs, expected %d to %d (one MPI_Win_sync per "
            "rank, perhaps one more in MPI_Win_free): %s", syncs, tl_size, 2 * tl_size, line);
    return 0;
  }
  if ((p = strstr(line, "not freed at MPI_Finalize:"))) {
    seen[4]++;
    if (strstr(p, ": nothing")) return 1;
    fprintf(stderr, "FAIL rank 0: the window was freed, the report says: %s", line);
    return 0;
  }
  return 1;
}

/* report / noreport: stderr of each rank goes to a file until after MPI_Finalize */
static int test_report(int want) {
  char d[] = "/tmp/mpisw-report-XXXXXX";
  CHECK(mkdtemp(d) != NULL, "mkdtemp");
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/stderr", d);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0, "open %s", path);
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  close(fd);
  void *base;
  MPI_Win win;
  char fn[PATH_MAX];
  snprintf(fn, sizeof fn, "%s/win", d);
  TL_WALLOC(WS, MPI_COMM_WORLD, &base, &win, fn, "storage_alloc_factor=0.5");
  tl_fill(base, WS, 1, 0);
  TL_SYNC(win);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Finalize();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  FILE *f = fopen(path, "r");
  int lines = 0, wrong = 0, seen[5] = {0, 0, 0, 0, 0};
  char line[1024];
  while (f && fgets(line, sizeof line, f)) {
    fputs(line, stderr); /* show what was printed */
    if (!strncmp(line, "mpisw:", 6)) {
      lines++;
      if (want && tl_rank == 0 && !check_report_line(line, seen)) wrong++;
    }
  }
  if (f) fclose(f);
  tl_rm_rf(d);
  int bad = 0;
  if (want && tl_rank == 0) {
    static const char *names[5] = {"report over N ranks", "windows:", "placed:", "written:",
                                   "not freed at MPI_Finalize:"};
    for (int k = 0; k < 5; k++)
      if (seen[k] != 1) {
        fprintf(stderr, "FAIL rank 0: the report has %d '%s' lines, expected 1\n", seen[k], names[k]);
        bad = 1;
      }
    if (wrong) bad = 1;
  }
  if ((!want || tl_rank != 0) && lines) {
    fprintf(stderr, "FAIL rank %d: %d 'mpisw:' lines printed, expected none%s\n", tl_rank, lines,
            want ? " (only rank 0 reports)" : " without MPISW_REPORT");
    bad = 1;
  }
  if (!bad && tl_rank == 0) printf("PASS\n");
  return bad;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "thread")) {
    int provided = tl_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
    tl_scratch();
    test_thread(provided);
    return tl_finish();
  }
  tl_init(&argc, &argv);
  if (!strcmp(mode, "report")) return test_report(1);
  if (!strcmp(mode, "noreport")) return test_report(0);
  tl_scratch();
  if (!strcmp(mode, "hints")) test_hints();
  else if (!strcmp(mode, "badhints")) test_badhints();
  else if (!strcmp(mode, "disable")) test_disable();
  else if (!strcmp(mode, "active")) test_active();
  else tl_fail(__FILE__, __LINE__, "unknown mode '%s'", mode);
  return tl_finish();
}
