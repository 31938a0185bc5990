/* The memory window as chunks for objects. 64 KiB pages are given to size
 * classes (64 B ... 64 KiB, four per power of two, so at most 25% is
 * lost to rounding); a full class evicts by sampled LFU: of 8 chunks picked
 * at random, the object asked for least often goes (a count-min sketch
 * counts requests per key; a small use counter breaks ties), and only for
 * an object asked for more often than it (TinyLFU admission). Objects that
 * are read often keep their place; a scan of keys read once leaves the
 * window alone. The owner of the slab does the evicting (a callback): the
 * slab only chooses. */
#include <stdlib.h>
#include <string.h>

#include "kvcache/kv_slab.h"
#include "mpisw_kv.h"

#define PER_PAGE (KV_SLAB_PAGE / KV_SLAB_MIN)   /* chunk handles per page */

int mpisw__kv_slab_init(struct kv_slab *s, char *base, uint64_t size, const struct kv_index *idx,
                 kv_evict_fn evict, void *evict_ctx) {
  memset(s, 0, sizeof *s);
  s->idx = idx;
  s->evict = evict;
  s->evict_ctx = evict_ctx;
  s->base = base;
  s->size = size;
  s->n_pages = (uint32_t)(size / KV_SLAB_PAGE);
  s->page_class = calloc(s->n_pages ? s->n_pages : 1, 1);
  s->owner = calloc((size_t)(s->n_pages ? s->n_pages : 1) * PER_PAGE, sizeof *s->owner);
  if (!s->page_class || !s->owner) return -1;
  int n = 0;
  for (uint32_t p = KV_SLAB_MIN; p < KV_SLAB_PAGE && n < KV_SLAB_CLASSES - 1; p *= 2)
    for (uint32_t q = 0; q < 4 && n < KV_SLAB_CLASSES - 1; q++)
      s->cls[n++].size = ((p + p * q / 4) + 7) & ~7u;
  s->cls[n++].size = KV_SLAB_PAGE;
  s->n_cls = n;
  return 0;
}

void mpisw__kv_slab_free(struct kv_slab *s) {
  for (int c = 0; c < s->n_cls; c++) {
    free(s->cls[c].pages);
    free(s->cls[c].free);
  }
  free(s->page_class);
  free(s->owner);
  free(s->sk.cell);
  memset(s, 0, sizeof *s);
}

int mpisw__kv_slab_class(const struct kv_slab *s, size_t len) {
  if (s->n_pages == 0) return -1;
  for (int c = 0; c < s->n_cls; c++)
    if (len <= s->cls[c].size) return c;
  return -1;
}

int mpisw__kv_slab_chunk_class(const struct kv_slab *s, uint32_t chunk) {
  return s->page_class[chunk / PER_PAGE] - 1;
}

char *mpisw__kv_slab_chunk(const struct kv_slab *s, uint32_t h) {
  uint32_t page = h / PER_PAGE, idx = h % PER_PAGE;
  uint32_t size = s->cls[mpisw__kv_slab_chunk_class(s, h)].size;
  return s->base + (uint64_t)page * KV_SLAB_PAGE + (uint64_t)idx * size;
}

static int push_free(struct kv_class *c, uint32_t h) {
  if (c->n_free == c->cap_free) {
    uint32_t cap = c->cap_free ? c->cap_free * 2 : 256;
    uint32_t *f = realloc(c->free, (size_t)cap * sizeof *f);
    if (!f) return -1;
    c->free = f;
    c->cap_free = cap;
  }
  c->free[c->n_free++] = h;
  return 0;
}

/* Gives page p to class ci: all its chunks become free. */
static int give_page(struct kv_slab *s, uint32_t p, int ci) {
  struct kv_class *c = &s->cls[ci];
  uint32_t *pg = realloc(c->pages, (size_t)(c->n_pages + 1) * sizeof *pg);
  if (!pg) return -1;
  c->pages = pg;
  c->pages[c->n_pages++] = p;
  s->page_class[p] = (uint8_t)(ci + 1);
  uint32_t n = KV_SLAB_PAGE / c->size;
  for (uint32_t i = n; i-- > 0;)
    if (push_free(c, p * PER_PAGE + i)) return -1;
  return 0;
}

/* Takes a page from another class (whose objects are evicted): sizes in the
 * workload changed and this class has no page at all. */
