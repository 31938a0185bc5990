#include "core/hints.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/warn.h"

const char *const mpisw_hint_keys[] = {
    "alloc_type",           "storage_alloc_filename", "storage_alloc_offset",
    "storage_alloc_factor", "storage_alloc_order",    "storage_alloc_unlink",
    "storage_alloc_discard", "access_style",          "file_perm",
    "striping_factor",      "striping_unit",          "storage_backend",
    "storage_pager_memory", "storage_node_shared", "storage_sync",
    "storage_sync_scope",   NULL};

static const struct {
  const char *name;
  unsigned flag;
} access_names[] = {
    {"read_once", MPISW_ACCESS_READ_ONCE},
    {"write_once", MPISW_ACCESS_WRITE_ONCE},
    {"read_mostly", MPISW_ACCESS_READ_MOSTLY},
    {"write_mostly", MPISW_ACCESS_WRITE_MOSTLY},
    {"sequential", MPISW_ACCESS_SEQUENTIAL},
    {"reverse_sequential", MPISW_ACCESS_REVERSE_SEQUENTIAL},
    {"random", MPISW_ACCESS_RANDOM},
};
#define N_ACCESS (sizeof access_names / sizeof access_names[0])

void mpisw_hints_init(struct mpisw_hints *h) {
  memset(h, 0, sizeof *h);
  h->factor = 1.0;
  h->unlink = -1;
  h->file_perm = -1;
  h->node_shared = -1;
}

int mpisw_hints_known(const char *key) {
  for (int i = 0; mpisw_hint_keys[i]; i++)
    if (strcmp(key, mpisw_hint_keys[i]) == 0) return 1;
  return 0;
}

/* The one size form, for hints and the environment: digits, then at most one
 * suffix K, M, G or T (either case; powers of 1024). Nothing else: no sign,
 * no spaces, no "KiB"/"KB", no hex, no fraction, no overflow. */
int mpisw_parse_size(const char *text, uint64_t *out) {
  const char *p = text;
  if (!isdigit((unsigned char)*p)) return -1;
  uint64_t v = 0;
  for (; isdigit((unsigned char)*p); p++) {
    unsigned d = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - d) / 10) return -1;
    v = v * 10 + d;
  }
  unsigned shift = 0;
  switch (*p) {
  case 'K': case 'k': shift = 10; p++; break;
  case 'M': case 'm': shift = 20; p++; break;
  case 'G': case 'g': shift = 30; p++; break;
  case 'T': case 't': shift = 40; p++; break;
  default: break;
  }
  if (*p) return -1;
  if (shift && v > (UINT64_MAX >> shift)) return -1;
  *out = v << shift;
  return 0;
}

int mpisw_parse_bool(const char *v, int *out) {
  if (!strcasecmp(v, "true") || !strcmp(v, "1")) return *out = 1, 0;
  if (!strcasecmp(v, "false") || !strcmp(v, "0")) return *out = 0, 0;
  return -1;
}

/* storage_alloc_factor: decimal digits with at most one point ("0.25", ".5",
 * "1"); no sign, exponent, hex ("0x0.8"), inf or nan. */
static int parse_fraction(const char *v, double *out) {
  int digits = 0, points = 0;
  for (const char *p = v; *p; p++) {
    if (isdigit((unsigned char)*p)) digits++;
    else if (*p == '.' && !points++) continue;
    else return -1;
  }
  if (!digits) return -1;
  double f = strtod(v, NULL);
  if (f < 0.0 || f > 1.0) return -1;
  *out = f;
  return 0;
}

static int parse_positive_long(const char *v, long *out) {
  if (!isdigit((unsigned char)v[0])) return -1;
  errno = 0;
  char *end;
  long x = strtol(v, &end, 10);
  if (errno || *end || x <= 0) return -1;
  *out = x;
  return 0;
}

static int parse_access(const char *v, unsigned *out) {
  unsigned flags = 0;
  const char *p = v;
  if (!*p) return -1;
  while (*p) {
    while (*p == ' ' || *p == ',') p++;
    size_t n = strcspn(p, ", ");
    if (n == 0) break;
    unsigned f = 0;
    for (size_t i = 0; i < N_ACCESS; i++)
      if (strlen(access_names[i].name) == n && !strncmp(p, access_names[i].name, n))
        f = access_names[i].flag;
    if (!f) return -1;
    flags |= f;
    p += n;
  }
  if (!flags) return -1;
  *out = flags;
  return 0;
}

void mpisw_access_format(unsigned access, char *buf, int len) {
  int used = 0;
  buf[0] = 0;
  for (size_t i = 0; i < N_ACCESS && used < len; i++)
    if (access & access_names[i].flag)
      used += snprintf(buf + used, len - used, "%s%s", used ? "," : "", access_names[i].name);
}

