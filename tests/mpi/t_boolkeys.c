/* One boolean rule for every key mpisw interprets (README, "Hints"): each
 * accepted spelling (1, 0, true, false, any case) has its effect, seen in
 * MPI_Win_get_info; anything else is MPISW_ERR_HINT naming the key, the
 * value and the spellings, from the call that received the info. Keys the
 * MPI owns are judged by mpisw only where mpisw interprets them.
 *
 *   t_boolkeys storage   storage hints and alloc_shared_noncontig
 *   t_boolkeys rma       the RMA extensions' keys, on every call taking info
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "testlib.h"

static const char *const trues[] = {"true", "TRUE", "True", "1"};
static const char *const falses[] = {"false", "FALSE", "fAlSe", "0"};
static const char *const junk[] = {"yes", "no", "on", "2", "truex", "0x1"};
#define N(a) ((int)(sizeof(a) / sizeof(a)[0]))
#define FORMS "1, 0, true or false (any case)"

static void expect_bad(int rc, const char *key, const char *value) {
  char quoted[64];
  snprintf(quoted, sizeof quoted, "%s: '%s' is not a boolean", key, value);
  EXPECT_ERR(rc, MPISW_ERR_HINT, quoted, FORMS);
}

/* A storage window with key=value; returns the MPI code, *win on success. */
static int alloc_storage(const char *key, const char *value, MPI_Win *win) {
  MPI_Info info = tl_sinfo(tl_path("f%d", tl_rank), NULL);
  MPI_Info_set(info, key, value);
  void *base;
  int rc = MPI_Win_allocate(8192, 1, info, MPI_COMM_WORLD, &base, win);
  MPI_Info_free(&info);
  return rc;
}

static void storage_key(const char *key, int shows_true_as_true) {
  for (int i = 0; i < N(junk); i++) {
    MPI_Win win = MPI_WIN_NULL;
    expect_bad(alloc_storage(key, junk[i], &win), key, junk[i]);
    CHECK(win == MPI_WIN_NULL, "%s='%s' made a window", key, junk[i]);
  }
  for (int t = 0; t < 2; t++)
    for (int i = 0; i < 4; i++) {
      const char *v = t ? trues[i] : falses[i];
      MPI_Win win;
      CHECK_MPI(alloc_storage(key, v, &win));
      const char *got = tl_win_info(win, key);
      const char *want = t && shows_true_as_true ? "true" : "false";
      CHECK(got && !strcmp(got, want), "%s='%s': MPI_Win_get_info says %s, not %s", key, v,
            got ? got : "(absent)", want);
      CHECK_MPI(MPI_Win_free(&win));
    }
}

/* alloc_shared_noncontig: strict on storage shared windows (mpisw lays the
 * segments out), the MPI's business on memory ones. */
static void noncontig(void) {
  const char *key = "alloc_shared_noncontig";
  for (int i = 0; i < N(junk); i++) {
    MPI_Info info = tl_sinfo(tl_path("shared"), NULL);
    MPI_Info_set(info, key, junk[i]);
    void *base;
    MPI_Win win = MPI_WIN_NULL;
    int rc = MPI_Win_allocate_shared(100, 1, info, MPI_COMM_WORLD, &base, &win);
    MPI_Info_free(&info);
    expect_bad(rc, key, junk[i]);
    CHECK(win == MPI_WIN_NULL, "%s='%s' made a shared window", key, junk[i]);
  }
  for (int t = 0; t < 2; t++)
    for (int i = 0; i < 4; i++) {
      const char *v = t ? trues[i] : falses[i];
      MPI_Info info = tl_sinfo(tl_path("shared"), NULL);
      MPI_Info_set(info, key, v);
      char *base;
      MPI_Win win;
      CHECK_MPI(MPI_Win_allocate_shared(100, 1, info, MPI_COMM_WORLD, &base, &win));
      MPI_Info_free(&info);
      const char *got = tl_win_info(win, key);
      CHECK(got && !strcmp(got, t ? "true" : "false"), "%s='%s': MPI_Win_get_info says %s", key,
            v, got ? got : "(absent)");
      if (tl_size > 1) { /* noncontig: rank 1's segment starts on a page boundary */
        MPI_Aint size;
        int du;
        char *b1;
        CHECK_MPI(MPI_Win_shared_query(win, 1, &size, &du, &b1));
        char *b0;
        CHECK_MPI(MPI_Win_shared_query(win, 0, &size, &du, &b0));
        if (t) CHECK((b1 - b0) % (MPI_Aint)tl_page == 0, "'%s': rank 1 at +%ld", v, (long)(b1 - b0));
        else CHECK(b1 - b0 == 100, "'%s': rank 1 at +%ld, not +100", v, (long)(b1 - b0));
      }
      CHECK_MPI(MPI_Win_free(&win));
    }
  /* a memory shared window: the MPI judges its own key */
  MPI_Info info = tl_info("alloc_shared_noncontig=yes", NULL);
  void *base;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate_shared(100, 1, info, MPI_COMM_WORLD, &base, &win));
  MPI_Info_free(&info);
  CHECK_MPI(MPI_Win_free(&win));
}

