/*
 * storage_alloc_factor / storage_alloc_order: which addresses of a window are
 * file-backed (read from /proc/self/maps), and which bytes reach the file.
 *   t_factor zero      factor 0: no file, all private anonymous memory
 *   t_factor one       factor 1: every page maps the file, from the offset on
 *   t_factor half_mf   factor 0.5 memory_first (+ remote puts across the split)
 *   t_factor half_sf   factor 0.5 storage_first (+ remote puts across the split)
 *   t_factor quarter   factor 0.25, window size not a page multiple
 *   t_factor auto      factor auto with MPISW_MEMORY_LIMIT=1M (set by ctest)
 *   t_factor auto_nolimit  factor auto without a limit: a 1 MiB window stays in memory
 *   t_factor auto_cgroup   factor auto inside a memory cgroup (tools/cgroupdrv.sh):
 *                          the memory part is bounded by the cgroup's room
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define MiB (1024 * 1024)

/* 1 when addr lies in the memfd that holds a window's memory part on the
 * node-shared route (src/win/place.c: shared with the node's processes). */
static int node_shared_memory(const void *addr) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[4096];
  int yes = 0;
  uintptr_t a = (uintptr_t)addr;
  while (f && fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && a >= lo && a < hi) {
      yes = strstr(line, "/memfd:mpisw-window-memory") != NULL;
      break;
    }
  }
  if (f) fclose(f);
  return yes;
}

/* Checks the layout of a combined window and returns the storage length. */
static size_t check_layout(const char *label, void *base, size_t size, const char *fn, off_t off,
                           int storage_first, double factor) {
  struct tl_scan s;
  tl_scan_range(base, size, fn, &s);
  size_t sto_pages = s.file, mem_pages = s.anon;
  if (factor <= 0.0) {
    CHECK(s.file == 0, "%s: %zu pages map the file, expected none", label, s.file);
    CHECK(s.anon == s.pages, "%s: factor 0 must be all (private anonymous) memory: %zu of %zu pages are", label,
          s.anon, s.pages);
    return 0;
  }
  CHECK(s.other == 0, "%s: %zu of %zu pages are neither the file nor private anonymous memory", label, s.other,
        s.pages);
  CHECK(s.file + s.anon == s.pages, "%s: unmapped pages", label);
  if (factor >= 1.0) {
    CHECK(s.anon == 0, "%s: %zu anonymous pages, expected all on the file", label, s.anon);
  }
  /* one block of each kind, in the asked order */
  if (sto_pages && mem_pages) {
    if (storage_first)
      CHECK(s.first_file == 0 && s.last_file + 1 == s.first_anon && s.last_anon == (long)s.pages - 1,
            "%s (storage_first): file pages %ld..%ld, anonymous pages %ld..%ld of %zu", label, s.first_file,
            s.last_file, s.first_anon, s.last_anon, s.pages);
    else
      CHECK(s.first_anon == 0 && s.last_anon + 1 == s.first_file && s.last_file == (long)s.pages - 1,
            "%s (memory_first): anonymous pages %ld..%ld, file pages %ld..%ld of %zu", label, s.first_anon,
            s.last_anon, s.first_file, s.last_file, s.pages);
  }
  /* split within one page of factor*size */
  size_t sto_len = storage_first ? sto_pages * tl_page : size - mem_pages * tl_page;
  if (storage_first && sto_len > size) sto_len = size;
  double want = factor * (double)size;
  CHECK(fabs((double)sto_len - want) < (double)tl_page,
        "%s: %zu bytes on storage (%zu pages), expected %.0f +- one page (factor %g of %zu)", label, sto_len,
        sto_pages, want, factor, size);
  /* memory part: private, storage part: shared, neither executable */
  char perms[5];
  off_t foff = -1;
  char *sto = storage_first ? (char *)base : (char *)base + (size - sto_len);
  int k = tl_backing(sto, fn, &foff, perms);
  CHECK(k == TL_FILE, "%s: start of the storage part is not file-backed", label);
  CHECK(foff == off, "%s: storage part starts at file offset %lld, expected %lld", label, (long long)foff,
        (long long)off);
  CHECK(perms[3] == 's' && perms[2] != 'x' && perms[0] == 'r' && perms[1] == 'w',
        "%s: storage part mapped '%s', expected rw-s", label, perms);
  if (mem_pages) {
    char *mem = storage_first ? (char *)base + sto_len : (char *)base;
    k = tl_backing(mem, fn, NULL, perms);
    CHECK(k == TL_ANON, "%s: memory part is not anonymous memory", label);
    CHECK((perms[3] == 'p' || node_shared_memory(mem)) && perms[2] != 'x',
          "%s: memory part mapped '%s', expected private rw-p (or the node-shared route's memfd)",
          label, perms);
  }
  return sto_len;
}

/* Every rank puts its pattern into the next rank's window (whole window,
 * in chunks), fence, then checks the window memory. */
