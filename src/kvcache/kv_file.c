/* Syncs the store's file (its storage window) with the window module's own
 * call, not the public mpisw_win_sync: that one returns an MPI code, and the
 * kind of a storage failure (NOSPACE, IO, ...) would be lost on the way
 * back here. Only this process's loads and stores write the window, so the
 * MPI's part of MPI_Win_sync (a memory barrier) adds nothing. */
#include "kvcache/kv_file.h"
#include "win/internal.h"

int mpisw__kv_file_sync(MPI_Win win, const char *path, struct mpisw_error *e) {
  struct mpisw_win *w = mpisw_win_lookup(win);
  if (!w || w->kind != MPISW_WIN_STORAGE)   /* kv_open asks for alloc_type=storage */
    return mpisw_fail(e, MPISW_K_IO, "%s: the log window is not on storage", path);
  return mpisw_win_sync_storage(w, e);
}
