/* The pool of pooled files (src/pool/): linked with the static library so
 * that it calls the pool's internal interface (src/pool/pool.h) directly.
 * t_pool MODE; every mode runs on any number of ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>
#include <stdint.h>

#include "pool/pool.h"
#include "pool_check.h"
#include "testlib.h"

static struct mpisw_error e;

#define IS(call, want)                                                             \
  do {                                                                             \
    int rc_ = (call);                                                              \
    CHECK(rc_ == (want), "%s returned %d, wanted %s (%s)", #call, rc_, #want, e.msg); \
  } while (0)

static struct mpisw_pool_file *must_open(const char *name, int create, int excl, uint64_t unit,
                                         int factor) {
  struct mpisw_pool_layout l = {unit, factor};
  struct mpisw_pool_file *f = NULL;
  OK(mpisw_pool_open(name, create, excl, &l, &f, &e));
  CHECK(f != NULL, "open %s gave no handle", name);
  return f;
}

static void read_exact(struct mpisw_pool_file *f, uint64_t off, void *buf, uint64_t len) {
  uint64_t got = 0;
  OK(mpisw_pool_read(f, off, buf, len, &got, &e));
  CHECK(got == len, "read %llu at %llu got %llu", (unsigned long long)len,
        (unsigned long long)off, (unsigned long long)got);
}

/* Basic calls on one rank's own file; names up to the maximum. */
static void basic(void) {
  CHECK(mpisw_pool_ready(), "no pool");
  char name[64];
  snprintf(name, sizeof name, "basic-%d", tl_rank);
  struct mpisw_pool_file *f = NULL;
  IS(mpisw_pool_open(name, 0, 0, NULL, &f, &e), MPISW_POOL_NOENT);
  CHECK(strstr(e.msg, name) && strstr(e.msg, "does not exist"), "message: %s", e.msg);
  f = must_open(name, 1, 0, 0, 0);
  char buf[10000], back[10000];
  tl_fill(buf, sizeof buf, 7 + tl_rank, 0);
  OK(mpisw_pool_write(f, 0, buf, sizeof buf, &e));
  uint64_t size;
  OK(mpisw_pool_get_size(f, &size, &e));
  CHECK(size == sizeof buf, "size %llu", (unsigned long long)size);
  OK(mpisw_pool_close(f, &e));
  f = must_open(name, 0, 0, 0, 0); /* outlives its close */
  read_exact(f, 0, back, sizeof back);
  CHECK(!memcmp(buf, back, sizeof buf), "data after reopen: %s", tl_describe(back, 64, 0));
  OK(mpisw_pool_close(f, &e));
  OK(mpisw_pool_delete(name, &e));
  IS(mpisw_pool_delete(name, &e), MPISW_POOL_NOENT);
  /* the longest name, and one byte more */
  char *longn = malloc(MPISW_POOL_NAME_MAX + 2);
  memset(longn, 'a' + tl_rank % 26, MPISW_POOL_NAME_MAX);
  longn[MPISW_POOL_NAME_MAX] = 0;
  longn[0] = (char)('0' + tl_rank % 10);
  f = must_open(longn, 1, 1, 0, 0);
  OK(mpisw_pool_close(f, &e));
  OK(mpisw_pool_delete(longn, &e));
  longn[MPISW_POOL_NAME_MAX] = 'x';
  longn[MPISW_POOL_NAME_MAX + 1] = 0;
  IS(mpisw_pool_open(longn, 1, 0, NULL, &f, &e), MPISW_POOL_USAGE);
  CHECK(strstr(e.msg, "at most 1151"), "message: %s", e.msg);
  free(longn);
  IS(mpisw_pool_open("", 1, 0, NULL, &f, &e), MPISW_POOL_USAGE);
  /* many files at once: the directory holds them */
  struct mpisw_pool_file *many[40];
  for (int i = 0; i < 40; i++) {
    snprintf(name, sizeof name, "many-%d-%d", tl_rank, i);
    many[i] = must_open(name, 1, 1, 4096, 1);
    OK(mpisw_pool_write(many[i], 0, &i, sizeof i, &e));
  }
  for (int i = 0; i < 40; i++) {
    int v = -1;
    read_exact(many[i], 0, &v, sizeof v);
    CHECK(v == i, "file %d holds %d", i, v);
    OK(mpisw_pool_close(many[i], &e));
    snprintf(name, sizeof name, "many-%d-%d", tl_rank, i);
    OK(mpisw_pool_delete(name, &e));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Racing exclusive creates: exactly one winner per round; racing plain
 * creates all open one file. */
static void excl(int rounds) {
  for (int r = 0; r < rounds; r++) {
    char name[64];
    snprintf(name, sizeof name, "race-%d", r);
    struct mpisw_pool_file *f = NULL;
    MPI_Barrier(MPI_COMM_WORLD);
    int rc = mpisw_pool_open(name, 1, 1, NULL, &f, &e);
    CHECK(rc == MPISW_POOL_OK || rc == MPISW_POOL_EXISTS, "round %d: %d %s", r, rc, e.msg);
    int won = rc == MPISW_POOL_OK, winners = 0;
    MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(winners == 1, "round %d: %d winners", r, winners);
    if (won) {
      OK(mpisw_pool_write(f, 0, &r, sizeof r, &e));
      OK(mpisw_pool_close(f, &e));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* everyone opens it (not exclusive) and sees the winner's data */
    f = must_open(name, 1, 0, 0, 0);
    int v = -1;
    read_exact(f, 0, &v, sizeof v);
    CHECK(v == r, "round %d: file holds %d", r, v);
    OK(mpisw_pool_close(f, &e));
    MPI_Barrier(MPI_COMM_WORLD);
    if (won) OK(mpisw_pool_delete(name, &e));
    /* plain racing creates: one file, all ranks' writes in it */
    snprintf(name, sizeof name, "plain-%d", r);
    MPI_Barrier(MPI_COMM_WORLD);
    f = must_open(name, 1, 0, 0, 0);
    OK(mpisw_pool_write(f, (uint64_t)tl_rank * sizeof(int), &tl_rank, sizeof(int), &e));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int q = 0; q < tl_size; q++) {
      read_exact(f, (uint64_t)q * sizeof(int), &v, sizeof v);
      CHECK(v == q, "round %d: rank %d's int is %d", r, q, v);
    }
    OK(mpisw_pool_close(f, &e));
    MPI_Barrier(MPI_COMM_WORLD);
    if (tl_rank == 0) OK(mpisw_pool_delete(name, &e));
  }
}

/* Ranks write interleaved unaligned pieces (100,000 B) over small stripes;
 * every rank reads the whole file byte-exact, in pieces that cross blocks. */
static void stripes(uint64_t unit, uint64_t piece, int pieces) {
  struct mpisw_pool_file *f = must_open("stripes", 1, 0, unit, 0);
  uint64_t total = piece * (uint64_t)pieces;
  char *buf = malloc(total), *back = malloc(total);
  tl_fill(buf, total, 99, 0);
  for (int i = tl_rank; i < pieces; i += tl_size)
    OK(mpisw_pool_write(f, (uint64_t)i * piece, buf + (uint64_t)i * piece, piece, &e));
  MPI_Barrier(MPI_COMM_WORLD);
  uint64_t size;
  OK(mpisw_pool_get_size(f, &size, &e));
  CHECK(size == total, "size %llu, wanted %llu", (unsigned long long)size,
        (unsigned long long)total);
  memset(back, 0xee, total);
  uint64_t step = 77777;
  for (uint64_t off = 0; off < total; off += step)
    read_exact(f, off, back + off, off + step < total ? step : total - off);
  long bad = tl_verify(back, total, 99, 0);
  CHECK(bad < 0, "byte %ld differs: %s", bad, tl_describe(back + bad, 16, (size_t)bad));
  /* the blocks lie where owner says, spread over the ranks */
  int seen = 0;
  for (uint64_t off = 0; off < total; off += unit) {
    int r;
    uint64_t run;
    OK(mpisw_pool_owner(f, off, &r, &run));
    CHECK(r >= 0 && r < tl_size && run == (tl_size > 1 ? unit : UINT64_MAX), "owner %d run %llu",
          r, (unsigned long long)run);
    seen |= 1 << r;
  }
  CHECK(tl_size > 16 || seen == (1 << tl_size) - 1, "blocks on ranks 0x%x only", seen);
  OK(mpisw_pool_close(f, &e));
  MPI_Barrier(MPI_COMM_WORLD);
  uint64_t used, cap, peak;
  mpisw_pool_usage(&used, &cap, &peak);
  CHECK(used >= total && peak >= used && cap > used, "usage %llu cap %llu peak %llu",
        (unsigned long long)used, (unsigned long long)cap, (unsigned long long)peak);
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) OK(mpisw_pool_delete("stripes", &e));
  MPI_Barrier(MPI_COMM_WORLD);
  mpisw_pool_usage(&used, &cap, &peak);
  CHECK(used == 0, "unit %llu: after delete %llu bytes used", (unsigned long long)unit,
        (unsigned long long)used);
  MPI_Barrier(MPI_COMM_WORLD); /* before anyone writes the next file */
  free(buf);
  free(back);
}

/* Holes read as zeros, reads past the end are short; shrink frees and
 * zeroes, grow is sparse; preallocate reserves. */
static void sizes(void) {
  char name[64];
  snprintf(name, sizeof name, "sizes-%d", tl_rank);
  struct mpisw_pool_file *f = must_open(name, 1, 1, 65536, 0);
  char buf[100000], back[100000], zero[100000] = {0};
  tl_fill(buf, sizeof buf, 5, 0);
  OK(mpisw_pool_write(f, 1000000, buf, sizeof buf, &e));
  uint64_t got, size;
  read_exact(f, 0, back, sizeof back);
  CHECK(!memcmp(back, zero, sizeof back), "hole not zero: %s", tl_describe(back, 32, 0));
  read_exact(f, 1000000 - 50, back, 100);
  CHECK(!memcmp(back, zero, 50) && !memcmp(back + 50, buf, 50), "around the write");
  OK(mpisw_pool_read(f, 1000000 + 90000, back, sizeof back, &got, &e));
  CHECK(got == 10000 && !memcmp(back, buf + 90000, 10000), "short read got %llu",
        (unsigned long long)got);
  OK(mpisw_pool_read(f, 5000000, back, 10, &got, &e));
  CHECK(got == 0, "past the end got %llu", (unsigned long long)got);
  /* shrink into the data: the tail is gone, a grow shows zeros there */
  OK(mpisw_pool_set_size(f, 1000000 + 12345, &e));
  OK(mpisw_pool_get_size(f, &size, &e));
  CHECK(size == 1012345, "size after shrink %llu", (unsigned long long)size);
  OK(mpisw_pool_read(f, 1000000, back, sizeof back, &got, &e));
  CHECK(got == 12345 && !memcmp(back, buf, 12345), "kept part, got %llu",
        (unsigned long long)got);
  OK(mpisw_pool_set_size(f, 3000000, &e));
  read_exact(f, 1000000, back, sizeof back);
  CHECK(!memcmp(back, buf, 12345) && !memcmp(back + 12345, zero, sizeof back - 12345),
        "after grow: %s", tl_describe(back + 12345, 32, 0));
  OK(mpisw_pool_set_size(f, 0, &e));
  OK(mpisw_pool_read(f, 0, back, 10, &got, &e));
  CHECK(got == 0, "empty file read %llu", (unsigned long long)got);
  /* preallocate: size and zeros; more than the pool: NOSPACE now */
  OK(mpisw_pool_preallocate(f, 500000, &e));
  OK(mpisw_pool_get_size(f, &size, &e));
  CHECK(size == 500000, "size after preallocate %llu", (unsigned long long)size);
  read_exact(f, 400000, back, sizeof back);
  CHECK(!memcmp(back, zero, sizeof back), "preallocated not zero");
  OK(mpisw_pool_close(f, &e));
  OK(mpisw_pool_delete(name, &e));
  MPI_Barrier(MPI_COMM_WORLD);
  /* more than the pool holds: NOSPACE at once (one rank, the others wait) */
  if (tl_rank == 0) {
    uint64_t used, cap, peak;
    mpisw_pool_usage(&used, &cap, &peak);
    f = must_open("prealloc-big", 1, 1, 65536, 0);
    IS(mpisw_pool_preallocate(f, cap + 65536 * 4, &e), MPISW_POOL_NOSPACE);
    CHECK(strstr(e.msg, "prealloc-big") && strstr(e.msg, "full"), "message: %s", e.msg);
    OK(mpisw_pool_close(f, &e));
    OK(mpisw_pool_delete("prealloc-big", &e));
    mpisw_pool_usage(&used, &cap, &peak);
    CHECK(used == 0, "%llu bytes still used after delete", (unsigned long long)used);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Blocks of a deleted file are reused without being cleared at delete:
 * what the new file's writes do not cover reads as zeros (partial pieces,
 * small and large copies, a block written whole, one never written). */
static void reuse(uint64_t most_pieces) {
  enum { UNIT = 65536, NB = 8 };
  char name[64];
  snprintf(name, sizeof name, "reuse-old-%d", tl_rank);
  static char buf[NB * UNIT], back[NB * UNIT], want[NB * UNIT];
  struct mpisw_pool_file *f = must_open(name, 1, 1, UNIT, 0);
  memset(buf, 0xAB, sizeof buf);
  OK(mpisw_pool_write(f, 0, buf, sizeof buf, &e));
  read_exact(f, 0, back, sizeof back); /* its pages mapped here too */
  OK(mpisw_pool_close(f, &e));
  OK(mpisw_pool_delete(name, &e));
  MPI_Barrier(MPI_COMM_WORLD); /* every rank's old blocks are free */
  snprintf(name, sizeof name, "reuse-new-%d", tl_rank);
  f = must_open(name, 1, 1, UNIT, 0);
  static const struct { uint64_t off, len; } piece[] = {
      {1000, 3000},                 /* small, inside block 0 */
      {UNIT, UNIT},                 /* block 1 whole */
      {3 * UNIT + 30000, 20000},    /* large copy inside block 3 */
      {5 * UNIT - 10, 40000},       /* across blocks 4 and 5 */
      {7 * UNIT + UNIT - 1, 1}};    /* the last byte; block 6 never written */
  memset(want, 0, sizeof want);
  for (size_t i = 0; i < sizeof piece / sizeof piece[0]; i++) {
    tl_fill(buf, piece[i].len, 21 + tl_rank, piece[i].off);
    memcpy(want + piece[i].off, buf, piece[i].len);
    OK(mpisw_pool_write(f, piece[i].off, buf, piece[i].len, &e));
  }
  read_exact(f, 0, back, sizeof back);
  for (size_t i = 0; i < sizeof back; i++)
    if (back[i] != want[i]) {
      CHECK(0, "byte %zu of a file on reused blocks is %#x, wanted %#x (%s)", i,
            (unsigned char)back[i], (unsigned char)want[i], tl_describe(back + i, 16, 0));
      break;
    }
  OK(mpisw_pool_close(f, &e));
  OK(mpisw_pool_delete(name, &e));
  MPI_Barrier(MPI_COMM_WORLD);
  /* Every rank at once writes 100-byte pieces, interleaved, into the same
   * granules of reused blocks: each granule is zeroed once, by the first
   * writer, never over another rank's piece. */
  enum { PIECE = 100 };
  if (tl_rank == 0) OK(mpisw_pool_close(must_open("reuse-shared", 1, 1, UNIT, 0), &e));
  MPI_Barrier(MPI_COMM_WORLD);
  f = must_open("reuse-shared", 0, 0, 0, 0);
  uint64_t pieces = sizeof buf / PIECE / (uint64_t)tl_size;
  if (pieces > most_pieces) pieces = most_pieces;
  for (uint64_t k = 0; k < pieces; k++) {
    uint64_t off = (k * (uint64_t)tl_size + (uint64_t)tl_rank) * PIECE;
    tl_fill(buf, PIECE, 31, off);
    OK(mpisw_pool_write(f, off, buf, PIECE, &e));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  uint64_t len = pieces * (uint64_t)tl_size * PIECE;
  read_exact(f, 0, back, len);
  long bad = tl_verify(back, len, 31, 0);
  CHECK(bad < 0, "byte %ld of the shared file written in pieces differs (%s)", bad,
        tl_describe(back + (bad < 0 ? 0 : bad), 16, 0));
  OK(mpisw_pool_close(f, &e));
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) OK(mpisw_pool_delete("reuse-shared", &e));
  MPI_Barrier(MPI_COMM_WORLD);
}

/* A small pool (MPISW_POOL_SIZE=8M): rank 0 writes until NOSPACE; what it
 * wrote before reads back whole, on every rank. */
static void full(void) {
  struct mpisw_pool_file *f = must_open("full", 1, 0, 65536, 0);
  char buf[100000];
  uint64_t off = 0;
  int rc = MPISW_POOL_OK;
  if (tl_rank == 0) {
    for (;;) {
      tl_fill(buf, sizeof buf, 3, off);
      rc = mpisw_pool_write(f, off, buf, sizeof buf, &e);
      if (rc != MPISW_POOL_OK) break;
      off += sizeof buf;
      CHECK(off < (1ULL << 30), "never full");
    }
    CHECK(rc == MPISW_POOL_NOSPACE, "write returned %d: %s", rc, e.msg);
    CHECK(strstr(e.msg, "full") && strstr(e.msg, "MPISW_POOL_SIZE"), "message: %s", e.msg);
    tl_log("pool full after %llu bytes: %s", (unsigned long long)off, e.msg);
  }
  MPI_Bcast(&off, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  CHECK(off > 4000000ULL * (uint64_t)tl_size / 2, "only %llu bytes fit",
        (unsigned long long)off);
  for (uint64_t at = 0; at < off; at += sizeof buf) {
    read_exact(f, at, buf, sizeof buf);
    long bad = tl_verify(buf, sizeof buf, 3, at);
    CHECK(bad < 0, "byte %llu damaged", (unsigned long long)(at + (uint64_t)bad));
  }
  OK(mpisw_pool_close(f, &e));
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) OK(mpisw_pool_delete("full", &e));
  MPI_Barrier(MPI_COMM_WORLD);
  /* the space is back */
  if (tl_rank == 0) {
    f = must_open("full2", 1, 1, 65536, 0);
    OK(mpisw_pool_write(f, 0, buf, sizeof buf, &e));
    OK(mpisw_pool_close(f, &e));
    OK(mpisw_pool_delete("full2", &e));
  }
}

/* Delete: BUSY while another rank holds the file open. */
static void busy(void) {
  struct mpisw_pool_file *f = NULL;
  if (tl_rank == 0) f = must_open("busy", 1, 1, 0, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == tl_size - 1) {
    IS(mpisw_pool_delete("busy", &e), MPISW_POOL_BUSY);
    CHECK(strstr(e.msg, "busy") && strstr(e.msg, "is open"), "message: %s", e.msg);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) OK(mpisw_pool_close(f, &e));
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == tl_size - 1) OK(mpisw_pool_delete("busy", &e));
  MPI_Barrier(MPI_COMM_WORLD);
  IS(mpisw_pool_open("busy", 0, 0, NULL, &f, &e), MPISW_POOL_NOENT);
}

/* A shared pointer for every rank of MPI_COMM_WORLD, as a collective open
 * takes one: rank 0 takes the slot, every rank attaches it. */
static void attach_shared_ptr(struct mpisw_pool_file *f) {
  int id = -1;
  if (tl_rank == 0) OK(mpisw_pool_shared_ptr_take("t_pool", tl_size, 0, &id, &e));
  MPI_Bcast(&id, 1, MPI_INT, 0, MPI_COMM_WORLD);
  mpisw_pool_shared_ptr_attach(f, id);
}

/* Shared pointer: every rank adds 1 n times; every value seen once. */
static void shptr(int n) {
  struct mpisw_pool_file *f = must_open("shptr", 1, 0, 0, 0);
  int64_t none;
  IS(mpisw_pool_shared_ptr(f, 0, &none, &e), MPISW_POOL_USAGE); /* no open's pointer yet */
  CHECK(strstr(e.msg, "no shared file pointer"), "message: %s", e.msg);
  attach_shared_ptr(f);
  MPI_Barrier(MPI_COMM_WORLD);
  int64_t *mine = malloc(sizeof(int64_t) * (size_t)n);
  double t0 = MPI_Wtime();
  for (int i = 0; i < n; i++) OK(mpisw_pool_shared_ptr(f, 1, &mine[i], &e));
  if (tl_rank == 0) tl_log("shared pointer: %.2f us per fetch-add", (MPI_Wtime() - t0) / n * 1e6);
  int64_t *all = malloc(sizeof(int64_t) * (size_t)n * (size_t)tl_size);
  MPI_Allgather(mine, n, MPI_INT64_T, all, n, MPI_INT64_T, MPI_COMM_WORLD);
  char *seen = calloc((size_t)n * (size_t)tl_size, 1);
  for (int i = 0; i < n * tl_size; i++) {
    CHECK(all[i] >= 0 && all[i] < (int64_t)n * tl_size && !seen[all[i]], "value %lld",
          (long long)all[i]);
    seen[all[i]] = 1;
  }
  int64_t now;
  OK(mpisw_pool_shared_ptr(f, 0, &now, &e));
  CHECK(now == (int64_t)n * tl_size, "pointer %lld", (long long)now);
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) OK(mpisw_pool_shared_ptr_set(f, 42, &e));
  MPI_Barrier(MPI_COMM_WORLD);
  OK(mpisw_pool_shared_ptr(f, 0, &now, &e));
  CHECK(now == 42, "pointer after set %lld", (long long)now);
  OK(mpisw_pool_close(f, &e));
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) OK(mpisw_pool_delete("shptr", &e));
  free(mine), free(all), free(seen);
}