static int bad(struct mpisw_error *e, const char *key, const char *value, const char *want) {
  return mpisw_fail(e, MPISW_K_HINT, "%s: '%s' is not %s", key, value, want);
}

int mpisw_hint_bool(const char *key, const char *value, int *out, struct mpisw_error *e) {
  if (mpisw_parse_bool(value, out)) return bad(e, key, value, "a boolean: " MPISW_BOOL_FORMS);
  return 0;
}

const char *const mpisw_rma_keys[] = {"mpi_win_scope", "mpi_win_order",
                                      "mpi_assert_accumulate_intrinsic", NULL};

int mpisw_rma_key_parse(const char *key, const char *value, int *out, struct mpisw_error *e) {
  if (strcmp(key, "mpi_win_scope")) return mpisw_hint_bool(key, value, out, e);
  if (!strcasecmp(value, "thread")) *out = 1;
  else if (!strcasecmp(value, "process")) *out = 0;
  else return bad(e, key, value, "'process' or 'thread' (any case)");
  return 0;
}

int mpisw_hints_set(struct mpisw_hints *h, const char *key, const char *value,
                    struct mpisw_error *e) {
  if (!strcmp(key, "alloc_type")) {
    if (!strcmp(value, "storage")) h->storage = 1;
    else if (!strcmp(value, "memory")) h->storage = 0;
    else return bad(e, key, value, "'memory' or 'storage'");
  } else if (!strcmp(key, "storage_alloc_filename")) {
    if (!value[0]) return bad(e, key, value, "a path (it is empty)");
    if (strlen(value) >= sizeof h->filename) return bad(e, key, value, "a path of usable length");
    strcpy(h->filename, value);
    h->has_filename = 1;
  } else if (!strcmp(key, "storage_alloc_offset")) {
    if (mpisw_parse_size(value, &h->offset) || h->offset > (uint64_t)INT64_MAX)
      return bad(e, key, value,
                 "a non-negative byte count (digits, optional suffix K, M, G or T)");
  } else if (!strcmp(key, "storage_alloc_factor")) {
    if (!strcmp(value, "auto")) {
      h->factor_auto = 1;
    } else {
      double f;
      if (parse_fraction(value, &f))
        return bad(e, key, value, "a decimal number in [0,1] such as 0.25, .5 or 1, or 'auto'");
      h->factor = f;
      h->factor_auto = 0;
    }
  } else if (!strcmp(key, "storage_alloc_order")) {
    if (!strcmp(value, "memory_first")) h->storage_first = 0;
    else if (!strcmp(value, "storage_first")) h->storage_first = 1;
    else return bad(e, key, value, "'memory_first' or 'storage_first'");
  } else if (!strcmp(key, "storage_alloc_unlink")) {
    if (mpisw_hint_bool(key, value, &h->unlink, e)) return -1;
  } else if (!strcmp(key, "storage_alloc_discard")) {
    if (mpisw_hint_bool(key, value, &h->discard, e)) return -1;
  } else if (!strcmp(key, "access_style")) {
    if (parse_access(value, &h->access))
      return bad(e, key, value,
                 "a comma-separated list of read_once, write_once, read_mostly, "
                 "write_mostly, sequential, reverse_sequential, random");
  } else if (!strcmp(key, "file_perm")) {
    char *end;
    errno = 0;
    long m = value[0] >= '0' && value[0] <= '7' ? strtol(value, &end, 8) : -1;
    /* permission bits only: set-uid, set-gid and sticky have no place here */
    if (m < 0 || errno || *end || m > 0777)
      return bad(e, key, value, "an octal permission mode from 0 to 0777 such as 0600 or 0644");
    h->file_perm = (int)m;
  } else if (!strcmp(key, "striping_factor")) {
    if (parse_positive_long(value, &h->striping_factor))
      return bad(e, key, value, "a positive integer");
  } else if (!strcmp(key, "storage_backend")) {
    if (!strcmp(value, "auto")) h->backend = MPISW_BACKEND_AUTO;
    else if (!strcmp(value, "mmap")) h->backend = MPISW_BACKEND_MMAP;
    else if (!strcmp(value, "pager")) h->backend = MPISW_BACKEND_PAGER;
    else return bad(e, key, value, "'auto', 'mmap' or 'pager'");
  } else if (!strcmp(key, "storage_pager_memory")) {
    if (mpisw_parse_size(value, &h->pager_memory) || h->pager_memory == 0)
      return bad(e, key, value, "a positive byte count (digits, optional suffix K, M, G or T)");
  } else if (!strcmp(key, "storage_node_shared")) {
    if (mpisw_hint_bool(key, value, &h->node_shared, e)) return -1;
  } else if (!strcmp(key, "storage_sync")) {
    if (!strcmp(value, "plain")) h->sync_atomic = 0;
    else if (!strcmp(value, "atomic")) h->sync_atomic = 1;
    else return bad(e, key, value, "'plain' or 'atomic'");
  } else if (!strcmp(key, "storage_sync_scope")) {
    if (!strcmp(value, "local")) h->sync_remote = 0;
    else if (!strcmp(value, "remote")) h->sync_remote = 1;
    else return bad(e, key, value, "'local' or 'remote'");
  } else if (!strcmp(key, "striping_unit")) {
    if (parse_positive_long(value, &h->striping_unit))
      return bad(e, key, value, "a positive integer (bytes)");
  }
  return 0;
}

