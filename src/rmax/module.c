/* The RMA extensions as a module (process/module.h): the arena at MPI_Init,
 * windows tracked when made; and the window calls where a duplicate or a
 * memory-handle window answers differently from a plain one. */
#include <stdio.h>
#include <string.h>

#include "rmax/api.h"
#include "rmax/keys.h"
#include "rmax/rmax.h"

static void after_init(void) { mpisw_rmax_arena_init(); }

static void before_finalize(void) {
  mpisw_rmax_handle_pool_free();
  mpisw_rmax_arena_finalize();
}

/* Dynamic windows are always tracked, counting their epochs from the start
 * (memory handles hang off them, and they are slow anyway); others only
 * when they carry one of the keys. */
static void created(MPI_Win win, MPI_Info info, int flavor, void *base, MPI_Aint size) {
  int dynamic = flavor == MPI_WIN_FLAVOR_DYNAMIC;
  int n;
  const MPI_Aint *shift, *du;
  int shifted = mpisw_win_disp_map(win, &n, &shift, &du);
  if (dynamic || shifted || (info != MPI_INFO_NULL && mpisw_rmax_has_keys(info))) {
    /* Without its entry a shifted window's RMA would land at wrong addresses. */
    if (!mpisw_rmax_track_new(win, info, dynamic) && shifted) {
      fprintf(stderr, "mpisw: out of memory for a storage window's RMA state\n");
      PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    }
  }
}

const struct mpisw_module mpisw_rmax_module = {
    .name = "rmax",
    .after_init = after_init,
    .before_finalize = before_finalize,
    .win_created = created,
};

/* Every window shows the keys' effective values, tracked or not. */
void mpisw_rmax_put_info(MPI_Win win, MPI_Info info) {
  mpisw_rmax_keys_put(mpisw_rmax_lookup(win), info);
  /* which path RMA into a storage window takes (src/win/node_shared.c) */
  const char *route = mpisw_win_route(mpisw_rmax_sync_win(win));
  if (route) PMPI_Info_set(info, "mpisw_storage_route", (char *)route);
}

/* Predefined attributes of a duplicate are its parent's; a memory-handle
 * window has its own size and displacement unit. */
int mpisw_rmax_get_attr(MPI_Win win, int keyval, void *value, int *flag, int *handled) {
  *handled = 0;
  struct rmax_win *w = mpisw_rmax_live ? mpisw_rmax_lookup(win) : NULL;
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
  return mpisw_win_get_attr(w->root->handle, keyval, value, flag); /* as the user made it */
}

int mpisw_rmax_alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr) {
  void *p = size > 0 ? mpisw_rmax_arena_alloc((size_t)size) : NULL;
  if (!p) return mpisw_next.Alloc_mem(size, info, baseptr);
  *(void **)baseptr = p;
  return MPI_SUCCESS;
}

int mpisw_rmax_free_mem(void *base) {
  if (mpisw_rmax_arena_free(base)) return MPI_SUCCESS;
  return mpisw_next.Free_mem(base);
}

int mpisw_rmax_set_info(MPI_Win win, MPI_Info info) {
  struct rmax_win *w = mpisw_rmax_lookup(win);
  if (w && w->kind != RMAX_PLAIN) /* the parent keeps its own */
    return mpisw_rmax_keys_set("MPI_Win_set_info", w, win, info);
  int rc = mpisw_next.Win_set_info(win, info);
  if (rc != MPI_SUCCESS || info == MPI_INFO_NULL || !mpisw_rmax_has_keys(info)) return rc;
  if (!w) w = mpisw_rmax_root_of(win); /* epochs unknown so far: ordering flushes guarded */
  return mpisw_rmax_keys_set("MPI_Win_set_info", w, win, info); /* after the MPI's: no rank waits */
}

int mpisw_rmax_get_group(MPI_Win win, MPI_Group *group) {
  return mpisw_next.Win_get_group(mpisw_rmax_sync_win(win), group);
}

/* User attributes on a duplicate or memory-handle window are remembered, so
 * that its MPI_Win_free can delete them before the handle is recycled. */
int mpisw_rmax_set_attr(MPI_Win win, int keyval, void *value) {
  int rc = mpisw_next.Win_set_attr(win, keyval, value);
  struct rmax_win *w = rc == MPI_SUCCESS && mpisw_rmax_live ? mpisw_rmax_lookup(win) : NULL;
  if (w && w->kind != RMAX_PLAIN) mpisw_rmax_attr_note(w, keyval, 1);
  return rc;
}

int mpisw_rmax_delete_attr(MPI_Win win, int keyval) {
  int rc = mpisw_next.Win_delete_attr(win, keyval);
  struct rmax_win *w = rc == MPI_SUCCESS && mpisw_rmax_live ? mpisw_rmax_lookup(win) : NULL;
  if (w && w->kind != RMAX_PLAIN) mpisw_rmax_attr_note(w, keyval, 0);
  return rc;
}
