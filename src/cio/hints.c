/* The engine's hints: which strategy (mpisw_cb_strategy, MPISW_CB_STRATEGY),
 * how many file domains (cb_nodes, a number or auto), the collective buffer
 * (cb_buffer_size) and the domains' alignment (striping_unit,
 * romio_min_fdomain_size), the keys ROMIO reads too; ours alone: whether
 * an aggregator writes behind the next round (mpisw_cb_write_behind, each
 * rank's own: not in the hash) and whether a write's bytes are received
 * into place (mpisw_cb_place, agreed: in the hash). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cio/engine.h"
#include "core/config.h"
#include "core/hash.h"
#include "core/hints.h"

const char *const mpisw_cio_strategy_name[CIO_NSTRAT] = {"romio", "otp", "latp", "tatp"};

static int strategy_of(const char *text) {
  for (int s = 0; s < CIO_NSTRAT; s++)
    if (!strcasecmp(text, mpisw_cio_strategy_name[s])) return s;
  return -1;
}

int mpisw_cio_env_strategy(struct mpisw_error *e) {
  int src = mpisw_cfg_source(MPISW_CFG_CB_STRATEGY);
  if (src == MPISW_CFG_FROM_REJECTED)
    return mpisw_fail(e, MPISW_K_HINT, "MPISW_CB_STRATEGY: not a strategy (otp, latp, tatp or "
                      "romio)");
  const char *t = mpisw_cfg_text(MPISW_CFG_CB_STRATEGY);
  int s = t ? strategy_of(t) : CIO_ROMIO;
  return s < 0 ? mpisw_fail(e, MPISW_K_HINT, "MPISW_CB_STRATEGY='%s': not a strategy (otp, "
                            "latp, tatp or romio)", t)
               : s;
}

/* A decimal integer in [lo, hi] (sizes may carry k, m, g as ROMIO's do not:
 * plain numbers only, so ROMIO reads the same value). */
static int parse_long(const char *text, long long lo, long long hi, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (errno || end == text || *end || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

int mpisw_cio_hints_parse(MPI_Info info, struct cio_hints *h, struct mpisw_error *e) {
  if (info == MPI_INFO_NULL) return 0;
  char v[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  long long n;
  PMPI_Info_get(info, "mpisw_cb_strategy", MPI_MAX_INFO_VAL, v, &flag);
  if (flag) {
    int s = strategy_of(v);
    if (s < 0)
      return mpisw_fail(e, MPISW_K_HINT, "hint mpisw_cb_strategy='%s': not a strategy (otp, "
                        "latp, tatp or romio)", v);
    h->strategy = s;
  }
  /* The MPI's own collective I/O: its keys are its own business. */
  if (h->strategy == CIO_ROMIO) return 0;
  PMPI_Info_get(info, "cb_nodes", MPI_MAX_INFO_VAL, v, &flag);
  if (flag) {
    if (!strcasecmp(v, "auto")) h->cb_nodes = -1;
    else if (!parse_long(v, 1, 1 << 30, &n)) h->cb_nodes = (int)n;
    else
      return mpisw_fail(e, MPISW_K_HINT, "hint cb_nodes='%s': not a positive number of "
                        "aggregators or auto", v);
  }
  PMPI_Info_get(info, "cb_buffer_size", MPI_MAX_INFO_VAL, v, &flag);
  if (flag) {
    if (parse_long(v, 1, (long long)1 << 30, &n))
      return mpisw_fail(e, MPISW_K_HINT, "hint cb_buffer_size='%s': not a number of bytes from "
                        "1 to 1073741824", v);
    h->cb_buffer_size = n;
  }
  PMPI_Info_get(info, "striping_unit", MPI_MAX_INFO_VAL, v, &flag);
  if (flag) {
    if (parse_long(v, 0, (long long)1 << 40, &n))
      return mpisw_fail(e, MPISW_K_HINT, "hint striping_unit='%s': not a number of bytes", v);
    h->striping_unit = n;
  }
  const char *const cb_keys[2] = {"romio_cb_write", "romio_cb_read"};
  for (int i = 0; i < 2; i++) {
    PMPI_Info_get(info, cb_keys[i], MPI_MAX_INFO_VAL, v, &flag);
    if (!flag) continue;
    int m = !strcasecmp(v, "automatic") ? CIO_CB_AUTO
            : !strcasecmp(v, "enable")  ? CIO_CB_ENABLE
            : !strcasecmp(v, "disable") ? CIO_CB_DISABLE
                                        : -1;
    if (m < 0)
      return mpisw_fail(e, MPISW_K_HINT, "hint %s='%s': not enable, disable or automatic",
                        cb_keys[i], v);
    *(i ? &h->cb_read : &h->cb_write) = m;
  }
  PMPI_Info_get(info, "romio_min_fdomain_size", MPI_MAX_INFO_VAL, v, &flag);
  if (flag) {
    if (parse_long(v, 0, (long long)1 << 40, &n))
      return mpisw_fail(e, MPISW_K_HINT, "hint romio_min_fdomain_size='%s': not a number of "
                        "bytes", v);
    h->min_fd_size = n;
  }
  PMPI_Info_get(info, "mpisw_cb_write_behind", MPI_MAX_INFO_VAL, v, &flag);
  if (flag && mpisw_hint_bool("mpisw_cb_write_behind", v, &h->write_behind, e)) return -1;
  PMPI_Info_get(info, "mpisw_cb_place", MPI_MAX_INFO_VAL, v, &flag);
  if (flag && mpisw_hint_bool("mpisw_cb_place", v, &h->place, e)) return -1;
  return 0;
}

uint64_t mpisw_cio_hints_hash(const struct cio_hints *h, int kind) {
  long long words[9] = {h->strategy, h->cb_nodes, h->cb_buffer_size, h->striping_unit,
                        h->min_fd_size, h->cb_write, h->cb_read, kind, h->place};
  return mpisw_hash64(0x63696f, words, sizeof words);
}