static int steal_page(struct kv_slab *s, int ci, struct mpisw_error *e) {
  for (uint32_t tries = 0; tries < s->n_pages; tries++) {
    uint32_t p = s->steal++ % s->n_pages;
    int pc = s->page_class[p] - 1;
    if (pc < 0 || pc == ci) continue;
    struct kv_class *c = &s->cls[pc];
    for (uint32_t i = 0; i < KV_SLAB_PAGE / c->size; i++) {
      uint32_t o = s->owner[p * PER_PAGE + i];
      if (o && s->evict(s->evict_ctx, o - 1, e)) return -1;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < c->n_free; i++)
      if (c->free[i] / PER_PAGE != p) c->free[k++] = c->free[i];
    c->n_free = k;
    for (uint32_t i = 0; i < c->n_pages; i++)
      if (c->pages[i] == p) {
        c->pages[i] = c->pages[--c->n_pages];
        break;
      }
    return give_page(s, p, ci) ? mpisw_fail(e, MPISW_K_NOMEM, "no memory for the cache's lists") : 0;
  }
  return mpisw_fail(e, MPISW_K_NOMEM, "the memory window (%s %llu bytes) has no page left for "
                    "objects of this size", MPISW_KV_CACHE_SIZE, (unsigned long long)s->size);
}

/* ---- admission: a count-min sketch of how often keys were asked for (4
 * rows of 4-bit-ish counters, halved every 10 x the window's objects), so a
 * miss only displaces an object asked for less often than itself (TinyLFU). */

static uint64_t sk_mix(uint64_t x) {
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ull;
  x ^= x >> 27;
  return x;
}

int mpisw__kv_sketch_init(struct kv_sketch *k, uint64_t objects) {
  uint64_t n = 1024;
  while (n < objects * 4) n <<= 1;
  k->cell = calloc(4 * n, 1);
  if (!k->cell) return -1;
  k->mask = n - 1;
  k->period = objects * 10;
  return 0;
}

/* The key's counter in row r of the count-min sketch. */
static uint8_t *sk_cell(const struct kv_sketch *k, uint64_t h, int r) {
  return &k->cell[(uint64_t)r * (k->mask + 1) +
                  (sk_mix(h + (uint64_t)r * 0x9e3779b97f4a7c15ull) & k->mask)];
}

unsigned mpisw__kv_sketch_add(struct kv_sketch *k, uint64_t h) {
  unsigned m = 255;
  for (int r = 0; r < 4; r++) {
    uint8_t *c = sk_cell(k, h, r);
    if (*c < 15) (*c)++;
    if (*c < m) m = *c;
  }
  if (++k->adds >= k->period) {
    for (uint64_t i = 0; i < 4 * (k->mask + 1); i++) k->cell[i] >>= 1;
    k->adds = 0;
    m >>= 1;
  }
  return m;
}

static unsigned sketch_get(const struct kv_sketch *k, uint64_t h) {
  unsigned m = 255;
  for (int r = 0; r < 4; r++) {
    unsigned c = *sk_cell(k, h, r);
    if (c < m) m = c;
  }
  return m;
}

int mpisw__kv_slab_alloc(struct kv_slab *s, int ci, size_t len, uint32_t id, unsigned asked,
                  uint32_t *out, struct mpisw_error *e) {
  struct kv_class *c = &s->cls[ci];
  if (!c->n_free) {
    if (s->next_page < s->n_pages) {
      if (give_page(s, s->next_page++, ci)) return mpisw_fail(e, MPISW_K_NOMEM, "no memory for the cache's lists");
    } else if (!c->n_pages) {
      if (steal_page(s, ci, e)) return -1;
    } else {
      /* Sampled LFU: of 8 chunks picked at random, the object asked for
       * least often (sketch count, then use counter) goes, unless the new
       * object is asked for no more often than it (admission). */
      uint32_t per = KV_SLAB_PAGE / c->size, best = 0;
      unsigned best_score = ~0u;
      for (int t = 0; (t < 8 || !best) && t < 8 * 64; t++) {
        s->rnd = s->rnd * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t r = s->rnd >> 16;
        uint32_t h = c->pages[r % c->n_pages] * PER_PAGE + (uint32_t)((r >> 20) % per);
        uint32_t o = s->owner[h];
        if (!o) continue;
        const struct kv_entry *en = &s->idx->e[o - 1];
        unsigned score = sketch_get(&s->sk, en->hash) * 8 + en->freq;
        if (score < best_score) {
          best_score = score;
          best = o;
        }
      }
      if (!best) return mpisw_fail(e, MPISW_K_IO, "cache: no chunk could be evicted");
      if (asked * 8 <= best_score) return 1;
      if (s->evict(s->evict_ctx, best - 1, e)) return -1;
      if (!c->n_free) return mpisw_fail(e, MPISW_K_IO, "cache: no chunk could be evicted");
    }
  }
  uint32_t h = c->free[--c->n_free];
  s->owner[h] = id + 1;
  s->bytes += len;
  *out = h;
  return 0;
}

void mpisw__kv_slab_release(struct kv_slab *s, uint32_t h, size_t len) {
  struct kv_class *c = &s->cls[mpisw__kv_slab_chunk_class(s, h)];
  s->owner[h] = 0;
  s->bytes -= len;
  push_free(c, h);   /* cannot fail: the list held this chunk before */
}
