/* Blocks of pooled files. Block b of a file lives on rank
 * (first + b % factor) % nranks, in that rank's heap; where exactly is in
 * that rank's block index, an open-addressing table keyed by (file uid, b).
 * Readers look entries up without a lock (an entry is published by its uid
 * word, written last); allocation and freeing take the owner's allocator
 * lock (header word H_ALOCK): bump pointer, then free lists by block size.
 * Blocks never move while their file lives, so each handle caches where
 * its blocks are, and drops the cache when another process shrinks the
 * file (record word R_TRUNC). A freed block keeps its bytes (and, in a
 * memory pool, its pages: data.c): a new block's fill map starts empty, so
 * what its file has not written reads as zeros (fill.c), and nothing is
 * zeroed at free or at reuse. The free lists are linked outside the blocks,
 * so freeing touches no block's data either (on the pager a write into a
 * freed block was a read of it from the device and a write back). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pool/internal.h"

static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

int mpisw_pool_block_owner(const struct mpisw_pool_file *f, uint64_t block) {
  return (int)(((uint64_t)f->first + block % (uint64_t)f->factor) % (uint64_t)P->nranks);
}

#define ALLOC_LOCK "allocation lock (blocks)"

static uint64_t entry_disp(uint64_t i) { return P->idx_off + i * IDX_ENTRY; }

/* The free-list word of the block at displacement disp. */
static uint64_t link_disp(uint64_t disp) { return P->link_off + disp / POOL_PAGE * 8; }

/* Slot of (uid, block) in owner's index: 1 found (*slot, *disp), 0 not
 * there (*slot: the first reusable slot on the way, or UINT64_MAX when the
 * table is full). */
static int idx_find(int owner, uint64_t uid, uint64_t block, uint64_t *slot, uint64_t *disp) {
  uint64_t mask = P->idx_cap - 1, h = mix(uid ^ mix(block)) & mask;
  uint64_t reuse = UINT64_MAX;
  for (uint64_t n = 0; n < P->idx_cap; n++) {
    uint64_t i = (h + n) & mask, e[4];
    if (P->rma) {
      e[0] = rm_load(owner, entry_disp(i));
      if (e[0] && e[0] != IDX_TOMB && e[0] == uid) rm_get(owner, entry_disp(i) + 8, e + 1, 16);
    } else {
      e[0] = rm_load(owner, entry_disp(i)); /* acquire: the rest was written before */
      if (e[0] == uid) memcpy(e + 1, P->seg[owner] + entry_disp(i) + 8, 16);
    }
    if (e[0] == 0) {
      *slot = reuse == UINT64_MAX ? i : reuse;
      return 0;
    }
    if (e[0] == IDX_TOMB) {
      if (reuse == UINT64_MAX) reuse = i;
      continue;
    }
    if (e[0] == uid && e[1] == block) {
      *slot = i;
      *disp = e[2];
      return 1;
    }
  }
  *slot = reuse;
  return 0;
}

/* ---- the owner's heap (caller holds its allocator lock) ---- */
static int heap_alloc(int owner, uint64_t bsize, uint64_t *disp) {
  for (int k = 0; k < NFREE; k++) {
    uint64_t list = H_FREE + 16 * (uint64_t)k;
    uint64_t sz = rm_load(owner, list);
    if (sz == 0) break; /* lists are claimed in order */
    if (sz != bsize) continue;
    uint64_t head = rm_load(owner, list + 8);
    if (!head) break;
    rm_store(owner, list + 8, rm_load(owner, link_disp(head)));
    *disp = head;
    goto used;
  }
  uint64_t bump = rm_load(owner, H_BUMP);
  if (P->heap_off + bump + bsize > P->size) return -1;
  rm_store(owner, H_BUMP, bump + bsize);
  *disp = P->heap_off + bump;
used:;
  uint64_t before = rm_fadd(owner, H_USED, bsize);
  rm_fmax(owner, H_PEAK, before + bsize);
  return 0;
}

static void heap_free(int owner, uint64_t disp, uint64_t bsize) {
  for (int k = 0; k < NFREE; k++) {
    uint64_t list = H_FREE + 16 * (uint64_t)k;
    uint64_t sz = rm_load(owner, list);
    if (sz == 0) rm_store(owner, list, sz = bsize);
    if (sz != bsize) continue;
    rm_store(owner, link_disp(disp), rm_load(owner, list + 8));
    rm_store(owner, list + 8, disp);
    rm_fadd(owner, H_USED, (uint64_t)0 - bsize);
    return;
  }
  /* More block sizes than lists: the block stays counted as used (rare:
   * NFREE different stripe units freed on one rank). */
}

/* ---- the handle's cache ---- */
static struct pool_cache_entry *cache_get(struct mpisw_pool_file *f, uint64_t block) {
  if (!f->cache_cap) return NULL;
  uint64_t mask = f->cache_cap - 1;
  for (uint64_t i = mix(block) & mask;; i = (i + 1) & mask) {
    if (f->cache[i].key == 0) return NULL;
    if (f->cache[i].key == block + 1) return &f->cache[i];
  }
}

