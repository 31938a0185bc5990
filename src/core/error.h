/* Errors of the MPI-free cores: a kind (same numbering as enum
 * mpisw_error_kind in mpisw.h) and a message naming the hint or path. */
#ifndef MPISW_CORE_ERROR_H
#define MPISW_CORE_ERROR_H

#include <stdarg.h>

enum {
  MPISW_K_HINT = 0,
  MPISW_K_NOFILE,
  MPISW_K_ACCESS,
  MPISW_K_NOSPACE,
  MPISW_K_IO,
  MPISW_K_NOMEM,
  MPISW_K_USAGE,
  MPISW_K_COUNT
};

#define MPISW_MSG_MAX 400

struct mpisw_error {
  int kind;
  char msg[MPISW_MSG_MAX];
};

/* Fills *e and returns -1, so failures read `return mpisw_fail(e, ...)`. */
int mpisw_fail(struct mpisw_error *e, int kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same with a va_list, for other printf-style error helpers. */
int mpisw_vfail(struct mpisw_error *e, int kind, const char *fmt, va_list ap);

/* Kind for an errno value from opening or reserving a file. */
int mpisw_errno_kind(int err);

#endif
