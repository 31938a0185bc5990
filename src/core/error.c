#include "core/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

int mpisw_vfail(struct mpisw_error *e, int kind, const char *fmt, va_list ap) {
  e->kind = kind;
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
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
