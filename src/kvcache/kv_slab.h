/* kv_slab.c: the memory window as object chunks, sampled-LFU eviction and
 * TinyLFU admission. It reads the index (to rank the objects it samples)
 * and evicts through the callback its owner gives it: it never calls the
 * cache backend. */
#ifndef MPISW_KV_SLAB_H
#define MPISW_KV_SLAB_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "kvcache/kv_index.h"

#define KV_SLAB_PAGE (64u * 1024u)
#define KV_SLAB_MIN 64u
#define KV_SLAB_CLASSES 48

/* Pushes entry id out of the memory window (writing it back first when
 * needed) and releases its chunk: 0, or -1 with *e filled. */
typedef int (*kv_evict_fn)(void *ctx, uint32_t id, struct mpisw_error *e);

/* Admission: how often keys were asked for (count-min sketch). */
struct kv_sketch {
  uint8_t *cell;
  uint64_t mask, adds, period;
};

struct kv_class {
  uint32_t size;           /* chunk bytes */
  uint32_t *pages;         /* page numbers of this class */
  uint32_t n_pages;
  uint32_t *free;          /* free chunk handles */
  uint32_t n_free, cap_free;
};

struct kv_slab {
  char *base;              /* the memory window */
  uint64_t size;
  uint32_t n_pages, next_page, steal;
  uint8_t *page_class;     /* class + 1, 0 = unassigned */
  uint32_t *owner;         /* per chunk handle: entry id + 1, 0 = free */
  struct kv_class cls[KV_SLAB_CLASSES];
  int n_cls;
  uint64_t bytes;          /* object bytes held */
  const struct kv_index *idx;  /* owners' entries: their hash and use counter */
  kv_evict_fn evict;
  void *evict_ctx;
  uint64_t rnd;            /* sampled eviction */
  struct kv_sketch sk;     /* mpisw__kv_sketch_init; freed with the slab */
};

int mpisw__kv_slab_init(struct kv_slab *s, char *base, uint64_t size, const struct kv_index *idx,
                 kv_evict_fn evict, void *evict_ctx);
void mpisw__kv_slab_free(struct kv_slab *s);
/* Class of an object of len bytes, -1 when too large to cache. */
int mpisw__kv_slab_class(const struct kv_slab *s, size_t len);
/* Class a chunk belongs to. */
int mpisw__kv_slab_chunk_class(const struct kv_slab *s, uint32_t chunk);
/* A chunk of class ci (mpisw__kv_slab_class of len, >= 0) for len bytes for entry
 * id, asked for `asked` times lately (mpisw__kv_sketch_add's count); evicts through
 * s->evict. Returns 0 and the chunk handle in *chunk, -1 with *e filled, or
 * 1 (nothing evicted) when the object that would go is asked for at least
 * as often (admission). */
int mpisw__kv_slab_alloc(struct kv_slab *s, int ci, size_t len, uint32_t id, unsigned asked,
                  uint32_t *chunk, struct mpisw_error *e);
void mpisw__kv_slab_release(struct kv_slab *s, uint32_t chunk, size_t len);
char *mpisw__kv_slab_chunk(const struct kv_slab *s, uint32_t chunk);

int mpisw__kv_sketch_init(struct kv_sketch *k, uint64_t objects);
/* Counts one request for the key of hash h; returns its estimated count. */
unsigned mpisw__kv_sketch_add(struct kv_sketch *k, uint64_t h);

#endif
