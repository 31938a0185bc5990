/* The naive backend: a hash table of fixed slots laid directly in a storage
 * window (linear probing, deleted slots marked), updated in place. The page
 * cache decides what stays in memory: a get or put touches whole pages. */
#include <string.h>

#include "kvcache/kv_internal.h"

enum { SLOT_EMPTY = 0, SLOT_USED = 1, SLOT_DELETED = 2 };
struct slot {
  uint32_t state, klen, vlen, pad;
};

static struct slot *slot_at(struct mpisw_kv *kv, uint64_t i) {
  return (struct slot *)(kv->file_base + KV_BLOCK + i * kv->sb.slot_size);
}

/* Slot of key, or UINT64_MAX; *free_slot: the first reusable slot met. */
static uint64_t find(struct mpisw_kv *kv, const void *key, size_t klen, uint64_t *free_slot) {
  uint64_t n = kv->sb.slots, i = kv_hash(key, klen) % n;
  *free_slot = UINT64_MAX;
  for (uint64_t k = 0; k < n; k++, i = i + 1 == n ? 0 : i + 1) {
    struct slot *s = slot_at(kv, i);
    if (s->state == SLOT_EMPTY) {
      if (*free_slot == UINT64_MAX) *free_slot = i;
      return UINT64_MAX;
    }
    if (s->state == SLOT_DELETED) {
      if (*free_slot == UINT64_MAX) *free_slot = i;
      continue;
    }
    if (s->klen == klen && memcmp(s + 1, key, klen) == 0) return i;
  }
  return UINT64_MAX;
}

int kv_naive_open(struct mpisw_kv *kv, int fresh, struct mpisw_error *e) {
  if (fresh) kv->sb.objects = 0;
  kv->st.objects = kv->sb.objects;
  return 0;
}

int kv_naive_get(struct mpisw_kv *kv, const void *key, size_t klen, void *buf, size_t cap,
                 size_t *vlen, struct mpisw_error *e) {
  uint64_t fs, i = find(kv, key, klen, &fs);
  if (i == UINT64_MAX) return 1;
  struct slot *s = slot_at(kv, i);
  *vlen = s->vlen;
  if (!buf && cap == 0) return 0;
  if (cap < s->vlen)
    return mpisw_fail(e, MPISW_K_USAGE, "buffer of %zu bytes too small for the value of %u bytes",
                      cap, s->vlen);
  kv->st.gets++;
  memcpy(buf, (char *)(s + 1) + klen, s->vlen);
  return 0;
}

int kv_naive_put(struct mpisw_kv *kv, const void *key, size_t klen, const void *v, size_t vlen,
                 struct mpisw_error *e) {
  if (sizeof(struct slot) + klen + vlen > kv->sb.slot_size)
    return mpisw_fail(e, MPISW_K_USAGE, "key of %zu and value of %zu bytes do not fit a slot of "
                      "%llu bytes (%s, %zu bytes of header)", klen, vlen,
                      (unsigned long long)kv->sb.slot_size, MPISW_KV_SLOT_SIZE, sizeof(struct slot));
  uint64_t fs, i = find(kv, key, klen, &fs);
  kv->st.puts++;
  if (i != UINT64_MAX) {
    struct slot *s = slot_at(kv, i);
    memcpy((char *)(s + 1) + klen, v, vlen);
    s->vlen = (uint32_t)vlen;
    return 0;
  }
  if (fs == UINT64_MAX)
    return mpisw_fail(e, MPISW_K_NOSPACE, "the table is full (%s %llu)", MPISW_KV_SLOTS,
                      (unsigned long long)kv->sb.slots);
  struct slot *s = slot_at(kv, fs);
  memcpy(s + 1, key, klen);
  memcpy((char *)(s + 1) + klen, v, vlen);
  s->klen = (uint32_t)klen;
  s->vlen = (uint32_t)vlen;
  s->state = SLOT_USED;
  kv->st.objects++;
  return 0;
}

int kv_naive_delete(struct mpisw_kv *kv, const void *key, size_t klen, struct mpisw_error *e) {
  uint64_t fs, i = find(kv, key, klen, &fs);
  if (i == UINT64_MAX) return 1;
  slot_at(kv, i)->state = SLOT_DELETED;
  kv->st.objects--;
  kv->st.deletes++;
  return 0;
}

int kv_naive_sync(struct mpisw_kv *kv, struct mpisw_error *e) {
  kv->sb.objects = kv->st.objects;
  return kv_super_write(kv, e);   /* syncs the whole window */
}
