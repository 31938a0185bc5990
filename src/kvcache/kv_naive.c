/* The naive backend: a hash table of fixed slots laid directly in a storage
 * window (linear probing, deleted slots marked), updated in place. The page
 * cache decides what stays in memory: a get or put touches whole pages.
 * Each slot carries a CRC; lengths are checked against the slot before
 * anything is read with them. */
#include <string.h>

#include "kvcache/kv_store.h"

enum { SLOT_EMPTY = 0, SLOT_USED = 1, SLOT_DELETED = 2 };
struct slot {
  uint32_t state, klen, vlen;
  uint32_t crc;            /* CRC32C of lengths, key and value, seeded by store id and slot */
};

static struct slot *slot_at(struct mpisw_kv *kv, uint64_t i) {
  return (struct slot *)(kv->file_base + KV_BLOCK + i * kv->sb.slot_size);
}

static uint32_t slot_crc(const struct mpisw_kv *kv, uint64_t i, const struct slot *s) {
  uint32_t c = mpisw__kv_crc32c(kv->crc_seed ^ (uint32_t)i, &s->klen, 2 * sizeof(uint32_t));
  return mpisw__kv_crc32c(c, s + 1, (size_t)s->klen + s->vlen);
}

/* Nothing read from a slot is used before it is known to fit the slot:
 * a damaged length must never reach into a neighbour (or beyond the file). */
static int damaged(struct mpisw_kv *kv, uint64_t i, const struct slot *s, const char *what,
                   struct mpisw_error *e) {
  return mpisw_fail(e, MPISW_K_IO, "%s: slot %llu of the table is damaged (%s: state %u, key "
                    "length %u, value length %u, slot of %llu bytes)", kv->path,
                    (unsigned long long)i, what, s->state, s->klen, s->vlen,
                    (unsigned long long)kv->sb.slot_size);
}

static int slot_fits(const struct mpisw_kv *kv, const struct slot *s) {
  return s->klen >= 1 && s->klen <= MPISW_KV_MAX_KEY &&
         sizeof *s + (uint64_t)s->klen + s->vlen <= kv->sb.slot_size;
}

/* *at: slot of key, or UINT64_MAX; *free_slot: the first reusable slot met.
 * -1 (e filled) when the probe meets a slot that cannot be read. */
static int find(struct mpisw_kv *kv, const void *key, size_t klen, uint64_t *at,
                uint64_t *free_slot, struct mpisw_error *e) {
  uint64_t n = kv->sb.slots, i = mpisw__kv_hash(key, klen) % n;
  *free_slot = *at = UINT64_MAX;
  for (uint64_t k = 0; k < n; k++, i = i + 1 == n ? 0 : i + 1) {
    struct slot *s = slot_at(kv, i);
    if (s->state == SLOT_EMPTY) {
      if (*free_slot == UINT64_MAX) *free_slot = i;
      return 0;
    }
    if (s->state == SLOT_DELETED) {
      if (*free_slot == UINT64_MAX) *free_slot = i;
      continue;
    }
    if (s->state != SLOT_USED) return damaged(kv, i, s, "unknown state", e);
    if (!slot_fits(kv, s)) return damaged(kv, i, s, "lengths exceed the slot", e);
    if (s->klen == klen && memcmp(s + 1, key, klen) == 0) {
      *at = i;
      return 0;
    }
  }
  return 0;
}

static int naive_open(struct mpisw_kv *kv, int fresh, struct mpisw_error *e) {
  if (fresh) kv->sb.objects = 0;
  kv->st.objects = kv->sb.objects;
  return 0;
}

static int naive_get(struct mpisw_kv *kv, const void *key, size_t klen, void *buf,
                     size_t cap, size_t *vlen, struct mpisw_error *e) {
  uint64_t fs, i;
  if (find(kv, key, klen, &i, &fs, e)) return -1;
  if (i == UINT64_MAX) return 1;
  struct slot *s = slot_at(kv, i);
  if (s->crc != slot_crc(kv, i, s)) return damaged(kv, i, s, "CRC", e);
  *vlen = s->vlen;
  if (!buf && cap == 0) return 0;
  if (cap < s->vlen)
    return mpisw_fail(e, MPISW_K_USAGE, "buffer of %zu bytes too small for the value of %u bytes",
                      cap, s->vlen);
  kv->st.gets++;
  memcpy(buf, (char *)(s + 1) + klen, s->vlen);
  return 0;
}

static int naive_put(struct mpisw_kv *kv, const void *key, size_t klen, const void *v,
                     size_t vlen, struct mpisw_error *e) {
  if (sizeof(struct slot) + klen + vlen > kv->sb.slot_size)
    return mpisw_fail(e, MPISW_K_USAGE, "key of %zu and value of %zu bytes do not fit a slot of "
                      "%llu bytes (%s, %zu bytes of header)", klen, vlen,
                      (unsigned long long)kv->sb.slot_size, MPISW_KV_SLOT_SIZE, sizeof(struct slot));
  uint64_t fs, i;
  if (find(kv, key, klen, &i, &fs, e)) return -1;
  kv->st.puts++;
  if (i != UINT64_MAX) {   /* in place (this also mends a slot whose value was damaged) */
    struct slot *s = slot_at(kv, i);
    if (vlen) memcpy((char *)(s + 1) + klen, v, vlen);   /* v may be NULL */
    s->vlen = (uint32_t)vlen;
    s->crc = slot_crc(kv, i, s);
    return 0;
  }
  if (fs == UINT64_MAX)
    return mpisw_fail(e, MPISW_K_NOSPACE, "the table is full (%s %llu)", MPISW_KV_SLOTS,
                      (unsigned long long)kv->sb.slots);
  struct slot *s = slot_at(kv, fs);
  memcpy(s + 1, key, klen);
  if (vlen) memcpy((char *)(s + 1) + klen, v, vlen);
  s->klen = (uint32_t)klen;
  s->vlen = (uint32_t)vlen;
  s->crc = slot_crc(kv, fs, s);
  s->state = SLOT_USED;
  kv->st.objects++;
  return 0;
}

static int naive_delete(struct mpisw_kv *kv, const void *key, size_t klen, struct mpisw_error *e) {
  uint64_t fs, i;
  if (find(kv, key, klen, &i, &fs, e)) return -1;
  if (i == UINT64_MAX) return 1;
  slot_at(kv, i)->state = SLOT_DELETED;
  kv->st.objects--;
  kv->st.deletes++;
  return 0;
}

static int naive_sync(struct mpisw_kv *kv, struct mpisw_error *e) {
  kv->sb.objects = kv->st.objects;
  return mpisw__kv_super_write(kv, e);   /* syncs the whole window */
}

/* The file: the superblock's block, then the slots. */
static void naive_layout(struct mpisw_kv *kv) {
  kv->file_size = KV_BLOCK + kv->sb.slots * kv->sb.slot_size;
}

static void naive_release(struct mpisw_kv *kv) { (void)kv; }   /* holds no memory */

const struct kv_backend mpisw__kv_naive_backend = {
    .name = "naive",
    .memory_window = 0,
    .layout = naive_layout,
    .open = naive_open,
    .release = naive_release,
    .get = naive_get,
    .put = naive_put,
    .del = naive_delete,
    .compact = NULL,
    .sync = naive_sync,
    .finish = NULL,
    .stats = NULL,
};
