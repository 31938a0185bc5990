/* The pager's file I/O (O_DIRECT blocks) and change detection. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/journal.h"
#include "core/storage.h"
#include "pager/pager_internal.h"

/* Change detection, not cryptography: a Fletcher-style sum in four lanes
 * (position-dependent, so moved or swapped words change it), fast enough to
 * run on every block the pager loads or evicts clean. */
uint64_t mpisw_pager_hash_block(const void *p, uint64_t n) {
  const uint64_t *w = p;
  uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
  for (uint64_t i = 0; i + 4 <= n / 8; i += 4) {
    a0 += w[i];
    a1 += w[i + 1];
    a2 += w[i + 2];
    a3 += w[i + 3];
    b0 += a0;
    b1 += a1;
    b2 += a2;
    b3 += a3;
  }
  uint64_t h = n ^ a0 ^ (a1 << 1) ^ (a2 << 2) ^ (a3 << 3);
  h = (h ^ b0) * 0xff51afd7ed558ccdull;
  h = (h ^ b1 ^ (h >> 29)) * 0xc4ceb9fe1a85ec53ull;
  h = (h ^ b2 ^ (h >> 31)) * 0xff51afd7ed558ccdull;
  return (h ^ b3 ^ (h >> 33)) * 0xc4ceb9fe1a85ec53ull;
}

void mpisw_pager_set_error(struct mpisw_pager *pg, int err, const char *what) {
  if (pg->debug) fprintf(stderr, "mpisw pager: %s failed: %s\n", what, strerror(err));
  pthread_mutex_lock(&pg->mu);
  if (!pg->err) {
    pg->err = err;
    snprintf(pg->err_what, sizeof pg->err_what, "%s", what);
  }
  pthread_mutex_unlock(&pg->mu);
}

/* Blocks [i, i+n) are adjacent in the window and in the file: their bytes. */
static uint64_t run_bytes(const struct mpisw_pager *pg, uint64_t i, uint64_t n) {
  return (n - 1) * pg->block + pager_block_bytes(pg, i + n - 1);
}

/* The file bytes of blocks [i, i+n) that are ours: [*lo, *hi), empty when
 * lo >= hi. */
static void own_bytes(const struct mpisw_pager *pg, uint64_t i, uint64_t n, uint64_t *lo,
                      uint64_t *hi) {
  uint64_t off = pg->file_off + i * pg->block, end = off + run_bytes(pg, i, n);
  *lo = off > pg->data_start ? off : pg->data_start;
  *hi = end < pg->data_end ? end : pg->data_end;
}

static int read_file(struct mpisw_pager *pg, uint64_t i, uint64_t n, char *dst, uint64_t *got);

/* Fills dst with blocks [i, i+n) from the file, in one request (zeros past
 * EOF or in new space); *got is the number of bytes the file gave. Atomic:
 * each block's latest write-back since the last sync over it, and never
 * during a sync's apply (the file would be half written, the journal's
 * copy already gone). */
int mpisw_pager_read_run(struct mpisw_pager *pg, uint64_t i, uint64_t n, char *dst,
                         uint64_t *got) {
  if (!pg->jr) return read_file(pg, i, n, dst, got);
  pthread_mutex_lock(&pg->jmu);
  int rc = read_file(pg, i, n, dst, got);
  for (uint64_t k = i; !rc && k < i + n; k++) {
    if (!pg->jpos[k]) continue;
    uint64_t lo, hi, off = pg->file_off + i * pg->block;
    own_bytes(pg, k, 1, &lo, &hi);
    memcpy(dst + (lo - off), pg->jr->buf + pg->jpos[k] - 1, hi - lo);
  }
  pthread_mutex_unlock(&pg->jmu);
  return rc;
}

int mpisw_pager_read_block(struct mpisw_pager *pg, uint64_t i, char *dst, uint64_t *got) {
  return mpisw_pager_read_run(pg, i, 1, dst, got);
}

