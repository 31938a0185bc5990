/* MPI_Win_allocate on storage: every rank places its range, all agree, and
 * the window is created over the mapping. Memory windows go to the MPI. */
#include <stdio.h>
#include <string.h>

#include "core/claim.h"
#include "win/info_keys.h"
#include "win/internal.h"
#include "win/remote.h"

int mpisw_win_allocate(const char *routine, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                       MPI_Comm comm, void *baseptr, MPI_Win *win, int large) {
  struct mpisw_hints h;
  struct mpisw_error e;
  int rank;
  PMPI_Comm_rank(comm, &rank);
  int failed = mpisw_hints_from_info(info, &h, &e) != 0 || mpisw_info_rma_check(info, &e) != 0;
  if (!failed && !h.storage && size > 0) failed = mpisw_budget_check((uint64_t)size, 1, &e) != 0;
  int storage = !failed && h.storage;
  if (mpisw_agree(comm, failed, &e, &storage))
    return mpisw_raise_comm(comm, mpisw_error_code(routine, &e));

  if (!storage) { /* nobody wants storage: the MPI's own window */
    int rc = mpisw_mpi_Win_allocate(size, disp_unit, info, comm, baseptr, win, large);
    if (rc != MPI_SUCCESS) return rc;
    mpisw_win_track_memory(*win, MPI_WIN_FLAVOR_ALLOCATE, size);
    return MPI_SUCCESS;
  }

  mpisw_node_route_expect(&h, comm); /* collective: every rank of comm is here */
  struct mpisw_win *w = mpisw_win_new(MPISW_WIN_STORAGE, MPI_WIN_FLAVOR_ALLOCATE);
  char tag[32];
  snprintf(tag, sizeof tag, "r%d", rank);
  failed = !w;
  if (!w) mpisw_fail(&e, MPISW_K_NOMEM, "out of memory for the window's state");
  else if (size < 0) failed = mpisw_fail(&e, MPISW_K_USAGE, "size %lld is negative", (long long)size) != 0;
  else failed = mpisw_place_local(&w->p, &h, (uint64_t)size, rank, tag, &e) != 0;
  if (mpisw_agree(comm, failed, &e, NULL)) {
    if (w && !failed) mpisw_place_undo(&w->p);
    /* every rank's claims are gone now: a file a rank made but kept because
     * another rank had claimed it first (ranks sharing a name) goes too */
    PMPI_Barrier(comm);
    if (w) mpisw_claim_drop_orphan(&w->p.file);
    if (w) mpisw_win_destroy(w);
    return mpisw_raise_comm(comm, mpisw_error_code(routine, &e));
  }
  void *base = w->p.region.base;
  int rc = MPI_SUCCESS;
  if (!mpisw_node_shared_create(w, size, disp_unit, info, comm, win, &base, large))
    rc = mpisw_mpi_Win_create(base, size, disp_unit, info, comm, win, large);
  if (rc != MPI_SUCCESS) {
    mpisw_place_undo(&w->p);
    mpisw_win_destroy(w);
    return rc;
  }
  w->rank = rank;
  w->disp_unit = disp_unit;
  mpisw_win_register(w, *win);
  mpisw_remote_window_made(w, comm, disp_unit);
  mpisw_place_count(&w->p, 0);
  *(void **)baseptr = base;
  return MPI_SUCCESS;
}
