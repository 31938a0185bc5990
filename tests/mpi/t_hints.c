/*
 * Hint parsing and validation through the allocation calls.
 *   t_hints invalid   every hint with bad values -> MPISW_ERR_HINT naming the hint, no file left
 *   t_hints valid     every valid value (and unknown keys) is accepted
 *   t_hints calls     bad hints through MPI_Win_allocate_shared, MPI_Alloc_mem, MPI_Win_allocate_c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define WSIZE (64 * 1024)

struct bad {
  const char *key, *value;
  int storage; /* also set alloc_type=storage + filename */
};

static const struct bad bad_cases[] = {
    {"alloc_type", "disk", 0},
    {"alloc_type", "storagex", 0},
    {"alloc_type", "disk", 1}, /* filename present, alloc_type bad */
    {"storage_alloc_factor", "1.5", 1},
    {"storage_alloc_factor", "-0.1", 1},
    {"storage_alloc_factor", "abc", 1},
    {"storage_alloc_factor", "nan", 1},
    {"storage_alloc_factor", "inf", 1},
    {"storage_alloc_factor", "0.5x", 1},
    {"storage_alloc_factor", "", 1},
    {"storage_alloc_factor", "1.5", 0}, /* validated even without alloc_type */
    {"storage_alloc_offset", "-1", 1},
    {"storage_alloc_offset", "abc", 1},
    {"storage_alloc_offset", "12Q", 1},
    {"storage_alloc_offset", "", 1},
    {"storage_alloc_offset", "99999999999999999999", 1},
    {"storage_alloc_offset", "1.5", 1},
    {"storage_alloc_order", "sideways", 1},
    {"storage_alloc_order", "", 1},
    {"storage_alloc_order", "sideways", 0},
    {"storage_alloc_unlink", "maybe", 1},
    {"storage_alloc_unlink", "2", 1},
    {"storage_alloc_unlink", "", 1},
    {"storage_alloc_discard", "2x", 1},
    {"storage_alloc_discard", "yes please", 1},
    {"storage_node_shared", "sometimes", 1},
    {"file_perm", "999", 1},
    {"file_perm", "abc", 1},
    {"file_perm", "0999", 1},
    {"file_perm", "", 1},
    {"access_style", "fast", 1},
    {"access_style", "sequential,fast", 1},
    {"striping_factor", "0", 1},
    {"striping_factor", "-3", 1},
    {"striping_factor", "x", 1},
    {"striping_unit", "0", 1},
    {"striping_unit", "abc", 1},
};

