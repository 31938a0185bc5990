/* Fatal errors of the MPI benchmark programs, reported one way everywhere:
 *
 *   <program>: rank <r>: <what>: <why>
 *
 * then MPI_Abort, so that no other rank is left waiting in a collective.
 * Not in bench_util.h: that one needs no mpi.h (membw, which makes no MPI
 * calls, includes it too). */
#ifndef MPISW_BENCH_MPI_H
#define MPISW_BENCH_MPI_H

/* program_invocation_short_name is a GNU extension; the bench CMake files
 * define _GNU_SOURCE (by hand: mpicc -D_GNU_SOURCE). */
#ifndef _GNU_SOURCE
#error "bench_mpi.h needs _GNU_SOURCE (for program_invocation_short_name)"
#endif

#include <errno.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* This process's rank in MPI_COMM_WORLD, or -1 outside MPI_Init ..
 * MPI_Finalize (a message there still says which process wrote it). */
static inline int bench_rank(void)
{
  int init = 0, fini = 0, rank = -1;
  MPI_Initialized(&init);
  MPI_Finalized(&fini);
  if (init && !fini && MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS)
    rank = -1;
  return rank;
}

/* printf-style message "<program>: rank <r>: <message>" on stderr, then
 * MPI_Abort(MPI_COMM_WORLD, 1) (when MPI is running: it is not allowed
 * before MPI_Init or after MPI_Finalize), then exit(1) in case the abort
 * returns. For errno's story, pass strerror(errno) as an argument: it is
 * read before anything here can change errno. */
static inline _Noreturn void bench_die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static inline _Noreturn void bench_die(const char *fmt, ...)
{
  int rank = bench_rank();
  /* One line written at once, so lines of several ranks do not interleave. */
  char line[2 * MPI_MAX_ERROR_STRING + 512];
  int n = snprintf(line, sizeof line, "%s: rank %d: ", program_invocation_short_name, rank);
  if (n < 0 || (size_t)n >= sizeof line)
    n = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
  va_end(ap);
  fprintf(stderr, "%s\n", line);
  int init = 0, fini = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fini);
  if (init && !fini)
    MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

/* The text of an error code: MPI_Error_string for an MPI error code (> 0),
 * else (or when MPI does not know the code) the number itself, e.g. the
 * negative MPISW_KV_NOTFOUND. */
static inline void bench_error_string(int rc, char *buf, int size)
{
  int len = 0;
  if (rc <= 0 || MPI_Error_string(rc, buf, &len) != MPI_SUCCESS)
    snprintf(buf, (size_t)size, "error code %d", rc);
}

/* "<what>: <error string of rc>", then abort: for a return code already in
 * hand (e.g. of the mpisw_kv_* calls, which return MPI error codes). */
static inline _Noreturn void bench_die_mpi(const char *what, int rc)
{
  char msg[MPI_MAX_ERROR_STRING];
  bench_error_string(rc, msg, (int)sizeof msg);
  bench_die("%s: %s", what, msg);
}

/* MPI_CHECK(MPI_Xxx(...)): evaluates the call once; on an error names the
 * function (the call's text up to its '(', not the arguments) and the MPI
 * error string, then aborts. Reports only what the error handler returns:
 * the programs set MPI_ERRORS_RETURN where they want these messages. */
static inline void bench_check_mpi(int rc, const char *call)
{
  if (rc == MPI_SUCCESS)
    return;
  char msg[MPI_MAX_ERROR_STRING];
  bench_error_string(rc, msg, (int)sizeof msg);
  bench_die("%.*s: %s", (int)strcspn(call, "("), call, msg);
}
#define MPI_CHECK(call) bench_check_mpi((call), #call)

/* Value of key in the window's MPI_Win_get_info (the effective value) into
 * buf; 1 when present, 0 when absent or the info could not be read. */
static inline int bench_win_info(MPI_Win win, const char *key, char *buf, int len) {
  MPI_Info info;
  int flag = 0;
  buf[0] = 0;
  if (MPI_Win_get_info(win, &info) != MPI_SUCCESS) return 0;
  MPI_Info_get(info, key, len - 1, buf, &flag);
  MPI_Info_free(&info);
  if (!flag) buf[0] = 0;
  return flag;
}

#endif
