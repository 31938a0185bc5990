/* kv_super.c: the superblock, first 4 KiB of the file, two 512-byte copies:
 * reading the newest good copy, validating it, writing and mending both.
 * Both backends use it; it calls only kv_util.c and kv_file.c. */
#ifndef MPISW_KV_SUPER_H
#define MPISW_KV_SUPER_H

#include <stdint.h>

#include "core/error.h"
#include "kvcache/kv_util.h"

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

struct mpisw_kv;

/* The newest good copy of the superblock into *sb: 0, 1 when the other
 * copy is damaged, -1 when neither is good. */
int mpisw__kv_super_read(const char *base, struct kv_super *sb);
/* Checks the fields a store is addressed with: 0, or -1 with *e saying which
 * is out of range. */
int mpisw__kv_super_check(const struct kv_super *sb, const char *path, struct mpisw_error *e);
/* What the file at path says before any window exists: 1 = a store (*sb
 * filled and checked, *damaged as mpisw__kv_super_read), 0 = absent or empty (a
 * new store), -1 = something else (*e says what). */
int mpisw__kv_super_peek(const char *path, struct kv_super *sb, int *damaged, struct mpisw_error *e);
/* The superblock of a new store with the geometry of *o and a new id. */
void mpisw__kv_super_new(struct kv_super *sb, const struct kv_options *o);
/* Writes kv->sb (gen + 1) into the window and syncs it. */
int mpisw__kv_super_write(struct mpisw_kv *kv, struct mpisw_error *e);
/* The same into both copies (creation, compaction, close). */
int mpisw__kv_super_write_both(struct mpisw_kv *kv, struct mpisw_error *e);
/* After an open that found one copy damaged (kv->sb_damaged): says so on
 * stderr and rewrites both from the good one. */
int mpisw__kv_super_mend(struct mpisw_kv *kv, struct mpisw_error *e);

#endif