/* Overlapping writers in locked sections: each write in pieces; every
 * locked read sees one writer's whole data, never a mix. */
static void locks(int rounds) {
  enum { LEN = 300000, PIECE = 30000 };
  struct mpisw_pool_file *f = must_open("locks", 1, 0, 65536, 0);
  char *buf = malloc(LEN), *back = malloc(LEN);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int r = 0; r < rounds; r++) {
    unsigned seed = (unsigned)(r * 64 + tl_rank + 1);
    tl_fill(buf, LEN, seed, 0);
    memcpy(buf, &seed, sizeof seed); /* whose data: the first bytes say */
    OK(mpisw_pool_lock(f, &e));
    IS(mpisw_pool_lock(f, &e), MPISW_POOL_USAGE); /* not recursive */
    for (int p = 0; p < LEN; p += PIECE) {
      OK(mpisw_pool_write(f, 1000 + (uint64_t)p, buf + p, PIECE, &e));
      if (p == 3 * PIECE) usleep(50);
    }
    OK(mpisw_pool_unlock(f, &e));
    OK(mpisw_pool_lock(f, &e));
    read_exact(f, 1000, back, LEN);
    OK(mpisw_pool_unlock(f, &e));
    /* one writer's whole data (any round: ranks run ahead of each other) */
    unsigned who;
    memcpy(&who, back, sizeof who);
    CHECK(who >= 1 && who % 64 >= 1 && who % 64 <= (unsigned)tl_size &&
              who / 64 < (unsigned)rounds,
          "round %d: unknown writer %u", r, who);
    long bad = tl_verify(back + 4, LEN - 4, who, 4);
    CHECK(bad < 0, "round %d: writer %u's data mixed at byte %ld: %s", r, who, bad + 4,
          tl_describe(back + 4 + bad, 16, 4 + (size_t)bad));
  }
  IS(mpisw_pool_unlock(f, &e), MPISW_POOL_USAGE);
  OK(mpisw_pool_close(f, &e));
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) OK(mpisw_pool_delete("locks", &e));
  free(buf), free(back);
}

