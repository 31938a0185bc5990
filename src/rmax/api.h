/* What the layers above (src/dispatch/, src/interpose/mpix.c) call into the
 * RMA extensions. */
#ifndef MPISW_RMAX_API_H
#define MPISW_RMAX_API_H

#include <mpi.h>

#include "process/module.h"

int mpisw_rmax_local_handle(const char *routine, MPI_Win parent, MPI_Win *nw);
int mpisw_rmax_dup_with_info(MPI_Win win, MPI_Info info, MPI_Win *newwin);
int mpisw_rmax_free(MPI_Win *win, int *handled);
int mpisw_rmax_memhandle_create(void *base, MPI_Aint size, MPI_Win win, void *memhandle,
                          int *memhandle_size);
int mpisw_rmax_win_from_memhandle(const void *memhandle, MPI_Aint size, int disp_unit, MPI_Info info,
                            int target, MPI_Win win, MPI_Win *newwin);
int mpisw_rmax_memhandle_release(void *memhandle, MPI_Win win);
int mpisw_rmax_op_intrinsic(MPI_Win win, const char *ops, int max_count, MPI_Datatype datatype,
                      int *flag);
/* Completes the operation just issued at (rank, win) at the target and
 * returns a completed request. */
int mpisw_rmax_remote_complete(MPI_Win win, int rank, MPI_Request *request);
int mpisw_rmax_set_info(MPI_Win win, MPI_Info info);
int mpisw_rmax_get_group(MPI_Win win, MPI_Group *group);

/* ---- route.c: where one RMA call goes ---- */
extern volatile int mpisw_rmax_live;   /* windows tracked (table.c) */
int mpisw_rmax_target_slow(const char *routine, MPI_Win *win, int *rank, MPI_Aint *disp);
/* The same for a window already looked up (w: mpisw_rmax_lookup's answer). */
struct rmax_win;
int mpisw_rmax_target_w(const char *routine, struct rmax_win *w, MPI_Win *win, int *rank,
                        MPI_Aint *disp);
/* Translates an RMA call's window, target rank and displacement: a
 * duplicate's go to its parent, a memory-handle window's to the arena or
 * its dynamic window, a storage window's on shifted segments to the right
 * bytes; ordered windows flush first. Returns an MPI error (raised on the
 * window) when the call is not allowed. One load when nothing is tracked. */
static inline int rmax_target(const char *routine, MPI_Win *win, int *rank, MPI_Aint *disp) {
  if (!mpisw_rmax_live) return MPI_SUCCESS;
  return mpisw_rmax_target_slow(routine, win, rank, disp);
}

/* ---- module.c ---- */
/* The module's table (process/module.h): the arena at MPI_Init; a window
 * tracked when made with one of the keys, dynamic or on shifted segments. */
extern const struct mpisw_module mpisw_rmax_module;
/* The window synchronization of win applies to: a duplicate's parent, else
 * win (one load when no window is tracked). */
MPI_Win mpisw_rmax_sync_win(MPI_Win win);
/* The keys' effective values added to MPI_Win_get_info's info. */
void mpisw_rmax_put_info(MPI_Win win, MPI_Info info);
/* MPI_Win_get_attr of a duplicate (its parent's predefined attributes) or a
 * memory-handle window (its own size and displacement unit); *handled 0
 * for other windows and attributes. */
int mpisw_rmax_get_attr(MPI_Win win, int keyval, void *value, int *flag, int *handled);
/* MPI_Alloc_mem from the arena, else the MPI's; MPI_Free_mem the same. */
int mpisw_rmax_alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
int mpisw_rmax_free_mem(void *base);
/* The MPI's attribute calls; a duplicate's or memory-handle window's user
 * attributes are noted for its MPI_Win_free. */
int mpisw_rmax_set_attr(MPI_Win win, int keyval, void *value);
int mpisw_rmax_delete_attr(MPI_Win win, int keyval);
/* MPI_Win_flush through a duplicate or memory-handle window goes where its
 * operations went. */
int mpisw_rmax_win_flush(MPI_Win win, int rank);

#endif
