/* Which granules of a block hold its file's bytes. A block comes from the
 * heap with whatever an earlier file left in it; its fill map (in its index
 * entry, 2 bits a granule: empty, being zeroed, filled) starts empty, and
 * empty granules read as zeros. A write marks the granules it covers
 * filled before its bytes go in; a granule it covers only in part, and
 * that was empty, is zeroed first by the writer that claims it (the others
 * wait for that zeroing: it would otherwise land on their bytes). So no
 * block is zeroed at free or at reuse, an unaligned write costs at most
 * two granules of zeroing, and a block written whole costs none. */
#include <string.h>

#include "pool/internal.h"

#define EMPTY 0ULL
#define CLAIMED 1ULL
#define FILLED 3ULL
#define PER_WORD 32 /* granules in a map word */

static uint64_t state(uint64_t w, uint64_t g) { return w >> (2 * (g % PER_WORD)) & 3; }
static uint64_t put_state(uint64_t s, uint64_t g) { return s << (2 * (g % PER_WORD)); }
static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Claimed granules (bit patterns of claim) become filled, unless a shrink
 * emptied them meanwhile. */
static void finish_claims(int owner, uint64_t d, uint64_t claim) {
  for (;;) {
    uint64_t old = rm_load(owner, d), want = old | (old & claim) << 1;
    if (want == old || rm_cas(owner, d, old, want) == old) return;
  }
}

static int all_filled(const struct mpisw_pool_file *f, const struct pool_blk *b) {
  uint64_t gran = mpisw_pool_granule(f->unit), n = (f->unit + gran - 1) / gran;
  for (uint64_t g = 0; g < n; g += PER_WORD) {
    uint64_t w = rm_load(b->owner, mpisw_pool_map_disp(b->slot, (int)(g / PER_WORD)));
    uint64_t k = min64(PER_WORD, n - g), mask = k == PER_WORD ? ~0ULL : (1ULL << 2 * k) - 1;
    if ((w & mask) != mask) return 0;
  }
  return 1;
}

int mpisw_pool_fill_mark(struct mpisw_pool_file *f, uint64_t block, struct pool_blk *b,
                         uint64_t in, uint64_t n) {
  if (b->full || n == 0) return 0;
  uint64_t gran = mpisw_pool_granule(f->unit), g0 = in / gran, g1 = (in + n - 1) / gran;
  int rc = 0;
  for (uint64_t wi = g0 / PER_WORD; wi <= g1 / PER_WORD; wi++) {
    uint64_t d = mpisw_pool_map_disp(b->slot, (int)wi);
    uint64_t lo_g = g0 > wi * PER_WORD ? g0 : wi * PER_WORD;
    uint64_t hi_g = min64(g1, wi * PER_WORD + PER_WORD - 1);
    for (int round = 0;; round++) {
      uint64_t old = rm_load(b->owner, d), set = 0, claim = 0;
      int wait = 0;
      for (uint64_t g = lo_g; g <= hi_g && !wait; g++) {
        uint64_t s = state(old, g), lo = g * gran, hi = min64(lo + gran, f->unit);
        if (s == CLAIMED) wait = 1;
        else if (s == EMPTY && in <= lo && in + n >= hi) set |= put_state(FILLED, g);
        else if (s == EMPTY) claim |= put_state(CLAIMED, g);
      }
      if (wait) { /* another writer is zeroing a granule of ours */
        mpisw_pool_rm_backoff(round);
        continue;
      }
      if (!(set | claim)) break;
      if (rm_cas(b->owner, d, old, old | set | claim) != old) continue;
      for (uint64_t g = lo_g; g <= hi_g; g++)
        if (state(claim, g) == CLAIMED) {
          uint64_t lo = g * gran;
          if (rm_zero(b->owner, b->disp + lo, min64(gran, f->unit - lo))) rc = -1;
        }
      if (claim) {
        mpisw_pool_rm_publish(); /* the zeros before the claims end */
        finish_claims(b->owner, d, claim);
      }
      break;
    }
  }
  /* A write reaching the block's end (sequential writers) asks whether the
   * block is now whole: then its later writes and reads skip the map. */
  if (in + n == f->unit || g1 == (f->unit - 1) / gran) {
    if (all_filled(f, b)) {
      b->full = 1;
      mpisw_pool_block_full(f, block);
    }
  }
  return rc;
}

int mpisw_pool_fill_read(struct mpisw_pool_file *f, const struct pool_blk *b, uint64_t in,
                         void *to, uint64_t n) {
  if (b->full) return rm_get(b->owner, b->disp + in, to, n);
  uint64_t gran = mpisw_pool_granule(f->unit), end = in + n, w = 0, wi = UINT64_MAX;
  char *out = to;
  for (uint64_t pos = in; pos < end;) {
    /* a run of granules that are all filled, or all not */
    uint64_t run_end = pos;
    int filled = -1;
    while (run_end < end) {
      uint64_t gg = run_end / gran;
      if (gg / PER_WORD != wi) {
        wi = gg / PER_WORD;
        w = rm_load(b->owner, mpisw_pool_map_disp(b->slot, (int)wi));
      }
      int is = state(w, gg) == FILLED;
      if (filled < 0) filled = is;
      if (is != filled) break;
      run_end = min64((gg + 1) * gran, end);
    }
    uint64_t len = run_end - pos;
    if (!filled) memset(out + (pos - in), 0, len);
    else if (rm_get(b->owner, b->disp + pos, out + (pos - in), len)) return -1;
    pos = run_end;
  }
  return 0;
}

int mpisw_pool_fill_cut(struct mpisw_pool_file *f, const struct pool_blk *b, uint64_t end) {
  uint64_t gran = mpisw_pool_granule(f->unit), n = (f->unit + gran - 1) / gran;
  uint64_t g = end / gran, first_empty = g;
  int rc = 0;
  if (end % gran) { /* the granule holding the new end keeps its head */
    uint64_t w = rm_load(b->owner, mpisw_pool_map_disp(b->slot, (int)(g / PER_WORD)));
    if (state(w, g) == FILLED &&
        rm_zero(b->owner, b->disp + end, min64((g + 1) * gran, f->unit) - end))
      rc = -1;
    first_empty = g + 1;
  }
  for (uint64_t wi = first_empty / PER_WORD; wi * PER_WORD < n; wi++) {
    uint64_t d = mpisw_pool_map_disp(b->slot, (int)wi), keep = 0;
    for (uint64_t k = wi * PER_WORD; k < first_empty; k++) keep |= put_state(3, k);
    for (;;) {
      uint64_t old = rm_load(b->owner, d);
      if ((old & keep) == old || rm_cas(b->owner, d, old, old & keep) == old) break;
    }
  }
  return rc;
}
