/* mpisw_kv: the key-value store on windows. Each rank opens its own store
 * (path with %r) in the scratch directory; cases are selected by argv[1]. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mpisw_kv.h"
#include "testlib.h"

static char keybuf[64];
static const char *key(int i) {
  snprintf(keybuf, sizeof keybuf, "key-%d", i);
  return keybuf;
}
#define K(i) key(i), strlen(key(i))

static size_t vsize(int i) { return (size_t)(i * 37) % 3000; }   /* 0 .. 2999 bytes */

static void put_pattern(mpisw_kv *kv, int i, size_t len, unsigned seed) {
  char *v = malloc(len + 1);
  tl_fill(v, len, seed, 0);
  CHECK_MPI(mpisw_kv_put(kv, K(i), v, len));
  free(v);
}

static void expect_pattern(mpisw_kv *kv, int i, size_t len, unsigned seed) {
  char *v = malloc(len + 16);
  size_t got = 12345;
  int rc = mpisw_kv_get(kv, K(i), v, len + 16, &got);
  CHECK(rc == MPI_SUCCESS, "get %s: %s", key(i), rc == MPISW_KV_NOTFOUND ? "not found" : tl_errstr(rc));
  CHECK(got == len, "get %s: %zu bytes, expected %zu", key(i), got, len);
  long bad = tl_verify(v, len, seed, 0);
  CHECK(bad < 0, "get %s: byte %ld differs (%s)", key(i), bad, tl_describe(v, len, 0));
  free(v);
}

static void expect_absent(mpisw_kv *kv, int i) {
  char v[8];
  size_t got;
  int rc = mpisw_kv_get(kv, K(i), v, sizeof v, &got);
  CHECK(rc == MPISW_KV_NOTFOUND, "get %s: expected not found, got %s", key(i),
        rc == MPI_SUCCESS ? "a value" : tl_errstr(rc));
}

static struct mpisw_kv_stats stats(mpisw_kv *kv) {
  struct mpisw_kv_stats st;
  CHECK_MPI(mpisw_kv_stats(kv, &st));
  return st;
}

static mpisw_kv *open_backend(const char *name, const char *backend, const char *extra) {
  MPI_Info info = tl_info(backend, extra, "kv_slots=1024", "kv_log_size=4M", NULL);
  mpisw_kv *kv = NULL;
  CHECK_MPI(mpisw_kv_open(tl_path("%s-%s-%%r.kv", name, backend + 11), info, MPI_COMM_WORLD, &kv));
  MPI_Info_free(&info);
  return kv;
}

/* put/get/delete of variable sizes, overwrite, missing key, lengths. */
static void case_ops(const char *backend) {
  mpisw_kv *kv = open_backend("ops", backend, "kv_slot_size=4096");
  int n = 300;
  for (int i = 0; i < n; i++) put_pattern(kv, i, vsize(i), (unsigned)i);
  for (int i = 0; i < n; i++) expect_pattern(kv, i, vsize(i), (unsigned)i);
  CHECK(stats(kv).objects == (uint64_t)n, "objects %llu, expected %d", (unsigned long long)stats(kv).objects, n);
  /* overwrite with other sizes and contents */
  for (int i = 0; i < n; i += 3) put_pattern(kv, i, vsize(i + 1), (unsigned)(i + 1000));
  for (int i = 0; i < n; i++)
    if (i % 3 == 0) expect_pattern(kv, i, vsize(i + 1), (unsigned)(i + 1000));
    else expect_pattern(kv, i, vsize(i), (unsigned)i);
  /* delete, missing keys */
  for (int i = 0; i < n; i += 2) CHECK_MPI(mpisw_kv_delete(kv, K(i)));
  for (int i = 0; i < n; i += 2) expect_absent(kv, i);
  expect_absent(kv, 100000);
  CHECK(mpisw_kv_delete(kv, K(0)) == MPISW_KV_NOTFOUND, "second delete found the key");
  CHECK(stats(kv).objects == (uint64_t)(n / 2), "objects %llu after deletes",
        (unsigned long long)stats(kv).objects);
  /* a deleted key comes back with a new value */
  put_pattern(kv, 0, 17, 77);
  expect_pattern(kv, 0, 17, 77);
  /* an empty value, the length alone, a buffer too small */
  CHECK_MPI(mpisw_kv_put(kv, "empty", 5, NULL, 0));
  size_t len = 99;
  CHECK_MPI(mpisw_kv_get(kv, "empty", 5, NULL, 0, &len));
  CHECK(len == 0, "empty value has %zu bytes", len);
  put_pattern(kv, 1, 500, 5);
  CHECK_MPI(mpisw_kv_get(kv, K(1), NULL, 0, &len));
  CHECK(len == 500, "length query: %zu", len);
  char small[10];
  EXPECT_ERR(mpisw_kv_get(kv, K(1), small, sizeof small, &len), MPISW_ERR_USAGE, "too small", NULL);
  CHECK(len == 500, "too small buffer: length %zu", len);
  CHECK_MPI(mpisw_kv_close(&kv));
  CHECK(kv == NULL, "close left the handle");
}

