/* What the program has not freed, for MPISW_REPORT's leak line at
 * MPI_Finalize (as memory checkers report): every window the program made
 * through an interposed call and every MPI_Alloc_mem range, with its bytes,
 * until it is freed. Kept only with MPISW_REPORT=1; a short list, since
 * programs hold few windows and ranges at a time. */
#include <stdlib.h>
#include <string.h>

#include "process/process.h"

struct open_item {
  int what;          /* MPISW_OPEN_WIN or MPISW_OPEN_MEM */
  uintptr_t key;     /* the MPI_Win handle's bits, or the range's base */
  double bytes;
  struct open_item *next;
};

static struct open_item *items;

static uintptr_t win_key(MPI_Win win) {
  uintptr_t k = 0; /* an int in MPICH, a pointer in Open MPI */
  memcpy(&k, &win, sizeof win < sizeof k ? sizeof win : sizeof k);
  return k;
}

static void add(int what, uintptr_t key, double bytes) {
  if (!mpisw_report_enabled()) return;
  struct open_item *it = malloc(sizeof *it);
  if (!it) return; /* the report then misses one; never fail the call */
  it->what = what;
  it->key = key;
  it->bytes = bytes;
  pthread_mutex_lock(&mpisw_lock);
  it->next = items;
  items = it;
  pthread_mutex_unlock(&mpisw_lock);
}

static void drop(int what, uintptr_t key) {
  if (!mpisw_report_enabled()) return;
  struct open_item *gone = NULL;
  pthread_mutex_lock(&mpisw_lock);
  for (struct open_item **pp = &items; *pp; pp = &(*pp)->next)
    if ((*pp)->what == what && (*pp)->key == key) {
      gone = *pp;
      *pp = gone->next;
      break;
    }
  pthread_mutex_unlock(&mpisw_lock);
  free(gone);
}

void mpisw_open_win(MPI_Win win, MPI_Aint bytes) {
  add(MPISW_OPEN_WIN, win_key(win), bytes > 0 ? (double)bytes : 0);
}
void mpisw_closed_win(MPI_Win win) { drop(MPISW_OPEN_WIN, win_key(win)); }
void mpisw_open_mem(const void *base, MPI_Aint bytes) {
  add(MPISW_OPEN_MEM, (uintptr_t)base, bytes > 0 ? (double)bytes : 0);
}
void mpisw_closed_mem(const void *base) { drop(MPISW_OPEN_MEM, (uintptr_t)base); }

void mpisw_open_count(int what, long *count, double *bytes) {
  *count = 0;
  *bytes = 0;
  pthread_mutex_lock(&mpisw_lock);
  for (struct open_item *it = items; it; it = it->next)
    if (it->what == what) {
      (*count)++;
      *bytes += it->bytes;
    }
  pthread_mutex_unlock(&mpisw_lock);
}
