/* mpisw_kv: damaged files and stores in use (issue 13). Each rank works on
 * its own store; cases are selected by argv[1]:
 *   bitflip   one flipped bit in a closed store's log costs the record it
 *             hits, no other; the count reported is exact
 *   crash     a tail torn by a crash during an append is dropped and not
 *             counted as damage
 *   super     a damaged copy of the superblock costs nothing (the other is
 *             used and both are rewritten); both damaged is a clear error
 *   naive     patched slot lengths and states of the naive table give a clear
 *             error, never a neighbour's bytes or a crash
 *   lock      a second open of a store in use (this process, another rank,
 *             a forked holder) is refused; a holder killed with -9 is not
 * The test knows the file layout (docs/KVCACHE.md) to damage it on purpose. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mpisw_kv.h"
#include "testlib.h"

#define BLOCK 4096
struct rec {                 /* a log record's header */
  uint32_t magic_kind, hcrc;
  uint64_t seq;
  uint32_t klen, vlen, crc, pad;
};
struct slot {                /* a naive slot's header */
  uint32_t state, klen, vlen, crc;
};

static char keybuf[64];
static const char *key(int i) {
  snprintf(keybuf, sizeof keybuf, "key-%d", i);
  return keybuf;
}
#define K(i) key(i), strlen(key(i))

static struct mpisw_kv_stats stats(mpisw_kv *kv) {
  struct mpisw_kv_stats st;
  CHECK_MPI(mpisw_kv_stats(kv, &st));
  return st;
}

static void put_pattern(mpisw_kv *kv, int i, size_t len, unsigned seed) {
  char *v = malloc(len + 1);
  tl_fill(v, len, seed, 0);
  CHECK_MPI(mpisw_kv_put(kv, K(i), v, len));
  free(v);
}

/* 0: the value is the pattern; MPISW_KV_NOTFOUND; fails on anything else. */
static int get_pattern(mpisw_kv *kv, int i, size_t len, unsigned seed) {
  char *v = malloc(len + 16);
  size_t got = 12345;
  int rc = mpisw_kv_get(kv, K(i), v, len + 16, &got);
  if (rc == MPISW_KV_NOTFOUND) {
    free(v);
    return rc;
  }
  CHECK(rc == MPI_SUCCESS, "get %s: %s", key(i), tl_errstr(rc));
  CHECK(got == len, "get %s: %zu bytes, expected %zu", key(i), got, len);
  long bad = tl_verify(v, len, seed, 0);
  CHECK(bad < 0, "get %s: byte %ld differs (%s)", key(i), bad, tl_describe(v, len, 0));
  free(v);
  return 0;
}

static void file_write(const char *path, off_t off, const void *buf, size_t len) {
  int fd = open(path, O_WRONLY);
  CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
  CHECK(pwrite(fd, buf, len, off) == (ssize_t)len, "pwrite %s: %s", path, strerror(errno));
  close(fd);
}

static char *file_read(const char *path, size_t len) {
  char *b = malloc(len);
  CHECK(b && tl_pread(path, 0, b, len) == (ssize_t)len, "read %zu bytes of %s", len, path);
  return b;
}

static mpisw_kv *open_self(const char *path, MPI_Info info) {
  mpisw_kv *kv = NULL;
  CHECK_MPI(mpisw_kv_open(path, info, MPI_COMM_SELF, &kv));
  return kv;
}

/* ---- bitflip ---- */

#define NKEYS 20000
static size_t vlen_of(int i) { return 10 + (size_t)(i * 37) % 290; }

struct where {
  uint64_t off, len;   /* record bytes the CRCs cover: header, key, value */
  int key;             /* its key number */
};

/* The records of a sound log region (records, zero padding to the next
 * block after each batch). */
static int parse_log(const char *region, uint64_t used, struct where *w, int max) {
  int n = 0;
  uint64_t off = 0;
  while (off + sizeof(struct rec) <= used) {
    struct rec r;
    memcpy(&r, region + off, sizeof r);
    if ((r.magic_kind >> 16) != 0x4B56) {
      off = (off / BLOCK + 1) * BLOCK;
      continue;
    }
    CHECK(n < max, "more than %d records", max);
    CHECK(r.klen > 4 && r.klen < 16, "record at %llu: key length %u", (unsigned long long)off, r.klen);
    w[n].off = off;
    w[n].len = sizeof r + r.klen + r.vlen;
    char k[16] = {0};
    memcpy(k, region + off + sizeof r, r.klen);   /* "key-N" */
    w[n].key = atoi(k + 4);
    n++;
    off += (w[n - 1].len + 7) & ~(uint64_t)7;
  }
  return n;
}

