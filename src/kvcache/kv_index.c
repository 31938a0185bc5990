/* The in-memory index: open addressing (linear probing, backward-shift
 * deletion) over stable entry ids, so chunks can name their entry. A hit
 * should touch few cache lines and pages: each slot carries 32 bits of the
 * hash, an entry is one 64-byte line with short keys inline, and the arrays
 * ask for huge pages (fewer TLB misses after the kernel ran for a miss). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "kvcache/kv_index.h"

#define HUGE (2u << 20)

void mpisw__kv_hugepages(void *p, size_t len) {
  uintptr_t a = ((uintptr_t)p + HUGE - 1) & ~(uintptr_t)(HUGE - 1);
  uintptr_t b = ((uintptr_t)p + len) & ~(uintptr_t)(HUGE - 1);
  if (b > a) (void)madvise((void *)a, b - a, MADV_HUGEPAGE);
}

/* Zeroed memory, 64-byte aligned, huge pages when large. */
static void *alloc_lines(size_t len) {
  size_t align = len >= HUGE ? HUGE : 64;
  len = (len + align - 1) & ~(align - 1);
  void *p = aligned_alloc(align, len);
  if (!p) return NULL;
  if (len >= HUGE) mpisw__kv_hugepages(p, len);
  memset(p, 0, len);
  return p;
}

const char *mpisw__kv_entry_key(const struct kv_entry *en) {
  return en->klen <= KV_KEY_INLINE ? en->k.in : en->k.ptr;
}

int mpisw__kv_index_init(struct kv_index *x, uint64_t expect) {
  memset(x, 0, sizeof *x);
  uint64_t n = 1024;
  while (n < expect * 2) n <<= 1;
  x->slot = alloc_lines(n * sizeof *x->slot);
  if (!x->slot) return -1;
  x->mask = n - 1;
  return 0;
}

void mpisw__kv_index_free(struct kv_index *x) {
  for (uint32_t i = 0; i < x->n_e; i++)
    if (x->e[i].used && x->e[i].klen > KV_KEY_INLINE) free(x->e[i].k.ptr);
  free(x->e);
  free(x->free_ids);
  free(x->slot);
  memset(x, 0, sizeof *x);
}

uint32_t mpisw__kv_index_find(const struct kv_index *x, uint64_t h, const void *key, size_t klen) {
  uint32_t tag = (uint32_t)(h >> 32);
  for (uint64_t i = h & x->mask;; i = (i + 1) & x->mask) {
    struct kv_slot s = x->slot[i];
    if (!s.id) return UINT32_MAX;
    if (s.tag != tag) continue;
    const struct kv_entry *en = &x->e[s.id - 1];
    if (en->hash == h && en->klen == klen && memcmp(mpisw__kv_entry_key(en), key, klen) == 0)
      return s.id - 1;
  }
}

static void place(struct kv_index *x, uint32_t id) {
  uint64_t h = x->e[id].hash, i = h & x->mask;
  while (x->slot[i].id) i = (i + 1) & x->mask;
  x->slot[i].id = id + 1;
  x->slot[i].tag = (uint32_t)(h >> 32);
}

static int grow_table(struct kv_index *x) {
  uint64_t n = (x->mask + 1) * 2;
  struct kv_slot *s = alloc_lines(n * sizeof *s);
  if (!s) return -1;
  free(x->slot);
  x->slot = s;
  x->mask = n - 1;
  for (uint32_t id = 0; id < x->n_e; id++)
    if (x->e[id].used) place(x, id);
  return 0;
}

static int grow_entries(struct kv_index *x) {
  uint32_t cap = x->cap_e ? x->cap_e * 2 : 1024;
  struct kv_entry *e = alloc_lines((size_t)cap * sizeof *e);
  uint32_t *f = realloc(x->free_ids, (size_t)cap * sizeof *f);
  if (f) x->free_ids = f;
  if (!e || !f) {
    free(e);
    return -1;
  }
  if (x->n_e) memcpy(e, x->e, (size_t)x->n_e * sizeof *e);
  free(x->e);
  x->e = e;
  x->cap_e = cap;
  return 0;
}

uint32_t mpisw__kv_index_add(struct kv_index *x, uint64_t h, const void *key, size_t klen) {
  if ((uint64_t)(x->n_live + 1) * 2 > x->mask + 1 && grow_table(x)) return UINT32_MAX;
  char *k = NULL;
  if (klen > KV_KEY_INLINE && !(k = malloc(klen))) return UINT32_MAX;
  uint32_t id;
  if (x->n_free) {
    id = x->free_ids[--x->n_free];
  } else {
    if (x->n_e == x->cap_e && grow_entries(x)) {
      free(k);
      return UINT32_MAX;
    }
    id = x->n_e++;
  }
  struct kv_entry *en = &x->e[id];
  memset(en, 0, sizeof *en);
  if (k) {
    memcpy(k, key, klen);
    en->k.ptr = k;
  } else {
    memcpy(en->k.in, key, klen);
  }
  en->hash = h;
  en->klen = (uint32_t)klen;
  en->log_off = KV_NOLOG;
  en->chunk = KV_NOCHUNK;
  en->used = 1;
  place(x, id);
  x->n_live++;
  return id;
}

void mpisw__kv_index_remove(struct kv_index *x, uint32_t id) {
  uint64_t i = x->e[id].hash & x->mask;
  while (x->slot[i].id != id + 1) i = (i + 1) & x->mask;
  /* Backward shift: later members of the cluster move up when their home
   * slot does not lie strictly between the hole and them. */
  uint64_t j = i;
  for (;;) {
    j = (j + 1) & x->mask;
    struct kv_slot s = x->slot[j];
    if (!s.id) break;
    uint64_t home = x->e[s.id - 1].hash & x->mask;
    int between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
    if (between) continue;
    x->slot[i] = s;
    i = j;
  }
  x->slot[i].id = 0;
  x->slot[i].tag = 0;
  if (x->e[id].klen > KV_KEY_INLINE) free(x->e[id].k.ptr);
  x->e[id].k.ptr = NULL;
  x->e[id].used = 0;
  x->free_ids[x->n_free++] = id;
  x->n_live--;
}