static void storage(void) {
  storage_key("storage_alloc_unlink", 1);
  storage_key("storage_alloc_discard", 1);
  /* two or more ranks on one node, wholly on storage, mmap: node-shared
   * applies (one rank: never, "false") */
  storage_key("storage_node_shared", tl_size > 1);
  noncontig();
}

/* ---- the RMA extensions' keys ---- */

static MPI_Info one(const char *key, const char *value) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, key, value);
  return info;
}

static void check_order(MPI_Win win, const char *want, const char *how) {
  const char *got = tl_win_info(win, "mpi_win_order");
  CHECK(got && !strcmp(got, want), "%s: mpi_win_order is %s, not %s", how,
        got ? got : "(absent)", want);
}

static void rma_key(const char *key) {
  int is_order = !strcmp(key, "mpi_win_order");
  char buf[64];
  for (int i = 0; i < N(junk); i++) {
    const char *v = junk[i];
    MPI_Info bad = one(key, v);
    void *base;
    MPI_Win win = MPI_WIN_NULL;
    expect_bad(MPI_Win_allocate(64, 1, bad, MPI_COMM_WORLD, &base, &win), key, v);
    CHECK(win == MPI_WIN_NULL, "MPI_Win_allocate with %s='%s' made a window", key, v);
    MPI_Info sbad = tl_sinfo(tl_path("r%d", tl_rank), NULL);
    MPI_Info_set(sbad, key, v);
    expect_bad(MPI_Win_allocate(64, 1, sbad, MPI_COMM_WORLD, &base, &win), key, v);
    expect_bad(MPI_Win_allocate_shared(64, 1, bad, MPI_COMM_WORLD, &base, &win), key, v);
    MPI_Info_free(&sbad);
    static char mem[64];
    expect_bad(MPI_Win_create(mem, 64, 1, bad, MPI_COMM_WORLD, &win), key, v);
    CHECK(win == MPI_WIN_NULL, "MPI_Win_create with %s='%s' made a window", key, v);
    expect_bad(MPI_Win_create_dynamic(bad, MPI_COMM_WORLD, &win), key, v);

    /* calls on an existing window: the error on it, its keys unchanged */
    MPI_Info ok = one("mpi_win_order", "true");
    CHECK_MPI(MPI_Win_allocate(64, 1, ok, MPI_COMM_WORLD, &base, &win));
    MPI_Info_free(&ok);
    tl_win_errors_return(win);
    expect_bad(MPI_Win_set_info(win, bad), key, v);
    check_order(win, "true", "after a refused MPI_Win_set_info");
    MPI_Win dup = MPI_WIN_NULL;
    expect_bad(MPIX_Win_dup_with_info(win, bad, &dup), key, v);
    CHECK(dup == MPI_WIN_NULL, "MPIX_Win_dup_with_info with %s='%s' made a window", key, v);
    CHECK_MPI(MPIX_Win_dup_with_info(win, MPI_INFO_NULL, &dup));
    tl_win_errors_return(dup);
    expect_bad(MPI_Win_set_info(dup, bad), key, v);
    check_order(dup, "true", "a duplicate after a refused MPI_Win_set_info");
    CHECK_MPI(MPI_Win_free(&dup));
    CHECK_MPI(MPI_Win_free(&win));

    MPI_Win dyn;
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn));
    tl_win_errors_return(dyn);
    char *mem2;
    CHECK_MPI(MPI_Alloc_mem(64, MPI_INFO_NULL, &mem2));
    char mh[MPIX_MAX_MEMHANDLE_SIZE];
    int mhlen;
    CHECK_MPI(MPIX_Memhandle_create(mem2, 64, dyn, mh, &mhlen));
    MPI_Win hw = MPI_WIN_NULL;
    expect_bad(MPIX_Win_from_memhandle(mh, 64, 1, bad, tl_rank, dyn, &hw), key, v);
    CHECK(hw == MPI_WIN_NULL, "MPIX_Win_from_memhandle with %s='%s' made a window", key, v);
    CHECK_MPI(MPIX_Memhandle_release(mh, dyn));
    CHECK_MPI(MPI_Free_mem(mem2));
    CHECK_MPI(MPI_Win_free(&dyn));
    MPI_Info_free(&bad);
  }
  /* Only rank 1 has the bad value: every rank gets its error, none waits. */
  if (tl_size > 1) {
    MPI_Info info = one(key, tl_rank == 1 ? "maybe" : "true");
    static char mem[64];
    MPI_Win win = MPI_WIN_NULL;
    int rc = MPI_Win_create(mem, 64, 1, info, MPI_COMM_WORLD, &win);
    EXPECT_ERR(rc, MPISW_ERR_HINT, "rank 1", "'maybe' is not a boolean");
    void *base;
    rc = MPI_Win_allocate(64, 1, info, MPI_COMM_WORLD, &base, &win);
    EXPECT_ERR(rc, MPISW_ERR_HINT, "rank 1", "'maybe' is not a boolean");
    MPI_Info_free(&info);
  }
  /* Every spelling is accepted on every call; mpi_win_order shows it. */
  for (int t = 0; t < 2; t++)
    for (int i = 0; i < 4; i++) {
      const char *v = t ? trues[i] : falses[i];
      const char *want = is_order && t ? "true" : "false";
      snprintf(buf, sizeof buf, "%s='%s'", key, v);
      MPI_Info info = one(key, v);
      void *base;
      MPI_Win win, dup;
      CHECK_MPI(MPI_Win_allocate(64, 1, info, MPI_COMM_WORLD, &base, &win));
      tl_win_errors_return(win);
      const char *got = tl_win_info(win, key);
      if (!t) CHECK(got && !strcmp(got, "false"), "%s: %s shows %s", buf, key, got ? got : "(absent)");
      check_order(win, want, buf);
      CHECK_MPI(MPIX_Win_dup_with_info(win, info, &dup));
      check_order(dup, want, buf);
      CHECK_MPI(MPI_Win_free(&dup));
      CHECK_MPI(MPI_Win_free(&win));
      static char mem[64];
      CHECK_MPI(MPI_Win_create(mem, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
      tl_win_errors_return(win);
      CHECK_MPI(MPI_Win_set_info(win, info));
      check_order(win, want, buf);
      CHECK_MPI(MPI_Win_free(&win));
      CHECK_MPI(MPI_Win_create_dynamic(info, MPI_COMM_WORLD, &win));
      check_order(win, want, buf);
      CHECK_MPI(MPI_Win_free(&win));
      MPI_Info_free(&info);
    }
}

static void rma(void) {
  rma_key("mpi_win_order");
  rma_key("mpi_assert_accumulate_intrinsic");
  /* mpi_win_scope: process or thread, any case; anything else is refused */
  MPI_Info info = one("mpi_win_scope", "THREAD");
  void *base;
  MPI_Win win = MPI_WIN_NULL;
  CHECK_MPI(MPI_Win_allocate(64, 1, info, MPI_COMM_WORLD, &base, &win));
  const char *got = tl_win_info(win, "mpi_win_scope");
  CHECK(got && (!strcmp(got, "process") || !strcmp(got, "thread")), "mpi_win_scope shows %s",
        got ? got : "(absent)");
  CHECK_MPI(MPI_Win_free(&win));
  MPI_Info_free(&info);
  info = one("mpi_win_scope", "threads");
  int rc = MPI_Win_allocate(64, 1, info, MPI_COMM_WORLD, &base, &win);
  EXPECT_ERR(rc, MPISW_ERR_HINT, "mpi_win_scope: 'threads' is not 'process' or 'thread'", NULL);
  MPI_Info_free(&info);
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *what = argc > 1 ? argv[1] : "";
  if (!strcmp(what, "storage")) storage();
  else if (!strcmp(what, "rma")) rma();
  else tl_fail(__FILE__, __LINE__, "usage: t_boolkeys storage|rma");
  return tl_finish();
}