static int read_file(struct mpisw_pager *pg, uint64_t i, uint64_t nblk, char *dst,
                     uint64_t *got) {
  uint64_t n = run_bytes(pg, i, nblk), off = pg->file_off + i * pg->block, done = 0;
  while (done < n) {
    ssize_t r = pread(pg->dfd, dst + done, n - done, (off_t)(off + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return errno;
    if (r == 0) break;
    done += (uint64_t)r;
    if (done % PAGER_ALIGN) break; /* short read at an unaligned EOF */
  }
  if (done < n) memset(dst + done, 0, n - done);
  *got = done;
  return 0;
}

static int write_buffered(struct mpisw_pager *pg, const char *src, uint64_t lo, uint64_t hi,
                          uint64_t off) {
  return lo < hi ? mpisw_pwrite_all(pg->fd, src + (lo - off), hi - lo, lo) : 0;
}

/* Atomic: block i's own bytes into the journal; the sync writes it (and
 * counts it). */
static int journal_block(struct mpisw_pager *pg, uint64_t i, const char *src) {
  uint64_t off = pg->file_off + i * pg->block, lo, hi;
  own_bytes(pg, i, 1, &lo, &hi);
  if (lo >= hi) return 0;
  struct mpisw_error e;
  pthread_mutex_lock(&pg->jmu);
  const char *copy = mpisw_journal_add(pg->jr, lo, src + (lo - off), hi - lo, &e);
  if (copy) pg->jpos[i] = (uint64_t)(copy - pg->jr->buf) + 1;
  pthread_mutex_unlock(&pg->jmu);
  return copy ? 0 : ENOMEM;
}

/* Writes the own file bytes of blocks [i, i+n) (adjacent in src as in the
 * file), those in [data_start, data_end): whole pages with O_DIRECT in one
 * request (a large request keeps the device busy: the kernel splits it
 * into many in flight); a page the range shares with a neighbour (an
 * unaligned edge) through the page cache with a plain pwrite of only our
 * bytes. The kernel merges byte-range writes into one cached page, so a
 * neighbour writing its part of that page (pager or mmap, in another
 * process) loses nothing, with no lock between them; O_DIRECT reads and
 * writes flush the cache of their range first, and the sync's fdatasync
 * makes the edges durable. *wrote: bytes written (counted by the caller,
 * under the lock, with the write-back). With storage_sync=atomic, into the
 * journal instead, block by block. */
int mpisw_pager_write_run(struct mpisw_pager *pg, uint64_t i, uint64_t n, const char *src,
                          uint64_t *wrote) {
  uint64_t off = pg->file_off + i * pg->block, lo, hi;
  *wrote = 0;
  for (uint64_t k = 0; pg->jr && k < n; k++) { /* atomic: block by block */
    int rc = journal_block(pg, i + k, src + k * pg->block);
    if (rc) return rc;
  }
  if (pg->jr) return 0;
  own_bytes(pg, i, n, &lo, &hi);
  if (lo >= hi) return 0;
  uint64_t a = (lo + PAGER_ALIGN - 1) & ~(uint64_t)(PAGER_ALIGN - 1);
  uint64_t b = hi & ~(uint64_t)(PAGER_ALIGN - 1);
  int rc;
  if (a >= b) { /* no whole page of ours */
    rc = write_buffered(pg, src, lo, hi, off);
  } else {
    rc = write_buffered(pg, src, lo, a, off);
    if (!rc) rc = mpisw_pwrite_all(pg->dfd, src + (a - off), b - a, a);
    if (!rc) rc = write_buffered(pg, src, b, hi, off);
  }
  if (!rc) *wrote = hi - lo;
  return rc;
}

void mpisw_pager_set_atomic(struct mpisw_pager *pg, struct mpisw_journal *j) {
  pg->jpos = calloc(pg->nblocks, sizeof *pg->jpos);
  if (pg->jpos) pg->jr = j; /* out of memory: mpisw_pager_is_atomic says 0 */
}

int mpisw_pager_is_atomic(const struct mpisw_pager *pg) { return pg->jr != NULL; }

int mpisw_pager_journal_sync(struct mpisw_pager *pg, struct mpisw_error *e) {
  pthread_mutex_lock(&pg->jmu);
  int rc = 0;
  uint64_t n = 0;
  if (pg->jr->count) {
    rc = mpisw_journal_commit(pg->jr, e) || mpisw_journal_apply(pg->jr, pg->fd, e) ? -1 : 0;
    if (!rc) { /* on the file now: loads read it there */
      n = mpisw_journal_bytes(pg->jr) + (pg->jr->len - MPISW_JOURNAL_HEAD);
      mpisw_journal_mark_applied(pg->jr, e);
      mpisw_journal_begin(pg->jr);
      memset(pg->jpos, 0, pg->nblocks * sizeof *pg->jpos);
    }
  }
  pthread_mutex_unlock(&pg->jmu);
  pthread_mutex_lock(&pg->mu); /* never under jmu: the sync takes mu, then jmu */
  pg->st.bytes_written += n;
  pthread_mutex_unlock(&pg->mu);
  return rc;
}
