/*
 * MPI_Alloc_mem storage memory in dynamic windows and in MPI_Win_create.
 *   t_dynamic attach   Alloc_mem(storage) + Win_create_dynamic + attach; remote put at the
 *                      MPI_Get_address displacement; MPI_Win_sync -> file; detach; Free_mem.
 *                      Mixed attachments (storage + malloc) sync fine. Directory and unlink.
 *   t_dynamic create   Alloc_mem(storage) + MPI_Win_create; remote put; Win_sync -> file.
 *   t_dynamic freemem  Free_mem syncs; without hints Alloc_mem is plain memory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testlib.h"

#define WS (512 * 1024)
#define DOFF 4096    /* where the remote put lands in the memory */
#define DLEN (256 * 1024 + 5)

static void *alloc_storage(const char *fn, const char *extra1, const char *extra2) {
  MPI_Info info = tl_sinfo(fn, extra1, extra2, NULL);
  void *p = NULL;
  int rc = MPI_Alloc_mem(WS, info, &p);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) tl_fail(__FILE__, __LINE__, "MPI_Alloc_mem(storage %s): %s", fn, tl_errstr(rc));
  CHECK(p != NULL, "MPI_Alloc_mem returned NULL");
  return p;
}

static void test_attach(void) {
  const char *fn = tl_path("am-r%d", tl_rank);
  char *p = alloc_storage(fn, "storage_alloc_unlink=false", NULL);
  CHECK(tl_exists(fn), "MPI_Alloc_mem with storage hints did not create %s", fn);
  CHECK(tl_file_size(fn) >= WS, "file %s is %lld bytes", fn, (long long)tl_file_size(fn));
  struct tl_scan s;
  tl_scan_range(p, WS, fn, &s);
  CHECK(s.file == s.pages, "only %zu of %zu pages of the MPI_Alloc_mem memory map %s", s.file, s.pages, fn);
  memset(p, 0, WS);
  /* a second, directory-mode allocation, and a malloc region */
  const char *dir = tl_path("amdir-r%d", tl_rank);
  CHECK(mkdir(dir, 0700) == 0, "mkdir %s: %s", dir, strerror(errno));
  char *q = alloc_storage(dir, NULL, NULL);
  /* its unique file has no name (it goes with the process): reach it
   * through this process's descriptor */
  CHECK(tl_count_dir(dir, NULL) == 0, "directory-mode MPI_Alloc_mem: %d names in %s", tl_count_dir(dir, NULL), dir);
  char qfile[PATH_MAX];
  CHECK(tl_file_of(q), "directory-mode MPI_Alloc_mem is not on a file");
  snprintf(qfile, sizeof qfile, "%s", tl_file_of(q));
  char *m = malloc(WS);
  CHECK(m != NULL, "malloc");
  memset(q, 0, WS);
  memset(m, 0, WS);

  MPI_Win win;
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  tl_win_errors_return(win);
  CHECK(tl_win_flavor(win) == MPI_WIN_FLAVOR_DYNAMIC, "flavor %d", tl_win_flavor(win));
  CHECK_MPI(MPI_Win_attach(win, p, WS));
  CHECK_MPI(MPI_Win_attach(win, q, WS));
  CHECK_MPI(MPI_Win_attach(win, m, WS));
  MPI_Aint mine[3], *all = malloc(sizeof(MPI_Aint) * 3 * tl_size);
  CHECK_MPI(MPI_Get_address(p, &mine[0]));
  CHECK_MPI(MPI_Get_address(q, &mine[1]));
  CHECK_MPI(MPI_Get_address(m, &mine[2]));
  CHECK_MPI(MPI_Allgather(mine, 3, MPI_AINT, all, 3, MPI_AINT, MPI_COMM_WORLD));
  int to = (tl_rank + 1) % tl_size, from = (tl_rank + tl_size - 1) % tl_size;
  char *src = malloc(DLEN);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, to, 0, win));
  for (int k = 0; k < 3; k++) {
    tl_fill(src, DLEN, 600 + 10 * k + tl_rank, 0);
    CHECK_MPI(MPI_Put(src, DLEN, MPI_BYTE, to, MPI_Aint_add(all[3 * to + k], DOFF), DLEN, MPI_BYTE, win));
    CHECK_MPI(MPI_Win_flush(to, win));
  }
  CHECK_MPI(MPI_Win_unlock(to, win));
  free(src);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  TL_SYNC(win); /* storage + memory attachments together */
  CHECK(tl_verify(p + DOFF, DLEN, 600 + from, 0) < 0, "put into the storage attachment not visible");
  CHECK(tl_verify(q + DOFF, DLEN, 610 + from, 0) < 0, "put into the 2nd storage attachment not visible");
  CHECK(tl_verify(m + DOFF, DLEN, 620 + from, 0) < 0, "put into the malloc attachment not visible");
  CHECK_FILE_PATTERN(fn, DOFF, DLEN, 600 + from, 0);
  CHECK_FILE_PATTERN(qfile, DOFF, DLEN, 610 + from, 0);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_detach(win, p));
  CHECK_MPI(MPI_Win_detach(win, q));
  CHECK_MPI(MPI_Win_detach(win, m));
  CHECK_MPI(MPI_Win_free(&win));
  int rc = MPI_Free_mem(p);
  if (rc != MPI_SUCCESS) tl_fail(__FILE__, __LINE__, "MPI_Free_mem: %s", tl_errstr(rc));
  CHECK(tl_exists(fn), "unlink=false: %s removed by MPI_Free_mem", fn);
  CHECK_FILE_PATTERN(fn, DOFF, DLEN, 600 + from, 0);
  CHECK_MPI(MPI_Free_mem(q));
  CHECK(tl_count_dir(dir, NULL) == 0 && !tl_exists(qfile),
        "directory-mode MPI_Alloc_mem: unique file %s not gone after MPI_Free_mem", qfile);
  free(m);
  free(all);

  /* unlink=true: removed by MPI_Free_mem */
  const char *u = tl_path("am-unlink-r%d", tl_rank);
  char *r = alloc_storage(u, "storage_alloc_unlink=true", NULL);
  CHECK(tl_exists(u), "%s not created", u);
  memset(r, 1, WS);
  CHECK_MPI(MPI_Free_mem(r));
  CHECK(!tl_exists(u), "storage_alloc_unlink=true: %s still exists after MPI_Free_mem", u);
}