/* Objects larger than allowed, bad keys, NULL handles. */
static void case_limits(const char *backend) {
  mpisw_kv *kv = open_backend("limits", backend, "kv_max_value=4096");
  char *big = calloc(1, 70000);
  int naive = !strcmp(backend, "kv_backend=naive");
  EXPECT_ERR(mpisw_kv_put(kv, "k", 1, big, naive ? 2000 : 4097), MPISW_ERR_USAGE,
             naive ? "do not fit a slot" : "kv_max_value", NULL);
  EXPECT_ERR(mpisw_kv_put(kv, "", 0, big, 10), MPISW_ERR_USAGE, "key of 0 bytes", NULL);
  EXPECT_ERR(mpisw_kv_put(kv, big, MPISW_KV_MAX_KEY + 1, big, 10), MPISW_ERR_USAGE, "1 to", NULL);
  EXPECT_ERR(mpisw_kv_get(NULL, "k", 1, big, 10, NULL), MPISW_ERR_USAGE, "NULL", NULL);
  expect_absent(kv, 1);   /* the failed put left nothing behind */
  size_t len;
  CHECK(mpisw_kv_get(kv, "k", 1, big, 10, &len) == MPISW_KV_NOTFOUND, "failed put stored a value");
  CHECK_MPI(mpisw_kv_put(kv, "k", 1, big, naive ? 1000 : 4096));
  CHECK_MPI(mpisw_kv_close(&kv));
  EXPECT_ERR(mpisw_kv_close(&kv), MPISW_ERR_USAGE, "NULL", NULL);
  free(big);
}

/* A working set 8x the memory window: objects go out and come back from
 * the log, unchanged, through each read path; a key read often gets in
 * and stays. */
static void case_evict(const char *read_mode) {
  MPI_Info info = tl_info("kv_cache_size=64K", "kv_write_buffer=64K", "kv_log_size=4M",
                          read_mode, NULL);
  mpisw_kv *kv = NULL;
  CHECK_MPI(mpisw_kv_open(tl_path("evict-%%r.kv"), info, MPI_COMM_WORLD, &kv));
  MPI_Info_free(&info);
  int n = 512;   /* 512 KiB of 1 KiB objects in a 64 KiB window */
  for (int i = 0; i < n; i++) put_pattern(kv, i, 1024, (unsigned)i);
  for (int r = 0; r < 2; r++)
    for (int i = 0; i < n; i++) expect_pattern(kv, i, 1024, (unsigned)i);
  struct mpisw_kv_stats st = stats(kv);
  /* Read once each, no object is more popular than those in the window:
   * admission keeps them out, so most of the second round reads the log. */
  CHECK(st.log_reads > (uint64_t)n, "only %llu log reads", (unsigned long long)st.log_reads);
  CHECK(st.cache_bytes <= st.cache_capacity, "cache holds %llu of %llu bytes",
        (unsigned long long)st.cache_bytes, (unsigned long long)st.cache_capacity);
  /* A hot key read often stays in the window. */
  for (int r = 0; r < 50; r++) {
    expect_pattern(kv, 7, 1024, 7);
    expect_pattern(kv, 100 + r, 1024, 100u + (unsigned)r);
  }
  uint64_t hits0 = stats(kv).get_hits;
  expect_pattern(kv, 7, 1024, 7);
  CHECK(stats(kv).get_hits == hits0 + 1, "the hot key is not in the window");
  CHECK(stats(kv).evictions > 0, "nothing was evicted for the hot key");
  CHECK_MPI(mpisw_kv_close(&kv));
}

