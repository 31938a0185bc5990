/* MPI_Alloc_mem on storage, and the windows that expose such memory:
 * MPI_Win_create over it, or MPI_Win_attach to a dynamic window. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "win/internal.h"

int mpisw_alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr, int *handled) {
  struct mpisw_hints h;
  struct mpisw_error e;
  *handled = 1;
  if (mpisw_hints_from_info(info, &h, &e))
    return mpisw_raise_noobj(mpisw_error_code("MPI_Alloc_mem", &e));
  if (!h.storage || size <= 0) {
    *handled = 0;
    return MPI_SUCCESS;
  }
  struct mpisw_alloc *a = calloc(1, sizeof *a);
  if (!a) {
    mpisw_fail(&e, MPISW_K_NOMEM, "out of memory for the allocation's state");
    return mpisw_raise_noobj(mpisw_error_code("MPI_Alloc_mem", &e));
  }
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char tag[32];
  snprintf(tag, sizeof tag, "r%d-mem", rank);
  mpisw_node_route_alone(&h);
  if (mpisw_place_local(&a->p, &h, (uint64_t)size, rank, tag, &e)) {
    free(a);
    return mpisw_raise_noobj(mpisw_error_code("MPI_Alloc_mem", &e));
  }
  mpisw_alloc_register(a);
  pthread_mutex_lock(&mpisw_lock);
  mpisw_stats.allocs_storage++;
  mpisw_stats.bytes_memory += (double)a->p.region.l.mem_len;
  mpisw_stats.bytes_storage += (double)a->p.region.l.sto_len;
  pthread_mutex_unlock(&mpisw_lock);
  *(void **)baseptr = a->p.region.base;
  return MPI_SUCCESS;
}

int mpisw_free_mem(void *base, int *handled) {
  struct mpisw_alloc *a = mpisw_alloc_take(base);
  *handled = a != NULL;
  if (!a) return MPI_SUCCESS;
  struct mpisw_error e;
  int rc = mpisw_place_release(&a->p, 1, &e);
  free(a);
  if (rc) return mpisw_raise_noobj(mpisw_error_code("MPI_Free_mem", &e));
  return MPI_SUCCESS;
}

struct attach_ctx {
  MPI_Win win;
  struct mpisw_win *w;
};

static void add_to(struct mpisw_alloc *a, void *arg) {
  struct attach_ctx *c = arg;
  if (!c->w) {
    c->w = mpisw_win_lookup(c->win);
    if (!c->w) {
      c->w = mpisw_win_new(MPISW_WIN_USER, -1);
      if (!c->w) return;
      mpisw_win_register(c->w, c->win);
    }
  }
  mpisw_win_add_alloc(c->w, a);
}

/* MPI_Win_create over user memory, or MPI_Win_attach to a dynamic window:
 * remember the storage allocations the window exposes, so that
 * MPI_Win_sync on the window makes them durable. */
void mpisw_win_attached(MPI_Win win, void *base, MPI_Aint size) {
  if (!base || size <= 0) return;
  struct attach_ctx c = {win, NULL};
  mpisw_alloc_each_overlap(base, (uint64_t)size, add_to, &c);
}

void mpisw_win_created(MPI_Win win, void *base, MPI_Aint size) {
  mpisw_win_attached(win, base, size);
}

/* MPI_Win_create whose every rank's memory is MPI_Alloc_mem storage (or
 * nothing): on one node, the MPI's node-shared window with each rank's
 * pages mapped over it (node_shared.c); 0 when the MPI's MPI_Win_create
 * must make it. Collective: every MPI_Win_create asks. */
int mpisw_win_create_node_shared(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                 MPI_Comm comm, MPI_Win *win, int large) {
  struct mpisw_alloc *a = size > 0 ? mpisw_alloc_find(base) : NULL;
  if (a && (char *)base + size > a->p.region.base + a->p.region.l.size) a = NULL;
  /* nobody with storage: nothing to route (one agreement more otherwise) */
  if (!mpisw_any(comm, a != NULL)) return 0;
  struct mpisw_win spare = {0}, *w = mpisw_win_new(MPISW_WIN_USER, MPI_WIN_FLAVOR_CREATE);
  /* out of memory here: this rank says no (with a state the route never keeps) */
  if (!mpisw_node_shared_over(w ? w : &spare, w != NULL, a ? &a->p : NULL, base, size,
                              disp_unit, info, comm, win, large)) {
    if (w) mpisw_win_destroy(w);
    return 0;
  }
  w->disp_unit = disp_unit;
  mpisw_win_register(w, *win); /* the window module's hook adds the allocation */
  return 1;
}

int mpisw_win_attach(MPI_Win win, void *base, MPI_Aint size) {
  int rc = mpisw_next.Win_attach(win, base, size);
  if (rc == MPI_SUCCESS) mpisw_win_attached(win, base, size);
  return rc;
}

int mpisw_win_detach(MPI_Win win, const void *base) {
  int rc = mpisw_next.Win_detach(win, base);
  if (rc != MPI_SUCCESS) return rc;
  struct mpisw_win *w = mpisw_win_lookup(win);
  struct mpisw_alloc *a = w ? mpisw_alloc_find(base) : NULL;
  if (a) mpisw_win_drop_alloc(w, a);
  return MPI_SUCCESS;
}
