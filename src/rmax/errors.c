/* Errors of the RMA extensions: "mpisw: <routine>: <message>" under the
 * library's usage class, raised on the window (or communicator). */
#include <stdarg.h>
#include <stdio.h>

#include "rmax/rmax.h"

static int make(const char *routine, int kind, const char *fmt, va_list ap) {
  struct mpisw_error e;
  mpisw_vfail(&e, kind, fmt, ap);
  return mpisw_error_code(routine, &e);
}

int mpisw_rmax_error(const char *routine, MPI_Win win, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int code = make(routine, MPISW_K_USAGE, fmt, ap);
  va_end(ap);
  if (win == MPI_WIN_NULL) return mpisw_raise_noobj(code);
  return mpisw_raise_win(win, code);
}