/* A pool on storage larger than the memory cgroup: every rank writes more
 * than the limit and reads it back. */
static void storage(void) {
  const char *lim = getenv("MPISW_TEST_CGROUP_LIMIT");
  uint64_t limit = lim ? strtoull(lim, NULL, 10) : 64ULL << 20;
  uint64_t each = limit * 3 / 2 / (uint64_t)tl_size, chunk = 1 << 20;
  char name[64];
  snprintf(name, sizeof name, "big-%d", tl_rank);
  struct mpisw_pool_file *f = must_open(name, 1, 1, 1 << 20, 1);
  char *buf = malloc(chunk);
  for (uint64_t off = 0; off < each; off += chunk) {
    tl_fill(buf, chunk, 11 + tl_rank, off);
    OK(mpisw_pool_write(f, off, buf, chunk, &e));
  }
  OK(mpisw_pool_sync(f, &e));
  MPI_Barrier(MPI_COMM_WORLD);
  for (uint64_t off = 0; off < each; off += chunk) {
    read_exact(f, off, buf, chunk);
    long bad = tl_verify(buf, chunk, 11 + tl_rank, off);
    CHECK(bad < 0, "byte %llu differs", (unsigned long long)(off + (uint64_t)bad));
  }
  if (tl_rank == 0)
    tl_log("pool on storage: %d ranks wrote %llu MiB each past a %llu MiB memory limit", tl_size,
           (unsigned long long)(each >> 20), (unsigned long long)(limit >> 20));
  OK(mpisw_pool_close(f, &e));
  OK(mpisw_pool_delete(name, &e));
  free(buf);
}

