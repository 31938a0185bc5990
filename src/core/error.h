/* Errors of the MPI-free cores: a kind (same numbering as enum
 * mpisw_error_kind in mpisw.h) and a message naming the hint or path. */
#ifndef MPISW_CORE_ERROR_H
#define MPISW_CORE_ERROR_H

#include <stdarg.h>
#include <stddef.h>

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

/* A message is built whole, then every word longer than MPISW_MSG_WORD (in
 * practice a path) is shortened in its middle ("/scratch/run...r17/f") until
 * the message fits MPISW_MSG_FIT, so the reason after a path always survives,
 * also inside MPI_Error_string (Open MPI keeps 256 characters, MPICH 512,
 * after "mpisw: <routine>: rank <r>: "). Short paths stay whole. */
#define MPISW_MSG_MAX 1024
#define MPISW_MSG_FIT 200
#define MPISW_MSG_WORD 60

struct mpisw_error {
  int kind;
  char msg[MPISW_MSG_MAX];
};

/* Fills *e and returns -1, so failures read `return mpisw_fail(e, ...)`. */
int mpisw_fail(struct mpisw_error *e, int kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same with a va_list, for other printf-style error helpers. */
int mpisw_vfail(struct mpisw_error *e, int kind, const char *fmt, va_list ap);

/* Shortens the longest words of s in their middle (in place) until s fits
 * fit characters or no word is longer than MPISW_MSG_WORD. */
void mpisw_msg_shorten(char *s, size_t fit);

/* Kind for an errno value from opening or reserving a file. */
int mpisw_errno_kind(int err);

#endif
