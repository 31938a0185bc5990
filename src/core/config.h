/* The configuration table: every MPISW_* environment variable declared once
 * (name, type, default, accepted forms, help, validation), read in one place.
 * MPI-free. The library reads it when it is loaded (process/state.c); every other
 * file asks for values here instead of calling getenv.
 *
 * One rule for every variable: unset or empty means the default; a value in
 * a documented form is used; anything else prints one warning naming the
 * variable, the value, the accepted forms and the default, which then holds.
 * Booleans take 1, 0, true, false (any case), as boolean hints do. */
#ifndef MPISW_CORE_CONFIG_H
#define MPISW_CORE_CONFIG_H

#include <stdint.h>
#include <stdio.h>

#include "core/warn.h"

enum mpisw_cfg_id {
  MPISW_CFG_HINTS,
  MPISW_CFG_DISABLE,
  MPISW_CFG_REPORT,
  MPISW_CFG_MEMORY_LIMIT,
  MPISW_CFG_ARENA_SIZE,
  MPISW_CFG_PAGER_BLOCK,
  MPISW_CFG_PAGER_WORKERS,
  MPISW_CFG_PAGER_READAHEAD,
  MPISW_CFG_PAGER_DEBUG,
  MPISW_CFG_WRITEBEHIND, /* the mmap backend out of core (docs/DURABILITY.md) */
  MPISW_CFG_MMAP_ADVICE,
  MPISW_CFG_CONFIG,
  MPISW_CFG_POOL_SIZE,
  MPISW_CFG_POOL_HINTS,
  MPISW_CFG_MEM_PATHS,
  MPISW_CFG_POOL_TIMEOUT,
  MPISW_CFG_REMOTE_SYNC_TIMEOUT, /* remote sync (docs/DURABILITY.md) */
  /* checkpoints (docs/CHECKPOINTS.md); info keys ckpt_* of mpisw_ckpt_create win */
  MPISW_CFG_CKPT_LOCAL,
  MPISW_CFG_CKPT_PFS,
  MPISW_CFG_CKPT_PARTNER_EVERY,
  MPISW_CFG_CKPT_XOR_EVERY,
  MPISW_CFG_CKPT_PFS_EVERY,
  MPISW_CFG_CKPT_XOR_SIZE,
  MPISW_CFG_CKPT_KEEP,
  MPISW_CFG_CKPT_STAGING,
  MPISW_CFG_CKPT_CHUNK,
  /* collective I/O's topology model (docs/COLLECTIVE_IO.md) */
  MPISW_CFG_TOPOLOGY,
  MPISW_CFG_TOPO_HOSTNAME, /* a testing aid: the host name each rank reports */
  MPISW_CFG_CB_STRATEGY,   /* the engine's strategy for every file (src/cio/) */
  MPISW_CFG_COUNT
};

enum mpisw_cfg_type {
  MPISW_CFG_BOOL,     /* 1, 0, true, false (mpisw_parse_bool) */
  MPISW_CFG_SIZE,     /* a byte count (mpisw_parse_size) within [min, max] */
  MPISW_CFG_INT,      /* a decimal integer within [min, max] */
  MPISW_CFG_HINTLIST, /* key=value;key=value: values are checked where used */
  MPISW_CFG_PATTERNS, /* pattern:pattern:...: shell wildcard patterns (fnmatch) */
  MPISW_CFG_CHOICE,   /* one of the words in choices */
  MPISW_CFG_PATH      /* a path pattern (%h host, %r rank, %% %); not empty */
};

/* Where an effective value came from. */
enum { MPISW_CFG_FROM_DEFAULT, MPISW_CFG_FROM_ENV, MPISW_CFG_FROM_REJECTED };

struct mpisw_cfg_var {
  const char *name;
  int type;
  const char *def;     /* the default as documented (README "default" column) */
  int64_t def_value;   /* the default as a number (bool, size, int) */
  int64_t min, max;    /* SIZE and INT bounds */
  int page_multiple;   /* SIZE: must be a multiple of the page size */
  const char *choices; /* CHOICE: the accepted words, "|"-separated */
  const char *help;    /* what it does, one sentence */
};

extern const struct mpisw_cfg_var mpisw_cfg_vars[MPISW_CFG_COUNT];

/* Reads every variable from the environment. The first call reads, later ones
 * return at once; verbose prints the warnings of bad values and, with
 * MPISW_CONFIG=dump, the effective configuration. Accessors that run before
 * any load read quietly. mpisw_config_reload reads again (unit tests). */
void mpisw_config_load(int verbose);
void mpisw_config_reload(int verbose);

int mpisw_cfg_bool(int id);
uint64_t mpisw_cfg_size(int id);
int64_t mpisw_cfg_int(int id);
/* The value as the environment gave it; NULL when the default holds. */
const char *mpisw_cfg_text(int id);
int mpisw_cfg_source(int id); /* MPISW_CFG_FROM_* */
/* 0 and *num when text is in a documented form of variable id (the same
 * rules as its environment variable: checkpoint info keys, src/ckpt/). */
int mpisw_cfg_parse(int id, const char *text, int64_t *num);

/* The accepted forms of a variable in words ("an integer from 1 to 64"). */
void mpisw_cfg_forms(int id, char *buf, int len);
/* 4096 -> "4K": the largest exact 1024-suffix, as sizes are typed. */
void mpisw_cfg_format_size(uint64_t v, char *buf, int len);

/* The effective configuration, one "MPISW_X  value (source)" line per
 * variable (source: default, environment, or default when the environment's
 * value is not valid), written as snprintf writes: returns the whole length. */
int mpisw_config_format(char *buf, int len);

#endif
