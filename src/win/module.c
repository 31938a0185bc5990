/* The window module's table (process/module.h): windows made over memory
 * that holds storage ranges are remembered, and at MPI_Finalize storage
 * still mapped is synced, so that a program that never frees its windows
 * loses nothing. */
#include <stdio.h>

#include "win/internal.h"
#include "win/remote.h"

static void created(MPI_Win win, MPI_Info info, int flavor, void *base, MPI_Aint size) {
  if (flavor == MPI_WIN_FLAVOR_CREATE) mpisw_win_created(win, base, size);
}

static void sync_one(struct mpisw_place *p, void *arg) {
  struct mpisw_error e;
  if (!p->h.discard && mpisw_place_sync(p, &e))
    fprintf(stderr, "mpisw: MPI_Finalize: %s\n", e.msg);
  (void)arg;
}

static void before_finalize(void) {
  mpisw_each_place(sync_one, NULL);
  mpisw_agent_stop(); /* remote sync's agent thread (remote_agent.c) */
}

const struct mpisw_module mpisw_win_module = {
    .name = "win",
    .before_finalize = before_finalize,
    .win_created = created,
};
