/* The log in the storage window. The file: a 4 KiB superblock, then two
 * regions of log_size bytes; one is active. Records (header, key, value,
 * 8-byte aligned) are gathered in the write buffer and appended as one
 * block-aligned batch; nothing is ever rewritten in place. Sequence numbers
 * run on without gaps, so a scan counts the records lost to damage between
 * two good ones, and stale bytes of an earlier use of a region (lower
 * numbers) never pass for records. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/storage.h"
#include "kvcache/kv_file.h"
#include "kvcache/kv_log.h"
#include "kvcache/kv_poll.h"
#include "kvcache/kv_store.h"

static uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) & ~(a - 1); }

/* ---- records ---- */

static uint32_t head_crc(const struct mpisw_kv *kv, const struct kv_rec *r) {
  struct kv_rec h = *r;
  h.hcrc = 0;
  return mpisw__kv_crc32c(kv->crc_seed, &h, sizeof h);
}

static uint32_t body_crc(const struct mpisw_kv *kv, const struct kv_rec *r) {
  return mpisw__kv_crc32c(kv->crc_seed, r + 1, (size_t)r->klen + r->vlen);
}

/* A header of this store at off of a region of size bytes, numbered seq or
 * later, whose record fits the region. Its lengths can then be trusted. */
static int head_valid(const struct mpisw_kv *kv, const char *region, uint64_t size, uint64_t off,
                      uint64_t seq) {
  if (off + sizeof(struct kv_rec) > size) return 0;
  const struct kv_rec *r = (const struct kv_rec *)(region + off);
  uint32_t kind = r->magic_kind & 0xffff;
  if ((r->magic_kind & 0xffff0000u) != KV_REC_MAGIC || (kind != KV_REC_PUT && kind != KV_REC_DEL))
    return 0;
  if (r->hcrc != head_crc(kv, r)) return 0;
  if (r->seq < seq || r->klen == 0 || r->klen > MPISW_KV_MAX_KEY || r->vlen > size) return 0;
  return off + kv_rec_len(r->klen, r->vlen) <= size;
}

static int block_is_zero(const char *p, uint64_t len) {
  const uint64_t *w = (const uint64_t *)p;
  for (uint64_t i = 0; i < len / 8; i++)
    if (w[i]) return 0;
  return 1;
}

/* The scan trusts a length only from a header whose CRC is good. Anything
 * else (a damaged header, zero padding after a batch, a torn append) is
 * stepped over at record alignment until the next good header; sequence
 * numbers tell how many records were lost in between. Every append starts
 * a block with a record, so past the end the superblock knows, a zero block
 * where a record could start is the end of the log (and the scan reads no
 * more of the region than the old log holds). */
void mpisw__kv_log_walk(struct mpisw_kv *kv, const char *region, uint64_t size, uint64_t seq0,
                 uint64_t known_end, kv_rec_fn fn, void *arg, struct kv_walk *w) {
  memset(w, 0, sizeof *w);
  w->next_seq = seq0;
  w->first_bad = UINT64_MAX;
  uint64_t off = 0, seq = seq0;   /* seq: lowest number the next record may carry */
  while (off + sizeof(struct kv_rec) <= size) {
    const char *p = region + off;
    if (!*(const uint64_t *)p) {   /* padding or free space */
      if (off % KV_BLOCK == 0 && off + KV_BLOCK <= size && block_is_zero(p, KV_BLOCK)) {
        if (off >= known_end) return;
        off += KV_BLOCK;
      } else
        off += 8;
      continue;
    }
    if (!head_valid(kv, region, size, off, seq)) {
      if (w->first_bad == UINT64_MAX) w->first_bad = off;
      w->skipped += 8;
      off += 8;
      continue;
    }
    const struct kv_rec *r = (const struct kv_rec *)p;
    uint64_t len = kv_rec_len(r->klen, r->vlen);
    seq = r->seq + 1;
    if (r->crc != body_crc(kv, r)) {   /* key or value damaged: this record only */
      if (w->first_bad == UINT64_MAX) w->first_bad = off;
      w->skipped += len;
      off += len;
      continue;
    }
    if (fn && fn(kv, r, off, arg)) return;
    w->lost += r->seq - w->next_seq;
    w->next_seq = r->seq + 1;
    off += len;
    w->end = off;
  }
}

