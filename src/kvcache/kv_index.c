/* The in-memory index: open addressing (linear probing, backward-shift
 * deletion) over stable entry ids, so chunks can name their entry. */
#include <stdlib.h>
#include <string.h>

#include "kvcache/kv_internal.h"

int kv_index_init(struct kv_index *x, uint64_t expect) {
  memset(x, 0, sizeof *x);
  uint64_t n = 1024;
  while (n < expect * 2) n <<= 1;
  x->slot = calloc(n, sizeof *x->slot);
  if (!x->slot) return -1;
  x->mask = n - 1;
  return 0;
}

void kv_index_free(struct kv_index *x) {
  for (uint32_t i = 0; i < x->n_e; i++)
    if (x->e[i].used) free(x->e[i].key);
  free(x->e);
  free(x->free_ids);
  free(x->slot);
  memset(x, 0, sizeof *x);
}

uint32_t kv_index_find(const struct kv_index *x, uint64_t h, const void *key, size_t klen) {
  for (uint64_t i = h & x->mask;; i = (i + 1) & x->mask) {
    uint32_t s = x->slot[i];
    if (!s) return UINT32_MAX;
    const struct kv_entry *en = &x->e[s - 1];
    if (en->hash == h && en->klen == klen && memcmp(en->key, key, klen) == 0) return s - 1;
  }
}

static void place(struct kv_index *x, uint32_t id) {
  uint64_t i = x->e[id].hash & x->mask;
  while (x->slot[i]) i = (i + 1) & x->mask;
  x->slot[i] = id + 1;
}

static int grow_table(struct kv_index *x) {
  uint64_t n = (x->mask + 1) * 2;
  uint32_t *s = calloc(n, sizeof *s);
  if (!s) return -1;
  free(x->slot);
  x->slot = s;
  x->mask = n - 1;
  for (uint32_t id = 0; id < x->n_e; id++)
    if (x->e[id].used) place(x, id);
  return 0;
}

uint32_t kv_index_add(struct kv_index *x, uint64_t h, const void *key, size_t klen) {
  if ((uint64_t)(x->n_live + 1) * 2 > x->mask + 1 && grow_table(x)) return UINT32_MAX;
  char *k = malloc(klen ? klen : 1);
  if (!k) return UINT32_MAX;
  uint32_t id;
  if (x->n_free) {
    id = x->free_ids[--x->n_free];
  } else {
    if (x->n_e == x->cap_e) {
      uint32_t cap = x->cap_e ? x->cap_e * 2 : 1024;
      struct kv_entry *e = realloc(x->e, (size_t)cap * sizeof *e);
      uint32_t *f = realloc(x->free_ids, (size_t)cap * sizeof *f);
      if (e) x->e = e;
      if (f) x->free_ids = f;
      if (!e || !f) {
        free(k);
        return UINT32_MAX;
      }
      x->cap_e = cap;
    }
    id = x->n_e++;
  }
  struct kv_entry *en = &x->e[id];
  memset(en, 0, sizeof *en);
  memcpy(k, key, klen);
  en->hash = h;
  en->key = k;
  en->klen = (uint32_t)klen;
  en->log_off = KV_NOLOG;
  en->chunk = KV_NOCHUNK;
  en->used = 1;
  place(x, id);
  x->n_live++;
  return id;
}

void kv_index_remove(struct kv_index *x, uint32_t id) {
  uint64_t i = x->e[id].hash & x->mask;
  while (x->slot[i] != id + 1) i = (i + 1) & x->mask;
  /* Backward shift: later members of the cluster move up when their home
   * slot does not lie strictly between the hole and them. */
  uint64_t j = i;
  for (;;) {
    j = (j + 1) & x->mask;
    uint32_t s = x->slot[j];
    if (!s) break;
    uint64_t home = x->e[s - 1].hash & x->mask;
    int between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
    if (between) continue;
    x->slot[i] = s;
    i = j;
  }
  x->slot[i] = 0;
  free(x->e[id].key);
  x->e[id].key = NULL;
  x->e[id].used = 0;
  x->free_ids[x->n_free++] = id;
  x->n_live--;
}
