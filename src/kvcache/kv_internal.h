/* The key-value store behind mpisw_kv.h: shared state of its files.
 *   kv_util.c   hash, CRC32C, option parsing
 *   kv_index.c  in-memory index: key -> entry (log place, cache chunk)
 *   kv_slab.c   the memory window as object chunks, sampled LFU eviction
 *   kv_log.c    the log in the storage window: records, appends, scan
 *   kv_cache.c  the cache backend's get/put/delete/compact/sync
 *   kv_naive.c  the naive backend: fixed slots in a storage window
 *   kv_lock.c   one open store per file: the lock held from open to close
 *   kv_open.c   open/close, windows, errors, dispatch */
#ifndef MPISW_KV_INTERNAL_H
#define MPISW_KV_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mpisw_kv.h"
#include "win/internal.h"

#define KV_BLOCK 4096u          /* append alignment, superblock size */
#define KV_SECTOR 512u          /* O_DIRECT read granularity */
#define KV_NOLOG UINT64_MAX     /* entry has no record in the log */
#define KV_NOCHUNK UINT32_MAX   /* entry is not in the memory window */
#define KV_FREQ_MAX 3

enum { KV_BACKEND_CACHE = 1, KV_BACKEND_NAIVE = 2 };
enum { KV_READ_POLL = 0, KV_READ_DIRECT = 1, KV_READ_WINDOW = 2 };

struct kv_options {
  int backend;
  uint64_t cache_size, log_size, write_buffer, max_value;
  int read_mode;
  uint64_t slots, slot_size;
  char access_style[128];
};

/* ---- kv_util.c ---- */
uint64_t kv_hash(const void *key, size_t len);
uint32_t kv_crc32c(uint32_t crc, const void *data, size_t len);
int kv_options_parse(MPI_Info info, struct kv_options *o, struct mpisw_error *e);

/* ---- superblock: first 4 KiB of the file, two 512-byte copies ---- */
#define KV_MAGIC 0x3156534957535050ull  /* "PPSWISV1" */
#define KV_VERSION 2             /* 2: record headers with their own CRC, store id */
struct kv_super {
  uint64_t magic;
  uint32_t version, backend;
  uint64_t gen;            /* copy gen % 2 is written; the highest valid wins */
  uint64_t log_size;       /* cache: bytes of one region */
  uint64_t start_seq;      /* cache: sequence number of the active region's first record */
  uint32_t active, pad;    /* cache: region 0 or 1 */
  uint64_t slots, slot_size, objects;  /* naive */
  uint64_t id;             /* random at creation: seeds every CRC of the store's records, so
                              bytes of another store (or of a value) never pass for them */
  uint64_t end_seq;        /* cache: the active region's records [start_seq, end_seq) were */
  uint64_t end_off;        /* durable, and its log ended at end_off, when this copy was
                              written (clean close, compaction, an open that found damage) */
  uint32_t crc, pad2;
};
/* Checks the fields a store is addressed with: 0, or -1 with *e saying which
 * is out of range. */
int kv_super_check(const struct kv_super *sb, const char *path, struct mpisw_error *e);

/* ---- kv_index.c ---- */
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

const char *kv_entry_key(const struct kv_entry *en);
/* Asks for transparent huge pages on the 2 MiB-aligned part of a range. */
void kv_hugepages(void *p, size_t len);
int kv_index_init(struct kv_index *x, uint64_t expect);
void kv_index_free(struct kv_index *x);
/* id of key, or UINT32_MAX. */
uint32_t kv_index_find(const struct kv_index *x, uint64_t h, const void *key, size_t klen);
/* New entry for a key known to be absent; UINT32_MAX when out of memory. */
uint32_t kv_index_add(struct kv_index *x, uint64_t h, const void *key, size_t klen);
void kv_index_remove(struct kv_index *x, uint32_t id);

/* ---- kv_slab.c: chunks of the memory window ---- */
#define KV_SLAB_PAGE (64u * 1024u)
#define KV_SLAB_MIN 64u
#define KV_SLAB_CLASSES 48

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
};

struct mpisw_kv;
int kv_slab_init(struct kv_slab *s, char *base, uint64_t size);
void kv_slab_free(struct kv_slab *s);
/* Class of an object of len bytes, -1 when too large to cache. */
int kv_slab_class(const struct kv_slab *s, size_t len);
/* Class a chunk belongs to. */
int kv_slab_chunk_class(const struct kv_slab *s, uint32_t chunk);
/* A chunk of class ci (kv_slab_class of len, >= 0) for len bytes for entry
 * id, asked for `asked` times lately (kv_sketch_add's count); evicts through
 * kv_cache_evict(). Returns 0 and the chunk handle in *chunk, -1 with *e
 * filled, or 1 (nothing evicted) when the object that would go is asked for
 * at least as often (admission). */
int kv_slab_alloc(struct mpisw_kv *kv, int ci, size_t len, uint32_t id, unsigned asked,
                  uint32_t *chunk, struct mpisw_error *e);
int kv_sketch_init(struct mpisw_kv *kv, uint64_t objects);
/* Counts one request for the key of hash h; returns its estimated count. */
unsigned kv_sketch_add(struct mpisw_kv *kv, uint64_t h);
void kv_slab_release(struct kv_slab *s, uint32_t chunk, size_t len);
char *kv_slab_chunk(const struct kv_slab *s, uint32_t chunk);

/* ---- kv_log.c ---- */
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

