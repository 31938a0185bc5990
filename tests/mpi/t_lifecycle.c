/*
 * Files of unique windows (a directory in storage_alloc_filename) do not
 * outlive the job, whatever the program freed and however it ended.
 *   t_lifecycle leak  DIR HOW BACKEND   make every kind of storage range and
 *                                       window, free none, MPI_Finalize
 *   t_lifecycle kill  DIR HOW BACKEND   the same, then wait to be killed
 *                                       (tests/tools/lifecycle.sh sends kill -9)
 *   t_lifecycle abort DIR HOW BACKEND   the same, then the last rank calls MPI_Abort
 *   t_lifecycle timing DIR N            median MPI_Win_allocate time over N
 *                                       creations: unique file vs named file
 * HOW is "info" (hints in MPI_Info) or "env" (the driver set MPISW_HINTS);
 * BACKEND is mmap or pager (where the pager cannot run, the pager case
 * skips: exit 77, which the driver passes on). The driver checks that DIR is empty afterwards;
 * leak also checks it itself after MPI_Finalize. Every rank writes
 * DIR/../ready-<rank> (holding its pid) once all its ranges hold data.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

static const char *dir, *how, *backend;

static MPI_Info hints(void) {
  if (!strcmp(how, "env")) return MPI_INFO_NULL;
  MPI_Info i = tl_info("alloc_type=storage", NULL);
  tl_info_setf(i, "storage_alloc_filename", "%s", dir);
  tl_info_setf(i, "storage_backend", "%s", backend);
  return i;
}

static void ready(void) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/../ready-%d", dir, tl_rank);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL, "cannot write %s", path);
  fprintf(f, "%ld\n", (long)getpid());
  fclose(f);
}

static int entries(void) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *de;
  while ((de = readdir(d)))
    if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) n++;
  closedir(d);
  return n;
}

/* Descriptors of this process open on files in dir (named or not). */
static int fds_in_dir(void) {
  DIR *d = opendir("/proc/self/fd");
  int n = 0;
  struct dirent *de;
  char link[PATH_MAX * 2], target[PATH_MAX];
  while (d && (de = readdir(d))) {
    snprintf(link, sizeof link, "/proc/self/fd/%s", de->d_name);
    ssize_t k = readlink(link, target, sizeof target - 1);
    if (k <= 0) continue;
    target[k] = 0;
    if (!strncmp(target, dir, strlen(dir)) && target[strlen(dir)] == '/') n++;
  }
  if (d) closedir(d);
  return n;
}

/* Every kind of storage range, filled, none freed. */
static void make_all(void) {
  MPI_Info info = hints();
  void *mem[3];
  const MPI_Aint msz[3] = {1000, 65536, 1 << 20};
  for (int i = 0; i < 3; i++) {
    CHECK_MPI(MPI_Alloc_mem(msz[i], info, &mem[i]));
    tl_fill(mem[i], (size_t)msz[i], 10 + (unsigned)i, 0);
  }
  MPI_Win wc, wa, ws, wn;
  CHECK_MPI(MPI_Win_create(mem[1], msz[1], 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wc));
  void *a, *s, *n;
  CHECK_MPI(MPI_Win_allocate(256 << 10, 1, info, MPI_COMM_WORLD, &a, &wa));
  if (!strcmp(backend, "pager")) tl_require_pager(&wa); /* else this tests mmap twice */
  tl_fill(a, 256 << 10, 20, 0);
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  CHECK_MPI(MPI_Win_allocate_shared(100000, 1, info, node, &s, &ws));
  tl_fill(s, 100000, 30, 0);
  MPI_Info ni;
  if (info == MPI_INFO_NULL) MPI_Info_create(&ni);
  else MPI_Info_dup(info, &ni);
  MPI_Info_set(ni, "storage_node_shared", "true");
  CHECK_MPI(MPI_Win_allocate(128 << 10, 1, ni, MPI_COMM_WORLD, &n, &wn));
  tl_fill(n, 128 << 10, 40, 0);
  /* a shared window half in memory (its memory part is shared too) */
  if (info == MPI_INFO_NULL) MPI_Info_create(&ni);
  else MPI_Info_dup(info, &ni);
  MPI_Info_set(ni, "storage_alloc_factor", "0.5");
  MPI_Win wh;
  void *h;
  int nr, nn;
  MPI_Comm_rank(node, &nr);
  MPI_Comm_size(node, &nn);
  CHECK_MPI(MPI_Win_allocate_shared(3 << 12, 1, ni, node, &h, &wh));
  tl_fill(h, 3 << 12, 50 + (unsigned)nr, 0);
  CHECK_MPI(MPI_Win_lock_all(0, wh));
  CHECK_MPI(MPI_Win_sync(wh));
  CHECK_MPI(MPI_Barrier(node));
  CHECK_MPI(MPI_Win_sync(wh));
  CHECK_MPI(MPI_Win_unlock_all(wh));
  MPI_Aint hs;
  int hd;
  char *hp;
  CHECK_MPI(MPI_Win_shared_query(wh, (nr + 1) % nn, &hs, &hd, &hp));
  CHECK(hs == 3 << 12 && tl_verify(hp, 3 << 12, 50 + (unsigned)((nr + 1) % nn), 0) < 0,
        "a neighbour's bytes of a combined shared window are not visible");
  MPI_Info_free(&ni);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  CHECK_MPI(MPI_Win_fence(0, wa));
  CHECK_MPI(MPI_Win_fence(0, wa));
  CHECK(tl_verify(a, 256 << 10, 20, 0) < 0, "window data changed");
  CHECK(tl_verify(mem[2], (size_t)msz[2], 12, 0) < 0, "MPI_Alloc_mem data changed");
  /* 3 MPI_Alloc_mem ranges and 2 windows of our own at least: all on storage */
  int k = fds_in_dir();
  CHECK(k >= 5, "only %d descriptors on files in %s: the ranges are not on storage", k, dir);
}

