/*
 * storage_backend=pager (docs/PAGER.md) through MPI:
 *   roundtrip  fill, read back, MPI_Win_sync, the file holds the data
 *   evict      a window 16x the pager's memory: written, re-read after
 *              eviction, rewritten in part, durable after MPI_Win_sync
 *   combined   storage_alloc_factor=0.5: memory part + pager part
 *   remote     every rank puts into and gets from the next rank's window
 *   fallback   no userfaultfd (run as nobody): mmap, reported in the info
 * Every window that asks for the pager must run it (tl_require_pager): where
 * the pager cannot run (no userfaultfd, Linux < 6.8) the test skips (77).
 *   shared     MPI_Win_allocate_shared asks for the pager: mmap, reported;
 *              every byte of the node's file checked after sync and free
 *   overwrite  MPI_Put to self over an existing file: blocks the put covers
 *              whole are zero-filled, not read (the put hint), and the
 *              partly covered blocks at both ends keep the file's bytes
 *   invalid    bad storage_backend / storage_pager_memory values fail clearly
 *   auto       the default (storage_backend=auto): the pager for a storage
 *              part larger than the pager's memory (out of core), mmap for
 *              one that fits, for explicit mmap and for access_style=
 *              read_mostly alone, each with storage_backend_reason; at 2+
 *              ranks on one node where the node-shared route is on (Open
 *              MPI's default, or storage_node_shared=true), mmap (whole-file
 *              and combined)
 * The pager's block is set small (MPISW_PAGER_BLOCK) by the registration so
 * that little memory means many blocks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define MIB (1024 * 1024)

static void expect_backend(MPI_Win win, const char *want) {
  const char *b = tl_win_info(win, "storage_backend");
  CHECK(b && !strcmp(b, want), "storage_backend is '%s', expected '%s'", b ? b : "(none)", want);
}

static void test_roundtrip(void) {
  const char *fn = tl_path("rt-%d.win", tl_rank);
  size_t n = 8 * MIB;
  char *base;
  MPI_Win win;
  TL_WALLOC((MPI_Aint)n, MPI_COMM_WORLD, (void **)&base, &win, fn, "storage_backend=pager",
            "storage_alloc_unlink=false");
  tl_require_pager(&win);
  CHECK(tl_win_info_number(win, "storage_pager_memory") > 0, "storage_pager_memory missing");
  for (size_t i = 0; i < n; i++) CHECK(base[i] == 0, "fresh window byte %zu is not zero", i);
  tl_fill(base, n, 11 + tl_rank, 0);
  long bad = tl_verify(base, n, 11 + tl_rank, 0);
  CHECK(bad < 0, "window byte %ld wrong after fill", bad);
  TL_SYNC(win);
  CHECK_FILE_PATTERN(fn, 0, n, 11 + tl_rank, 0); /* durable, through another descriptor */
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_FILE_PATTERN(fn, 0, n, 11 + tl_rank, 0);
}

static void test_evict(void) {
  const char *fn = tl_path("ev-%d.win", tl_rank);
  size_t n = 16 * MIB;
  char *base;
  MPI_Win win;
  TL_WALLOC((MPI_Aint)n, MPI_COMM_WORLD, (void **)&base, &win, fn, "storage_backend=pager",
            "storage_pager_memory=1M", "storage_alloc_unlink=false");
  tl_require_pager(&win);
  tl_fill(base, n, 21 + tl_rank, 0);
  long bad = tl_verify(base, n, 21 + tl_rank, 0); /* re-read after eviction */
  CHECK(bad < 0, "window byte %ld wrong after eviction and re-read", bad);
  for (size_t p = 0; p < n; p += 2 * tl_page) tl_fill(base + p, tl_page, 31, p);
  TL_SYNC(win);
  for (size_t p = 0; p < n; p += tl_page) {
    unsigned seed = (p / tl_page) % 2 ? 21 + tl_rank : 31;
    bad = tl_verify(base + p, tl_page, seed, p);
    CHECK(bad < 0, "window page %zu wrong after rewrite", p / tl_page);
    if ((p / tl_page) % 64 == 0) CHECK_FILE_PATTERN(fn, (off_t)p, tl_page, seed, p);
  }
  CHECK_MPI(MPI_Win_free(&win));
  for (size_t p = tl_page; p < n; p += 16 * tl_page) CHECK_FILE_PATTERN(fn, (off_t)p, tl_page, 21 + tl_rank, p);
}