/* Compaction copies the live records, frees the dead space, keeps the data;
 * a full log compacts by itself; a log of live data only is NOSPACE. */
static void case_compact(void) {
  MPI_Info info = tl_info("kv_cache_size=64K", "kv_write_buffer=64K", "kv_log_size=1M", NULL);
  mpisw_kv *kv = NULL;
  CHECK_MPI(mpisw_kv_open(tl_path("compact-%%r.kv"), info, MPI_COMM_WORLD, &kv));
  int n = 200;
  for (int round = 0; round < 3; round++)
    for (int i = 0; i < n; i++) put_pattern(kv, i, 1000, (unsigned)(i + round * 7919));
  for (int i = 0; i < n; i += 4) CHECK_MPI(mpisw_kv_delete(kv, K(i)));
  CHECK_MPI(mpisw_kv_sync(kv));
  struct mpisw_kv_stats a = stats(kv);
  CHECK(a.log_dead > 0, "no dead bytes after overwrites and deletes");
  CHECK_MPI(mpisw_kv_compact(kv));
  struct mpisw_kv_stats b = stats(kv);
  CHECK(b.compactions == a.compactions + 1, "no compaction counted");
  CHECK(b.log_dead == 0 && b.log_used < a.log_used, "compaction: used %llu -> %llu, dead %llu",
        (unsigned long long)a.log_used, (unsigned long long)b.log_used, (unsigned long long)b.log_dead);
  for (int i = 0; i < n; i++)
    if (i % 4 == 0) expect_absent(kv, i);
    else expect_pattern(kv, i, 1000, (unsigned)(i + 2 * 7919));
  /* Many overwrites of a few keys fill the 1 MiB region several times. */
  for (int r = 0; r < 3000; r++) {
    put_pattern(kv, 1000 + r % 50, 1000, (unsigned)r);
    if (r % 50 == 49) CHECK_MPI(mpisw_kv_sync(kv));   /* write-back: only syncs reach the log */
  }
  CHECK_MPI(mpisw_kv_sync(kv));
  CHECK(stats(kv).compactions >= b.compactions + 1, "a full log did not compact");
  for (int k = 0; k < 50; k++) expect_pattern(kv, 1000 + k, 1000, (unsigned)(2950 + k));
  CHECK_MPI(mpisw_kv_close(&kv));
  /* After reopen: the compacted region is the one found. */
  CHECK_MPI(mpisw_kv_open(tl_path("compact-%%r.kv"), info, MPI_COMM_WORLD, &kv));
  for (int i = 1; i < n; i += 4) expect_pattern(kv, i, 1000, (unsigned)(i + 2 * 7919));
  for (int k = 0; k < 50; k++) expect_pattern(kv, 1000 + k, 1000, (unsigned)(2950 + k));
  /* Distinct live objects beyond the region: NOSPACE, the store still works. */
  int rc = MPI_SUCCESS, i;
  for (i = 0; i < 2000 && rc == MPI_SUCCESS; i++) {
    char v[1000];
    tl_fill(v, sizeof v, (unsigned)i, 0);
    rc = mpisw_kv_put(kv, K(5000 + i), v, sizeof v);
    if (rc == MPI_SUCCESS && i % 64 == 0) rc = mpisw_kv_sync(kv);
  }
  EXPECT_ERR(rc, MPISW_ERR_NOSPACE, "full", NULL);
  expect_pattern(kv, 1001, 1000, 2951);
  MPI_Info_free(&info);
  mpisw_kv_close(&kv);   /* may fail: dirty objects do not fit */
}

