/* The cache backend: objects live in the memory window while they are used
 * (write-back: a put changes only the window; the object goes to the log
 * when it is evicted, compacted or synced), and in the log otherwise. A
 * miss reads exactly the record's sectors; a put never reads. */
#include <stdlib.h>
#include <string.h>

#include "kvcache/kv_internal.h"

void kv_cache_mark_dead(struct mpisw_kv *kv, struct kv_entry *en) {
  if (en->log_off != KV_NOLOG) kv->dead += en->rec_len;
}

static void drop_chunk(struct mpisw_kv *kv, struct kv_entry *en) {
  if (en->chunk == KV_NOCHUNK) return;
  kv_slab_release(&kv->slab, en->chunk, en->vlen);
  en->chunk = KV_NOCHUNK;
  if (en->dirty) {
    en->dirty = 0;
    kv->n_dirty--;
  }
}

/* Appends the window's copy of an entry to the log. */
static int write_back(struct mpisw_kv *kv, uint32_t id, struct mpisw_error *e) {
  struct kv_entry *en = &kv->idx.e[id];
  uint64_t off;
  if (kv_log_append(kv, KV_REC_PUT, kv_entry_key(en), en->klen, kv_slab_chunk(&kv->slab, en->chunk),
                    en->vlen, &off, e))
    return -1;
  en = &kv->idx.e[id];
  kv_cache_mark_dead(kv, en);   /* the older record (maybe a compaction's copy) */
  en->log_off = off;
  en->rec_len = (uint32_t)kv_rec_len(en->klen, en->vlen);
  if (en->dirty) {
    en->dirty = 0;
    kv->n_dirty--;
  }
  return 0;
}

int kv_cache_evict(struct mpisw_kv *kv, uint32_t id, struct mpisw_error *e) {
  if (kv->idx.e[id].dirty && write_back(kv, id, e)) return -1;
  drop_chunk(kv, &kv->idx.e[id]);
  kv->st.evictions++;
  return 0;
}

int kv_cache_get(struct mpisw_kv *kv, const void *key, size_t klen, void *buf, size_t cap,
                 size_t *vlen, struct mpisw_error *e) {
  uint64_t h = kv_hash(key, klen);
  uint32_t id = kv_index_find(&kv->idx, h, key, klen);
  if (id == UINT32_MAX) return 1;
  struct kv_entry *en = &kv->idx.e[id];
  *vlen = en->vlen;
  if (!buf && cap == 0) return 0;
  unsigned asked = kv_sketch_add(kv, h);
  if (cap < en->vlen)
    return mpisw_fail(e, MPISW_K_USAGE, "buffer of %zu bytes too small for the value of %u bytes",
                      cap, en->vlen);
  kv->st.gets++;
  if (en->chunk != KV_NOCHUNK) {
    /* After a miss the CPU caches are often cold: ask for every line of the
     * object at once rather than one after the other. */
    const char *src = kv_slab_chunk(&kv->slab, en->chunk);
    for (uint32_t o = 0; o < en->vlen; o += 64) __builtin_prefetch(src + o);
    memcpy(buf, src, en->vlen);
    if (en->freq < KV_FREQ_MAX) en->freq++;
    kv->st.get_hits++;
    return 0;
  }
  const struct kv_rec *r;
  if (kv_log_read(kv, en->log_off, en->rec_len, &r, e)) return -1;
  if (r->klen != klen || memcmp(r + 1, key, klen) != 0 || r->vlen != en->vlen)
    return mpisw_fail(e, MPISW_K_IO, "%s: the record at offset %llu holds another key",
                      kv->path, (unsigned long long)en->log_off);
  memcpy(buf, (const char *)(r + 1) + klen, en->vlen);
  /* Into the memory window, unless what it would displace is asked for at
   * least as often. */
  int cls = kv_slab_class(&kv->slab, en->vlen);
  if (cls >= 0) {
    uint32_t ch;
    int rc = kv_slab_alloc(kv, cls, en->vlen, id, asked, &ch, e);
    if (rc < 0) return -1;
    if (rc > 0) return 0;
    en = &kv->idx.e[id];
    memcpy(kv_slab_chunk(&kv->slab, ch), buf, en->vlen);
    en->chunk = ch;
    en->freq = 0;
  }
  return 0;
}