/* One flip at region offset pos: reopen, every key but the hit record's has
 * its value, and the count says exactly that. */
static void flip_and_check(const char *path, const char *pristine, uint64_t used, uint64_t pos,
                           int bit, const struct where *w, int nrec, MPI_Info info,
                           const char *what) {
  int hit = -1;
  for (int r = 0; r < nrec; r++)
    if (pos >= w[r].off && pos < w[r].off + w[r].len) hit = w[r].key;
  unsigned char b = (unsigned char)pristine[BLOCK + pos] ^ (unsigned char)(1u << bit);
  file_write(path, (off_t)(BLOCK + pos), &b, 1);
  mpisw_kv *kv = open_self(path, info);
  struct mpisw_kv_stats st = stats(kv);
  CHECK(st.log_damaged == (hit >= 0 ? 1u : 0u), "%s (offset %llu bit %d): %llu damaged reported, "
        "expected %d", what, (unsigned long long)pos, bit, (unsigned long long)st.log_damaged,
        hit >= 0);
  int missing = 0;
  for (int i = 0; i < NKEYS; i++)
    if (get_pattern(kv, i, vlen_of(i), (unsigned)i) == MPISW_KV_NOTFOUND) {
      CHECK(i == hit, "%s (offset %llu): key %d lost, the flip hit %s %d", what,
            (unsigned long long)pos, i, hit >= 0 ? "key" : "no record", hit);
      missing++;
    }
  CHECK(missing == (hit >= 0), "%s (offset %llu): key %d of the damaged record still found", what,
        (unsigned long long)pos, hit);
  CHECK(st.objects == (uint64_t)(NKEYS - missing), "%s: %llu objects", what,
        (unsigned long long)st.objects);
  CHECK_MPI(mpisw_kv_close(&kv));
  /* Back to the pristine file (recovery zeroed what followed a damaged last
   * record, and the superblock now knows the loss). */
  file_write(path, 0, pristine, BLOCK + used);
}