/* Zeroes region r beyond from (keeps the space reserved): appends then
 * never read the old blocks. */
static void zero_range(struct mpisw_kv *kv, int r, uint64_t from) {
  uint64_t off = KV_BLOCK + (uint64_t)r * kv->sb.log_size + from;
  uint64_t len = kv->sb.log_size - from;
  if (len && kv->fd_rw >= 0)
    (void)fallocate(kv->fd_rw, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len);
}

/* ---- recovery ---- */

void mpisw__kv_log_mark_dead(struct mpisw_kv *kv, const struct kv_entry *en) {
  if (en->log_off != KV_NOLOG) kv->dead += en->rec_len;
}

static int recover_rec(struct mpisw_kv *kv, const struct kv_rec *r, uint64_t off, void *arg) {
  struct mpisw_error *e = arg;
  const char *key = (const char *)(r + 1);
  uint64_t h = mpisw__kv_hash(key, r->klen);
  uint32_t id = mpisw__kv_index_find(&kv->idx, h, key, r->klen);
  uint64_t len = kv_rec_len(r->klen, r->vlen);
  if ((r->magic_kind & 0xffff) == KV_REC_DEL) {
    kv->dead += len;
    if (id != UINT32_MAX) {
      mpisw__kv_log_mark_dead(kv, &kv->idx.e[id]);
      mpisw__kv_index_remove(&kv->idx, id);
    }
    return 0;
  }
  if (id == UINT32_MAX) {
    id = mpisw__kv_index_add(&kv->idx, h, key, r->klen);
    if (id == UINT32_MAX) return mpisw_fail(e, MPISW_K_NOMEM, "no memory for the index");
  } else {
    mpisw__kv_log_mark_dead(kv, &kv->idx.e[id]);
  }
  struct kv_entry *en = &kv->idx.e[id];
  en->log_off = off;
  en->rec_len = (uint32_t)len;
  en->vlen = r->vlen;
  return 0;
}

/* A damaged record costs that record only: the scan goes on after it, the
 * key keeps its previous record (or none), and the count is reported. Only
 * what lies after the last valid record (a torn append, garbage) is zeroed.
 * Records the superblock knew as durable (below end_seq) but the scan did
 * not find at the end are damaged too; records after end_seq that are
 * missing at the end were cut by a crash during an append (a torn tail),
 * which is not damage. */
int mpisw__kv_log_recover(struct mpisw_kv *kv, struct mpisw_error *e) {
  e->kind = -1;
  struct kv_walk w;
  mpisw__kv_log_walk(kv, kv->region, kv->sb.log_size, kv->sb.start_seq, kv->sb.end_off, recover_rec, e,
              &w);
  if (e->kind >= 0) return -1;
  kv->seq = w.next_seq;
  kv->tail = align_up(w.end, KV_BLOCK);
  kv->dead += w.skipped;
  uint64_t lost = w.lost + (kv->sb.end_seq > w.next_seq ? kv->sb.end_seq - w.next_seq : 0);
  kv->st.log_damaged = lost;
  /* The rest of the last valid record's block too (appends start at the
   * next block): a damaged record left there would outrank the next
   * append's sequence number at a later open. */
  int wiped = !block_is_zero(kv->region + w.end, kv->tail - w.end);
  if (wiped) memset(kv->region + w.end, 0, kv->tail - w.end);
  zero_range(kv, kv->active, kv->tail);
  if (lost)
    fprintf(stderr, "mpisw: mpisw_kv_open: %s: %llu damaged record%s skipped (the first at "
            "offset %llu of log region %d); %s key%s the previous value or none\n",
            kv->path, (unsigned long long)lost, lost == 1 ? "" : "s",
            (unsigned long long)(w.first_bad == UINT64_MAX ? w.end : w.first_bad), kv->active,
            lost == 1 ? "its" : "their", lost == 1 ? " has" : "s have");
  if (kv->sb.end_seq != kv->seq || kv->sb.end_off != kv->tail || wiped) {
    /* What the scan found is the log from now on: a later open must not
     * count losses at the end again, nor records found after a crash as
     * lost. The superblock's sync makes the wipe durable too. */
    kv->sb.end_seq = kv->seq;
    kv->sb.end_off = kv->tail;
    return mpisw__kv_super_write_both(kv, e);
  }
  return 0;
}