int kv_cache_put(struct mpisw_kv *kv, const void *key, size_t klen, const void *v, size_t vlen,
                 struct mpisw_error *e) {
  if (vlen > kv->o.max_value)
    return mpisw_fail(e, MPISW_K_USAGE, "value of %zu bytes is larger than %s (%llu bytes)", vlen,
                      MPISW_KV_MAX_VALUE, (unsigned long long)kv->o.max_value);
  uint64_t h = kv_hash(key, klen);
  unsigned asked = kv_sketch_add(kv, h);
  uint32_t id = kv_index_find(&kv->idx, h, key, klen);
  if (id == UINT32_MAX) {
    id = kv_index_add(&kv->idx, h, key, klen);
    if (id == UINT32_MAX) return mpisw_fail(e, MPISW_K_NOMEM, "no memory for the index");
  }
  kv->st.puts++;
  struct kv_entry *en = &kv->idx.e[id];
  int cls = kv_slab_class(&kv->slab, vlen);
  /* A chunk of another size cannot take the new value: the old copy goes. */
  if (en->chunk != KV_NOCHUNK && (cls < 0 || kv_slab_chunk_class(&kv->slab, en->chunk) != cls))
    drop_chunk(kv, en);
  if (en->chunk != KV_NOCHUNK) {
    kv->slab.bytes += vlen;
    kv->slab.bytes -= en->vlen;
    if (en->freq < KV_FREQ_MAX) en->freq++;
  } else if (cls >= 0) {
    /* Not in the window: it goes in only if it is asked for more often than
     * what it would displace. */
    uint32_t ch;
    int rc = kv_slab_alloc(kv, cls, vlen, id, asked, &ch, e);
    if (rc < 0) goto fail;
    en = &kv->idx.e[id];
    if (rc == 0) {
      en->chunk = ch;
      en->freq = 0;
    }
  }
  if (en->chunk == KV_NOCHUNK) {
    /* Larger than any chunk, or not admitted: straight to the log. */
    uint64_t off;
    if (kv_log_append(kv, KV_REC_PUT, key, klen, v, vlen, &off, e)) goto fail;
    en = &kv->idx.e[id];
    kv_cache_mark_dead(kv, en);
    en->log_off = off;
    en->vlen = (uint32_t)vlen;
    en->rec_len = (uint32_t)kv_rec_len(klen, vlen);
    return 0;
  }
  if (vlen) memcpy(kv_slab_chunk(&kv->slab, en->chunk), v, vlen);   /* v may be NULL */
  en->vlen = (uint32_t)vlen;
  if (!en->dirty) {
    en->dirty = 1;
    kv->n_dirty++;
  }
  return 0;
fail:
  en = &kv->idx.e[id];
  if (en->log_off == KV_NOLOG && en->chunk == KV_NOCHUNK) kv_index_remove(&kv->idx, id);
  return -1;
}

int kv_cache_delete(struct mpisw_kv *kv, const void *key, size_t klen, struct mpisw_error *e) {
  uint32_t id = kv_index_find(&kv->idx, kv_hash(key, klen), key, klen);
  if (id == UINT32_MAX) return 1;
  drop_chunk(kv, &kv->idx.e[id]);
  if (kv->idx.e[id].log_off != KV_NOLOG) {
    uint64_t off;
    if (kv_log_append(kv, KV_REC_DEL, key, klen, NULL, 0, &off, e)) return -1;
    kv->dead += kv_rec_len(klen, 0);
    kv_cache_mark_dead(kv, &kv->idx.e[id]);
  }
  kv_index_remove(&kv->idx, id);
  kv->st.deletes++;
  return 0;
}

int kv_cache_sync(struct mpisw_kv *kv, struct mpisw_error *e) {
  for (uint32_t i = 0; i < kv->idx.n_e && kv->n_dirty; i++) {
    struct kv_entry *en = &kv->idx.e[i];
    if (en->used && en->dirty && write_back(kv, i, e)) return -1;
  }
  if (kv_log_flush(kv, e)) return -1;
  return kv_win_sync(kv, e);
}

int kv_cache_open(struct mpisw_kv *kv, int fresh, struct mpisw_error *e) {
  kv->active = (int)kv->sb.active;
  kv->region = kv->file_base + KV_BLOCK + (uint64_t)kv->active * kv->sb.log_size;
  kv_hugepages(kv->mem_base, kv->o.cache_size);
  if (kv_index_init(&kv->idx, 1024) ||
      kv_slab_init(&kv->slab, kv->mem_base, kv->o.cache_size))
    return mpisw_fail(e, MPISW_K_NOMEM, "no memory for the index");
  kv->wbuf = aligned_alloc(KV_BLOCK, kv->o.write_buffer);
  kv->rbuf_size = ((kv->o.max_value + MPISW_KV_MAX_KEY + sizeof(struct kv_rec) + 2 * KV_SECTOR) +
                   KV_BLOCK - 1) & ~(uint64_t)(KV_BLOCK - 1);
  kv->rbuf = aligned_alloc(KV_BLOCK, kv->rbuf_size);
  /* Admission sketch sized for the window's objects (of 64 B at least). */
  if (kv_sketch_init(kv, kv->o.cache_size / 256 + 1024))
    return mpisw_fail(e, MPISW_K_NOMEM, "no memory for the admission sketch");
  if (!kv->wbuf || !kv->rbuf) return mpisw_fail(e, MPISW_K_NOMEM, "no memory for the buffers");
  if (fresh) {
    kv->seq = kv->sb.start_seq;
    kv->tail = 0;
    return 0;
  }
  return kv_log_recover(kv, e);
}

void kv_cache_close(struct mpisw_kv *kv) {
  kv_index_free(&kv->idx);
  kv_slab_free(&kv->slab);
  free(kv->wbuf);
  free(kv->rbuf);
  free(kv->sketch);
  kv->sketch = NULL;
  kv->wbuf = kv->rbuf = NULL;
}
