/* Storage-window hints: parsing and validation, without MPI. The module
 * layer feeds key/value pairs from MPISW_HINTS first and MPI_Info second. */
#ifndef MPISW_CORE_HINTS_H
#define MPISW_CORE_HINTS_H

#include <stdint.h>

#include "core/error.h"

#define MPISW_PATH_MAX 4096

/* access_style flags */
enum {
  MPISW_ACCESS_READ_ONCE = 1 << 0,
  MPISW_ACCESS_WRITE_ONCE = 1 << 1,
  MPISW_ACCESS_READ_MOSTLY = 1 << 2,
  MPISW_ACCESS_WRITE_MOSTLY = 1 << 3,
  MPISW_ACCESS_SEQUENTIAL = 1 << 4,
  MPISW_ACCESS_REVERSE_SEQUENTIAL = 1 << 5,
  MPISW_ACCESS_RANDOM = 1 << 6,
};

struct mpisw_hints {
  int storage;                       /* alloc_type=storage */
  char filename[MPISW_PATH_MAX];     /* as given, before %r/%h expansion */
  int has_filename;
  uint64_t offset;
  double factor;                     /* storage share; 1 by default */
  int factor_auto;
  int storage_first;
  int unlink;                        /* -1: default (depends on the path kind) */
  int discard;
  unsigned access;                   /* MPISW_ACCESS_* */
  int file_perm;                     /* -1: default 0600 */
  long striping_factor;              /* 0: not given */
  long striping_unit;
  /* storage backend (docs/PAGER.md) */
  int backend;                       /* MPISW_BACKEND_* */
  int node_route;                    /* auto: the window may take the node-shared
                                        route, which needs mmap (src/win/pager_glue.c) */
  uint64_t pager_memory;             /* storage_pager_memory; 0: derived from the budget */
  int node_shared;                   /* storage_node_shared: 1, 0, or -1 (the MPI's default) */
  /* durability (docs/DURABILITY.md) */
  int sync_atomic;                   /* storage_sync=atomic: a sync is all or nothing */
  int sync_remote;                   /* storage_sync_scope=remote: also what this rank wrote
                                        into other ranks' storage */
};

/* AUTO (the default, 0 so zeroed hints ask for it): the pager wherever it
 * runs and pays off, mmap elsewhere (src/win/pager_glue.c). */
enum { MPISW_BACKEND_AUTO = 0, MPISW_BACKEND_MMAP = 1, MPISW_BACKEND_PAGER = 2 };

void mpisw_hints_init(struct mpisw_hints *h);

/* 1 if the key is one of ours (the module asks MPI_Info only for these). */
int mpisw_hints_known(const char *key);
extern const char *const mpisw_hint_keys[];

/* Applies one key/value. Unknown keys are ignored (returns 0); a bad value
 * fills *e (kind HINT, message naming the key and value) and returns -1. */
int mpisw_hints_set(struct mpisw_hints *h, const char *key, const char *value,
                    struct mpisw_error *e);

/* Applies "key=value;key=value" (MPISW_HINTS). Keys for which skip(key, arg)
 * returns nonzero are left alone, so explicit MPI_Info values win. */
int mpisw_hints_parse_env(struct mpisw_hints *h, const char *text,
                          int (*skip)(const char *key, void *arg), void *arg,
                          struct mpisw_error *e);

/* Checks that needs all keys (filename required for storage). */
int mpisw_hints_check(const struct mpisw_hints *h, struct mpisw_error *e);

/* Warns once for each key of a MPISW_HINTS text that is not a hint of
 * mpisw, naming the nearest known key (edit distance); returns how many.
 * MPISW_HINTS is the library's own, so a typo must not pass in silence
 * (MPI_Info keys may be anyone's and stay unreported). */
int mpisw_hints_warn_unknown(const char *text);
/* The known key nearest to key in edit distance. */
const char *mpisw_hints_nearest(const char *key);
#define MPISW_HINT_KEY_MAX 127

/* The size form of hints and environment variables: digits with at most one
 * suffix K, M, G or T (either case, powers of 1024): "4096", "64K", "2g".
 * -1 for anything else (sign, space, "KiB", hex, fraction, overflow). */
int mpisw_parse_size(const char *text, uint64_t *out);

/* The one boolean form of hints, info keys and environment variables: "1",
 * "0", "true", "false" (any case) into *out; -1 on anything else. */
int mpisw_parse_bool(const char *v, int *out);
/* Those spellings, for every message about a bad boolean. */
#define MPISW_BOOL_FORMS "1, 0, true or false (any case)"
/* A boolean key mpisw interprets: *out from value, or MPISW_K_HINT naming
 * the key, the value and MPISW_BOOL_FORMS (-1). */
int mpisw_hint_bool(const char *key, const char *value, int *out, struct mpisw_error *e);

/* Keys of the RMA extensions (src/rmax/keys.c acts on them; the window
 * module checks them before a window is made): mpi_win_scope (process |
 * thread, any case; *out 1 for thread), mpi_win_order and
 * mpi_assert_accumulate_intrinsic (booleans). */
extern const char *const mpisw_rma_keys[];
/* *out from the value of one of mpisw_rma_keys, or MPISW_K_HINT (-1). */
int mpisw_rma_key_parse(const char *key, const char *value, int *out, struct mpisw_error *e);

/* Formats the access flags back as "sequential,random". */
void mpisw_access_format(unsigned access, char *buf, int len);

#endif
