/* The cache backend: objects live in the memory window while they are used
 * (write-back: a put changes only the window; the object goes to the log
 * when it is evicted, compacted or synced), and in the log otherwise. A
 * miss reads exactly the record's sectors; a put never reads. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kvcache/kv_file.h"
#include "kvcache/kv_log.h"
#include "kvcache/kv_poll.h"
#include "kvcache/kv_store.h"

static void drop_chunk(struct mpisw_kv *kv, struct kv_entry *en) {
  if (en->chunk == KV_NOCHUNK) return;
  mpisw__kv_slab_release(&kv->slab, en->chunk, en->vlen);
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
  if (mpisw__kv_log_append(kv, KV_REC_PUT, mpisw__kv_entry_key(en), en->klen, mpisw__kv_slab_chunk(&kv->slab, en->chunk),
                    en->vlen, &off, e))
    return -1;
  en = &kv->idx.e[id];
  mpisw__kv_log_mark_dead(kv, en);   /* the older record (maybe a compaction's copy) */
  en->log_off = off;
  en->rec_len = (uint32_t)kv_rec_len(en->klen, en->vlen);
  if (en->dirty) {
    en->dirty = 0;
    kv->n_dirty--;
  }
  return 0;
}

/* The slab's eviction callback (ctx: the store). */
static int evict(void *ctx, uint32_t id, struct mpisw_error *e) {
  struct mpisw_kv *kv = ctx;
  if (kv->idx.e[id].dirty && write_back(kv, id, e)) return -1;
  drop_chunk(kv, &kv->idx.e[id]);
  kv->st.evictions++;
  return 0;
}

static int cache_get(struct mpisw_kv *kv, const void *key, size_t klen, void *buf,
                     size_t cap, size_t *vlen, struct mpisw_error *e) {
  uint64_t h = mpisw__kv_hash(key, klen);
  uint32_t id = mpisw__kv_index_find(&kv->idx, h, key, klen);
  if (id == UINT32_MAX) return 1;
  struct kv_entry *en = &kv->idx.e[id];
  *vlen = en->vlen;
  if (!buf && cap == 0) return 0;
  unsigned asked = mpisw__kv_sketch_add(&kv->slab.sk, h);
  if (cap < en->vlen)
    return mpisw_fail(e, MPISW_K_USAGE, "buffer of %zu bytes too small for the value of %u bytes",
                      cap, en->vlen);
  kv->st.gets++;
  if (en->chunk != KV_NOCHUNK) {
    /* After a miss the CPU caches are often cold: ask for every line of the
     * object at once rather than one after the other. */
    const char *src = mpisw__kv_slab_chunk(&kv->slab, en->chunk);
    for (uint32_t o = 0; o < en->vlen; o += 64) __builtin_prefetch(src + o);
    memcpy(buf, src, en->vlen);
    if (en->freq < KV_FREQ_MAX) en->freq++;
    kv->st.get_hits++;
    return 0;
  }
  const struct kv_rec *r;
  if (mpisw__kv_log_read(kv, en->log_off, en->rec_len, &r, e)) return -1;
  if (r->klen != klen || memcmp(r + 1, key, klen) != 0 || r->vlen != en->vlen)
    return mpisw_fail(e, MPISW_K_IO, "%s: the record at offset %llu holds another key",
                      kv->path, (unsigned long long)en->log_off);
  memcpy(buf, (const char *)(r + 1) + klen, en->vlen);
  /* Into the memory window, unless what it would displace is asked for at
   * least as often. */
  int cls = mpisw__kv_slab_class(&kv->slab, en->vlen);
  if (cls >= 0) {
    uint32_t ch;
    int rc = mpisw__kv_slab_alloc(&kv->slab, cls, en->vlen, id, asked, &ch, e);
    if (rc < 0) return -1;
    if (rc > 0) return 0;
    en = &kv->idx.e[id];
    memcpy(mpisw__kv_slab_chunk(&kv->slab, ch), buf, en->vlen);
    en->chunk = ch;
    en->freq = 0;
  }
  return 0;
}

