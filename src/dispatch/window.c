/* The window calls. Windows mpisw places (storage hints) are made by the
 * window module; every window made is shown to the modules; a duplicate or
 * memory-handle window (src/rmax/) answers for itself or for its parent. */
#include "dispatch/dispatch.h"
#include "process/process.h"
#include "rmax/api.h"
#include "win/info_keys.h"
#include "win/internal.h"
#include "win/remote.h"

int mpisw_do_Win_allocate(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                          void *baseptr, MPI_Win *win, int large) {
  if (mpisw_disabled)
    return mpisw_mpi_Win_allocate(size, disp_unit, info, comm, baseptr, win, large);
  int rc = mpisw_win_allocate(large ? "MPI_Win_allocate_c" : "MPI_Win_allocate", size, disp_unit,
                              info, comm, baseptr, win, large);
  if (rc == MPI_SUCCESS)
    mpisw_modules_win_created(*win, info, MPI_WIN_FLAVOR_ALLOCATE, *(void **)baseptr, size);
  return rc;
}

int mpisw_do_Win_allocate_shared(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                 MPI_Comm comm, void *baseptr, MPI_Win *win, int large) {
  if (mpisw_disabled)
    return mpisw_mpi_Win_allocate_shared(size, disp_unit, info, comm, baseptr, win, large);
  int rc = mpisw_win_allocate_shared(large ? "MPI_Win_allocate_shared_c"
                                           : "MPI_Win_allocate_shared",
                                     size, disp_unit, info, comm, baseptr, win, large);
  if (rc == MPI_SUCCESS)
    mpisw_modules_win_created(*win, info, MPI_WIN_FLAVOR_SHARED, *(void **)baseptr, size);
  return rc;
}

/* The keys mpisw reads on windows the MPI makes are checked, and agreed on,
 * before the MPI makes the window. */
static int keys_agree(const char *routine, MPI_Info info, MPI_Comm comm) {
  return mpisw_disabled ? MPI_SUCCESS : mpisw_win_keys_agree(routine, info, comm);
}

int mpisw_do_Win_create(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                        MPI_Comm comm, MPI_Win *win, int large) {
  int rc = keys_agree(large ? "MPI_Win_create_c" : "MPI_Win_create", info, comm);
  /* MPI_Alloc_mem storage on one node: the window module's faster route */
  if (rc == MPI_SUCCESS && (mpisw_disabled ||
                            !mpisw_win_create_node_shared(base, size, disp_unit, info, comm,
                                                          win, large)))
    rc = mpisw_mpi_Win_create(base, size, disp_unit, info, comm, win, large);
  if (rc == MPI_SUCCESS) mpisw_modules_win_created(*win, info, MPI_WIN_FLAVOR_CREATE, base, size);
  return rc;
}

int mpisw_do_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win) {
  int rc = keys_agree("MPI_Win_create_dynamic", info, comm);
  if (rc == MPI_SUCCESS) rc = mpisw_next.Win_create_dynamic(info, comm, win);
  if (rc == MPI_SUCCESS) mpisw_modules_win_created(*win, info, MPI_WIN_FLAVOR_DYNAMIC, NULL, 0);
  return rc;
}

/* A shared window mpisw placed answers from its own segment table. */
static int shared_query(MPI_Win *win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                        void *baseptr, int *handled) {
  *handled = 0;
  if (mpisw_disabled) return MPI_SUCCESS;
  *win = mpisw_rmax_sync_win(*win);
  return mpisw_win_shared_query(*win, rank, size, disp_unit, baseptr, handled);
}

int mpisw_do_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
                              void *baseptr) {
  MPI_Aint du = 0;
  int handled;
  int rc = shared_query(&win, rank, size, &du, baseptr, &handled);
  if (!handled) return mpisw_next.Win_shared_query(win, rank, size, disp_unit, baseptr);
  if (rc == MPI_SUCCESS) *disp_unit = (int)du;
  return rc;
}

#if MPI_VERSION >= 4
int mpisw_do_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                                void *baseptr) {
  int handled;
  int rc = shared_query(&win, rank, size, disp_unit, baseptr, &handled);
  if (!handled) return mpisw_next.Win_shared_query_c(win, rank, size, disp_unit, baseptr);
  return rc;
}
#endif

int mpisw_do_Win_attach(MPI_Win win, void *base, MPI_Aint size) {
  if (mpisw_disabled) return mpisw_next.Win_attach(win, base, size);
  return mpisw_win_attach(mpisw_rmax_sync_win(win), base, size);
}

int mpisw_do_Win_detach(MPI_Win win, const void *base) {
  if (mpisw_disabled) return mpisw_next.Win_detach(win, base);
  return mpisw_win_detach(mpisw_rmax_sync_win(win), base);
}

int mpisw_do_Win_sync(MPI_Win win) {
  if (mpisw_disabled) return mpisw_next.Win_sync(win);
  return mpisw_win_sync(mpisw_rmax_sync_win(win));
}

int mpisw_do_Win_sync_target(MPI_Win win, int rank) {
  return mpisw_remote_sync_target(mpisw_rmax_sync_win(win), rank);
}

/* A duplicate or memory-handle window is released by the RMA extensions;
 * any other window by the window module, which syncs its storage first. */
int mpisw_do_Win_free(MPI_Win *win) {
  if (mpisw_disabled) return mpisw_next.Win_free(win);
  int handled = 0;
  MPI_Win was = *win;
  int rc = mpisw_rmax_live ? mpisw_rmax_free(win, &handled) : MPI_SUCCESS;
  if (!handled) rc = mpisw_win_free(win);
  if (rc == MPI_SUCCESS) mpisw_modules_win_freed(was);
  return rc;
}

int mpisw_do_Win_get_info(MPI_Win win, MPI_Info *info_used) {
  if (mpisw_disabled) return mpisw_next.Win_get_info(win, info_used);
  int rc = mpisw_win_get_info(mpisw_rmax_sync_win(win), info_used);
  if (rc == MPI_SUCCESS) mpisw_rmax_put_info(win, *info_used);
  return rc;
}

int mpisw_do_Win_set_info(MPI_Win win, MPI_Info info) {
  if (mpisw_disabled) return mpisw_next.Win_set_info(win, info);
  return mpisw_rmax_set_info(win, info);
}

int mpisw_do_Win_get_attr(MPI_Win win, int keyval, void *value, int *flag) {
  if (mpisw_disabled) return mpisw_next.Win_get_attr(win, keyval, value, flag);
  int handled = 0;
  int rc = mpisw_rmax_get_attr(win, keyval, value, flag, &handled);
  if (handled) return rc;
  return mpisw_win_get_attr(win, keyval, value, flag);
}

int mpisw_do_Win_set_attr(MPI_Win win, int keyval, void *value) {
  if (mpisw_disabled) return mpisw_next.Win_set_attr(win, keyval, value);
  return mpisw_rmax_set_attr(win, keyval, value);
}

int mpisw_do_Win_delete_attr(MPI_Win win, int keyval) {
  if (mpisw_disabled) return mpisw_next.Win_delete_attr(win, keyval);
  return mpisw_rmax_delete_attr(win, keyval);
}

int mpisw_do_Win_get_group(MPI_Win win, MPI_Group *group) {
  if (mpisw_disabled) return mpisw_next.Win_get_group(win, group);
  return mpisw_rmax_get_group(win, group);
}