/* Everything survives close + reopen (index rebuilt from the log). */
static void case_reopen(const char *backend) {
  mpisw_kv *kv = open_backend("reopen", backend, "kv_slot_size=4096");
  int n = 400;
  for (int i = 0; i < n; i++) put_pattern(kv, i, vsize(i), (unsigned)i);
  for (int i = 0; i < n; i += 5) CHECK_MPI(mpisw_kv_delete(kv, K(i)));
  for (int i = 1; i < n; i += 5) put_pattern(kv, i, 333, 9);
  CHECK_MPI(mpisw_kv_close(&kv));
  for (int round = 0; round < 2; round++) {
    kv = open_backend("reopen", backend, "kv_slot_size=4096");
    CHECK(stats(kv).objects == (uint64_t)(n - n / 5 + round), "objects after reopen: %llu",
          (unsigned long long)stats(kv).objects);
    for (int i = 0; i < n; i++)
      if (i % 5 == 0) expect_absent(kv, i);
      else if (i % 5 == 1) expect_pattern(kv, i, 333, 9);
      else expect_pattern(kv, i, vsize(i), (unsigned)i);
    put_pattern(kv, 100000 + round, 10, 10);
    CHECK_MPI(mpisw_kv_close(&kv));
  }
  kv = open_backend("reopen", backend, "kv_slot_size=4096");
  expect_pattern(kv, 100000, 10, 10);
  expect_pattern(kv, 100001, 10, 10);
  CHECK_MPI(mpisw_kv_close(&kv));
}

/* A crash-like truncation in the middle of the last record: the reopen
 * drops it, keeps the rest, and the log goes on after it. */
static void case_torn(void) {
  MPI_Info info = tl_info("kv_cache_size=64K", "kv_write_buffer=64K", "kv_log_size=1M", NULL);
  const char *path = tl_path("torn-%d.kv", tl_rank);
  mpisw_kv *kv = NULL;
  CHECK_MPI(mpisw_kv_open(tl_path("torn-%%r.kv"), info, MPI_COMM_WORLD, &kv));
  for (int i = 0; i < 100; i++) put_pattern(kv, i, 500, (unsigned)i);
  CHECK_MPI(mpisw_kv_sync(kv));
  uint64_t tail = stats(kv).log_used;   /* block aligned after the sync */
  CHECK(tail % 4096 == 0, "log end %llu not block aligned", (unsigned long long)tail);
  put_pattern(kv, 1000, 8000, 1000);
  CHECK_MPI(mpisw_kv_close(&kv));
  /* Region 0 starts at 4096; the last record at region offset tail. */
  CHECK(truncate(path, (off_t)(4096 + tail + 4000)) == 0, "truncate %s", path);
  CHECK_MPI(mpisw_kv_open(tl_path("torn-%%r.kv"), info, MPI_COMM_WORLD, &kv));
  for (int i = 0; i < 100; i++) expect_pattern(kv, i, 500, (unsigned)i);
  expect_absent(kv, 1000);
  CHECK(stats(kv).objects == 100, "objects %llu", (unsigned long long)stats(kv).objects);
  put_pattern(kv, 2000, 3000, 2000);
  CHECK_MPI(mpisw_kv_close(&kv));
  CHECK_MPI(mpisw_kv_open(tl_path("torn-%%r.kv"), info, MPI_COMM_WORLD, &kv));
  expect_pattern(kv, 2000, 3000, 2000);
  expect_pattern(kv, 99, 500, 99);
  uint64_t end = stats(kv).log_used;
  CHECK_MPI(mpisw_kv_close(&kv));
  /* Garbage where the log goes on (a torn batch of junk) is dropped too,
   * and what is appended over it later is found after the next reopen. */
  tl_write_pattern_file(path, (off_t)(4096 + end), 6000, 42, 0600);
  CHECK_MPI(mpisw_kv_open(tl_path("torn-%%r.kv"), info, MPI_COMM_WORLD, &kv));
  expect_pattern(kv, 2000, 3000, 2000);
  CHECK(stats(kv).objects == 101, "objects %llu after junk", (unsigned long long)stats(kv).objects);
  put_pattern(kv, 3000, 100, 3000);
  CHECK_MPI(mpisw_kv_close(&kv));
  CHECK_MPI(mpisw_kv_open(tl_path("torn-%%r.kv"), info, MPI_COMM_WORLD, &kv));
  expect_pattern(kv, 3000, 100, 3000);
  expect_pattern(kv, 0, 500, 0);
  CHECK(stats(kv).objects == 102, "objects %llu", (unsigned long long)stats(kv).objects);
  CHECK_MPI(mpisw_kv_close(&kv));
  MPI_Info_free(&info);
}