/* One open store. */
struct mpisw_kv {
  struct kv_options o;
  MPI_Comm comm;           /* a dup of the open's communicator, errors return */
  int rank;
  char path[4096];         /* the file actually used */
  MPI_Win log_win, mem_win;
  char *file_base;         /* the storage window: superblock at 0 */
  char *mem_base;          /* the memory window (cache backend) */
  uint64_t file_size;
  int fd_direct;           /* O_DIRECT reads (or plain, where unsupported) */
  int fd_rw;               /* fallocate of freed regions; holds the store's lock */
  int fd_dw;               /* O_DIRECT appends, -1: copies into the window */
  uint64_t aio_ctx;        /* kv_read=poll: Linux AIO context, 0: none */
  struct kv_super sb;
  uint32_t crc_seed;       /* from sb.id */
  int sb_damaged;          /* the open found one superblock copy damaged */

  /* cache backend */
  struct kv_index idx;
  struct kv_slab slab;
  int active;
  char *region;            /* file_base + KV_BLOCK + active * log_size */
  uint64_t tail;           /* next append offset in the region (block aligned) */
  uint64_t dead;           /* bytes of superseded records and tombstones */
  uint64_t seq;            /* next record's sequence number */
  char *wbuf;              /* write buffer (block aligned memory) */
  uint64_t wlen;
  char *rbuf;              /* O_DIRECT bounce buffer */
  uint64_t rbuf_size;
  uint64_t n_dirty;
  int compacting;
  int broken;              /* a compaction failed half way: only close works */
  uint8_t *sketch;         /* admission: access frequencies */
  uint64_t sk_mask, sk_adds, sk_period;
  uint64_t rnd;            /* sampled eviction */

  struct mpisw_kv_stats st;
};

/* The newest good copy of the superblock into *sb: 0, 1 when the other
 * copy is damaged, -1 when neither is good. */
int kv_super_read(const char *base, struct kv_super *sb);
/* Writes sb (gen + 1) into the window and syncs it. */
int kv_super_write(struct mpisw_kv *kv, struct mpisw_error *e);
/* The same into both copies (creation, compaction, close). */
int kv_super_write_both(struct mpisw_kv *kv, struct mpisw_error *e);

/* Appends a record (value may be NULL for a tombstone); *off gets its offset.
 * Flushes the buffer when full; a full region compacts first. */
int kv_log_append(struct mpisw_kv *kv, int kind, const void *key, size_t klen,
                  const void *value, size_t vlen, uint64_t *off, struct mpisw_error *e);
int kv_log_flush(struct mpisw_kv *kv, struct mpisw_error *e);
/* The record at off of the active region: *rec points into the write buffer
 * (not yet appended), or at the record read from storage (into kv->rbuf, or
 * in the window with kv_read=window) after its magic, length and CRC were
 * checked. */
int kv_log_read(struct mpisw_kv *kv, uint64_t off, uint32_t len, const struct kv_rec **rec,
                struct mpisw_error *e);
/* Rebuilds the index by scanning the active region; sets tail and seq;
 * counts damaged records in st.log_damaged. */
int kv_log_recover(struct mpisw_kv *kv, struct mpisw_error *e);
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
void kv_log_walk(struct mpisw_kv *kv, const char *region, uint64_t size, uint64_t seq0,
                 uint64_t known_end, kv_rec_fn fn, void *arg, struct kv_walk *w);
int kv_log_compact(struct mpisw_kv *kv, struct mpisw_error *e);

/* ---- kv_cache.c ---- */
/* Pushes an entry out of the memory window (writes it back when dirty). */
int kv_cache_evict(struct mpisw_kv *kv, uint32_t id, struct mpisw_error *e);
int kv_cache_get(struct mpisw_kv *kv, const void *key, size_t klen, void *buf, size_t cap,
                 size_t *vlen, struct mpisw_error *e);
int kv_cache_put(struct mpisw_kv *kv, const void *key, size_t klen, const void *v, size_t vlen,
                 struct mpisw_error *e);
int kv_cache_delete(struct mpisw_kv *kv, const void *key, size_t klen, struct mpisw_error *e);
int kv_cache_sync(struct mpisw_kv *kv, struct mpisw_error *e);
int kv_cache_open(struct mpisw_kv *kv, int fresh, struct mpisw_error *e);
void kv_cache_close(struct mpisw_kv *kv);
/* Superseded record of an entry: counts it as dead. */
void kv_cache_mark_dead(struct mpisw_kv *kv, struct kv_entry *en);

/* ---- kv_naive.c ---- */
int kv_naive_open(struct mpisw_kv *kv, int fresh, struct mpisw_error *e);
int kv_naive_get(struct mpisw_kv *kv, const void *key, size_t klen, void *buf, size_t cap,
                 size_t *vlen, struct mpisw_error *e);
int kv_naive_put(struct mpisw_kv *kv, const void *key, size_t klen, const void *v, size_t vlen,
                 struct mpisw_error *e);
int kv_naive_delete(struct mpisw_kv *kv, const void *key, size_t klen, struct mpisw_error *e);
int kv_naive_sync(struct mpisw_kv *kv, struct mpisw_error *e);

/* ---- kv_poll.c: polled O_DIRECT reads ---- */
int kv_poll_init(struct mpisw_kv *kv);
void kv_poll_close(struct mpisw_kv *kv);
long kv_poll_read(struct mpisw_kv *kv, void *buf, uint64_t len, uint64_t off);

/* ---- kv_lock.c ---- */
/* Takes the store's lock on fd (the file at path): 0, or -1 with *e saying
 * that the file is in use (and by which process, when the system tells). */
int kv_lock(int fd, const char *path, struct mpisw_error *e);

/* ---- kv_open.c ---- */
int kv_win_sync(struct mpisw_kv *kv, struct mpisw_error *e);

#endif
