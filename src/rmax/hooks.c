/* The few places the window module and MPI_Init/Finalize call into the RMA
 * extensions (declared at the end of win/internal.h). */
#include <stdio.h>
#include <string.h>

#include "rmax/api.h"
#include "rmax/keys.h"
#include "rmax/rmax.h"

void mpisw_rmax_init(void) { rmax_arena_init(); }

void mpisw_rmax_finalize(void) {
  rmax_handle_pool_free();
  rmax_arena_finalize();
}

/* Dynamic windows are always tracked, counting their epochs from the start
 * (memory handles hang off them, and they are slow anyway); others only
 * when they carry one of the keys. */
void mpisw_rmax_created(MPI_Win win, MPI_Info info, int dynamic) {
  int n;
  const MPI_Aint *shift, *du;
  int shifted = mpisw_win_disp_map(win, &n, &shift, &du);
  if (dynamic || shifted || (info != MPI_INFO_NULL && rmax_has_keys(info))) {
    /* Without its entry a shifted window's RMA would land at wrong addresses. */
    if (!rmax_track_new(win, info, dynamic) && shifted) {
      fprintf(stderr, "mpisw: out of memory for a storage window's RMA state\n");
      PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    }
  }
}

MPI_Win mpisw_rmax_sync_win(MPI_Win win) {
  if (!mpisw_rmax_live) return win;
  return rmax_sync_win(win);
}

int mpisw_rmax_free(MPI_Win *win, int *handled) {
  *handled = 0;
  if (!mpisw_rmax_live) return MPI_SUCCESS;
  return rmax_free(win, handled);
}

void mpisw_rmax_put_info(MPI_Win win, MPI_Info info) { rmax_keys_put(rmax_lookup(win), info); }

/* Predefined attributes of a duplicate are its parent's; a memory-handle
 * window has its own size and displacement unit. */
int mpisw_rmax_get_attr(MPI_Win win, int keyval, void *value, int *flag, int *handled) {
  *handled = 0;
  struct rmax_win *w = rmax_lookup(win);
  if (!w || w->kind == RMAX_PLAIN) return MPI_SUCCESS;
  if (keyval != MPI_WIN_BASE && keyval != MPI_WIN_SIZE && keyval != MPI_WIN_DISP_UNIT &&
      keyval != MPI_WIN_CREATE_FLAVOR && keyval != MPI_WIN_MODEL)
    return MPI_SUCCESS;
  *handled = 1;
  if (w->kind == RMAX_MEMH && keyval == MPI_WIN_SIZE) {
    *(MPI_Aint **)value = &w->size;
    *flag = 1;
    return MPI_SUCCESS;
  }
  if (w->kind == RMAX_MEMH && keyval == MPI_WIN_DISP_UNIT) {
    *(int **)value = &w->disp_unit_int;
    *flag = 1;
    return MPI_SUCCESS;
  }
  return MPI_Win_get_attr(w->root->handle, keyval, value, flag); /* mpisw's flavor answer */
}

int mpisw_rmax_alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr) {
  void *p = size > 0 ? rmax_arena_alloc((size_t)size) : NULL;
  if (!p) return PMPI_Alloc_mem(size, info, baseptr);
  *(void **)baseptr = p;
  return MPI_SUCCESS;
}

int mpisw_rmax_free_mem(void *base) {
  if (rmax_arena_free(base)) return MPI_SUCCESS;
  return PMPI_Free_mem(base);
}

int rmax_set_info(MPI_Win win, MPI_Info info) {
  struct rmax_win *w = rmax_lookup(win);
  if (w && w->kind != RMAX_PLAIN) {
    return rmax_keys_set("MPI_Win_set_info", w, win, info); /* the parent keeps its own */
  }
  int rc = PMPI_Win_set_info(win, info);
  if (rc != MPI_SUCCESS || info == MPI_INFO_NULL || !rmax_has_keys(info)) return rc;
  if (!w) w = rmax_root_of(win); /* epochs unknown so far: ordering flushes guarded */
  return rmax_keys_set("MPI_Win_set_info", w, win, info); /* after the MPI's: no rank waits */
}

int rmax_get_group(MPI_Win win, MPI_Group *group) {
  return PMPI_Win_get_group(rmax_sync_win(win), group);
}