/* Fault injection for case_syncerr: libmpisw makes storage durable with
 * msync, and this definition in the executable (exported: the build hides
 * symbols by default) takes the library's place, so a case can make the
 * syncs fail with the errno it sets. */
static int msync_errno;   /* 0: the real msync */
__attribute__((visibility("default"))) int msync(void *addr, size_t len, int flags) {
  if (msync_errno) {
    errno = msync_errno;
    return -1;
  }
  return (int)syscall(SYS_msync, addr, len, flags);
}

/* A failed sync of the log reaches the caller with the kind of the storage
 * failure (not a generic I/O error), and the store goes on afterwards. */
static void case_syncerr(const char *backend) {
  mpisw_kv *kv = open_backend("syncerr", backend, "kv_slot_size=256");
  put_pattern(kv, 1, 100, 1);
  msync_errno = ENOSPC;
  EXPECT_ERR(mpisw_kv_sync(kv), MPISW_ERR_NOSPACE, "mpisw_kv_sync", strerror(ENOSPC));
  msync_errno = EIO;
  EXPECT_ERR(mpisw_kv_sync(kv), MPISW_ERR_IO, "mpisw_kv_sync", strerror(EIO));
  msync_errno = 0;
  CHECK_MPI(mpisw_kv_sync(kv));
  expect_pattern(kv, 1, 100, 1);
  if (!strcmp(backend, "kv_backend=cache")) {
    /* compaction syncs the new region before switching to it */
    msync_errno = ENOSPC;
    EXPECT_ERR(mpisw_kv_compact(kv), MPISW_ERR_NOSPACE, "mpisw_kv_compact", strerror(ENOSPC));
    msync_errno = 0;
    EXPECT_ERR(mpisw_kv_close(&kv), MPISW_ERR_IO, "compaction failed", NULL);
    kv = open_backend("syncerr", backend, "kv_slot_size=256");   /* the state before the compaction */
  }
  expect_pattern(kv, 1, 100, 1);
  CHECK_MPI(mpisw_kv_close(&kv));
}

/* Bad paths and options: clear errors on every rank, nothing left open. */
static void case_errors(void) {
  mpisw_kv *kv = NULL;
  MPI_Info info = tl_info("kv_cache_size=12x", NULL);
  EXPECT_ERR(mpisw_kv_open(tl_path("e-%%r.kv"), info, MPI_COMM_WORLD, &kv), MPISW_ERR_HINT,
             "kv_cache_size", "12x");
  CHECK(kv == NULL, "failed open returned a handle");
  MPI_Info_free(&info);
  info = tl_info("kv_backend=btree", NULL);
  EXPECT_ERR(mpisw_kv_open(tl_path("e-%%r.kv"), info, MPI_COMM_WORLD, &kv), MPISW_ERR_HINT,
             "kv_backend", "btree");
  MPI_Info_free(&info);
  info = tl_info("kv_max_value=8M", "kv_write_buffer=1M", NULL);
  EXPECT_ERR(mpisw_kv_open(tl_path("e-%%r.kv"), info, MPI_COMM_WORLD, &kv), MPISW_ERR_HINT,
             "kv_max_value", NULL);
  MPI_Info_free(&info);
  EXPECT_ERR(mpisw_kv_open(tl_path("no/such/dir/e-%%r.kv"), MPI_INFO_NULL, MPI_COMM_WORLD, &kv),
             MPISW_ERR_NOFILE, "no/such/dir", NULL);
  EXPECT_ERR(mpisw_kv_open("", MPI_INFO_NULL, MPI_COMM_WORLD, &kv), MPISW_ERR_USAGE, "empty", NULL);
  if (tl_size > 1)
    EXPECT_ERR(mpisw_kv_open(tl_path("shared.kv"), MPI_INFO_NULL, MPI_COMM_WORLD, &kv),
               MPISW_ERR_USAGE, "%r", NULL);
  /* A file that is not a store. */
  const char *junk = tl_path("junk-%d.kv", tl_rank);
  tl_write_pattern_file(junk, 0, 8192, 3, 0600);
  EXPECT_ERR(mpisw_kv_open(tl_path("junk-%%r.kv"), MPI_INFO_NULL, MPI_COMM_WORLD, &kv),
             MPISW_ERR_IO, "not an mpisw_kv store", NULL);
  CHECK(tl_file_size(junk) == 8192, "the junk file changed size");
  /* One rank with a bad option: all fail. */
  info = tl_info(tl_rank == tl_size - 1 ? "kv_log_size=-5" : "kv_log_size=1M", NULL);
  EXPECT_ERR(mpisw_kv_open(tl_path("one-%%r.kv"), info, MPI_COMM_WORLD, &kv), MPISW_ERR_HINT,
             "kv_log_size", NULL);
  MPI_Info_free(&info);
  /* Per-process open on MPI_COMM_SELF. */
  CHECK_MPI(mpisw_kv_open(tl_path("self-%d.kv", tl_rank), MPI_INFO_NULL, MPI_COMM_SELF, &kv));
  put_pattern(kv, 1, 10, 1);
  expect_pattern(kv, 1, 10, 1);
  CHECK_MPI(mpisw_kv_close(&kv));
}

