/* libFuzzer target for the parsers of user text (issue 14): the size parser
 * (mpisw_parse_size), one hint's validation (mpisw_hints_set/check), the
 * MPISW_HINTS syntax (mpisw_hints_parse_env, the unknown-key warning) and the
 * environment variables of the configuration (src/core/config.c).
 *
 * Input: byte 0 picks the parser, byte 1 the hint key or variable, the rest
 * is the text. Besides "no crash, no sanitizer report", each parser's answer
 * is checked against what its documentation promises, so a wrong accept or
 * reject aborts too. Build and run: tests/fuzz/run.sh, make fuzz. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/error.h"
#include "core/hints.h"

static FILE *sink; /* warnings go nowhere: only crashes and checks matter */

static void must(int ok, const char *what, const char *text) {
  if (ok) return;
  fprintf(stderr, "fuzz_hints: %s for input '%s'\n", what, text);
  abort();
}

/* The documented size form, parsed the slow way: digits, at most one suffix
 * K/M/G/T (any case), no overflow of 64 bits. */
static int reference_size(const char *s, uint64_t *out) {
  size_t n = strlen(s), digits = strspn(s, "0123456789");
  if (!digits) return -1;
  unsigned shift = 0;
  if (n == digits + 1) {
    const char *units = "kKmMgGtT", *u = strchr(units, s[digits]);
    if (!u || !*u) return -1;
    shift = 10 * (unsigned)(1 + (u - units) / 2);
  } else if (n != digits) {
    return -1;
  }
  unsigned __int128 v = 0;
  for (size_t i = 0; i < digits; i++) {
    v = v * 10 + (unsigned)(s[i] - '0');
    if (v > UINT64_MAX) return -1;
  }
  v <<= shift;
  if (v > UINT64_MAX) return -1;
  *out = (uint64_t)v;
  return 0;
}

static void fuzz_size(const char *text) {
  uint64_t got = 0, want = 0;
  int r = mpisw_parse_size(text, &got), w = reference_size(text, &want);
  must(r == w, r ? "size parser rejects a documented size" : "size parser accepts a bad size",
       text);
  must(r || got == want, "size parser returns a wrong value", text);
  if (!r) { /* the formatter's text reads back as the same number */
    char buf[32];
    uint64_t again = 0;
    mpisw_cfg_format_size(got, buf, sizeof buf);
    must(!mpisw_parse_size(buf, &again) && again == got, "formatted size does not read back",
         text);
  }
}

static void fuzz_hint(unsigned pick, const char *text) {
  int nkeys = 0;
  while (mpisw_hint_keys[nkeys]) nkeys++;
  const char *key = mpisw_hint_keys[pick % (unsigned)nkeys];
  struct mpisw_hints h;
  struct mpisw_error e;
  mpisw_hints_init(&h);
  memset(&e, 0, sizeof e);
  if (mpisw_hints_set(&h, key, text, &e)) {
    must(e.msg[0] != 0 && strstr(e.msg, key) != NULL, "rejected hint without its key named",
         text);
    return;
  }
  memset(&e, 0, sizeof e);
  if (mpisw_hints_check(&h, &e)) must(e.msg[0] != 0, "failed check without a message", text);
  must(h.factor >= 0 && h.factor <= 1, "storage_alloc_factor outside [0,1]", text);
  must(h.file_perm >= -1 && h.file_perm <= 0777, "file_perm outside 0..0777", text);
}

static void fuzz_env(const char *text) {
  struct mpisw_hints h;
  struct mpisw_error e;
  mpisw_hints_init(&h);
  memset(&e, 0, sizeof e);
  if (mpisw_hints_parse_env(&h, text, NULL, NULL, &e))
    must(strncmp(e.msg, "MPISW_HINTS: ", 13) == 0, "MPISW_HINTS error not naming it", text);
  mpisw_hints_warn_unknown(text);
  (void)mpisw_hints_nearest(text);
}

static void fuzz_config(unsigned pick, const char *text) {
  const struct mpisw_cfg_var *v = &mpisw_cfg_vars[pick % MPISW_CFG_COUNT];
  setenv(v->name, text, 1);
  mpisw_config_reload(1);
  char out[8192];
  mpisw_config_format(out, sizeof out);
  int id = (int)(pick % MPISW_CFG_COUNT);
  if (mpisw_cfg_source(id) == MPISW_CFG_FROM_ENV && v->type == MPISW_CFG_SIZE) {
    uint64_t n = 0;
    must(!mpisw_parse_size(text, &n) && n == mpisw_cfg_size(id),
         "size variable taken with another value", text);
    must(n >= (uint64_t)v->min && n <= (uint64_t)v->max, "size variable out of range", text);
  }
  unsetenv(v->name);
  mpisw_config_reload(0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  if (!sink) {
    sink = fopen("/dev/null", "w");
    mpisw_set_warn_stream(sink);
  }
  char *text = malloc(size - 1); /* NUL-terminated copy of the text part */
  if (!text) return 0;
  memcpy(text, data + 2, size - 2);
  text[size - 2] = 0;
  switch (data[0] % 4) {
  case 0: fuzz_size(text); break;
  case 1: fuzz_hint(data[1], text); break;
  case 2: fuzz_env(text); break;
  default: fuzz_config(data[1], text); break;
  }
  free(text);
  return 0;
}