static void test_invalid(void) {
  int n = (int)(sizeof bad_cases / sizeof bad_cases[0]);
  int tested = 0;
  for (int i = 0; i < n; i++) {
    const struct bad *c = &bad_cases[i];
    const char *fn = tl_path("bad-%d-r%d", i, tl_rank);
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    if (c->storage) {
      CHECK_MPI(MPI_Info_set(info, "alloc_type", "storage"));
      CHECK_MPI(MPI_Info_set(info, "storage_alloc_filename", fn));
    }
    int src = MPI_Info_set(info, c->key, c->value);
    int ok = tl_allmin(src == MPI_SUCCESS);
    if (!ok) {
      if (tl_rank == 0) tl_log("note: MPI_Info_set(%s, '%s') is refused by this MPI; case skipped", c->key, c->value);
      MPI_Info_free(&info);
      continue;
    }
    void *base = NULL;
    MPI_Win win = MPI_WIN_NULL;
    int rc = MPI_Win_allocate(WSIZE, 1, info, MPI_COMM_WORLD, &base, &win);
    MPI_Info_free(&info);
    if (rc == MPI_SUCCESS) {
      tl_fail(__FILE__, __LINE__, "case %d: MPI_Win_allocate with %s='%s'%s succeeded, expected MPISW_ERR_HINT", i,
              c->key, c->value, c->storage ? " (alloc_type=storage)" : "");
    }
    char what[256];
    snprintf(what, sizeof what, "MPI_Win_allocate with %s='%s'", c->key, c->value);
    tl_expect_err(__FILE__, __LINE__, what, rc, MPISW_ERR_HINT, c->key, NULL);
    CHECK(!tl_exists(fn), "case %d (%s='%s'): file %s was left behind after the failed allocation", i,
          c->key, c->value, fn);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    tested++;
  }
  /* alloc_type=storage without a filename */
  {
    MPI_Info info = tl_info("alloc_type=storage", NULL);
    void *base = NULL;
    MPI_Win win = MPI_WIN_NULL;
    int rc = MPI_Win_allocate(WSIZE, 1, info, MPI_COMM_WORLD, &base, &win);
    MPI_Info_free(&info);
    EXPECT_ERR(rc, MPISW_ERR_HINT, "storage_alloc_filename", NULL);
  }
  /* unaligned offset on a combined memory_first window */
  {
    const char *fn = tl_path("bad-unaligned-r%d", tl_rank);
    MPI_Info info = tl_info("alloc_type=storage", "storage_alloc_factor=0.5",
                            "storage_alloc_order=memory_first", "storage_alloc_offset=100", NULL);
    tl_info_setf(info, "storage_alloc_filename", "%s", fn);
    void *base = NULL;
    MPI_Win win = MPI_WIN_NULL;
    int rc = MPI_Win_allocate(WSIZE, 1, info, MPI_COMM_WORLD, &base, &win);
    MPI_Info_free(&info);
    EXPECT_ERR(rc, MPISW_ERR_HINT, "storage_alloc_offset", NULL);
    CHECK(!tl_exists(fn), "file %s left behind", fn);
  }
  /* the communicator still works after all those errors */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (tl_rank == 0) tl_log("%d bad hint values rejected", tested);
}

static void alloc_ok(const char *label, MPI_Info info, const char *fn, int expect_file) {
  void *base = NULL;
  MPI_Win win = MPI_WIN_NULL;
  int rc = MPI_Win_allocate(WSIZE, 1, info, MPI_COMM_WORLD, &base, &win);
  if (rc != MPI_SUCCESS)
    tl_fail(__FILE__, __LINE__, "%s: MPI_Win_allocate failed: %s", label, tl_errstr(rc));
  tl_win_errors_return(win);
  CHECK(base != NULL, "%s: base is NULL", label);
  CHECK(tl_win_flavor(win) == MPI_WIN_FLAVOR_ALLOCATE, "%s: flavor is %d, expected MPI_WIN_FLAVOR_ALLOCATE", label,
        tl_win_flavor(win));
  memset(base, 0x5a, WSIZE);
  if (expect_file == 1) CHECK(tl_exists(fn), "%s: storage window but no file %s", label, fn);
  if (expect_file == 0 && fn) CHECK(!tl_exists(fn), "%s: memory window but file %s was created", label, fn);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(win == MPI_WIN_NULL, "%s: MPI_Win_free did not set MPI_WIN_NULL", label);
}

