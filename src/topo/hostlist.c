/* Slurm hostlist expressions: "n[0-3,7],login1", "n[01-12]", "r[1-2]n[1-4]".
 * Commas inside brackets separate ranges, outside them names; a range keeps
 * the width of its lower bound (01-12 -> 01 02 ... 12). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo.h"

/* A file names a cluster, not a range typo that expands to billions. */
#define MAX_NAMES_PER_EXPR 1000000L

struct walk {
  const char *expr;
  int (*fn)(void *, const char *);
  void *arg;
  long count;
  struct mpisw_error *e;
};

static int emit(struct walk *w, const char *name) {
  if (++w->count > MAX_NAMES_PER_EXPR)
    return mpisw_fail(w->e, MPISW_K_HINT, "hostlist '%s' names more than %ld hosts", w->expr,
                      MAX_NAMES_PER_EXPR);
  return w->fn(w->arg, name);
}

/* Parses one number of a range: digits only, at most 9 of them. */
static int number(struct walk *w, const char *s, size_t n, long *out) {
  if (n == 0 || n > 9)
    return mpisw_fail(w->e, MPISW_K_HINT, "hostlist '%s': a range bound must be 1 to 9 digits",
                      w->expr);
  long v = 0;
  for (size_t i = 0; i < n; i++) {
    if (!isdigit((unsigned char)s[i]))
      return mpisw_fail(w->e, MPISW_K_HINT, "hostlist '%s': '%.*s' is not a number", w->expr,
                        (int)n, s);
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return 0;
}

/* Expands item[0..len) after the name built so far (prefix, plen chars). */
static int expand(struct walk *w, const char *item, size_t len, char *prefix, size_t plen) {
  size_t i = 0;
  while (i < len && item[i] != '[') i++; /* literal part */
  if (i > 0) {
    if (plen + i >= MPISW_TOPO_NAME_MAX)
      return mpisw_fail(w->e, MPISW_K_HINT, "hostlist '%s': a name is longer than %d characters",
                        w->expr, MPISW_TOPO_NAME_MAX - 1);
    memcpy(prefix + plen, item, i);
    plen += i;
  }
  if (i == len) {
    prefix[plen] = 0;
    if (plen == 0) return mpisw_fail(w->e, MPISW_K_HINT, "hostlist '%s': an empty name", w->expr);
    return emit(w, prefix);
  }
  const char *close = memchr(item + i, ']', len - i);
  if (!close) return mpisw_fail(w->e, MPISW_K_HINT, "hostlist '%s': '[' without ']'", w->expr);
  const char *p = item + i + 1, *end = close;
  if (p == end) return mpisw_fail(w->e, MPISW_K_HINT, "hostlist '%s': empty brackets", w->expr);
  const char *rest = close + 1;
  size_t rlen = len - (size_t)(rest - item);
  while (p < end) { /* each range of the brackets */
    const char *comma = memchr(p, ',', (size_t)(end - p));
    const char *stop = comma ? comma : end;
    const char *dash = memchr(p, '-', (size_t)(stop - p));
    long lo, hi;
    size_t width = (size_t)((dash ? dash : stop) - p);
    if (number(w, p, width, &lo)) return -1;
    hi = lo;
    if (dash && number(w, dash + 1, (size_t)(stop - dash - 1), &hi)) return -1;
    if (hi < lo)
      return mpisw_fail(w->e, MPISW_K_HINT, "hostlist '%s': range %.*s goes down", w->expr,
                        (int)(stop - p), p);
    for (long v = lo; v <= hi; v++) {
      char num[16];
      int k = snprintf(num, sizeof num, "%0*ld", (int)width, v);
      if (plen + (size_t)k >= MPISW_TOPO_NAME_MAX)
        return mpisw_fail(w->e, MPISW_K_HINT,
                          "hostlist '%s': a name is longer than %d characters", w->expr,
                          MPISW_TOPO_NAME_MAX - 1);
      memcpy(prefix + plen, num, (size_t)k);
      int rc = expand(w, rest, rlen, prefix, plen + (size_t)k);
      if (rc) return rc;
    }
    p = comma ? comma + 1 : end;
    if (comma && p == end)
      return mpisw_fail(w->e, MPISW_K_HINT, "hostlist '%s': an empty range", w->expr);
  }
  return 0;
}

int mpisw_hostlist_expand(const char *expr, int (*fn)(void *arg, const char *name), void *arg,
                          struct mpisw_error *e) {
  struct walk w = {expr, fn, arg, 0, e};
  char prefix[MPISW_TOPO_NAME_MAX];
  size_t n = strlen(expr);
  if (n == 0) return mpisw_fail(e, MPISW_K_HINT, "an empty hostlist");
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i <= n; i++) {
    char c = i < n ? expr[i] : ',';
    if (c == '[') {
      if (depth++) return mpisw_fail(e, MPISW_K_HINT, "hostlist '%s': nested '['", expr);
    } else if (c == ']') {
      if (!depth--) return mpisw_fail(e, MPISW_K_HINT, "hostlist '%s': ']' without '['", expr);
    } else if (c == ',' && depth == 0) {
      if (i == start) return mpisw_fail(e, MPISW_K_HINT, "hostlist '%s': an empty name", expr);
      int rc = expand(&w, expr + start, i - start, prefix, 0);
      if (rc) return rc;
      start = i + 1;
    } else if (isspace((unsigned char)c)) {
      return mpisw_fail(e, MPISW_K_HINT, "hostlist '%s': a space inside", expr);
    }
  }
  if (depth) return mpisw_fail(e, MPISW_K_HINT, "hostlist '%s': '[' without ']'", expr);
  return 0;
}
