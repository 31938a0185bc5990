/* Checking the RMA extensions' info keys where a call receives them
 * (src/rmax/keys.c): a bad value is MPISW_ERR_HINT naming the key, the
 * value and the accepted spellings, raised on the window, and changes
 * nothing. */
#ifndef MPISW_RMAX_KEYS_H
#define MPISW_RMAX_KEYS_H

#include <mpi.h>

struct rmax_win;

/* MPI_SUCCESS when every key of info present has a valid value; otherwise
 * the error, raised on win (MPI_WIN_NULL: as errors without an object). */
int mpisw_rmax_keys_check(const char *routine, MPI_Win win, MPI_Info info);
/* mpisw_rmax_keys_check, then the keys applied to w (may be NULL) as
 * mpisw_rmax_keys_apply does: MPI_Win_set_info. */
int mpisw_rmax_keys_set(const char *routine, struct rmax_win *w, MPI_Win win, MPI_Info info);

#endif