/* ---- appends ---- */

/* Appends buf (padded to a block) at *tail of the region that starts at
 * region in the window. With O_DIRECT the batch goes from the buffer to the
 * device in one write and leaves no page cache behind; where the file
 * system has no O_DIRECT it is copied into the window. */
static int flush_to(struct mpisw_kv *kv, char *region, uint64_t *tail, char *buf, uint64_t *len,
                    struct mpisw_error *e) {
  uint64_t n = align_up(*len, KV_BLOCK);
  memset(buf + *len, 0, n - *len);
  if (kv->fd_dw >= 0) {
    uint64_t at = (uint64_t)(region - kv->file_base) + *tail;
    int err = mpisw_pwrite_all(kv->fd_dw, buf, n, at);
    if (err)
      return mpisw_fail(e, mpisw_errno_kind(err), "%s: append of %llu bytes at %llu failed: %s",
                        kv->path, (unsigned long long)n, (unsigned long long)at, strerror(err));
  } else {
    memcpy(region + *tail, buf, n);
  }
  *tail += n;
  kv->st.log_appends++;
  kv->st.log_append_bytes += n;
  *len = 0;
  return 0;
}

int mpisw__kv_log_flush(struct mpisw_kv *kv, struct mpisw_error *e) {
  if (!kv->wlen) return 0;
  if (kv->tail + align_up(kv->wlen, KV_BLOCK) > kv->sb.log_size) {
    if (kv->compacting)
      return mpisw_fail(e, MPISW_K_NOSPACE, "the log region is full");
    if (mpisw__kv_log_compact(kv, e)) return -1;   /* takes the buffer's records along */
    return 0;
  }
  return flush_to(kv, kv->region, &kv->tail, kv->wbuf, &kv->wlen, e);
}

static void put_rec(const struct mpisw_kv *kv, char *at, int kind, uint64_t seq, const void *key,
                    size_t klen, const void *value, size_t vlen) {
  struct kv_rec r = {KV_REC_MAGIC | (uint32_t)kind, 0, seq, (uint32_t)klen, (uint32_t)vlen, 0, 0};
  memcpy(at, &r, sizeof r);
  memcpy(at + sizeof r, key, klen);
  if (vlen) memcpy(at + sizeof r + klen, value, vlen);
  uint64_t len = kv_rec_len(klen, vlen);
  memset(at + sizeof r + klen + vlen, 0, len - sizeof r - klen - vlen);
  struct kv_rec *h = (struct kv_rec *)at;
  h->crc = body_crc(kv, h);
  h->hcrc = head_crc(kv, h);
}

int mpisw__kv_log_append(struct mpisw_kv *kv, int kind, const void *key, size_t klen,
                  const void *value, size_t vlen, uint64_t *off, struct mpisw_error *e) {
  uint64_t len = kv_rec_len(klen, vlen);
  if (kv->wlen + len > kv->o.write_buffer && mpisw__kv_log_flush(kv, e)) return -1;
  if (kv->tail + align_up(kv->wlen + len, KV_BLOCK) > kv->sb.log_size) {
    /* Even after compaction the region cannot take this record. */
    if (kv->wlen && mpisw__kv_log_flush(kv, e)) return -1;
    if (kv->tail + align_up(len, KV_BLOCK) > kv->sb.log_size && !kv->compacting &&
        kv->dead && mpisw__kv_log_compact(kv, e))
      return -1;
    if (kv->tail + align_up(kv->wlen + len, KV_BLOCK) > kv->sb.log_size)
      return mpisw_fail(e, MPISW_K_NOSPACE, "the log is full: %llu bytes of live objects in a "
                        "region of %llu bytes (%s)", (unsigned long long)(kv->tail - kv->dead),
                        (unsigned long long)kv->sb.log_size, MPISW_KV_LOG_SIZE);
  }
  *off = kv->tail + kv->wlen;
  put_rec(kv, kv->wbuf + kv->wlen, kind, kv->seq++, key, klen, value, vlen);
  kv->wlen += len;
  return 0;
}