/* Several threads of each process at once: fetch-adds all counted, each
 * thread's writes read back whole, files opened and deleted concurrently. */
#define NTHREADS 4
static struct mpisw_pool_file *tfile;
static void *thread_body(void *arg) {
  int t = (int)(intptr_t)arg;
  struct mpisw_error te;
  char buf[70000], back[70000], name[64];
  unsigned seed = (unsigned)(tl_rank * NTHREADS + t + 1);
  tl_fill(buf, sizeof buf, seed, 0);
  uint64_t off = (uint64_t)(tl_rank * NTHREADS + t) * sizeof buf;
  for (int i = 0; i < 300; i++) {
    int64_t before;
    if (mpisw_pool_shared_ptr(tfile, 1, &before, &te)) return (void *)1;
  }
  for (int i = 0; i < 20; i++) {
    uint64_t got = 0;
    if (mpisw_pool_write(tfile, off, buf, sizeof buf, &te) ||
        mpisw_pool_read(tfile, off, back, sizeof back, &got, &te) || got != sizeof back ||
        memcmp(buf, back, sizeof buf))
      return (void *)2;
    struct mpisw_pool_file *g;
    snprintf(name, sizeof name, "thread-%d-%d-%d", tl_rank, t, i);
    if (mpisw_pool_open(name, 1, 1, NULL, &g, &te) || mpisw_pool_write(g, 5, buf, 100, &te) ||
        mpisw_pool_close(g, &te) || mpisw_pool_delete(name, &te))
      return (void *)3;
  }
  return NULL;
}

