/* kv_log.c: the cache backend's log in the storage window: records,
 * appends, reads, the recovery scan and compaction. It maintains the index
 * and reads the memory window's chunks, writes the superblock, and never
 * calls the cache backend. */
#ifndef MPISW_KV_LOG_H
#define MPISW_KV_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "kvcache/kv_index.h"

#define KV_REC_MAGIC 0x4B560000u
enum { KV_REC_PUT = 1, KV_REC_DEL = 2 };
/* The header has its own CRC: a scan that meets a damaged record finds the
 * next one at record alignment (8 bytes) without trusting the damaged
 * one's length, and a record whose header is intact but whose key or value
 * is damaged is skipped whole. */
struct kv_rec {
  uint32_t magic_kind;     /* KV_REC_MAGIC | kind */
  uint32_t hcrc;           /* CRC32C of this header (hcrc 0), seeded by the store id */
  uint64_t seq;            /* higher than the record before it (one more, unless lost) */
  uint32_t klen, vlen;
  uint32_t crc;            /* CRC32C of key and value, seeded by the store id */
  uint32_t pad;
};
static inline uint64_t kv_rec_len(size_t klen, size_t vlen) {
  return (sizeof(struct kv_rec) + klen + vlen + 7) & ~(uint64_t)7;
}

struct mpisw_kv;

/* Appends a record (value may be NULL for a tombstone); *off gets its offset.
 * Flushes the buffer when full; a full region compacts first. */
int mpisw__kv_log_append(struct mpisw_kv *kv, int kind, const void *key, size_t klen,
                  const void *value, size_t vlen, uint64_t *off, struct mpisw_error *e);
int mpisw__kv_log_flush(struct mpisw_kv *kv, struct mpisw_error *e);
/* The record at off of the active region: *rec points into the write buffer
 * (not yet appended), or at the record read from storage (into kv->rbuf, or
 * in the window with kv_read=window) after its magic, length and CRC were
 * checked. */
int mpisw__kv_log_read(struct mpisw_kv *kv, uint64_t off, uint32_t len, const struct kv_rec **rec,
                struct mpisw_error *e);
/* Superseded record of an entry: counts it as dead. */
void mpisw__kv_log_mark_dead(struct mpisw_kv *kv, const struct kv_entry *en);
/* Rebuilds the index by scanning the active region; sets tail and seq;
 * counts damaged records in st.log_damaged. */
int mpisw__kv_log_recover(struct mpisw_kv *kv, struct mpisw_error *e);
/* Walks the valid records of region [0, size) (callback gets offset),
 * skipping damaged ones: a record must carry a higher sequence number than
 * the one before it, at least seq0, and good CRCs. */
typedef int (*kv_rec_fn)(struct mpisw_kv *kv, const struct kv_rec *r, uint64_t off, void *arg);
struct kv_walk {
  uint64_t end;            /* offset after the last valid record */
  uint64_t next_seq;       /* one more than the last valid record's number (seq0 if none) */
  uint64_t lost;           /* records missing between valid ones (sequence gaps) */
  uint64_t skipped;        /* bytes of damaged records and garbage passed over */
  uint64_t first_bad;      /* offset of the first damage met, UINT64_MAX: none */
};
/* From offset known_end on (the log's end when the superblock was written),
 * an all-zero block where a record could start ends the log. */
void mpisw__kv_log_walk(struct mpisw_kv *kv, const char *region, uint64_t size, uint64_t seq0,
                 uint64_t known_end, kv_rec_fn fn, void *arg, struct kv_walk *w);
int mpisw__kv_log_compact(struct mpisw_kv *kv, struct mpisw_error *e);

#endif
