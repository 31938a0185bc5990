/* A pool on storage windows with the pager backend (MPISW_POOL_HINTS
 * storage_backend=pager), its files larger than the pager's memory limit:
 *   - the pool really is on the pager (before, its node-shared window fell
 *     back to mmap without a word);
 *   - each rank writes a file striped over every rank, larger than the
 *     pager may hold, and another rank reads it back byte-exact (RMA into
 *     the other process's paged segment, evicted blocks read back);
 *   - after a delete, the freed blocks are reused by a sparse file whose
 *     holes read as zeros (a storage pool zeroes blocks at reuse).
 * Linked with the static library: it asks the window module whether a
 * pager runs (mpisw_pager_windows). Env: MPISW_TEST_PAGER_MEMORY (bytes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool/pool.h"
#include "pool_check.h"
#include "testlib.h"
#include "win/internal.h"

static struct mpisw_error e;


#define CHUNK (1u << 20)

/* Whether this machine runs the pager at all (userfaultfd, kernel, O_DIRECT
 * on TMPDIR): a window of its own says so in its info. */
static int pager_here(void) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_type", "storage");
  MPI_Info_set(info, "storage_alloc_filename", getenv("MPISW_TEST_POOL_DIR"));
  MPI_Info_set(info, "storage_alloc_discard", "true");
  MPI_Info_set(info, "storage_backend", "pager");
  void *base;
  MPI_Win win;
  CHECK(MPI_Win_allocate(8 << 20, 1, info, MPI_COMM_SELF, &base, &win) == MPI_SUCCESS,
        "a storage window for the pager check");
  MPI_Info used;
  MPI_Win_get_info(win, &used);
  char v[64] = "";
  int flag = 0;
  MPI_Info_get(used, "storage_backend", sizeof v - 1, v, &flag);
  MPI_Info_free(&used);
  MPI_Info_free(&info);
  MPI_Win_free(&win);
  int here = flag && !strcmp(v, "pager"), all = 0;
  MPI_Allreduce(&here, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all;
}

static void write_file(const char *name, uint64_t size, int seed) {
  struct mpisw_pool_layout l = {CHUNK, tl_size};
  struct mpisw_pool_file *f = NULL;
  OK(mpisw_pool_open(name, 1, 1, &l, &f, &e));
  char *buf = malloc(CHUNK);
  for (uint64_t off = 0; off < size; off += CHUNK) {
    tl_fill(buf, CHUNK, seed, off);
    OK(mpisw_pool_write(f, off, buf, CHUNK, &e));
  }
  OK(mpisw_pool_sync(f, &e));
  OK(mpisw_pool_close(f, &e));
  free(buf);
}

static void check_file(const char *name, uint64_t size, int seed) {
  struct mpisw_pool_file *f = NULL;
  OK(mpisw_pool_open(name, 0, 0, NULL, &f, &e));
  char *buf = malloc(CHUNK);
  for (uint64_t off = 0; off < size; off += CHUNK) {
    uint64_t got = 0;
    OK(mpisw_pool_read(f, off, buf, CHUNK, &got, &e));
    CHECK(got == CHUNK, "%s: read at %llu got %llu", name, (unsigned long long)off,
          (unsigned long long)got);
    long bad = tl_verify(buf, CHUNK, seed, off);
    CHECK(bad < 0, "%s: byte %llu differs: %s", name, (unsigned long long)(off + (uint64_t)bad),
          tl_describe(buf + bad, 16, (size_t)bad));
  }
  OK(mpisw_pool_close(f, &e));
  free(buf);
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
#ifdef OPEN_MPI
  tl_skip("the pool does not use the pager with Open MPI (osc/ucx hangs in the pool's atomics "
          "on MPI_Win_create memory of one node; src/pool/module.c)");
#endif
  if (!pager_here()) tl_skip("the pager backend does not run here (userfaultfd, kernel "
                             "features or O_DIRECT on the pool's directory)");
  CHECK(mpisw_pool_ready(), "no pool");
  CHECK(mpisw_pager_windows >= 1, "the pool's storage is not on the pager (%d pager windows): "
        "MPISW_POOL_HINTS storage_backend=pager was not applied", mpisw_pager_windows);
  const char *pm = getenv("MPISW_TEST_PAGER_MEMORY");
  uint64_t limit = pm ? strtoull(pm, NULL, 10) : 8ULL << 20;
  uint64_t size = 3 * limit; /* this rank's file: 3x what the pager may hold per rank */
  char mine[64], next[64];
  snprintf(mine, sizeof mine, "spill-%d", tl_rank);
  snprintf(next, sizeof next, "spill-%d", (tl_rank + 1) % tl_size);

  write_file(mine, size, 21 + tl_rank);
  MPI_Barrier(MPI_COMM_WORLD);
  check_file(next, size, 21 + (tl_rank + 1) % tl_size);
  check_file(mine, size, 21 + tl_rank);
  MPI_Barrier(MPI_COMM_WORLD);
  OK(mpisw_pool_delete(mine, &e));
  MPI_Barrier(MPI_COMM_WORLD);

  /* Reuse: a sparse file on the freed blocks; the first half of every
   * block is never written and must read as zeros, not as old data. */
  struct mpisw_pool_layout l = {CHUNK, tl_size};
  struct mpisw_pool_file *f = NULL;
  OK(mpisw_pool_open(mine, 1, 1, &l, &f, &e));
  char *buf = malloc(CHUNK);
  for (uint64_t off = 0; off < size; off += CHUNK) {
    tl_fill(buf, CHUNK / 2, 31 + tl_rank, off + CHUNK / 2);
    OK(mpisw_pool_write(f, off + CHUNK / 2, buf, CHUNK / 2, &e));
  }
  for (uint64_t off = 0; off < size; off += CHUNK) {
    uint64_t got = 0;
    OK(mpisw_pool_read(f, off, buf, CHUNK, &got, &e));
    CHECK(got == CHUNK, "reuse: read at %llu got %llu", (unsigned long long)off,
          (unsigned long long)got);
    for (uint64_t i = 0; i < CHUNK / 2; i++)
      CHECK(buf[i] == 0, "reuse: byte %llu of a hole is %d, not 0 (old data of a freed block)",
            (unsigned long long)(off + i), buf[i]);
    long bad = tl_verify(buf + CHUNK / 2, CHUNK / 2, 31 + tl_rank, off + CHUNK / 2);
    CHECK(bad < 0, "reuse: byte %llu differs", (unsigned long long)(off + CHUNK / 2 + (uint64_t)bad));
  }
  free(buf);
  OK(mpisw_pool_close(f, &e));
  MPI_Barrier(MPI_COMM_WORLD);
  OK(mpisw_pool_delete(mine, &e));
  if (tl_rank == 0)
    tl_log("pool on the pager: %d ranks, %llu MiB files past a %llu MiB pager limit, read back "
           "across ranks, freed blocks reused as holes", tl_size,
           (unsigned long long)(size >> 20), (unsigned long long)(limit >> 20));
  return tl_finish();
}