static int cache_put(struct mpisw_kv *kv, const void *key, size_t klen, const void *v,
                     size_t vlen, struct mpisw_error *e) {
  if (vlen > kv->o.max_value)
    return mpisw_fail(e, MPISW_K_USAGE, "value of %zu bytes is larger than %s (%llu bytes)", vlen,
                      MPISW_KV_MAX_VALUE, (unsigned long long)kv->o.max_value);
  uint64_t h = mpisw__kv_hash(key, klen);
  unsigned asked = mpisw__kv_sketch_add(&kv->slab.sk, h);
  uint32_t id = mpisw__kv_index_find(&kv->idx, h, key, klen);
  if (id == UINT32_MAX) {
    id = mpisw__kv_index_add(&kv->idx, h, key, klen);
    if (id == UINT32_MAX) return mpisw_fail(e, MPISW_K_NOMEM, "no memory for the index");
  }
  kv->st.puts++;
  struct kv_entry *en = &kv->idx.e[id];
  int cls = mpisw__kv_slab_class(&kv->slab, vlen);
  /* A chunk of another size cannot take the new value: the old copy goes. */
  if (en->chunk != KV_NOCHUNK && (cls < 0 || mpisw__kv_slab_chunk_class(&kv->slab, en->chunk) != cls))
    drop_chunk(kv, en);
  if (en->chunk != KV_NOCHUNK) {
    kv->slab.bytes += vlen;
    kv->slab.bytes -= en->vlen;
    if (en->freq < KV_FREQ_MAX) en->freq++;
  } else if (cls >= 0) {
    /* Not in the window: it goes in only if it is asked for more often than
     * what it would displace. */
    uint32_t ch;
    int rc = mpisw__kv_slab_alloc(&kv->slab, cls, vlen, id, asked, &ch, e);
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
    if (mpisw__kv_log_append(kv, KV_REC_PUT, key, klen, v, vlen, &off, e)) goto fail;
    en = &kv->idx.e[id];
    mpisw__kv_log_mark_dead(kv, en);
    en->log_off = off;
    en->vlen = (uint32_t)vlen;
    en->rec_len = (uint32_t)kv_rec_len(klen, vlen);
    return 0;
  }
  if (vlen) memcpy(mpisw__kv_slab_chunk(&kv->slab, en->chunk), v, vlen);   /* v may be NULL */
  en->vlen = (uint32_t)vlen;
  if (!en->dirty) {
    en->dirty = 1;
    kv->n_dirty++;
  }
  return 0;
fail:
  en = &kv->idx.e[id];
  if (en->log_off == KV_NOLOG && en->chunk == KV_NOCHUNK) mpisw__kv_index_remove(&kv->idx, id);
  return -1;
}

static int cache_delete(struct mpisw_kv *kv, const void *key, size_t klen, struct mpisw_error *e) {
  uint32_t id = mpisw__kv_index_find(&kv->idx, mpisw__kv_hash(key, klen), key, klen);
  if (id == UINT32_MAX) return 1;
  drop_chunk(kv, &kv->idx.e[id]);
  if (kv->idx.e[id].log_off != KV_NOLOG) {
    uint64_t off;
    if (mpisw__kv_log_append(kv, KV_REC_DEL, key, klen, NULL, 0, &off, e)) return -1;
    kv->dead += kv_rec_len(klen, 0);
    mpisw__kv_log_mark_dead(kv, &kv->idx.e[id]);
  }
  mpisw__kv_index_remove(&kv->idx, id);
  kv->st.deletes++;
  return 0;
}

static int cache_sync(struct mpisw_kv *kv, struct mpisw_error *e) {
  for (uint32_t i = 0; i < kv->idx.n_e && kv->n_dirty; i++) {
    struct kv_entry *en = &kv->idx.e[i];
    if (en->used && en->dirty && write_back(kv, i, e)) return -1;
  }
  if (mpisw__kv_log_flush(kv, e)) return -1;
  return mpisw__kv_file_sync(kv->log_win, kv->path, e);
}