int mpisw_hints_parse_env(struct mpisw_hints *h, const char *text,
                          int (*skip)(const char *key, void *arg), void *arg,
                          struct mpisw_error *e) {
  char key[128], value[MPISW_PATH_MAX];
  const char *p = text;
  while (*p) {
    size_t n = strcspn(p, ";");
    const char *item = p;
    p += n;
    if (*p == ';') p++;
    while (n && isspace((unsigned char)*item)) item++, n--;
    while (n && isspace((unsigned char)item[n - 1])) n--;
    if (!n) continue;
    const char *eq = memchr(item, '=', n);
    if (!eq || eq == item)
      return mpisw_fail(e, MPISW_K_HINT, "MPISW_HINTS: '%.*s' is not key=value", (int)n, item);
    size_t kn = (size_t)(eq - item), vn = n - kn - 1;
    while (kn && isspace((unsigned char)item[kn - 1])) kn--;
    const char *v = eq + 1;
    while (vn && isspace((unsigned char)*v)) v++, vn--;
    if (kn >= sizeof key || vn >= sizeof value)
      return mpisw_fail(e, MPISW_K_HINT, "MPISW_HINTS: '%.*s' is too long", (int)n, item);
    memcpy(key, item, kn);
    key[kn] = 0;
    memcpy(value, v, vn);
    value[vn] = 0;
    if (skip && skip(key, arg)) continue;
    if (mpisw_hints_set(h, key, value, e)) {
      char inner[MPISW_MSG_MAX];
      strcpy(inner, e->msg);
      return mpisw_fail(e, MPISW_K_HINT, "MPISW_HINTS: %s", inner);
    }
  }
  return 0;
}

/* Levenshtein distance: one insertion, deletion or substitution each. */
static size_t edit_distance(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b), row[MPISW_HINT_KEY_MAX + 1];
  if (m > MPISW_HINT_KEY_MAX) m = MPISW_HINT_KEY_MAX;
  for (size_t j = 0; j <= m; j++) row[j] = j;
  for (size_t i = 1; i <= n; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= m; j++) {
      size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[m];
}

const char *mpisw_hints_nearest(const char *key) {
  const char *best = mpisw_hint_keys[0];
  size_t best_d = (size_t)-1;
  for (int i = 0; mpisw_hint_keys[i]; i++) {
    size_t d = edit_distance(key, mpisw_hint_keys[i]);
    if (d < best_d) best_d = d, best = mpisw_hint_keys[i];
  }
  return best;
}

int mpisw_hints_warn_unknown(const char *text) {
  char seen[32][MPISW_HINT_KEY_MAX + 1];
  int nseen = 0, warned = 0;
  for (const char *p = text; *p;) {
    size_t n = strcspn(p, ";");
    const char *item = p;
    p += n + (p[n] == ';');
    while (n && isspace((unsigned char)*item)) item++, n--;
    size_t kn = strcspn(item, "=;");
    if (kn > n) kn = n;
    while (kn && isspace((unsigned char)item[kn - 1])) kn--;
    if (!kn || kn > MPISW_HINT_KEY_MAX) continue; /* syntax: reported where the hints are used */
    char key[MPISW_HINT_KEY_MAX + 1];
    memcpy(key, item, kn);
    key[kn] = 0;
    if (mpisw_hints_known(key)) continue;
    int dup = 0;
    for (int i = 0; i < nseen; i++) dup |= !strcmp(seen[i], key);
    if (dup) continue;
    if (nseen < 32) strcpy(seen[nseen++], key);
    mpisw_warn("MPISW_HINTS: unknown key '%s' is ignored (did you mean '%s'?)", key,
               mpisw_hints_nearest(key));
    warned++;
  }
  return warned;
}

int mpisw_hints_check(const struct mpisw_hints *h, struct mpisw_error *e) {
  if (h->storage && !h->has_filename)
    return mpisw_fail(e, MPISW_K_HINT,
                      "storage_alloc_filename: missing (alloc_type=storage needs a file, "
                      "block device or directory)");
  return 0;
}