static void case_bitflip(void) {
  MPI_Info info = tl_info("kv_log_size=8M", "kv_write_buffer=64K", "kv_read=window", NULL);
  const char *path = tl_path("flip-%d.kv", tl_rank);
  mpisw_kv *kv = open_self(path, info);
  for (int i = 0; i < NKEYS; i++) put_pattern(kv, i, vlen_of(i), (unsigned)i);
  CHECK_MPI(mpisw_kv_sync(kv));
  uint64_t used = stats(kv).log_used;
  CHECK_MPI(mpisw_kv_close(&kv));
  char *pristine = file_read(path, BLOCK + used);
  struct where *w = malloc(sizeof *w * (NKEYS + 10));
  int nrec = parse_log(pristine + BLOCK, used, w, NKEYS + 10);
  CHECK(nrec == NKEYS, "%d records for %d keys", nrec, NKEYS);

  /* Chosen places: each header field, key, value of a middle record; the
   * first and the last record; a record across a block boundary; the first
   * record of a later batch; the padding after a batch. */
  const struct where *m = &w[nrec / 2];
  struct { uint64_t pos; const char *what; } at[] = {
    {w[0].off, "magic of the first record"},
    {m->off + 4, "header CRC"},
    {m->off + 8, "sequence number"},
    {m->off + 16, "key length"},
    {m->off + 20, "value length"},
    {m->off + 24, "record CRC"},
    {m->off + 28, "header pad"},
    {m->off + 32, "first key byte"},
    {m->off + m->len - 1, "last value byte"},
    {w[nrec - 1].off + 20, "value length of the last record"},
    {w[nrec - 1].off + w[nrec - 1].len - 1, "last byte of the last record"},
    {0, NULL}, {0, NULL}, {0, NULL},
  };
  for (int r = 1; r < nrec; r++) {
    uint64_t a = w[r].off, e = w[r].off + w[r].len;
    if (a / BLOCK != (e - 1) / BLOCK && !at[11].what) {
      at[11].pos = (e - 1) / BLOCK * BLOCK;  /* first byte after the boundary */
      at[11].what = "a record across a block boundary";
    }
    if (a % BLOCK == 0 && w[r - 1].off + w[r - 1].len < a && !at[12].what) {
      at[12].pos = a + 16;
      at[12].what = "key length of a batch's first record";
      at[13].pos = a - 8;
      at[13].what = "padding before a batch";
    }
  }
  CHECK(at[11].what && at[12].what, "no record across a block boundary or no second batch");
  int chosen = 14;
  for (int k = 0; k < chosen; k++) {
    if (!at[k].what) continue;
    for (int bit = 0; bit < 8; bit += 7)
      flip_and_check(path, pristine, used, at[k].pos, bit, w, nrec, info, at[k].what);
  }
  /* Random places (fixed seed). */
  uint64_t x = 0x9E3779B97F4A7C15ull + (uint64_t)tl_rank;
  for (int k = 0; k < 16; k++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    flip_and_check(path, pristine, used, (x >> 11) % used, (int)(x >> 5) & 7, w, nrec, info,
                   "a random byte");
  }

  /* The log goes on after a damaged record; the damage stays in the file
   * (and is reported at each open) until a compaction rewrites the log
   * without it. A damaged last record is dropped at once. */
  unsigned char b = (unsigned char)pristine[BLOCK + m->off + 40] ^ 1;
  file_write(path, (off_t)(BLOCK + m->off + 40), &b, 1);
  b = (unsigned char)pristine[BLOCK + w[nrec - 1].off + 40] ^ 1;
  file_write(path, (off_t)(BLOCK + w[nrec - 1].off + 40), &b, 1);
  kv = open_self(path, info);
  CHECK(stats(kv).log_damaged == 2, "%llu damaged, expected 2",
        (unsigned long long)stats(kv).log_damaged);
  put_pattern(kv, NKEYS + 1, 100, 1);
  CHECK_MPI(mpisw_kv_close(&kv));
  kv = open_self(path, info);
  CHECK(stats(kv).log_damaged == 1, "%llu damaged at the second open, expected 1 (the middle "
        "record)", (unsigned long long)stats(kv).log_damaged);
  CHECK(get_pattern(kv, NKEYS + 1, 100, 1) == 0, "the put after the damage is lost");
  CHECK_MPI(mpisw_kv_compact(kv));
  CHECK_MPI(mpisw_kv_close(&kv));
  kv = open_self(path, info);
  CHECK(stats(kv).log_damaged == 0, "%llu damaged after a compaction",
        (unsigned long long)stats(kv).log_damaged);
  CHECK(stats(kv).objects == NKEYS - 1, "%llu objects", (unsigned long long)stats(kv).objects);
  for (int i = 0; i < NKEYS; i++) {
    int rc = get_pattern(kv, i, vlen_of(i), (unsigned)i);
    CHECK(rc == 0 || i == m->key || i == w[nrec - 1].key, "key %d lost", i);
    CHECK(rc != 0 || (i != m->key && i != w[nrec - 1].key), "damaged key %d came back", i);
  }
  CHECK(get_pattern(kv, NKEYS + 1, 100, 1) == 0, "the put after the damage is lost");
  CHECK_MPI(mpisw_kv_close(&kv));
  free(w);
  free(pristine);
  MPI_Info_free(&info);
}

/* ---- crash: a torn tail is not damage ---- */