/* ---- reads ---- */

int mpisw__kv_log_read(struct mpisw_kv *kv, uint64_t off, uint32_t len, const struct kv_rec **out,
                struct mpisw_error *e) {
  const char *p;
  if (off >= kv->tail) { /* just built by this process, with its CRC: no check */
    *out = (const struct kv_rec *)(kv->wbuf + (off - kv->tail));
    return 0;
  }
  if (kv->o.read_mode == KV_READ_WINDOW || kv->fd_direct < 0) {
    p = kv->region + off;
    kv->st.log_reads++;
    kv->st.log_read_bytes += len;
  } else {
    uint64_t abs = KV_BLOCK + (uint64_t)kv->active * kv->sb.log_size + off;
    uint64_t a = abs & ~(uint64_t)(KV_SECTOR - 1);
    uint64_t b = align_up(abs + len, KV_SECTOR);
    if (b - a > kv->rbuf_size) return mpisw_fail(e, MPISW_K_IO, "record of %u bytes too large", len);
    ssize_t n;
    if (kv->aio_ctx) {
      long r = mpisw__kv_poll_read(kv->aio_ctx, kv->fd_direct, kv->rbuf, b - a, a);
      n = r;
      if (r < 0) {
        errno = (int)-r;
        n = -1;
      }
    } else {
      do n = pread(kv->fd_direct, kv->rbuf, b - a, (off_t)a);
      while (n < 0 && errno == EINTR);
    }
    if (n != (ssize_t)(b - a))
      return mpisw_fail(e, MPISW_K_IO, "%s: read of %llu bytes at %llu failed: %s", kv->path,
                        (unsigned long long)(b - a), (unsigned long long)a,
                        n < 0 ? strerror(errno) : "short read");
    p = kv->rbuf + (abs - a);
    kv->st.log_reads++;
    kv->st.log_read_bytes += b - a;
  }
  const struct kv_rec *r = (const struct kv_rec *)p;
  if ((r->magic_kind & 0xffff0000u) != KV_REC_MAGIC || r->hcrc != head_crc(kv, r) ||
      kv_rec_len(r->klen, r->vlen) != len || r->crc != body_crc(kv, r))
    return mpisw_fail(e, MPISW_K_IO, "%s: record at offset %llu of region %d is damaged (CRC)",
                      kv->path, (unsigned long long)off, kv->active);
  *out = r;
  return 0;
}

/* ---- compaction ---- */

struct compact {
  char *region;            /* the new region */
  uint64_t tail, len;
  char *buf;
  uint64_t seq0;
  struct mpisw_error *e;
};

static int c_append(struct mpisw_kv *kv, struct compact *c, struct kv_entry *en,
                    const void *value) {
  uint64_t len = kv_rec_len(en->klen, en->vlen);
  if (c->len + len > kv->o.write_buffer &&
      flush_to(kv, c->region, &c->tail, c->buf, &c->len, c->e))
    return -1;
  put_rec(kv, c->buf + c->len, KV_REC_PUT, kv->seq++, mpisw__kv_entry_key(en), en->klen, value, en->vlen);
  en->log_off = c->tail + c->len;
  en->rec_len = (uint32_t)len;
  en->moved = 1;
  if (en->dirty) {
    en->dirty = 0;
    kv->n_dirty--;
  }
  c->len += len;
  return 0;
}

static int c_old_rec(struct mpisw_kv *kv, const struct kv_rec *r, uint64_t off, void *arg) {
  if ((r->magic_kind & 0xffff) != KV_REC_PUT) return 0;
  const char *key = (const char *)(r + 1);
  uint32_t id = mpisw__kv_index_find(&kv->idx, mpisw__kv_hash(key, r->klen), key, r->klen);
  if (id == UINT32_MAX) return 0;
  struct kv_entry *en = &kv->idx.e[id];
  if (en->moved || en->log_off != off || en->chunk != KV_NOCHUNK) return 0;
  return c_append(kv, arg, en, key + r->klen);
}