static double median(double *v, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
      double t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Creation time of MPI_Win_allocate (the slowest rank's), then free. */
static double time_one(MPI_Info info, MPI_Aint size) {
  void *b;
  MPI_Win w;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  CHECK_MPI(MPI_Win_allocate(size, 1, info, MPI_COMM_WORLD, &b, &w));
  double dt = MPI_Wtime() - t0, mx = 0;
  MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_free(&w));
  return mx;
}

static void timing(int n) {
  char named[PATH_MAX];
  snprintf(named, sizeof named, "%s/named-%%r", dir);
  MPI_Info iu = tl_info("alloc_type=storage", NULL);
  tl_info_setf(iu, "storage_alloc_filename", "%s", dir);
  MPI_Info in = tl_info("alloc_type=storage", "storage_alloc_unlink=true", NULL);
  tl_info_setf(in, "storage_alloc_filename", "%s", named);
  const MPI_Aint sizes[2] = {65536, 64 << 20};
  for (int s = 0; s < 2; s++) {
    double *tu = calloc((size_t)n, sizeof *tu), *tn = calloc((size_t)n, sizeof *tn);
    for (int i = 0; i < n; i++) { /* interleaved */
      tu[i] = time_one(iu, sizes[s]);
      tn[i] = time_one(in, sizes[s]);
    }
    if (tl_rank == 0)
      printf("timing np=%d size=%ld n=%d: unique-file median %.1f us, named-file median %.1f us\n",
             tl_size, (long)sizes[s], n, median(tu, n) * 1e6, median(tn, n) * 1e6);
    free(tu);
    free(tn);
  }
  MPI_Info_free(&iu);
  MPI_Info_free(&in);
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  CHECK(argc >= 3, "usage: t_lifecycle leak|kill|abort|timing DIR ...");
  const char *mode = argv[1];
  dir = argv[2];
  how = argc > 3 ? argv[3] : "info";
  backend = argc > 4 ? argv[4] : "mmap";
  if (!strcmp(mode, "timing")) {
    timing(argc > 3 ? atoi(argv[3]) : 50);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every rank's frees done */
    CHECK(entries() == 0, "timing left %d entries in %s", entries(), dir);
    return tl_finish();
  }
  make_all();
  ready();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (!strcmp(mode, "kill")) {
    for (;;) pause(); /* the driver kills every rank with SIGKILL */
  } else if (!strcmp(mode, "abort")) {
    if (tl_rank == tl_size - 1) MPI_Abort(MPI_COMM_WORLD, 3);
    for (;;) pause(); /* the MPI ends the others */
  } else if (strcmp(mode, "leak")) {
    tl_fail(__FILE__, __LINE__, "unknown mode '%s'", mode);
  }
  MPI_Finalize();
  int n = entries();
  if (n != 0) {
    fprintf(stderr, "FAIL rank %d: %d entries left in %s after MPI_Finalize\n", tl_rank, n, dir);
    return 1;
  }
  if (tl_rank == 0) printf("PASS\n");
  return 0;
}