static void ring_put(MPI_Win win, void *base, size_t size, unsigned seed0) {
  int to = (tl_rank + 1) % tl_size, from = (tl_rank + tl_size - 1) % tl_size;
  char *src = malloc(size);
  CHECK(src != NULL, "malloc");
  tl_fill(src, size, seed0 + tl_rank, 0);
  CHECK_MPI(MPI_Win_fence(0, win));
  size_t chunk = 96 * 1024 + 17; /* odd chunks cross the split */
  for (size_t o = 0; o < size; o += chunk) {
    size_t n = size - o < chunk ? size - o : chunk;
    CHECK_MPI(MPI_Put(src + o, (int)n, MPI_BYTE, to, (MPI_Aint)o, (int)n, MPI_BYTE, win));
  }
  CHECK_MPI(MPI_Win_fence(0, win));
  long bad = tl_verify(base, size, seed0 + from, 0);
  CHECK(bad < 0, "window byte %ld after the puts of rank %d is wrong", bad, from);
  free(src);
}

static void combined(const char *label, const char *order, double factor, const char *factor_s, size_t size,
                     off_t off) {
  const char *fn = tl_path("%s-r%d", label, tl_rank);
  char fh[64], oh[64], offh[64];
  snprintf(fh, sizeof fh, "storage_alloc_factor=%s", factor_s);
  snprintf(oh, sizeof oh, "storage_alloc_order=%s", order);
  snprintf(offh, sizeof offh, "storage_alloc_offset=%lld", (long long)off);
  void *base;
  MPI_Win win;
  TL_WALLOC((MPI_Aint)size, MPI_COMM_WORLD, &base, &win, fn, fh, oh, offh);
  int sf = !strcmp(order, "storage_first");
  if (factor > 0.0) CHECK(tl_exists(fn), "%s: file %s not created", label, fn);
  size_t sto_len = check_layout(label, base, size, fn, off, sf, factor);
  double rf = tl_win_info_number(win, "storage_alloc_factor");
  CHECK(fabs(rf - factor) < (double)tl_page / (double)size + 1e-9, "%s: get_info factor %g, asked %g", label, rf,
        factor);
  ring_put(win, base, size, 10);
  TL_SYNC(win);
  int from = (tl_rank + tl_size - 1) % tl_size;
  size_t sto_pos = sf ? 0 : size - sto_len; /* window position of the storage part */
  if (sto_len) CHECK_FILE_PATTERN(fn, off, sto_len, 10 + from, sto_pos);
  CHECK_MPI(MPI_Win_free(&win));
  if (sto_len) {
    CHECK_FILE_PATTERN(fn, off, sto_len, 10 + from, sto_pos);
    off_t fs = tl_file_size(fn);
    CHECK(fs >= off + (off_t)sto_len, "%s: file is %lld bytes, storage part ends at %lld", label, (long long)fs,
          (long long)(off + (off_t)sto_len));
    if (factor < 1.0)
      CHECK(fs < off + (off_t)size, "%s: file is %lld bytes: the memory part went to the file too", label,
            (long long)fs);
  } else {
    CHECK(!tl_exists(fn), "%s: factor 0 created the file %s", label, fn);
  }
}

static void test_auto(void) {
  const char *lim = getenv("MPISW_MEMORY_LIMIT");
  CHECK(lim && !strcmp(lim, "1M"), "this test needs MPISW_MEMORY_LIMIT=1M in the environment (got %s)",
        lim ? lim : "nothing");
  /* 4 MiB window, 1 MiB budget: 1 MiB memory first, 3 MiB on storage */
  const char *fa = tl_path("auto-a-r%d", tl_rank);
  void *a, *b, *c;
  MPI_Win wa, wb, wc;
  TL_WALLOC(4 * MiB, MPI_COMM_WORLD, &a, &wa, fa, "storage_alloc_factor=auto");
  double f = tl_win_info_number(wa, "storage_alloc_factor");
  CHECK(fabs(f - 0.75) < 1e-6, "auto with a 1M budget and a 4M window resolved to %g, expected 0.75", f);
  struct tl_scan s;
  tl_scan_range(a, 4 * MiB, fa, &s);
  CHECK(s.anon * tl_page == 1 * MiB && s.file * tl_page == 3 * MiB,
        "auto: %zu bytes anonymous and %zu bytes on the file, expected 1 MiB and 3 MiB", s.anon * tl_page,
        s.file * tl_page);
  check_layout("auto 4M", a, 4 * MiB, fa, 0, 0, 0.75);
  tl_fill(a, 4 * MiB, 30 + tl_rank, 0);
  TL_SYNC(wa);
  CHECK_FILE_PATTERN(fa, 0, 3 * MiB, 30 + tl_rank, 1 * MiB);
  /* while that window lives the budget is used up: the next one goes all to storage */
  const char *fb = tl_path("auto-b-r%d", tl_rank);
  TL_WALLOC(MiB / 2, MPI_COMM_WORLD, &b, &wb, fb, "storage_alloc_factor=auto");
  f = tl_win_info_number(wb, "storage_alloc_factor");
  CHECK(fabs(f - 1.0) < 1e-6, "auto with the budget used by a live window resolved to %g, expected 1", f);
  check_layout("auto, budget used", b, MiB / 2, fb, 0, 0, 1.0);
  CHECK_MPI(MPI_Win_free(&wb));
  CHECK_MPI(MPI_Win_free(&wa));
  CHECK_FILE_PATTERN(fa, 0, 3 * MiB, 30 + tl_rank, 1 * MiB);
  /* budget free again: a 512 KiB window fits in memory, factor 0, no file */
  const char *fc = tl_path("auto-c-r%d", tl_rank);
  TL_WALLOC(MiB / 2, MPI_COMM_WORLD, &c, &wc, fc, "storage_alloc_factor=auto");
  f = tl_win_info_number(wc, "storage_alloc_factor");
  CHECK(fabs(f) < 1e-6, "auto for 512K under a free 1M budget resolved to %g, expected 0", f);
  tl_scan_range(c, MiB / 2, fc, &s);
  CHECK(s.file == 0, "auto resolved to all memory but %zu pages map the file", s.file);
  CHECK(!tl_exists(fc), "auto resolved to factor 0 but created %s", fc);
  CHECK_MPI(MPI_Win_free(&wc));
  /* storage_first with auto: 3 MiB file then 1 MiB memory */
  const char *fd = tl_path("auto-d-r%d", tl_rank);
  TL_WALLOC(4 * MiB, MPI_COMM_WORLD, &a, &wa, fd, "storage_alloc_factor=auto", "storage_alloc_order=storage_first");
  check_layout("auto storage_first", a, 4 * MiB, fd, 0, 1, 0.75);
  CHECK_MPI(MPI_Win_free(&wa));
}

