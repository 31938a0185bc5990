/* MR-1S's reducer window: its layout, header and the per-mapper progress
 * records that make a checkpoint consistent with the counts. */
#ifndef MR_WIN1S_H
#define MR_WIN1S_H

#include "job.h"

#define W1_MAGIC 0x4d52315357494e31ull   /* "MR1SWIN1" */

/* Window of reducer q, disp_unit 1:
 *   [0, head)       struct w1_head, then one struct w1_prog per mapper p
 *   counts          np regions of `slots` uint64_t: region p is mapper p's
 *   keys            np regions of `slots` struct w1_key, appended by mapper p
 * After the reduce, its result (struct mr_rec, packed) lies from `counts`
 * over the regions, and the header's `reduced` says how many.
 * Mapper p is the only writer of its region and its w1_prog; in one
 * passive-target epoch (shared locks: MPI_Win_lock_all) it appends its new keys, accumulates
 * its task's counts and puts {applied = map round, used}: the reducer's
 * checkpoint (exclusive lock on itself + atomic MPI_Win_sync) sees either
 * all of a task's contribution and its record or none of them. */
struct w1_head {
  uint64_t magic, fingerprint, nprocs, slots;
  uint64_t reduced; /* 0; after the reduce: 1 + its words (the result's records) */
  uint64_t pad[3];
};
struct w1_prog {
  int64_t applied; /* last map round of this mapper in the counts; -1: none */
  uint64_t used;   /* keys in its region */
};
struct w1_key {
  uint64_t hash;
  char word[MR_WORD_MAX + 1];
};

struct w1_layout {
  uint64_t head, counts, keys, size, slots;
};

static inline void w1_layout(struct w1_layout *l, int np, uint64_t slots) {
  l->slots = slots;
  l->head = (sizeof(struct w1_head) + (uint64_t)np * sizeof(struct w1_prog) + 4095) & ~4095ull;
  l->counts = l->head;
  l->keys = (l->counts + (uint64_t)np * slots * 8 + 4095) & ~4095ull;
  l->size = l->keys + (uint64_t)np * slots * sizeof(struct w1_key);
}

#endif
