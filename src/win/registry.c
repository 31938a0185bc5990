/* Per-window state cached on the window as an attribute (MPI's own
 * mechanism), plus lists of live windows and storage allocations for
 * MPI_Free_mem, MPI_Win_attach and MPI_Finalize. */
#include <stdlib.h>
#include <string.h>

#include "win/internal.h"
#include "win/remote.h"

static int keyval = MPI_KEYVAL_INVALID;
static struct mpisw_win *windows;
static struct mpisw_alloc *allocs;

struct mpisw_win *mpisw_win_new(int kind, int flavor) {
  struct mpisw_win *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->kind = kind;
  w->flavor = flavor;
  w->p.shm_fd = -1;
  mpisw_file_init(&w->p.file);
  return w;
}

int mpisw_win_register(struct mpisw_win *w, MPI_Win win) {
  pthread_mutex_lock(&mpisw_lock);
  if (keyval == MPI_KEYVAL_INVALID)
    PMPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &keyval, NULL);
  w->win = win;
  w->next = windows;
  windows = w;
  int kv = keyval;
  pthread_mutex_unlock(&mpisw_lock);
  return mpisw_next.Win_set_attr(win, kv, w);
}

struct mpisw_win *mpisw_win_lookup(MPI_Win win) {
  struct mpisw_win *w = NULL;
  int flag = 0;
  if (keyval == MPI_KEYVAL_INVALID || win == MPI_WIN_NULL) return NULL;
  if (mpisw_next.Win_get_attr(win, keyval, &w, &flag) != MPI_SUCCESS || !flag) return NULL;
  return w;
}

void mpisw_win_unregister(struct mpisw_win *w) {
  pthread_mutex_lock(&mpisw_lock);
  for (struct mpisw_win **pp = &windows; *pp; pp = &(*pp)->next)
    if (*pp == w) {
      *pp = w->next;
      break;
    }
  pthread_mutex_unlock(&mpisw_lock);
}

void mpisw_win_destroy(struct mpisw_win *w) {
  /* Whatever memory budget the window still holds goes back here, once:
   * place release/undo already gave theirs back and zeroed it. */
  mpisw_budget_take(-(int64_t)w->p.budget_taken);
  free(w->seg_off);
  free(w->seg_size);
  free(w->seg_disp);
  free(w->ns_shift);
  free(w->allocs);
  free(w);
}

void mpisw_win_add_alloc(struct mpisw_win *w, struct mpisw_alloc *a) {
  pthread_mutex_lock(&mpisw_lock);
  for (int i = 0; i < w->nallocs; i++)
    if (w->allocs[i] == a) goto out;
  if (w->nallocs == w->cap) {
    int cap = w->cap ? 2 * w->cap : 4;
    struct mpisw_alloc **n = realloc(w->allocs, (size_t)cap * sizeof *n);
    if (!n) goto out; /* the window then syncs less; never crash */
    w->allocs = n;
    w->cap = cap;
  }
  w->allocs[w->nallocs++] = a;
out:
  pthread_mutex_unlock(&mpisw_lock);
}

static void drop_locked(struct mpisw_win *w, struct mpisw_alloc *a) {
  for (int i = 0; i < w->nallocs; i++)
    if (w->allocs[i] == a) {
      w->allocs[i] = w->allocs[--w->nallocs];
      return;
    }
}

void mpisw_win_drop_alloc(struct mpisw_win *w, struct mpisw_alloc *a) {
  pthread_mutex_lock(&mpisw_lock);
  drop_locked(w, a);
  pthread_mutex_unlock(&mpisw_lock);
}

void mpisw_alloc_register(struct mpisw_alloc *a) {
  pthread_mutex_lock(&mpisw_lock);
  a->next = allocs;
  allocs = a;
  pthread_mutex_unlock(&mpisw_lock);
}

static int contains(struct mpisw_alloc *a, const void *addr) {
  const char *b = a->p.region.base, *x = addr;
  return b && x >= b && x < b + a->p.region.l.size;
}

struct mpisw_alloc *mpisw_alloc_find(const void *addr) {
  pthread_mutex_lock(&mpisw_lock);
  struct mpisw_alloc *a = allocs;
  while (a && !contains(a, addr)) a = a->next;
  pthread_mutex_unlock(&mpisw_lock);
  return a;
}

struct mpisw_alloc *mpisw_alloc_take(void *base) {
  struct mpisw_alloc *found = NULL;
  pthread_mutex_lock(&mpisw_lock);
  for (struct mpisw_alloc **pp = &allocs; *pp; pp = &(*pp)->next)
    if ((*pp)->p.region.base == base) {
      found = *pp;
      *pp = found->next;
      break;
    }
  /* No window may keep syncing memory that is gone. */
  if (found)
    for (struct mpisw_win *w = windows; w; w = w->next) drop_locked(w, found);
  pthread_mutex_unlock(&mpisw_lock);
  return found;
}

void mpisw_alloc_each_overlap(const void *base, uint64_t size,
                              void (*fn)(struct mpisw_alloc *, void *), void *arg) {
  const char *lo = base, *hi = lo + size;
  struct mpisw_alloc *hit[64];
  int n = 0;
  pthread_mutex_lock(&mpisw_lock);
  for (struct mpisw_alloc *a = allocs; a && n < 64; a = a->next) {
    const char *b = a->p.region.base;
    if (b && b < hi && lo < b + a->p.region.l.size) hit[n++] = a;
  }
  pthread_mutex_unlock(&mpisw_lock);
  for (int i = 0; i < n; i++) fn(hit[i], arg);
}

void mpisw_each_place(void (*fn)(struct mpisw_place *, void *), void *arg) {
  pthread_mutex_lock(&mpisw_lock);
  for (struct mpisw_win *w = windows; w; w = w->next)
    if (w->kind == MPISW_WIN_STORAGE || w->kind == MPISW_WIN_SHARED) fn(&w->p, arg);
  for (struct mpisw_alloc *a = allocs; a; a = a->next) fn(&a->p, arg);
  pthread_mutex_unlock(&mpisw_lock);
}

void mpisw_win_track_memory(MPI_Win win, int flavor, MPI_Aint size) {
  struct mpisw_win *w = mpisw_win_new(MPISW_WIN_MEMORY, flavor);
  uint64_t bytes = size > 0 ? (uint64_t)size : 0;
  if (w) {
    w->p.region.l.size = w->p.region.l.mem_len = bytes;
    if (mpisw_budget_enforced()) {
      w->p.budget_taken = bytes;
      mpisw_budget_take((int64_t)bytes);
    }
    mpisw_win_register(w, win);
  }
  pthread_mutex_lock(&mpisw_lock);
  mpisw_stats.windows_memory++;
  mpisw_stats.bytes_memory += (double)bytes;
  pthread_mutex_unlock(&mpisw_lock);
}