static void test_overwrite(void) {
  const char *fn = tl_path("ow-%d.win", tl_rank);
  size_t n = 4 * MIB, at = 100 * 1024, len = 1 * MIB; /* blocks are 256K here */
  char *base;
  MPI_Win win;
  TL_WALLOC((MPI_Aint)n, MPI_COMM_WORLD, (void **)&base, &win, fn, "storage_backend=pager",
            "storage_alloc_unlink=false");
  tl_require_pager(&win);
  tl_fill(base, n, 41 + tl_rank, 0);
  TL_SYNC(win);
  CHECK_MPI(MPI_Win_free(&win));
  /* The same file again: nothing resident, every block must come from it. */
  TL_WALLOC((MPI_Aint)n, MPI_COMM_WORLD, (void **)&base, &win, fn, "storage_backend=pager",
            "storage_pager_memory=1M", "storage_alloc_unlink=false");
  tl_require_pager(&win);
  char *src = malloc(len);
  CHECK(src != NULL, "out of memory");
  tl_fill(src, len, 51, at);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tl_rank, 0, win));
  CHECK_MPI(MPI_Put(src, (int)len, MPI_BYTE, tl_rank, (MPI_Aint)at, (int)len, MPI_BYTE, win));
  CHECK_MPI(MPI_Win_unlock(tl_rank, win));
  long bad = tl_verify(base, at, 41 + tl_rank, 0);
  CHECK(bad < 0, "byte %ld before the put lost the file's data", bad);
  bad = tl_verify(base + at, len, 51, at);
  CHECK(bad < 0, "byte %ld of the put wrong", bad);
  bad = tl_verify(base + at + len, n - at - len, 41 + tl_rank, at + len);
  CHECK(bad < 0, "byte %ld after the put lost the file's data", bad);
  TL_SYNC(win);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_FILE_PATTERN(fn, 0, at, 41 + tl_rank, 0);
  CHECK_FILE_PATTERN(fn, (off_t)at, len, 51, at);
  CHECK_FILE_PATTERN(fn, (off_t)(at + len), n - at - len, 41 + tl_rank, at + len);
  free(src);
}

static void test_combined(void) {
  const char *fn = tl_path("cb-%d.win", tl_rank);
  size_t n = 8 * MIB;
  char *base;
  MPI_Win win;
  TL_WALLOC((MPI_Aint)n, MPI_COMM_WORLD, (void **)&base, &win, fn, "storage_backend=pager",
            "storage_alloc_factor=0.5", "storage_pager_memory=1M", "storage_alloc_unlink=false");
  tl_require_pager(&win);
  tl_fill(base, n, 41 + tl_rank, 0);
  TL_SYNC(win);
  long bad = tl_verify(base, n, 41 + tl_rank, 0);
  CHECK(bad < 0, "combined window byte %ld wrong", bad);
  CHECK_FILE_PATTERN(fn, 0, n / 2, 41 + tl_rank, n / 2); /* memory_first: file = 2nd half */
  CHECK_MPI(MPI_Win_free(&win));
}

static void test_remote(void) {
  const char *fn = tl_path("rm-%d.win", tl_rank);
  size_t n = 8 * MIB, chunk = MIB / 2;
  char *base;
  MPI_Win win;
  TL_WALLOC((MPI_Aint)n, MPI_COMM_WORLD, (void **)&base, &win, fn, "storage_backend=pager",
            "storage_pager_memory=1M", "storage_alloc_unlink=false");
  tl_require_pager(&win);
  int to = (tl_rank + 1) % tl_size, from = (tl_rank + tl_size - 1) % tl_size;
  char *buf = malloc(n), *back = malloc(n);
  tl_fill(buf, n, 51 + tl_rank, 0);
  for (size_t off = 0; off < n; off += chunk) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win));
    CHECK_MPI(MPI_Put(buf + off, (int)chunk, MPI_BYTE, to, (MPI_Aint)off, (int)chunk, MPI_BYTE, win));
    CHECK_MPI(MPI_Win_unlock(to, win));
  }
  for (size_t off = 0; off < n; off += chunk) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win));
    CHECK_MPI(MPI_Get(back + off, (int)chunk, MPI_BYTE, to, (MPI_Aint)off, (int)chunk, MPI_BYTE, win));
    CHECK_MPI(MPI_Win_unlock(to, win));
  }
  CHECK(memcmp(buf, back, n) == 0, "get from rank %d differs from what was put", to);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  TL_SYNC(win);
  long bad = tl_verify(base, n, 51 + from, 0);
  CHECK(bad < 0, "window byte %ld (put by rank %d) wrong", bad, from);
  CHECK_FILE_PATTERN(fn, 0, n, 51 + from, 0);
  CHECK_MPI(MPI_Win_free(&win));
  free(buf);
  free(back);
}

