#include "core/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int continuation(char c) { return ((unsigned char)c & 0xC0) == 0x80; }

void mpisw_msg_shorten(char *s, size_t fit) {
  for (size_t total = strlen(s); total > fit;) {
    size_t at = 0, len = 0;
    for (size_t i = 0; s[i];) { /* the longest run of non-blank characters */
      size_t n = strcspn(s + i, " \t\n");
      if (n > len) at = i, len = n;
      i += n ? n : 1;
    }
    if (len <= MPISW_MSG_WORD) return;
    size_t want = len - (total - fit);
    if (want < MPISW_MSG_WORD || want > len) want = MPISW_MSG_WORD;
    size_t head = (want - 3) / 2, tail = want - 3 - head;
    size_t cut = at + head, keep = at + len - tail;
    while (cut > at && continuation(s[cut])) cut--;        /* whole UTF-8 characters */
    while (keep < at + len && continuation(s[keep])) keep++;
    memcpy(s + cut, "...", 3);
    memmove(s + cut + 3, s + keep, strlen(s + keep) + 1);
    total = strlen(s);
  }
}

int mpisw_vfail(struct mpisw_error *e, int kind, const char *fmt, va_list ap) {
  char whole[4 * MPISW_MSG_MAX + 4 * 4096]; /* room for a few full paths */
  e->kind = kind;
  vsnprintf(whole, sizeof whole, fmt, ap);
  mpisw_msg_shorten(whole, MPISW_MSG_FIT);
  snprintf(e->msg, sizeof e->msg, "%s", whole);
  return -1;
}

int mpisw_fail(struct mpisw_error *e, int kind, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  mpisw_vfail(e, kind, fmt, ap);
  va_end(ap);
  return -1;
}

int mpisw_errno_kind(int err) {
  switch (err) {
  case ENOENT:
  case ENOTDIR:
    return MPISW_K_NOFILE;
  case EACCES:
  case EPERM:
  case EROFS:
  case ELOOP:
  case ETXTBSY:
    return MPISW_K_ACCESS;
  case ENOSPC:
  case EDQUOT:
  case EFBIG:
    return MPISW_K_NOSPACE;
  case ENOMEM:
    return MPISW_K_NOMEM;
  default:
    return MPISW_K_IO;
  }
}
