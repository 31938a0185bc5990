/*
 * MPISW_MEMORY_LIMIT=1M (set by ctest): memory never passes the budget.
 * Memory windows that would pass it fail with MPISW_ERR_NOMEM on every rank,
 * before anything is allocated; storage_alloc_factor=auto puts the excess on
 * storage instead; freeing gives the budget back.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define KiB 1024
#define MiB (1024 * 1024)

static int memory_window(MPI_Aint size, MPI_Win *win) {
  void *base;
  return MPI_Win_allocate(size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, win);
}

static void test_memory_windows(void) {
  MPI_Win a, b;
  CHECK_MPI(memory_window(512 * KiB, &a));
  /* 512 KiB used: 768 KiB more would pass the 1 MiB budget, on every rank */
  int rc = memory_window(768 * KiB, &b);
  EXPECT_ERR(rc, MPISW_ERR_NOMEM, "MPISW_MEMORY_LIMIT", "storage_alloc_factor=auto");
  /* only one rank over the budget: every rank gets the error, none hangs */
  rc = memory_window(tl_rank == tl_size - 1 ? 2 * MiB : 4 * KiB, &b);
  EXPECT_ERR(rc, MPISW_ERR_NOMEM, "MPISW_MEMORY_LIMIT", NULL);
  CHECK_MPI(MPI_Win_free(&a));
  /* the budget is back */
  CHECK_MPI(memory_window(768 * KiB, &b));
  CHECK_MPI(MPI_Win_free(&b));
}

static void test_storage_and_auto(void) {
  void *base;
  MPI_Win w, m;
  /* factor 0.5 of 4 MiB wants 2 MiB of memory: refused, nothing created */
  const char *fh = tl_path("half-r%d", tl_rank);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_type", "storage");
  MPI_Info_set(info, "storage_alloc_filename", (char *)fh);
  MPI_Info_set(info, "storage_alloc_factor", "0.5");
  int rc = MPI_Win_allocate(4 * MiB, 1, info, MPI_COMM_WORLD, &base, &w);
  EXPECT_ERR(rc, MPISW_ERR_NOMEM, "MPISW_MEMORY_LIMIT", NULL);
  CHECK(!tl_exists(fh), "a refused window left %s behind", fh);
  /* auto: the same window fits, the excess on storage */
  MPI_Info_set(info, "storage_alloc_factor", "auto");
  CHECK_MPI(MPI_Win_allocate(4 * MiB, 1, info, MPI_COMM_WORLD, &base, &w));
  const char *f = tl_win_info(w, "storage_alloc_factor");
  CHECK(f && !strcmp(f, "0.75"), "auto resolved to %s, expected 0.75", f ? f : "(none)");
  /* the budget is used up by the auto window: even 4 KiB of memory is refused */
  rc = memory_window(4 * KiB, &m);
  EXPECT_ERR(rc, MPISW_ERR_NOMEM, "MPISW_MEMORY_LIMIT", NULL);
  /* and MPI_Alloc_mem on memory placed by mpisw (factor 0) too */
  MPI_Info_set(info, "storage_alloc_factor", "0");
  void *p = NULL;
  rc = MPI_Alloc_mem(64 * KiB, info, &p);
  EXPECT_ERR(rc, MPISW_ERR_NOMEM, "MPISW_MEMORY_LIMIT", NULL);
  CHECK_MPI(MPI_Win_free(&w));
  CHECK(tl_exists(fh), "the auto window's file %s is missing", fh);
  CHECK_MPI(memory_window(4 * KiB, &m));
  CHECK_MPI(MPI_Win_free(&m));
  MPI_Info_free(&info);
}

static void test_shared_memory(void) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
  void *base;
  MPI_Win w;
  int rc = MPI_Win_allocate_shared(2 * MiB, 1, MPI_INFO_NULL, node, &base, &w);
  EXPECT_ERR(rc, MPISW_ERR_NOMEM, "MPISW_MEMORY_LIMIT", NULL);
  CHECK_MPI(MPI_Win_allocate_shared(512 * KiB, 1, MPI_INFO_NULL, node, &base, &w));
  CHECK_MPI(MPI_Win_free(&w));
  MPI_Comm_free(&node);
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *lim = getenv("MPISW_MEMORY_LIMIT");
  CHECK(lim && !strcmp(lim, "1M"), "this test needs MPISW_MEMORY_LIMIT=1M (got %s)",
        lim ? lim : "nothing");
  test_memory_windows();
  test_storage_and_auto();
  test_shared_memory();
  return tl_finish();
}