static int cache_open(struct mpisw_kv *kv, int fresh, struct mpisw_error *e) {
  /* Descriptors for sector reads and appends past the page cache. */
  kv->fd_direct = open(kv->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_DIRECT);
  if (kv->fd_direct < 0) kv->fd_direct = open(kv->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  kv->fd_dw = open(kv->path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_DIRECT);
  /* Polling needs O_DIRECT (buffered AIO reads are synchronous). */
  if (kv->o.read_mode == KV_READ_POLL && kv->fd_dw >= 0) mpisw__kv_poll_init(&kv->aio_ctx);
  kv->active = (int)kv->sb.active;
  kv->region = kv->file_base + KV_BLOCK + (uint64_t)kv->active * kv->sb.log_size;
  mpisw__kv_hugepages(kv->mem_base, kv->o.cache_size);
  if (mpisw__kv_index_init(&kv->idx, 1024) ||
      mpisw__kv_slab_init(&kv->slab, kv->mem_base, kv->o.cache_size, &kv->idx, evict, kv))
    return mpisw_fail(e, MPISW_K_NOMEM, "no memory for the index");
  kv->wbuf = aligned_alloc(KV_BLOCK, kv->o.write_buffer);
  kv->rbuf_size = ((kv->o.max_value + MPISW_KV_MAX_KEY + sizeof(struct kv_rec) + 2 * KV_SECTOR) +
                   KV_BLOCK - 1) & ~(uint64_t)(KV_BLOCK - 1);
  kv->rbuf = aligned_alloc(KV_BLOCK, kv->rbuf_size);
  /* Admission sketch sized for the window's objects (of 64 B at least). */
  if (mpisw__kv_sketch_init(&kv->slab.sk, kv->o.cache_size / 256 + 1024))
    return mpisw_fail(e, MPISW_K_NOMEM, "no memory for the admission sketch");
  if (!kv->wbuf || !kv->rbuf) return mpisw_fail(e, MPISW_K_NOMEM, "no memory for the buffers");
  if (fresh) {
    kv->seq = kv->sb.start_seq;
    kv->tail = 0;
    return 0;
  }
  return mpisw__kv_log_recover(kv, e);
}

static void cache_release(struct mpisw_kv *kv) {
  mpisw__kv_poll_close(&kv->aio_ctx);
  mpisw__kv_index_free(&kv->idx);
  mpisw__kv_slab_free(&kv->slab);
  free(kv->wbuf);
  free(kv->rbuf);
  kv->wbuf = kv->rbuf = NULL;
}

/* The file: the superblock's block, then two log regions. */
static void cache_layout(struct mpisw_kv *kv) {
  kv->file_size = KV_BLOCK + 2 * kv->sb.log_size;
  if (kv->o.write_buffer > kv->sb.log_size) kv->o.write_buffer = kv->sb.log_size;
}

/* A clean close: every record is durable, which lets a later open tell a
 * damaged last record from one a crash cut off. */
static int cache_finish(struct mpisw_kv *kv, struct mpisw_error *e) {
  if (kv->sb.end_seq == kv->seq && kv->sb.end_off == kv->tail) return 0;
  kv->sb.end_seq = kv->seq;
  kv->sb.end_off = kv->tail;
  return mpisw__kv_super_write_both(kv, e);
}

static void cache_stats(const struct mpisw_kv *kv, struct mpisw_kv_stats *st) {
  st->objects = kv->idx.n_live;
  st->log_used = kv->tail + kv->wlen;
  st->log_dead = kv->dead;
  st->log_capacity = kv->sb.log_size;
  st->cache_bytes = kv->slab.bytes;
  st->cache_capacity = kv->slab.size;
}

const struct kv_backend mpisw__kv_cache_backend = {
    .name = "cache",
    .memory_window = 1,
    .layout = cache_layout,
    .open = cache_open,
    .release = cache_release,
    .get = cache_get,
    .put = cache_put,
    .del = cache_delete,
    .compact = mpisw__kv_log_compact,
    .sync = cache_sync,
    .finish = cache_finish,
    .stats = cache_stats,
};
