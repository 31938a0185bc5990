/* After all inserts: every inserted key is in the table exactly once.
 *
 * local (every owner, its own windows): each key in a slot or a chain
 * hashes to this owner and that slot, decodes to a key some rank inserted
 * (hash.h: unmix), appears once; chains stay inside the heap elements taken,
 * have no cycles, and link every element taken. The owners' counts add up to
 * the keys inserted. Together: each inserted key is there exactly once.
 * full (also): each rank looks its own keys up with MPI_Get, as a reader
 * would, and finds each exactly once. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dht.h"
#include "hash.h"

#define MAX_REPORTS 5

static int reports;
static void fail(const struct dht *t, const char *fmt, ...) {
  if (reports++ >= MAX_REPORTS) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "dht: verify: rank %d: %s\n", t->rank, msg); /* one write: no interleaving */
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static int key_ok(const struct dht *t, uint64_t key, uint64_t slot) {
  if (key == 0) return fail(t, "heap element with no key in the chain of slot %llu",
                            (unsigned long long)slot), 0;
  struct dht_place at = dht_place_of(key, t->nranks, t->elements);
  if (at.owner != t->rank || at.slot != slot)
    return fail(t, "key %016llx is in slot %llu, its place is rank %d slot %llu",
                (unsigned long long)key, (unsigned long long)slot, at.owner,
                (unsigned long long)at.slot), 0;
  uint64_t n = dht_unmix(key);
  if (n == 0 || (n - 1) / t->inserts_per_rank >= (uint64_t)t->nranks)
    return fail(t, "key %016llx in slot %llu was never inserted", (unsigned long long)key,
                (unsigned long long)slot), 0;
  return 1;
}

/* This owner's keys, checked; returns how many, or -1 on a broken table. */
static int64_t check_local(const struct dht *t, uint64_t *heap_used_out) {
  const struct dht_entry *vol = t->vol.base, *heap = t->heap.base;
  uint64_t taken = heap[0].key;
  uint64_t used = taken < t->heap_elements ? taken : t->heap_elements;
  *heap_used_out = used;
  unsigned char *seen = calloc(used + 1, 1);
  uint64_t *keys = malloc((t->elements + used + 1) * sizeof *keys);
  if (!seen || !keys) {
    fail(t, "out of memory for the check");
    free(seen), free(keys);
    return -1;
  }
  uint64_t n = 0, linked = 0;
  int bad = 0;
  for (uint64_t s = 0; s < t->elements && !bad; s++) {
    if (vol[s].key == 0) {
      if (vol[s].next != 0) bad = 1, fail(t, "empty slot %llu has a chain", (unsigned long long)s);
      continue;
    }
    if (!key_ok(t, vol[s].key, s)) { bad = 1; break; }
    keys[n++] = vol[s].key;
    for (uint64_t v = vol[s].next; v != 0 && !bad; v = heap[v].next) {
      if (v > used) { bad = 1, fail(t, "slot %llu links heap element %llu of %llu taken",
                                    (unsigned long long)s, (unsigned long long)v,
                                    (unsigned long long)used); break; }
      if (seen[v]) { bad = 1, fail(t, "heap element %llu is linked twice (or a cycle)",
                                   (unsigned long long)v); break; }
      seen[v] = 1;
      linked++;
      if (!key_ok(t, heap[v].key, s)) { bad = 1; break; }
      keys[n++] = heap[v].key;
    }
  }
  if (!bad && linked != used)
    bad = 1, fail(t, "%llu heap elements taken, %llu linked", (unsigned long long)used,
                  (unsigned long long)linked);
  if (!bad) {
    qsort(keys, n, sizeof *keys, cmp_u64);
    for (uint64_t i = 1; i < n; i++)
      if (keys[i] == keys[i - 1]) {
        bad = 1, fail(t, "key %016llx is in the table twice", (unsigned long long)keys[i]);
        break;
      }
  }
  free(seen), free(keys);
  return bad ? -1 : (int64_t)n;
}

/* Every key this rank inserted, looked up one-sided: how many not found once. */
static uint64_t lookup_own(struct dht *t) {
  uint64_t wrong = 0;
  MPI_Win_lock_all(MPI_MODE_NOCHECK, t->vol.win);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, t->heap.win);
  for (uint64_t i = 0; i < t->inserts_per_rank; i++) {
    uint64_t key = dht_key_of(t, t->rank, i);
    struct dht_place at = dht_place_of(key, t->nranks, t->elements);
    int owner = at.owner;
    struct dht_entry e;
    MPI_Get(&e, 2, MPI_UINT64_T, owner, 2 * (MPI_Aint)at.slot, 2, MPI_UINT64_T, t->vol.win);
    MPI_Win_flush(owner, t->vol.win);
    uint64_t found = e.key == key, steps = 0;
    while (e.next != 0 && steps++ <= t->heap_elements) {
      MPI_Get(&e, 2, MPI_UINT64_T, owner, 2 * (MPI_Aint)e.next, 2, MPI_UINT64_T, t->heap.win);
      MPI_Win_flush(owner, t->heap.win);
      found += e.key == key;
    }
    if (found != 1) {
      wrong++;
      fail(t, "key %llu (%016llx) found %llu times by lookup", (unsigned long long)i,
           (unsigned long long)key, (unsigned long long)found);
    }
  }
  MPI_Win_unlock_all(t->heap.win);
  MPI_Win_unlock_all(t->vol.win);
  return wrong;
}

int dht_verify(struct dht *t, enum dht_verify how, uint64_t *heap_used_total) {
  /* The fences make every rank's updates visible to local loads. */
  MPI_Win_fence(MPI_MODE_NOPRECEDE, t->vol.win);
  MPI_Win_fence(MPI_MODE_NOPRECEDE, t->heap.win);
  uint64_t used = 0;
  int64_t n = how == DHT_VERIFY_NONE ? 0 : check_local(t, &used);
  if (how == DHT_VERIFY_NONE) {
    uint64_t taken = t->heap.base[0].key;
    used = taken < t->heap_elements ? taken : t->heap_elements;
  }
  MPI_Win_fence(MPI_MODE_NOSUCCEED, t->heap.win);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, t->vol.win);

  MPI_Allreduce(&used, heap_used_total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (how == DHT_VERIFY_NONE) return DHT_OK;
  int64_t total = 0, broken = n < 0;
  int64_t mine[2] = {n < 0 ? 0 : n, broken}, all[2];
  MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  total = all[0];
  uint64_t expect = (uint64_t)t->nranks * t->inserts_per_rank;
  int rc = DHT_OK;
  if (all[1]) rc = DHT_VERIFY_FAILED;
  else if ((uint64_t)total != expect) {
    if (t->rank == 0)
      fprintf(stderr, "dht: verify: the owners hold %lld keys, %llu were inserted\n",
              (long long)total, (unsigned long long)expect);
    rc = DHT_VERIFY_FAILED;
  }
  if (how == DHT_VERIFY_FULL) {
    uint64_t wrong = lookup_own(t), wrong_all;
    MPI_Allreduce(&wrong, &wrong_all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (wrong_all) rc = DHT_VERIFY_FAILED;
  }
  return rc;
}