static void cache_put(struct mpisw_pool_file *f, uint64_t block, const struct pool_blk *b) {
  if (2 * (f->cache_n + 1) > f->cache_cap) {
    uint64_t cap = f->cache_cap ? 2 * f->cache_cap : 64;
    struct pool_cache_entry *n = calloc(cap, sizeof *n), *old = f->cache;
    if (!n) return; /* a cache, not a need */
    uint64_t oldcap = f->cache_cap;
    f->cache = n;
    f->cache_cap = cap;
    f->cache_n = 0;
    for (uint64_t i = 0; i < oldcap; i++)
      if (old[i].key) cache_put(f, old[i].key - 1, &old[i].b);
    free(old);
  }
  uint64_t mask = f->cache_cap - 1, i = mix(block) & mask;
  while (f->cache[i].key && f->cache[i].key != block + 1) i = (i + 1) & mask;
  if (!f->cache[i].key) f->cache_n++;
  f->cache[i].key = block + 1;
  f->cache[i].b = *b;
}

void mpisw_pool_block_full(struct mpisw_pool_file *f, uint64_t block) {
  struct pool_cache_entry *c = cache_get(f, block);
  if (c) c->b.full = 1;
}

void mpisw_pool_cache_clear(struct mpisw_pool_file *f) {
  free(f->cache);
  f->cache = NULL;
  f->cache_cap = f->cache_n = 0;
}

void mpisw_pool_cache_check(struct mpisw_pool_file *f) {
  uint64_t t = rm_load(f->home_rank, f->rec + R_TRUNC);
  if (t != f->trunc_seen) {
    mpisw_pool_cache_clear(f);
    f->trunc_seen = t;
  }
}

int mpisw_pool_block_find(struct mpisw_pool_file *f, uint64_t block, int create,
                          struct pool_blk *b, struct mpisw_error *e) {
  struct pool_cache_entry *c = cache_get(f, block);
  if (c) {
    *b = c->b;
    return 1;
  }
  int owner = mpisw_pool_block_owner(f, block);
  uint64_t slot, d;
  uint64_t *disp = &d;
  *b = (struct pool_blk){.owner = owner};
  if (idx_find(owner, f->uid, block, &slot, disp)) {
    b->disp = d, b->slot = slot;
    cache_put(f, block, b);
    return 1;
  }
  if (P->mpi_rc && P->mpi_rank == owner) { /* not a hole: its owner cannot be reached */
    mpisw_fail(e, MPISW_K_IO, "pooled file %s: block %llu is on rank %d, which %s", f->name,
               (unsigned long long)block, owner,
               P->mpi_dead ? "died" : "the MPI failed to reach");
    return create ? 0 : -1;
  }
  if (!create) return 0;
  if (mpisw_pool_rm_lock(owner, H_ALOCK, ALLOC_LOCK, f->name, e)) return 0;
  if (idx_find(owner, f->uid, block, &slot, disp)) { /* another process made it */
    mpisw_pool_rm_unlock(owner, H_ALOCK);
    b->disp = d, b->slot = slot;
    cache_put(f, block, b);
    return 1;
  }
  const char *why = NULL;
  if (slot == UINT64_MAX) why = "its block index is full";
  else if (heap_alloc(owner, f->unit, disp)) why = "its part of the pool is full";
  if (why) {
    mpisw_pool_rm_unlock(owner, H_ALOCK);
    uint64_t used = rm_load(owner, H_USED);
    mpisw_fail(e, MPISW_K_NOSPACE,
               "pooled file %s: no space for block %llu (%llu bytes) on rank %d: %s (%llu of "
               "%llu bytes used; MPISW_POOL_SIZE sets each rank's part)",
               f->name, (unsigned long long)block, (unsigned long long)f->unit, owner, why,
               (unsigned long long)used, (unsigned long long)(P->size - P->heap_off));
    return 0;
  }
  uint64_t kd[IDX_ENTRY / 8 - 1] = {block, *disp}; /* the fill map empty */
  rm_put(owner, entry_disp(slot) + 8, kd, sizeof kd);
  mpisw_pool_rm_publish();
  rm_store(owner, entry_disp(slot), f->uid); /* published: readers see the whole entry */
  mpisw_pool_rm_unlock(owner, H_ALOCK);
  /* A new block on this node of a storage pool is written next through
   * the mapping: its pages faulted in with one call, not one fault each
   * (a memory pool's copies choose their way in data.c). */
  if (P->seg[owner] && P->mem_fd < 0)
    madvise(P->seg[owner] + *disp, f->unit, MADV_POPULATE_WRITE);
  rm_fmax(f->home_rank, f->rec + R_EXTENT, (block + 1) * f->unit);
  b->disp = d, b->slot = slot;
  cache_put(f, block, b);
  return 1;
}

int mpisw_pool_blocks_free(const char *name, uint64_t uid, uint64_t unit, int factor, int first,
                           uint64_t from, uint64_t extent, struct mpisw_error *e) {
  uint64_t end = (extent + unit - 1) / unit;
  for (int s = 0; s < factor && (uint64_t)s < end; s++) {
    int owner = (int)(((uint64_t)first + (uint64_t)s) % (uint64_t)P->nranks);
    uint64_t b = from + ((uint64_t)s + (uint64_t)factor - from % (uint64_t)factor) %
                            (uint64_t)factor;
    if (b >= end) continue;
    if (mpisw_pool_rm_lock(owner, H_ALOCK, ALLOC_LOCK, name, e)) return MPISW_POOL_IO;
    for (; b < end; b += (uint64_t)factor) {
      uint64_t slot, disp;
      if (!idx_find(owner, uid, b, &slot, &disp)) continue;
      rm_store(owner, entry_disp(slot), IDX_TOMB);
      heap_free(owner, disp, unit);
    }
    mpisw_pool_rm_unlock(owner, H_ALOCK);
  }
  return MPISW_POOL_OK;
}