static void test_create(void) {
  const char *fn = tl_path("amc-r%d", tl_rank);
  char *p = alloc_storage(fn, "storage_alloc_offset=8192", NULL);
  memset(p, 0, WS);
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(p, WS, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  tl_win_errors_return(win);
  CHECK(tl_win_flavor(win) == MPI_WIN_FLAVOR_CREATE, "MPI_Win_create flavor %d", tl_win_flavor(win));
  int to = (tl_rank + 1) % tl_size, from = (tl_rank + tl_size - 1) % tl_size;
  char *src = malloc(DLEN);
  tl_fill(src, DLEN, 700 + tl_rank, 0);
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Put(src, DLEN, MPI_BYTE, to, DOFF, DLEN, MPI_BYTE, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  free(src);
  TL_SYNC(win);
  CHECK(tl_verify(p + DOFF, DLEN, 700 + from, 0) < 0, "put not visible in memory");
  CHECK_FILE_PATTERN(fn, 8192 + DOFF, DLEN, 700 + from, 0);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Free_mem(p));
  CHECK_FILE_PATTERN(fn, 8192 + DOFF, DLEN, 700 + from, 0);
}

static void test_freemem(void) {
  const char *fn = tl_path("amf-r%d", tl_rank);
  char *p = alloc_storage(fn, NULL, NULL);
  tl_fill(p, WS, 800 + tl_rank, 0);
  int rc = MPI_Free_mem(p);
  if (rc != MPI_SUCCESS) tl_fail(__FILE__, __LINE__, "MPI_Free_mem: %s", tl_errstr(rc));
  CHECK_FILE_PATTERN(fn, 0, WS, 800 + tl_rank, 0);
  /* no hints: ordinary memory */
  void *m = NULL;
  CHECK_MPI(MPI_Alloc_mem(WS, MPI_INFO_NULL, &m));
  CHECK(tl_backing(m, fn, NULL, NULL) != TL_FILE, "plain MPI_Alloc_mem memory maps a storage file");
  memset(m, 3, WS);
  CHECK_MPI(MPI_Free_mem(m));
  MPI_Info info = tl_info("alloc_type=memory", NULL);
  CHECK_MPI(MPI_Alloc_mem(WS, info, &m));
  memset(m, 3, WS);
  CHECK_MPI(MPI_Free_mem(m));
  MPI_Info_free(&info);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(tl_count_dir(tl_scratch(), NULL) == tl_size, "memory allocations created files: %d entries",
        tl_count_dir(tl_scratch(), NULL));
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  tl_scratch();
  if (!strcmp(mode, "attach"))
    test_attach();
  else if (!strcmp(mode, "create"))
    test_create();
  else if (!strcmp(mode, "freemem"))
    test_freemem();
  else
    tl_fail(__FILE__, __LINE__, "unknown mode '%s'", mode);
  return tl_finish();
}