static void test_valid(void) {
  static const char *sets[][4] = {
      {"storage_alloc_offset=0", NULL},
      {"storage_alloc_offset=4096", NULL},
      {"storage_alloc_offset=4K", NULL},
      {"storage_alloc_offset=1M", NULL},
      {"storage_alloc_offset=100", NULL},
      {"storage_alloc_factor=1", NULL},
      {"storage_alloc_factor=1.0", NULL},
      {"storage_alloc_factor=0.25", NULL},
      {"storage_alloc_factor=0.5", "storage_alloc_order=memory_first", NULL},
      {"storage_alloc_factor=0.5", "storage_alloc_order=storage_first", NULL},
      {"storage_alloc_factor=auto", NULL},
      {"storage_alloc_order=memory_first", NULL},
      {"storage_alloc_order=storage_first", NULL},
      {"storage_alloc_unlink=true", NULL},
      {"storage_alloc_unlink=false", NULL},
      {"storage_alloc_unlink=TRUE", NULL},
      {"storage_alloc_unlink=False", NULL},
      {"storage_alloc_unlink=1", NULL},
      {"storage_alloc_unlink=0", NULL},
      {"storage_alloc_discard=true", NULL},
      {"storage_alloc_discard=false", NULL},
      {"storage_alloc_discard=1", NULL},
      {"storage_alloc_discard=0", NULL},
      {"storage_node_shared=false", NULL},
      {"file_perm=0644", NULL},
      {"file_perm=0600", NULL},
      {"file_perm=0640", NULL},
      {"access_style=read_once", NULL},
      {"access_style=write_once", NULL},
      {"access_style=read_mostly", NULL},
      {"access_style=write_mostly", NULL},
      {"access_style=sequential", NULL},
      {"access_style=reverse_sequential", NULL},
      {"access_style=random", NULL},
      {"access_style=sequential,random", NULL},
      {"access_style=read_mostly,write_once", NULL},
      {"striping_factor=4", "striping_unit=1048576", NULL},
      {"mpisw_no_such_key=whatever", NULL},
      {"foo=bar", "storage_alloc_colour=blue", NULL},
  };
  int n = (int)(sizeof sets / sizeof sets[0]);
  for (int i = 0; i < n; i++) {
    char label[512] = "";
    const char *fn = tl_path("ok-%d-r%d", i, tl_rank);
    MPI_Info info = tl_info("alloc_type=storage", NULL);
    tl_info_setf(info, "storage_alloc_filename", "%s", fn);
    for (int k = 0; sets[i][k]; k++) {
      const char *eq = strchr(sets[i][k], '=');
      char key[128];
      snprintf(key, sizeof key, "%.*s", (int)(eq - sets[i][k]), sets[i][k]);
      CHECK_MPI(MPI_Info_set(info, key, eq + 1));
      strncat(label, sets[i][k], sizeof label - strlen(label) - 2);
      strcat(label, " ");
    }
    int unlinked = strstr(label, "unlink=true") || strstr(label, "unlink=TRUE") || strstr(label, "unlink=1");
    /* the file exists while the window is alive (checked inside alloc_ok);
     * auto may resolve to all memory for this small window */
    alloc_ok(label, info, fn, strstr(label, "=auto") ? -1 : 1);
    MPI_Info_free(&info);
    if (unlinked) CHECK(!tl_exists(fn), "%s: file %s still exists after free", label, fn);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }
  /* memory windows: no hints, alloc_type=memory, factor 0 */
  alloc_ok("MPI_INFO_NULL", MPI_INFO_NULL, NULL, 0);
  {
    MPI_Info info = tl_info("alloc_type=memory", NULL);
    alloc_ok("alloc_type=memory", info, NULL, 0);
    MPI_Info_free(&info);
  }
  {
    const char *fn = tl_path("ok-factor0-r%d", tl_rank);
    MPI_Info info = tl_info("alloc_type=storage", "storage_alloc_factor=0", NULL);
    tl_info_setf(info, "storage_alloc_filename", "%s", fn);
    alloc_ok("storage_alloc_factor=0", info, fn, 0);
    MPI_Info_free(&info);
  }
  /* size 0 on a storage window is legal on every rank */
  {
    MPI_Info info = tl_info("alloc_type=storage", NULL);
    tl_info_setf(info, "storage_alloc_filename", "%s", tl_path("ok-zero-r%d", tl_rank));
    void *base = NULL;
    MPI_Win win;
    int rc = MPI_Win_allocate(0, 1, info, MPI_COMM_WORLD, &base, &win);
    if (rc != MPI_SUCCESS) tl_fail(__FILE__, __LINE__, "size-0 storage window: %s", tl_errstr(rc));
    CHECK_MPI(MPI_Win_free(&win));
    MPI_Info_free(&info);
  }
}

