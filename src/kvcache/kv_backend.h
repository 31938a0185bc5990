/* The backend interface: kv_open.c dispatches every mpisw_kv_* call through
 * one of these tables, chosen by the file's superblock. kv_open.c has
 * checked the handle and the key and value arguments; a call returns 0, 1
 * (get, delete: the key is absent) or -1 with *e filled. */
#ifndef MPISW_KV_BACKEND_H
#define MPISW_KV_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "mpisw_kv.h"

struct mpisw_kv;

struct kv_backend {
  const char *name;
  int memory_window;       /* wants a memory window of kv_cache_size bytes */
  /* Sets kv->file_size from kv->sb (and fits the options to the file). */
  void (*layout)(struct mpisw_kv *kv);
  /* After the windows exist and the file is locked (a new store's
   * superblock written): the backend's state from the file. */
  int (*open)(struct mpisw_kv *kv, int fresh, struct mpisw_error *e);
  /* Frees what open made; also called after a failed open, or none. */
  void (*release)(struct mpisw_kv *kv);
  int (*get)(struct mpisw_kv *kv, const void *key, size_t klen, void *buf, size_t cap,
             size_t *vlen, struct mpisw_error *e);
  int (*put)(struct mpisw_kv *kv, const void *key, size_t klen, const void *v, size_t vlen,
             struct mpisw_error *e);
  int (*del)(struct mpisw_kv *kv, const void *key, size_t klen, struct mpisw_error *e);
  int (*compact)(struct mpisw_kv *kv, struct mpisw_error *e);   /* NULL: nothing to do */
  int (*sync)(struct mpisw_kv *kv, struct mpisw_error *e);
  /* A clean close, after the last sync, before the windows go; NULL: none. */
  int (*finish)(struct mpisw_kv *kv, struct mpisw_error *e);
  /* Fills the backend's part of *st (the counters are copied already). */
  void (*stats)(const struct mpisw_kv *kv, struct mpisw_kv_stats *st);
};

extern const struct kv_backend mpisw__kv_cache_backend;   /* kv_cache.c */
extern const struct kv_backend mpisw__kv_naive_backend;   /* kv_naive.c */

#endif