/* no MPISW_MEMORY_LIMIT: the budget is the machine's memory, a 1 MiB window fits */
static void test_auto_nolimit(void) {
  CHECK(getenv("MPISW_MEMORY_LIMIT") == NULL, "run without MPISW_MEMORY_LIMIT");
  const char *fn = tl_path("auto-nl-r%d", tl_rank);
  void *a;
  MPI_Win w;
  TL_WALLOC(MiB, MPI_COMM_WORLD, &a, &w, fn, "storage_alloc_factor=auto");
  double f = tl_win_info_number(w, "storage_alloc_factor");
  CHECK(fabs(f) < 1e-6, "auto for 1 MiB on a machine with free memory resolved to %g, expected 0", f);
  CHECK(!tl_exists(fn), "auto resolved to all memory but created %s", fn);
  memset(a, 1, MiB);
  CHECK_MPI(MPI_Win_free(&w));
}

/* Inside a memory cgroup of LIMIT bytes, without MPISW_MEMORY_LIMIT: a window
 * of 4 x LIMIT keeps in memory at most the cgroup's room shared by the ranks
 * of the node, and at least that minus what the processes already use. */
static void test_auto_cgroup(void) {
  const char *lim = getenv("MPISW_TEST_CGROUP_LIMIT");
  CHECK(lim && atoll(lim) > 0, "run this mode through tools/cgroupdrv.sh");
  CHECK(!getenv("MPISW_MEMORY_LIMIT"), "MPISW_MEMORY_LIMIT must not be set for this mode");
  size_t limit = (size_t)atoll(lim), size = 4 * limit;
  const char *fn = tl_path("auto-cg-r%d", tl_rank);
  void *base;
  MPI_Win win;
  TL_WALLOC(size, MPI_COMM_WORLD, &base, &win, fn, "storage_alloc_factor=auto");
  double f = tl_win_info_number(win, "storage_alloc_factor");
  double mem = (1.0 - f) * (double)size;
  double most = (double)limit / tl_size, least = most - 128.0 * MiB / tl_size;
  tl_log("auto in a %zu-byte cgroup: factor %g, %.0f bytes in memory", limit, f, mem);
  CHECK(mem <= most + (double)tl_page && mem >= least,
        "auto put %.0f bytes in memory; the cgroup allows %.0f per rank (at least %.0f expected)",
        mem, most, least);
  /* the window works across the split */
  tl_fill(base, size / 64, 5 + tl_rank, 0);
  CHECK(tl_verify(base, size / 64, 5 + tl_rank, 0) < 0, "window content wrong");
  CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  tl_scratch();
  if (!strcmp(mode, "zero"))
    combined("zero", "memory_first", 0.0, "0", MiB, 0);
  else if (!strcmp(mode, "one"))
    combined("one", "memory_first", 1.0, "1", MiB, 12288);
  else if (!strcmp(mode, "half_mf"))
    combined("half_mf", "memory_first", 0.5, "0.5", MiB, 8192);
  else if (!strcmp(mode, "half_sf"))
    combined("half_sf", "storage_first", 0.5, "0.5", MiB, 8192);
  else if (!strcmp(mode, "quarter")) {
    combined("quarter_mf", "memory_first", 0.25, "0.25", 1000000, 0);
    combined("quarter_sf", "storage_first", 0.25, "0.25", 1000000, 4096);
  } else if (!strcmp(mode, "auto"))
    test_auto();
  else if (!strcmp(mode, "auto_nolimit"))
    test_auto_nolimit();
  else if (!strcmp(mode, "auto_cgroup"))
    test_auto_cgroup();
  else
    tl_fail(__FILE__, __LINE__, "unknown mode '%s'", mode);
  return tl_finish();
}