static void case_crash(void) {
  MPI_Info info = tl_info("kv_log_size=1M", "kv_write_buffer=64K", "kv_cache_size=64K", NULL);
  const char *path = tl_path("crash-%d.kv", tl_rank);
  mpisw_kv *kv = open_self(path, info);
  for (int i = 0; i < 100; i++) put_pattern(kv, i, 500, (unsigned)i);
  CHECK_MPI(mpisw_kv_close(&kv));
  /* A second session appends and syncs, then "crashes" in the middle of
   * its last append: the file as it was then, cut inside that record. */
  kv = open_self(path, info);
  for (int i = 100; i < 150; i++) put_pattern(kv, i, 500, (unsigned)i);
  CHECK_MPI(mpisw_kv_sync(kv));
  uint64_t last = stats(kv).log_used;
  put_pattern(kv, 1000, 8000, 1000);
  CHECK_MPI(mpisw_kv_sync(kv));
  off_t size = tl_file_size(path);
  char *snap = file_read(path, (size_t)size);
  CHECK_MPI(mpisw_kv_close(&kv));
  file_write(path, 0, snap, (size_t)size);
  CHECK(truncate(path, (off_t)(BLOCK + last + 4000)) == 0, "truncate %s", path);
  kv = open_self(path, info);
  CHECK(stats(kv).log_damaged == 0, "a torn tail after a crash counted as %llu damaged",
        (unsigned long long)stats(kv).log_damaged);
  for (int i = 0; i < 150; i++)
    CHECK(get_pattern(kv, i, 500, (unsigned)i) == 0, "key %d lost", i);
  CHECK(get_pattern(kv, 1000, 8000, 1000) == MPISW_KV_NOTFOUND, "the torn record was found");
  CHECK(stats(kv).objects == 150, "%llu objects", (unsigned long long)stats(kv).objects);
  put_pattern(kv, 2000, 3000, 2000);
  CHECK_MPI(mpisw_kv_close(&kv));
  /* The same cut after a clean close is damage: that record was durable. */
  kv = open_self(path, info);
  CHECK(stats(kv).log_damaged == 0, "damage after a clean reopen");
  CHECK(get_pattern(kv, 2000, 3000, 2000) == 0, "the record after the torn tail is lost");
  last = stats(kv).log_used;
  put_pattern(kv, 3000, 8000, 3000);
  CHECK_MPI(mpisw_kv_close(&kv));
  CHECK(truncate(path, (off_t)(BLOCK + last + 4000)) == 0, "truncate %s", path);
  kv = open_self(path, info);
  CHECK(stats(kv).log_damaged == 1, "a cut durable record counted as %llu damaged",
        (unsigned long long)stats(kv).log_damaged);
  CHECK(get_pattern(kv, 3000, 8000, 3000) == MPISW_KV_NOTFOUND, "the cut record was found");
  CHECK(get_pattern(kv, 2000, 3000, 2000) == 0, "the record before the cut is lost");
  CHECK(get_pattern(kv, 149, 500, 149) == 0, "key 149 lost");
  CHECK_MPI(mpisw_kv_close(&kv));
  free(snap);
  MPI_Info_free(&info);
}

/* ---- super: a damaged superblock copy ---- */

/* The superblock has two copies; after a compaction the older one would
 * name the region that was freed. Damage to either copy costs nothing. */
static void case_super(void) {
  MPI_Info info = tl_info("kv_log_size=1M", "kv_write_buffer=64K", "kv_cache_size=64K", NULL);
  const char *path = tl_path("super-%d.kv", tl_rank);
  mpisw_kv *kv = open_self(path, info);
  for (int i = 0; i < 300; i++) put_pattern(kv, i, 200, (unsigned)i);
  for (int i = 0; i < 300; i += 3) CHECK_MPI(mpisw_kv_delete(kv, K(i)));
  CHECK_MPI(mpisw_kv_compact(kv));
  CHECK_MPI(mpisw_kv_close(&kv));
  size_t size = (size_t)tl_file_size(path);
  char *pristine = file_read(path, size);
  for (int copy = 0; copy < 3; copy++) {
    unsigned char b[2];
    for (int k = 0; k < 2; k++)
      if (copy == k || copy == 2) {
        b[k] = (unsigned char)pristine[k * 512 + 40] ^ 0x10;
        file_write(path, k * 512 + 40, &b[k], 1);
      }
    if (copy == 2) {
      EXPECT_ERR(mpisw_kv_open(path, info, MPI_COMM_SELF, &kv), MPISW_ERR_IO, "header is damaged",
                 path);
      break;
    }
    for (int round = 0; round < 2; round++) {   /* the second open finds it mended */
      kv = open_self(path, info);
      CHECK(stats(kv).objects == 200, "header copy %d damaged: %llu objects, expected 200", copy,
            (unsigned long long)stats(kv).objects);
      CHECK(stats(kv).log_damaged == 0, "header copy %d damaged: %llu damaged records", copy,
            (unsigned long long)stats(kv).log_damaged);
      for (int i = 0; i < 300; i++)
        CHECK(get_pattern(kv, i, 200, (unsigned)i) == (i % 3 ? 0 : MPISW_KV_NOTFOUND),
              "header copy %d damaged: key %d", copy, i);
      CHECK_MPI(mpisw_kv_close(&kv));
    }
    file_write(path, 0, pristine, size);
  }
  free(pristine);
  MPI_Info_free(&info);
}