static void test_fallback(void) {
  const char *fn = tl_path("fb-%d.win", tl_rank);
  /* run where the pager cannot work (tests/tools/nopriv.sh): else mmap is a bug */
  if (!tl_allmin(tl_pager_unavailable(tl_scratch()) != NULL))
    tl_skip("the pager can run in this process, so its fallback cannot be tested "
            "(run through tests/tools/nopriv.sh, as user nobody)");
  if (tl_rank == 0) tl_log("the pager cannot run here: %s", tl_pager_unavailable(tl_scratch()));
  size_t n = 4 * MIB;
  char *base;
  MPI_Win win;
  TL_WALLOC((MPI_Aint)n, MPI_COMM_WORLD, (void **)&base, &win, fn, "storage_backend=pager",
            "storage_alloc_unlink=false");
  expect_backend(win, "mmap");
  CHECK(tl_win_info(win, "storage_pager_memory") == NULL, "storage_pager_memory shown for mmap");
  tl_fill(base, n, 61 + tl_rank, 0);
  TL_SYNC(win);
  CHECK_FILE_PATTERN(fn, 0, n, 61 + tl_rank, 0);
  CHECK_MPI(MPI_Win_free(&win));
}

/* MPI_Win_allocate_shared does not take the pager: mmap, reported, and the
 * node's file holds every rank's segment (in rank order) after MPI_Win_sync
 * and after MPI_Win_free, byte for byte, and nothing else. */
static void check_shared_file(const char *fn, int nsize, unsigned seed2, const char *when) {
  size_t total = (size_t)nsize * MIB, half = MIB / 2;
  tl_log("%s: checking all %zu bytes of %s", when, total, fn);
  CHECK(tl_file_size(fn) == (off_t)total, "%s: %s holds %lld bytes, expected %zu (%d segments of 1 MiB)",
        when, fn, (long long)tl_file_size(fn), total, nsize);
  for (int q = 0; q < nsize; q++) {
    CHECK_FILE_PATTERN(fn, (off_t)q * MIB, half, 71 + (unsigned)q, 0);
    CHECK_FILE_PATTERN(fn, (off_t)(q * MIB + half), half, seed2 + (unsigned)q, half);
  }
}

static void test_shared(void) {
  MPI_Comm node;
  int nrank, nsize;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, tl_rank, MPI_INFO_NULL, &node));
  MPI_Comm_rank(node, &nrank);
  MPI_Comm_size(node, &nsize);
  const char *fn = tl_path("sh.win");
  MPI_Info info = tl_sinfo(fn, "storage_backend=pager", "storage_alloc_unlink=false", NULL);
  char *base;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate_shared(MIB, 1, info, node, &base, &win));
  tl_win_errors_return(win);
  expect_backend(win, "mmap");
  for (int q = 0; q < nsize; q++) { /* the segments follow each other in the file */
    MPI_Aint sz;
    int du;
    char *p;
    CHECK_MPI(MPI_Win_shared_query(win, q, &sz, &du, &p));
    CHECK(sz == MIB && p == base + (q - nrank) * (MPI_Aint)MIB,
          "rank %d's segment: %lld bytes at %p, expected 1 MiB at %p", q, (long long)sz, (void *)p,
          (void *)(base + (q - nrank) * (MPI_Aint)MIB));
  }
  tl_fill(base, MIB, 71 + (unsigned)nrank, 0);
  TL_SYNC(win);
  CHECK_MPI(MPI_Barrier(node));
  if (nrank == 0) check_shared_file(fn, nsize, 71, "after MPI_Win_sync");
  CHECK_MPI(MPI_Barrier(node));
  /* new bytes in every segment's second half, left to MPI_Win_free to write */
  tl_fill(base + MIB / 2, MIB / 2, 81 + (unsigned)nrank, MIB / 2);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Barrier(node));
  if (nrank == 0) check_shared_file(fn, nsize, 81, "after MPI_Win_free");
  MPI_Info_free(&info);
  MPI_Comm_free(&node);
}

