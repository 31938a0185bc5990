/* MPI_Win_sync and MPI_Win_free of windows with storage: the storage copy
 * is made durable after the MPI's own part of the call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "win/internal.h"
#include "win/remote.h"

/* The MPI's part of MPI_Win_sync on a window with storage. MPI allows the
 * call outside an epoch, but Open MPI's osc/ucx refuses it there
 * (MPI_ERR_RMA_SYNC); the storage sync must still happen, so treat that
 * refusal as the memory barrier it stands for. */
static int mpi_part_of_sync(MPI_Win win) {
  MPI_Errhandler eh = mpisw_win_errors_return(win);
  int rc = mpisw_next.Win_sync(win);
  mpisw_win_errors_restore(win, eh);
  if (rc == MPI_SUCCESS) return rc;
  int cls = MPI_ERR_OTHER;
  PMPI_Error_class(rc, &cls);
  if (cls == MPI_ERR_RMA_SYNC) {
    __sync_synchronize();
    return MPI_SUCCESS;
  }
  return mpisw_raise_win(win, rc);
}

int mpisw_win_sync(MPI_Win win) {
  struct mpisw_win *w = mpisw_win_lookup(win);
  if (!w || w->kind == MPISW_WIN_MEMORY) return mpisw_next.Win_sync(win);
  int rc = mpi_part_of_sync(win);
  if (rc != MPI_SUCCESS) return rc;
  struct mpisw_error e;
  if (w->remote && w->p.h.sync_remote) return mpisw_remote_win_sync(win, w); /* + targets' */
  if (mpisw_win_sync_storage(w, &e))
    return mpisw_raise_win(win, mpisw_error_code("MPI_Win_sync", &e));
  return MPI_SUCCESS;
}

/* Acts as the handler fetched before the free would: for a window already
 * gone, and for MPI_ERRORS_ARE_FATAL (message on stderr, then abort). */
static int raise_after_free(MPI_Errhandler eh, int code) {
  if (eh == MPI_ERRORS_RETURN) return code;
  if (eh == MPI_ERRORS_ARE_FATAL) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    PMPI_Error_string(code, text, &len);
    fprintf(stderr, "%s\n", text);
    PMPI_Abort(MPI_COMM_WORLD, code);
  }
  return code;
}

/* Returns 0 once every rank of the window has entered MPI_Win_free. A rank
 * enters it only with its RMA epochs closed, and closing an epoch completes
 * its RMA at the target too (unlock, fence, complete/wait), so afterwards
 * nothing more reaches this rank's storage. The barrier runs on a
 * communicator made from the window's group inside MPI_COMM_WORLD
 * (MPI_Comm_create_group is collective over that group only). -1 when the
 * group reaches outside MPI_COMM_WORLD (spawned processes): the same answer
 * on every rank, since each of them then sees a member outside its world. */
#define FREE_TAG 0x6d7377
static int all_ranks_entered(MPI_Win win) {
  MPI_Group g = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  if (mpisw_next.Win_get_group(win, &g) != MPI_SUCCESS) return -1;
  int n = 0, outside = 0;
  PMPI_Group_size(g, &n);
  int *in = malloc(2 * (size_t)(n > 0 ? n : 1) * sizeof *in);
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  if (!in) outside = 1; /* cannot tell: keep the old way */
  for (int i = 0; in && i < n; i++) in[i] = i;
  if (in && PMPI_Group_translate_ranks(g, n, in, world, in + n) != MPI_SUCCESS) outside = 1;
  for (int i = 0; in && !outside && i < n; i++) outside = in[n + i] == MPI_UNDEFINED;
  free(in);
  PMPI_Group_free(&world);
  int rc = -1;
  if (!outside) {
    MPI_Comm c = MPI_COMM_NULL;
    if (PMPI_Comm_create_group(MPI_COMM_WORLD, g, FREE_TAG, &c) == MPI_SUCCESS) {
      rc = PMPI_Barrier(c) == MPI_SUCCESS ? 0 : -1;
      PMPI_Comm_free(&c);
    }
  }
  PMPI_Group_free(&g);
  return rc;
}

int mpisw_win_free(MPI_Win *win) {
  struct mpisw_win *w = mpisw_win_lookup(*win);
  if (!w) return mpisw_next.Win_free(win);
  int storage = w->kind == MPISW_WIN_STORAGE || w->kind == MPISW_WIN_SHARED;
  struct mpisw_error e;
  int code = MPI_SUCCESS, synced = 0;
  /* Sync while the window exists, so a storage error reaches the window's
   * own error handler (a user-defined one included). */
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  PMPI_Win_get_errhandler(*win, &eh);
  if (storage && all_ranks_entered(*win) == 0) {
    synced = 1;
    if (!w->p.h.discard && mpisw_place_sync(&w->p, &e)) {
      code = mpisw_error_code("MPI_Win_free", &e);
      /* fatal: print the message ourselves (Open MPI's may be lost in the abort) */
      if (eh == MPI_ERRORS_ARE_FATAL) raise_after_free(eh, code);
      else mpisw_raise_win(*win, code);
    }
  }
  /* MPI_Win_free has barrier semantics: after it, no RMA into our storage
   * is in flight, so a sync below covers everything. */
  int rc = mpisw_next.Win_free(win);
  if (rc != MPI_SUCCESS) {
    mpisw_errhandler_release(&eh);
    return rc;
  }
  mpisw_remote_window_gone(w); /* before its placement goes: the agent may be syncing it */
  mpisw_win_unregister(w);
  if (storage && !synced && mpisw_place_release(&w->p, 1, &e))
    code = raise_after_free(eh, mpisw_error_code("MPI_Win_free", &e));
  else if (storage && synced)
    mpisw_place_release(&w->p, 0, &e);
  mpisw_win_destroy(w);
  mpisw_errhandler_release(&eh);
  return code;
}