/* ---- naive: patched slots ---- */

static void case_naive(void) {
  MPI_Info info = tl_info("kv_backend=naive", "kv_slots=64", "kv_slot_size=256", NULL);
  const char *path = tl_path("naive-%d.kv", tl_rank);
  mpisw_kv *kv = open_self(path, info);
  for (int i = 0; i < 40; i++) put_pattern(kv, i, 100, (unsigned)i);
  CHECK_MPI(mpisw_kv_close(&kv));
  size_t fsize = BLOCK + 64 * 256;
  char *pristine = file_read(path, fsize);
  /* The slot of key-5, and that of a key placed right after another. */
  long s5 = -1;
  for (int i = 0; i < 64; i++) {
    const char *s = pristine + BLOCK + i * 256;
    if (!memcmp(s + sizeof(struct slot), "key-5", 5) && ((struct slot *)s)->klen == 5) s5 = i;
  }
  CHECK(s5 >= 0, "slot of key-5 not found");
  off_t at = (off_t)(BLOCK + s5 * 256);
  struct { uint32_t state, klen, vlen; const char *what, *msg; } bad[] = {
    {1, 5, 50, "a smaller value length", "CRC"},
    {1, 5, 120, "a larger value length within the slot", "CRC"},
    {1, 5, 240, "a value length reaching into the next slot", "exceed the slot"},
    {1, 5, 0x7fffffff, "a huge value length", "exceed the slot"},
    {1, 5, 0xffffffff, "value length -1", "exceed the slot"},
    {1, 0xffffffff, 100, "key length -1", "exceed the slot"},
    {1, 0, 100, "key length 0", "exceed the slot"},
    {1, 5, 0xfffffffb, "lengths whose 32-bit sum wraps", "exceed the slot"},
    {7, 5, 100, "an unknown state", "state"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    struct slot s;
    memcpy(&s, pristine + at, sizeof s);
    s.state = bad[k].state;
    s.klen = bad[k].klen;
    s.vlen = bad[k].vlen;
    file_write(path, at, &s, sizeof s);
    kv = open_self(path, info);
    char buf[4096];
    size_t len = 0;
    if (tl_rank == 0) tl_log("naive: %s", bad[k].what);
    EXPECT_ERR(mpisw_kv_get(kv, K(5), buf, sizeof buf, &len), MPISW_ERR_IO, "damaged", bad[k].msg);
    EXPECT_ERR(mpisw_kv_get(kv, K(5), NULL, 0, &len), MPISW_ERR_IO, "damaged", bad[k].msg);
    if (bad[k].state == 1 && bad[k].klen == 5 && bad[k].vlen <= 240 - 16) {
      /* lengths that fit: a put mends the slot */
      put_pattern(kv, 5, 100, 555);
      CHECK(get_pattern(kv, 5, 100, 555) == 0, "mended slot");
    }
    CHECK_MPI(mpisw_kv_close(&kv));
    file_write(path, 0, pristine, fsize);
  }
  /* A damaged value byte is caught by the CRC too. */
  pristine[at + sizeof(struct slot) + 5 + 50] ^= 4;
  file_write(path, 0, pristine, fsize);
  kv = open_self(path, info);
  EXPECT_ERR(mpisw_kv_get(kv, K(5), (char[256]){0}, 256, NULL), MPISW_ERR_IO, "damaged", "CRC");
  for (int i = 0; i < 40; i++)
    if (i != 5) CHECK(get_pattern(kv, i, 100, (unsigned)i) == 0, "key %d lost", i);
  CHECK_MPI(mpisw_kv_close(&kv));
  free(pristine);
  MPI_Info_free(&info);

  /* Superblocks: an older format, a damaged one. */
  const char *old = tl_path("old-%d.kv", tl_rank);
  char hdr[BLOCK] = {0};
  uint64_t magic = 0x3156534957535050ull;
  uint32_t version = 1;
  memcpy(hdr, &magic, 8);
  memcpy(hdr + 8, &version, 4);
  tl_write_pattern_file(old, 0, 0, 0, 0600);
  file_write(old, 0, hdr, sizeof hdr);
  EXPECT_ERR(mpisw_kv_open(old, MPI_INFO_NULL, MPI_COMM_SELF, &kv), MPISW_ERR_IO,
             "format version 1", old);
  version = 2;
  memcpy(hdr + 8, &version, 4);
  file_write(old, 0, hdr, sizeof hdr);
  EXPECT_ERR(mpisw_kv_open(old, MPI_INFO_NULL, MPI_COMM_SELF, &kv), MPISW_ERR_IO,
             "header is damaged", old);
  CHECK(kv == NULL, "a refused open returned a handle");
}

/* ---- lock: one open store per file ---- */

static void case_lock(void) {
  MPI_Info info = tl_info("kv_log_size=1M", "kv_write_buffer=64K", "kv_cache_size=64K", NULL);
  mpisw_kv *kv = NULL, *kv2 = NULL;
  char pidtxt[32];
  /* This process, a new store and an existing one. */
  const char *mine = tl_path("mine-%d.kv", tl_rank);
  kv = open_self(mine, info);
  snprintf(pidtxt, sizeof pidtxt, "pid %ld", (long)getpid());
  EXPECT_ERR(mpisw_kv_open(mine, info, MPI_COMM_SELF, &kv2), MPISW_ERR_ACCESS, "is in use", pidtxt);
  CHECK(kv2 == NULL, "refused open returned a handle");
  put_pattern(kv, 1, 100, 1);
  CHECK_MPI(mpisw_kv_close(&kv));
  kv = open_self(mine, info);
  EXPECT_ERR(mpisw_kv_open(mine, info, MPI_COMM_SELF, &kv2), MPISW_ERR_ACCESS, "is in use", mine);
  CHECK(get_pattern(kv, 1, 100, 1) == 0, "the refused open hurt the store");
  CHECK_MPI(mpisw_kv_close(&kv));

  /* Another process: rank 0's store, opened by rank 1 while rank 0 has it
   * and after rank 0 closed it. */
  if (tl_size > 1) {
    const char *shared = tl_path("rank0.kv");
    long pid0 = (long)getpid();
    MPI_Bcast(&pid0, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (tl_rank == 0) {
      kv = open_self(shared, info);
      put_pattern(kv, 7, 300, 7);
      CHECK_MPI(mpisw_kv_sync(kv));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (tl_rank == 1) {
      snprintf(pidtxt, sizeof pidtxt, "process %ld", pid0);
      EXPECT_ERR(mpisw_kv_open(shared, info, MPI_COMM_SELF, &kv2), MPISW_ERR_ACCESS, "is in use",
                 pidtxt);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (tl_rank == 0) {
      CHECK(get_pattern(kv, 7, 300, 7) == 0, "the refused open hurt the store");
      CHECK_MPI(mpisw_kv_close(&kv));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (tl_rank == 1) {
      kv2 = open_self(shared, info);
      CHECK(get_pattern(kv2, 7, 300, 7) == 0, "rank 0's value after its close");
      CHECK_MPI(mpisw_kv_close(&kv2));
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }

  /* A holder killed with -9: a forked child keeps the store's descriptor
   * (and so its lock) after the parent closed; the lock goes with it. */
  const char *held = tl_path("held-%d.kv", tl_rank);
  kv = open_self(held, info);
  put_pattern(kv, 3, 200, 3);
  fflush(NULL);
  pid_t child = fork();
  CHECK(child >= 0, "fork: %s", strerror(errno));
  if (child == 0) {
    for (;;) pause();
  }
  CHECK_MPI(mpisw_kv_close(&kv));
  EXPECT_ERR(mpisw_kv_open(held, info, MPI_COMM_SELF, &kv), MPISW_ERR_ACCESS, "is in use", held);
  CHECK(kill(child, SIGKILL) == 0, "kill: %s", strerror(errno));
  int status;
  CHECK(waitpid(child, &status, 0) == child, "waitpid: %s", strerror(errno));
  kv = open_self(held, info);
  CHECK(get_pattern(kv, 3, 200, 3) == 0, "value after the holder died");
  CHECK_MPI(mpisw_kv_close(&kv));
  MPI_Info_free(&info);
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *what = argc > 1 ? argv[1] : "all";
  int all = !strcmp(what, "all");
  if (all || !strcmp(what, "bitflip")) case_bitflip();
  if (all || !strcmp(what, "crash")) case_crash();
  if (all || !strcmp(what, "super")) case_super();
  if (all || !strcmp(what, "naive")) case_naive();
  if (all || !strcmp(what, "lock")) case_lock();
  return tl_finish();
}
