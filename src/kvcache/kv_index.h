/* kv_index.c: the cache backend's in-memory index, key -> entry (where the
 * object is in the log and in the memory window). Calls nothing else of
 * the store. */
#ifndef MPISW_KV_INDEX_H
#define MPISW_KV_INDEX_H

#include <stddef.h>
#include <stdint.h>

#define KV_NOLOG UINT64_MAX     /* entry has no record in the log */
#define KV_NOCHUNK UINT32_MAX   /* entry is not in the memory window */
#define KV_FREQ_MAX 3

#define KV_KEY_INLINE 16
struct kv_entry {          /* one cache line */
  uint64_t hash;
  union {
    char in[KV_KEY_INLINE];  /* keys of up to 16 bytes */
    char *ptr;               /* longer ones */
  } k;
  uint32_t klen, vlen;
  uint64_t log_off;        /* latest record in the active region, or KV_NOLOG */
  uint32_t rec_len;        /* its length */
  uint32_t chunk;          /* its chunk in the memory window (page * 1024 + index), or KV_NOCHUNK */
  uint8_t dirty;           /* the chunk is newer than the log */
  uint8_t freq;            /* use counter (0..3), ties of the eviction */
  uint8_t moved;           /* compaction: already copied */
  uint8_t used;
  uint32_t pad[3];
};
_Static_assert(sizeof(struct kv_entry) == 64, "an index entry is one cache line");

struct kv_slot {
  uint32_t id;             /* entry id + 1, 0 = empty */
  uint32_t tag;            /* high half of the hash */
};

struct kv_index {
  struct kv_entry *e;      /* stable ids; free ones on a list */
  uint32_t n_e, cap_e, n_live;
  uint32_t *free_ids;
  uint32_t n_free;
  struct kv_slot *slot;    /* open addressing */
  uint64_t mask;
};

const char *mpisw__kv_entry_key(const struct kv_entry *en);
/* Asks for transparent huge pages on the 2 MiB-aligned part of a range. */
void mpisw__kv_hugepages(void *p, size_t len);
int mpisw__kv_index_init(struct kv_index *x, uint64_t expect);
void mpisw__kv_index_free(struct kv_index *x);
/* id of key, or UINT32_MAX. */
uint32_t mpisw__kv_index_find(const struct kv_index *x, uint64_t h, const void *key, size_t klen);
/* New entry for a key known to be absent; UINT32_MAX when out of memory. */
uint32_t mpisw__kv_index_add(struct kv_index *x, uint64_t h, const void *key, size_t klen);
void mpisw__kv_index_remove(struct kv_index *x, uint32_t id);

#endif
