#include "core/hints.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const mpisw_hint_keys[] = {
    "alloc_type",           "storage_alloc_filename", "storage_alloc_offset",
    "storage_alloc_factor", "storage_alloc_order",    "storage_alloc_unlink",
    "storage_alloc_discard", "access_style",          "file_perm",
    "striping_factor",      "striping_unit",          "storage_backend",
    "storage_pager_memory", "storage_node_shared", NULL};

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

int mpisw_parse_size(const char *text, uint64_t *out) {
  const char *p = text;
  while (isspace((unsigned char)*p)) p++;
  if (!isdigit((unsigned char)*p)) return -1; /* no sign, no empty */
  errno = 0;
  char *end;
  unsigned long long v = strtoull(p, &end, 10);
  if (errno) return -1;
  unsigned shift = 0;
  switch (toupper((unsigned char)*end)) {
  case 'K': shift = 10; end++; break;
  case 'M': shift = 20; end++; break;
  case 'G': shift = 30; end++; break;
  case 'T': shift = 40; end++; break;
  default: break;
  }
  if (shift && (*end == 'i' || *end == 'I')) end++;        /* 4KiB */
  if (shift && (*end == 'b' || *end == 'B')) end++;        /* 4KB */
  while (isspace((unsigned char)*end)) end++;
  if (*end) return -1;
  if (shift && v > (UINT64_MAX >> shift)) return -1;
  *out = (uint64_t)v << shift;
  return 0;
}

int mpisw_parse_bool(const char *v, int *out) {
  if (!strcasecmp(v, "true") || !strcmp(v, "1")) return *out = 1, 0;
  if (!strcasecmp(v, "false") || !strcmp(v, "0")) return *out = 0, 0;
  return -1;
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
      return bad(e, key, value, "a non-negative byte count (K/M/G suffixes allowed)");
  } else if (!strcmp(key, "storage_alloc_factor")) {
    if (!strcmp(value, "auto")) {
      h->factor_auto = 1;
    } else {
      char *end;
      errno = 0;
      double f = strtod(value, &end);
      while (isspace((unsigned char)*end)) end++;
      if (end == value || *end || errno || isnan(f) || f < 0.0 || f > 1.0 ||
          !(isdigit((unsigned char)value[0]) || value[0] == '.'))
        return bad(e, key, value, "a number in [0,1] or 'auto'");
      h->factor = f;
      h->factor_auto = 0;
    }
  } else if (!strcmp(key, "storage_alloc_order")) {
    if (!strcmp(value, "memory_first")) h->storage_first = 0;
    else if (!strcmp(value, "storage_first")) h->storage_first = 1;
    else return bad(e, key, value, "'memory_first' or 'storage_first'");
  } else if (!strcmp(key, "storage_alloc_unlink")) {
    if (mpisw_parse_bool(value, &h->unlink)) return bad(e, key, value, "'true' or 'false'");
  } else if (!strcmp(key, "storage_alloc_discard")) {
    if (mpisw_parse_bool(value, &h->discard)) return bad(e, key, value, "'true' or 'false'");
  } else if (!strcmp(key, "access_style")) {
    if (parse_access(value, &h->access))
      return bad(e, key, value,
                 "a comma-separated list of read_once, write_once, read_mostly, "
                 "write_mostly, sequential, reverse_sequential, random");
  } else if (!strcmp(key, "file_perm")) {
    char *end;
    errno = 0;
    long m = value[0] >= '0' && value[0] <= '7' ? strtol(value, &end, 8) : -1;
    if (m < 0 || errno || *end || m > 07777)
      return bad(e, key, value, "an octal file mode such as 0600 or 0644");
    h->file_perm = (int)m;
  } else if (!strcmp(key, "striping_factor")) {
    if (parse_positive_long(value, &h->striping_factor))
      return bad(e, key, value, "a positive integer");
  } else if (!strcmp(key, "storage_backend")) {
    if (!strcmp(value, "mmap")) h->backend = MPISW_BACKEND_MMAP;
    else if (!strcmp(value, "pager")) h->backend = MPISW_BACKEND_PAGER;
    else return bad(e, key, value, "'mmap' or 'pager'");
  } else if (!strcmp(key, "storage_pager_memory")) {
    if (mpisw_parse_size(value, &h->pager_memory) || h->pager_memory == 0)
      return bad(e, key, value, "a positive byte count (K/M/G suffixes allowed)");
  } else if (!strcmp(key, "storage_node_shared")) {
    if (mpisw_parse_bool(value, &h->node_shared)) return bad(e, key, value, "'true' or 'false'");
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

int mpisw_hints_check(const struct mpisw_hints *h, struct mpisw_error *e) {
  if (h->storage && !h->has_filename)
    return mpisw_fail(e, MPISW_K_HINT,
                      "storage_alloc_filename: missing (alloc_type=storage needs a file, "
                      "block device or directory)");
  return 0;
}