static void test_calls(void) {
  /* MPI_Win_allocate_shared */
  {
    const char *fn = tl_path("shared-bad");
    MPI_Info info = tl_info("alloc_type=storage", "storage_alloc_factor=abc", NULL);
    tl_info_setf(info, "storage_alloc_filename", "%s", fn);
    void *base = NULL;
    MPI_Win win;
    MPI_Comm node;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    CHECK_MPI(MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN));
    int rc = MPI_Win_allocate_shared(WSIZE, 1, info, node, &base, &win);
    EXPECT_ERR(rc, MPISW_ERR_HINT, "storage_alloc_factor", NULL);
    CHECK(!tl_exists(fn), "MPI_Win_allocate_shared: file %s left behind", fn);
    /* missing filename */
    MPI_Info_free(&info);
    info = tl_info("alloc_type=storage", NULL);
    rc = MPI_Win_allocate_shared(WSIZE, 1, info, node, &base, &win);
    EXPECT_ERR(rc, MPISW_ERR_HINT, "storage_alloc_filename", NULL);
    MPI_Info_free(&info);
    MPI_Comm_free(&node);
  }
  /* MPI_Alloc_mem */
  {
    static const char *bad[][2] = {{"storage_alloc_offset", "12Q"},
                                   {"storage_alloc_unlink", "maybe"},
                                   {"alloc_type", "disk"},
                                   {"storage_alloc_factor", "1.5"}};
    for (int i = 0; i < 4; i++) {
      const char *fn = tl_path("am-bad-%d-r%d", i, tl_rank);
      MPI_Info info = tl_info("alloc_type=storage", NULL);
      tl_info_setf(info, "storage_alloc_filename", "%s", fn);
      CHECK_MPI(MPI_Info_set(info, bad[i][0], bad[i][1]));
      void *p = NULL;
      int rc = MPI_Alloc_mem(WSIZE, info, &p);
      char what[128];
      snprintf(what, sizeof what, "MPI_Alloc_mem with %s='%s'", bad[i][0], bad[i][1]);
      tl_expect_err(__FILE__, __LINE__, what, rc, MPISW_ERR_HINT, bad[i][0], NULL);
      CHECK(!tl_exists(fn), "MPI_Alloc_mem: file %s left behind", fn);
      MPI_Info_free(&info);
    }
    MPI_Info info = tl_info("alloc_type=storage", NULL);
    void *p = NULL;
    int rc = MPI_Alloc_mem(WSIZE, info, &p);
    EXPECT_ERR(rc, MPISW_ERR_HINT, "storage_alloc_filename", NULL);
    MPI_Info_free(&info);
  }
#if MPI_VERSION >= 4
  /* MPI_Win_allocate_c (MPI 4 large-count variant) */
  {
    const char *fn = tl_path("c-r%d", tl_rank);
    MPI_Info info = tl_info("alloc_type=storage", "storage_alloc_order=sideways", NULL);
    tl_info_setf(info, "storage_alloc_filename", "%s", fn);
    void *base = NULL;
    MPI_Win win;
    int rc = MPI_Win_allocate_c(WSIZE, 1, info, MPI_COMM_WORLD, &base, &win);
    EXPECT_ERR(rc, MPISW_ERR_HINT, "storage_alloc_order", NULL);
    CHECK(!tl_exists(fn), "MPI_Win_allocate_c: file %s left behind", fn);
    CHECK_MPI(MPI_Info_delete(info, "storage_alloc_order"));
    rc = MPI_Win_allocate_c(WSIZE, 1, info, MPI_COMM_WORLD, &base, &win);
    if (rc != MPI_SUCCESS) tl_fail(__FILE__, __LINE__, "MPI_Win_allocate_c: %s", tl_errstr(rc));
    CHECK(tl_file_size(fn) >= WSIZE, "MPI_Win_allocate_c did not put the window on storage (%s size %lld)", fn,
          (long long)tl_file_size(fn));
    CHECK(tl_win_flavor(win) == MPI_WIN_FLAVOR_ALLOCATE, "MPI_Win_allocate_c flavor %d", tl_win_flavor(win));
    tl_fill(base, WSIZE, 3 + tl_rank, 0);
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_FILE_PATTERN(fn, 0, WSIZE, 3 + tl_rank, 0);
    MPI_Info_free(&info);
  }
#endif
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  tl_scratch();
  if (!strcmp(mode, "invalid"))
    test_invalid();
  else if (!strcmp(mode, "valid"))
    test_valid();
  else if (!strcmp(mode, "calls"))
    test_calls();
  else
    tl_fail(__FILE__, __LINE__, "unknown mode '%s'", mode);
  return tl_finish();
}
