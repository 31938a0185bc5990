/* Which bytes this rank wrote into each target of a storage window with
 * storage_sync_scope=remote since it last synced them: the RMA calls note
 * every put and accumulate here, the remote sync (remote_sync.c) takes the
 * ranges of the targets it asks. Other windows note nothing:
 * MPIX_Win_sync_target then syncs the target's whole storage part.
 * Coarse on purpose: a few merged ranges per target, then one range
 * covering them; syncing a clean page costs the target next to nothing. */
#include <string.h>

#include "win/remote.h"

int mpisw_remote_windows;

static int overlaps_or_touches(const struct mpisw_range *a, uint64_t off, uint64_t len) {
  return off <= a->off + a->len && a->off <= off + len;
}

static void cover(struct mpisw_range *a, uint64_t off, uint64_t len) {
  uint64_t end = a->off + a->len > off + len ? a->off + a->len : off + len;
  if (off < a->off) a->off = off;
  a->len = end - a->off;
}

void mpisw_remote_add(struct mpisw_remote *r, int target, uint64_t off, uint64_t len) {
  if (len == 0 || target < 0 || target >= r->nranks) return;
  struct mpisw_remote_target *t = &r->t[target];
  if (t->n == 0) r->dirty[r->ndirty++] = target;
  for (int i = 0; i < t->n; i++)
    if (overlaps_or_touches(&t->r[i], off, len)) {
      cover(&t->r[i], off, len);
      return;
    }
  if (t->n < MPISW_REMOTE_RANGES) {
    t->r[t->n++] = (struct mpisw_range){off, len};
    return;
  }
  /* full: one range over everything */
  for (int i = 1; i < t->n; i++) cover(&t->r[0], t->r[i].off, t->r[i].len);
  cover(&t->r[0], off, len);
  t->n = 1;
}

void mpisw_remote_take(struct mpisw_remote *r, int target, struct mpisw_remote_target *out) {
  out->n = 0;
  if (target < 0 || target >= r->nranks || r->t[target].n == 0) return;
  *out = r->t[target];
  r->t[target].n = 0;
  for (int i = 0; i < r->ndirty; i++)
    if (r->dirty[i] == target) {
      r->dirty[i] = r->dirty[--r->ndirty];
      break;
    }
}

/* The bytes count elements of dt span from the displacement: from the
 * true lower bound of the first to the true upper bound of the last. */
static int span(MPI_Count count, MPI_Datatype dt, int64_t *first, uint64_t *len) {
  MPI_Aint lb, extent, tlb, textent;
  if (count <= 0 || PMPI_Type_get_extent(dt, &lb, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(dt, &tlb, &textent) != MPI_SUCCESS || textent <= 0)
    return -1;
  int64_t lo = tlb, hi = tlb + textent;
  int64_t step = (int64_t)(count - 1) * extent;
  if (step < 0) lo += step; else hi += step;
  *first = lo;
  *len = (uint64_t)(hi - lo);
  return 0;
}

void mpisw_remote_note(MPI_Win win, int target, MPI_Aint disp, MPI_Count count,
                       MPI_Datatype dt) {
  struct mpisw_win *w = mpisw_win_lookup(win);
  struct mpisw_remote *r = w && w->p.h.sync_remote ? w->remote : NULL;
  if (!r || target < 0 || target >= r->nranks || target == r->me) return;
  int64_t first;
  uint64_t len;
  if (span(count, dt, &first, &len)) return;
  /* a node-shared window's MPI displacement is already shift + bytes */
  int64_t off = w->ns_route ? mpisw_node_shared_bytes(w, target, disp)
                            : (int64_t)disp * r->peers[target].disp_unit;
  off += first;
  if (off < 0) {
    len = (int64_t)len + off > 0 ? (uint64_t)((int64_t)len + off) : 0;
    off = 0;
  }
  pthread_mutex_lock(&r->mu);
  mpisw_remote_add(r, target, (uint64_t)off, len);
  pthread_mutex_unlock(&r->mu);
}