int mpisw__kv_log_compact(struct mpisw_kv *kv, struct mpisw_error *e) {
  struct kv_index *x = &kv->idx;
  /* Room check first, so a failure changes nothing. */
  uint64_t live = 0, maxrec = 0;
  for (uint32_t i = 0; i < x->n_e; i++)
    if (x->e[i].used) {
      uint64_t l = kv_rec_len(x->e[i].klen, x->e[i].vlen);
      live += l;
      if (l > maxrec) maxrec = l;
    }
  uint64_t need = live + (live / kv->o.write_buffer + 1) * (maxrec + KV_BLOCK);
  if (need > kv->sb.log_size)
    return mpisw_fail(e, MPISW_K_NOSPACE, "the log is full: %llu bytes of live objects do not "
                      "fit a region of %llu bytes (%s)", (unsigned long long)live,
                      (unsigned long long)kv->sb.log_size, MPISW_KV_LOG_SIZE);
  struct compact c = {0};
  int nr = 1 - kv->active;
  c.region = kv->file_base + KV_BLOCK + (uint64_t)nr * kv->sb.log_size;
  c.buf = aligned_alloc(KV_BLOCK, kv->o.write_buffer);
  if (!c.buf) return mpisw_fail(e, MPISW_K_NOMEM, "no memory for the compaction buffer");
  c.seq0 = kv->seq;
  c.e = e;
  kv->compacting = 1;
  zero_range(kv, nr, 0);
  for (uint32_t i = 0; i < x->n_e; i++) x->e[i].moved = 0;
  /* 1: the old region in log order (sequential reads); objects held in
   * the memory window are taken from there instead. */
  struct kv_walk w;
  e->kind = -1;
  mpisw__kv_log_walk(kv, kv->region, kv->tail, kv->sb.start_seq, kv->tail, c_old_rec, &c, &w);
  int rc = e->kind >= 0 ? -1 : 0;
  /* 2: what the memory window or the write buffer holds, and anything the
   * walk did not meet. */
  for (uint32_t i = 0; i < x->n_e && !rc; i++) {
    struct kv_entry *en = &x->e[i];
    if (!en->used || en->moved) continue;
    if (en->chunk != KV_NOCHUNK) {
      rc = c_append(kv, &c, en, mpisw__kv_slab_chunk(&kv->slab, en->chunk));
    } else if (en->log_off != KV_NOLOG) {
      const struct kv_rec *r;
      rc = mpisw__kv_log_read(kv, en->log_off, en->rec_len, &r, e);
      /* c_append copies the value into c.buf and writes only c.buf, so r
       * (in the write buffer or rbuf) stays valid through it. */
      if (!rc) rc = c_append(kv, &c, en, (const char *)(r + 1) + r->klen);
    }
  }
  if (!rc && c.len) rc = flush_to(kv, c.region, &c.tail, c.buf, &c.len, e);
  free(c.buf);
  if (!rc) rc = mpisw__kv_file_sync(kv->log_win, kv->path, e);   /* the new region is durable ... */
  if (rc) {
    /* The superblock still names the old region, so the file is as before;
     * but the index already points into the new one: stop using it. */
    kv->compacting = 0;
    kv->broken = 1;
    return -1;
  }
  int old = kv->active;
  kv->sb.active = (uint32_t)nr;
  kv->sb.start_seq = c.seq0;
  kv->sb.end_seq = kv->seq;   /* every record of the new region is durable */
  kv->sb.end_off = c.tail;
  if (mpisw__kv_super_write(kv, e)) {   /* ... before the superblock names it */
    kv->compacting = 0;
    kv->broken = 1;
    return -1;
  }
  kv->active = nr;
  kv->region = c.region;
  kv->tail = c.tail;
  kv->wlen = 0;
  kv->dead = 0;
  kv->n_dirty = 0;
  /* The other copy too (see mpisw__kv_super_write_both); the switch holds even if
   * this sync fails, which is then reported. */
  rc = mpisw__kv_super_write(kv, e);
  zero_range(kv, old, 0);
  kv->st.compactions++;
  kv->compacting = 0;
  return rc;
}