/* The naive table: full table, and its file layout is a plain table. */
static void case_naive(void) {
  MPI_Info info = tl_info("kv_backend=naive", "kv_slots=64", "kv_slot_size=256", NULL);
  mpisw_kv *kv = NULL;
  CHECK_MPI(mpisw_kv_open(tl_path("naive-%%r.kv"), info, MPI_COMM_WORLD, &kv));
  CHECK(tl_file_size(tl_path("naive-%d.kv", tl_rank)) == 4096 + 64 * 256, "naive file size %lld",
        (long long)tl_file_size(tl_path("naive-%d.kv", tl_rank)));
  for (int i = 0; i < 64; i++) put_pattern(kv, i, 200, (unsigned)i);
  char v[200];
  EXPECT_ERR(mpisw_kv_put(kv, K(64), v, sizeof v), MPISW_ERR_NOSPACE, "full", NULL);
  for (int i = 0; i < 64; i++) expect_pattern(kv, i, 200, (unsigned)i);
  CHECK_MPI(mpisw_kv_delete(kv, K(3)));
  put_pattern(kv, 64, 100, 64);   /* takes the deleted slot */
  expect_pattern(kv, 64, 100, 64);
  expect_absent(kv, 3);
  CHECK_MPI(mpisw_kv_compact(kv));
  CHECK_MPI(mpisw_kv_close(&kv));
  /* Reopen with other options: the file's geometry wins. */
  MPI_Info_free(&info);
  info = tl_info("kv_slots=1000", NULL);
  CHECK_MPI(mpisw_kv_open(tl_path("naive-%%r.kv"), info, MPI_COMM_WORLD, &kv));
  expect_pattern(kv, 64, 100, 64);
  expect_pattern(kv, 63, 200, 63);
  CHECK(stats(kv).objects == 64, "naive objects after reopen: %llu", (unsigned long long)stats(kv).objects);
  CHECK_MPI(mpisw_kv_close(&kv));
  MPI_Info_free(&info);
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *what = argc > 1 ? argv[1] : "all";
  int all = !strcmp(what, "all");
  if (all || !strcmp(what, "ops")) {
    case_ops("kv_backend=cache");
    case_ops("kv_backend=naive");
  }
  if (all || !strcmp(what, "limits")) {
    case_limits("kv_backend=cache");
    case_limits("kv_backend=naive");
  }
  if (all || !strcmp(what, "evict")) {
    case_evict("kv_read=poll");
    case_evict("kv_read=direct");
    case_evict("kv_read=window");
  }
  if (all || !strcmp(what, "compact")) case_compact();
  if (all || !strcmp(what, "reopen")) {
    case_reopen("kv_backend=cache");
    case_reopen("kv_backend=naive");
  }
  if (all || !strcmp(what, "torn")) case_torn();
  if (all || !strcmp(what, "errors")) case_errors();
  if (all || !strcmp(what, "naive")) case_naive();
  if (all || !strcmp(what, "syncerr")) {
    case_syncerr("kv_backend=cache");
    case_syncerr("kv_backend=naive");
  }
  return tl_finish();
}