static void threads(void) {
  tfile = must_open("threads", 1, 0, 65536, 0);
  attach_shared_ptr(tfile);
  MPI_Barrier(MPI_COMM_WORLD);
  pthread_t th[NTHREADS];
  for (int t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, thread_body, (void *)(intptr_t)t);
  for (int t = 0; t < NTHREADS; t++) {
    void *rc;
    pthread_join(th[t], &rc);
    CHECK(rc == NULL, "thread %d failed at step %ld", t, (long)(intptr_t)rc);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int64_t now;
  OK(mpisw_pool_shared_ptr(tfile, 0, &now, &e));
  CHECK(now == 300LL * NTHREADS * tl_size, "pointer %lld", (long long)now);
  OK(mpisw_pool_close(tfile, &e));
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) OK(mpisw_pool_delete("threads", &e));
}

/* No pool: every call says why. */
static void nopool(const char *want) {
  struct mpisw_pool_file *f = NULL;
  CHECK(!mpisw_pool_ready(), "a pool exists");
  IS(mpisw_pool_open("x", 1, 0, NULL, &f, &e), MPISW_POOL_USAGE);
  CHECK(strstr(e.msg, "no pool") && strstr(e.msg, want), "message: %s (wanted %s)", e.msg,
        want);
  IS(mpisw_pool_delete("x", &e), MPISW_POOL_USAGE);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "basic";
  if (!strcmp(mode, "threads")) {
    CHECK(tl_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE) == MPI_THREAD_MULTIPLE,
          "no MPI_THREAD_MULTIPLE");
    threads();
    return tl_finish();
  }
  tl_init(&argc, &argv);
  if (!strcmp(mode, "basic")) basic();
  else if (!strcmp(mode, "excl")) excl(200);
  else if (!strcmp(mode, "stripes")) {
    stripes(65536, 100000, 37);          /* small stripes: blocks on every rank */
    stripes(1 << 20, 1 << 20, 6);        /* the default unit */
  } else if (!strcmp(mode, "sizes")) sizes();
  else if (!strcmp(mode, "reuse")) reuse(UINT64_MAX);
  else if (!strcmp(mode, "full")) full();
  else if (!strcmp(mode, "busy")) busy();
  else if (!strcmp(mode, "shptr")) shptr(2000);
  else if (!strcmp(mode, "locks")) locks(100);
  else if (!strcmp(mode, "storage")) storage();
  else if (!strcmp(mode, "multinode")) {
    double t0 = MPI_Wtime();
#define PHASE(call)                                                              \
  do {                                                                           \
    call;                                                                        \
    if (tl_rank == 0) tl_log("multinode: %s done at %.2f s", #call, MPI_Wtime() - t0); \
  } while (0)
    /* Few rounds: every RMA to the other node waits for its target to be
     * scheduled, and the test machine runs 4 ranks on 2 cores. */
    PHASE(stripes(65536, 100000, 13));
    PHASE(reuse(40)); /* pieces: each is several round trips to the other node */
    PHASE(excl(3));
    PHASE(shptr(50));
    PHASE(locks(3));
    PHASE(busy());
  } else if (!strcmp(mode, "nopool")) nopool(argc > 2 ? argv[2] : "");
  else CHECK(0, "unknown mode %s", mode);
  return tl_finish();
}