static void expect_reason(MPI_Win win, const char *part) {
  const char *r = tl_win_info(win, "storage_backend_reason");
  CHECK(r && strstr(r, part), "storage_backend_reason is '%s', expected it to name '%s'",
        r ? r : "(none)", part);
}

/* One window with the default backend (plus up to three hints, NULL ends
 * them) must get backend want, with a reason naming `reason` for mmap. */
static void auto_window(const char *fn, size_t n, const char *h1, const char *h2, const char *h3,
                        const char *want, const char *reason) {
  char *base;
  MPI_Win win;
  TL_WALLOC((MPI_Aint)n, MPI_COMM_WORLD, (void **)&base, &win, fn, h1, h2, h3);
  if (!strcmp(want, "pager")) tl_require_pager(&win);
  expect_backend(win, want);
  if (reason) expect_reason(win, reason);
  else CHECK(tl_win_info(win, "storage_backend_reason") == NULL, "a reason shown for the pager");
  tl_fill(base, n, 71 + tl_rank, 0); /* whichever backend: durable at sync */
  TL_SYNC(win);
  /* the file holds the storage part, after the memory part (memory_first) */
  int half = (h1 && strstr(h1, "factor=0.5")) || (h2 && strstr(h2, "factor=0.5")) ||
             (h3 && strstr(h3, "factor=0.5"));
  size_t mem = half ? n / 2 : 0;
  CHECK_FILE_PATTERN(fn, 0, n - mem, 71 + tl_rank, mem);
  CHECK_MPI(MPI_Win_free(&win));
}

static void test_auto(void) {
  const char *fn = tl_path("auto-%d.win", tl_rank);
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const char *alone = "storage_node_shared=false"; /* no node-shared route */
  const char *small = "storage_pager_memory=1M";   /* 8 MiB windows are out of core */
  /* out of core: the pager; in memory: the page cache */
  auto_window(fn, 8 * MIB, "storage_backend=auto", alone, small, "pager", NULL);
  if (n == 1) auto_window(fn, 8 * MIB, small, NULL, NULL, "pager", NULL); /* no backend hint */
  auto_window(fn, 8 * MIB, alone, NULL, NULL, "mmap", "fits in memory");
  auto_window(fn, 8 * MIB, "storage_backend=mmap", small, NULL, "mmap", "storage_backend=mmap");
  /* read, not written: the page cache; read and written: the pager */
  auto_window(fn, 8 * MIB, alone, small, "access_style=read_mostly", "mmap", "access_style");
  auto_window(fn, 8 * MIB, alone, small, "access_style=read_mostly,write_mostly", "pager", NULL);
  if (n > 1) {
    /* the node-shared route maps every rank's pages into every process */
    auto_window(fn, 8 * MIB, "storage_node_shared=true", small, NULL, "mmap",
                "node-shared route");
    auto_window(fn, 8 * MIB, "storage_node_shared=true", small, "storage_alloc_factor=0.5",
                "mmap", "node-shared route");
  }
}

static void test_invalid(void) {
  /* (no empty value: Open MPI refuses it in MPI_Info_set already) */
  const char *bad[][2] = {{"storage_backend", "bogus"}, {"storage_backend", "Pager"},
                          {"storage_pager_memory", "0"}, {"storage_pager_memory", "lots"}};
  for (int k = 0; k < 4; k++) {
    char kv[128];
    snprintf(kv, sizeof kv, "%s=%s", bad[k][0], bad[k][1]);
    MPI_Info info = tl_sinfo(tl_path("inv.win"), kv, NULL);
    void *base;
    MPI_Win win;
    int rc = MPI_Win_allocate(MIB, 1, info, MPI_COMM_WORLD, &base, &win);
    EXPECT_ERR(rc, MPISW_ERR_HINT, bad[k][0], k < 2 ? "'mmap' or 'pager'" : "positive byte count");
    MPI_Info_free(&info);
  }
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "roundtrip")) test_roundtrip();
  else if (!strcmp(mode, "evict")) test_evict();
  else if (!strcmp(mode, "combined")) test_combined();
  else if (!strcmp(mode, "overwrite")) test_overwrite();
  else if (!strcmp(mode, "remote")) test_remote();
  else if (!strcmp(mode, "fallback")) test_fallback();
  else if (!strcmp(mode, "shared")) test_shared();
  else if (!strcmp(mode, "invalid")) test_invalid();
  else if (!strcmp(mode, "auto")) test_auto();
  else CHECK(0, "unknown mode '%s'", mode);
  return tl_finish();
}
