/* Per-handle state of the RMA extensions, keyed by MPI_Win. A window rmax
 * does not know costs the RMA fast path one load (mpisw_rmax_live == 0) or
 * one lock-free hash probe: readers take no lock (threads issuing RMA must
 * not bounce a lock's cache line); writers serialize on a mutex, and
 * unlinked chain nodes are kept (16 bytes per freed window) so that a reader
 * never walks freed memory. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rmax/rmax.h"

#define BUCKETS 1024

volatile int mpisw_rmax_live;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

struct node {
  struct rmax_win *w;
  struct node *next;
};
static struct node *chains[BUCKETS];

static unsigned hash(MPI_Win win) {
  uintptr_t x = 0;
  memcpy(&x, &win, sizeof win < sizeof x ? sizeof win : sizeof x);
  x ^= x >> 17;
  x *= 0x9E3779B97F4A7C15ull;
  return (unsigned)(x >> 40) % BUCKETS;
}

struct rmax_win *mpisw_rmax_lookup(MPI_Win win) {
  if (!mpisw_rmax_live || win == MPI_WIN_NULL) return NULL;
  for (struct node *n = __atomic_load_n(&chains[hash(win)], __ATOMIC_ACQUIRE); n;
       n = __atomic_load_n(&n->next, __ATOMIC_ACQUIRE)) {
    struct rmax_win *w = __atomic_load_n(&n->w, __ATOMIC_ACQUIRE);
    if (w && w->handle == win) return w;
  }
  return NULL;
}

int mpisw_rmax_insert(struct rmax_win *w) {
  struct node *n = malloc(sizeof *n);
  if (!n) return -1;
  n->w = w;
  pthread_mutex_lock(&table_lock);
  unsigned h = hash(w->handle);
  n->next = chains[h];
  __atomic_store_n(&chains[h], n, __ATOMIC_RELEASE);
  __atomic_add_fetch(&mpisw_rmax_live, 1, __ATOMIC_SEQ_CST);
  pthread_mutex_unlock(&table_lock);
  return 0;
}

void mpisw_rmax_remove(struct rmax_win *w) {
  pthread_mutex_lock(&table_lock);
  for (struct node **pp = &chains[hash(w->handle)]; *pp; pp = &(*pp)->next)
    if ((*pp)->w == w) {
      struct node *n = *pp;
      __atomic_store_n(&n->w, NULL, __ATOMIC_RELEASE);
      __atomic_store_n(pp, n->next, __ATOMIC_RELEASE); /* n stays allocated: see top */
      __atomic_sub_fetch(&mpisw_rmax_live, 1, __ATOMIC_SEQ_CST);
      break;
    }
  pthread_mutex_unlock(&table_lock);
}

struct rmax_win *mpisw_rmax_new(MPI_Win handle, int kind) {
  struct rmax_win *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->handle = handle;
  w->kind = kind;
  w->root = w;
  w->via = handle;
  w->disp_unit = 1;
  w->target = -1;
  w->refs = 1;
  pthread_mutex_init(&w->mu, NULL);
  return w;
}

void mpisw_rmax_destroy(struct rmax_win *w) {
  if (!w) return;
  free(w->pending);
  free(w->ep.locks);
  free(w->keyvals);
  free(w->seg_addr);
  free(w->seg_bytes);
  pthread_mutex_destroy(&w->mu);
  free(w);
}

static int group_size(MPI_Win win) {
  MPI_Group g;
  int n = 1;
  if (mpisw_next.Win_get_group(win, &g) == MPI_SUCCESS) {
    PMPI_Group_size(g, &n);
    PMPI_Group_free(&g);
  }
  return n;
}

/* Sizes the per-target arrays of a root. */
static int size_root(struct rmax_win *w) {
  w->nranks = group_size(w->handle);
  int n;
  if (mpisw_win_disp_map(w->handle, &n, &w->shift, &w->shift_du) && n != w->nranks) return -1;
  w->pending = calloc((size_t)w->nranks, 1);
  w->ep.nranks = w->nranks;
  w->ep.locks = calloc((size_t)w->nranks, sizeof *w->ep.locks);
  return w->pending && w->ep.locks ? 0 : -1;
}

struct rmax_win *mpisw_rmax_root_of(MPI_Win win) {
  struct rmax_win *w = mpisw_rmax_lookup(win);
  if (w) return w->root;
  static pthread_mutex_t make = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&make);
  w = mpisw_rmax_lookup(win); /* another thread may have made it meanwhile */
  if (!w) {
    w = mpisw_rmax_new(win, RMAX_PLAIN);
    if (w && (size_root(w) || mpisw_rmax_insert(w))) {
      mpisw_rmax_destroy(w);
      w = NULL;
    }
  }
  pthread_mutex_unlock(&make);
  return w ? w->root : NULL;
}
