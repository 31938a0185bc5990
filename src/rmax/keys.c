/* The paper's info keys: what a window was asked for and what it actually
 * does (MPI_Win_get_info shows the effective values). */
#include <string.h>
#include <strings.h>

#include "rmax/rmax.h"

#define KEY_SCOPE "mpi_win_scope"
#define KEY_ORDER "mpi_win_order"
#define KEY_ACC "mpi_assert_accumulate_intrinsic"

/* Anything but true/1 (junk included) reads as false, as before. */
static int is_true(const char *v) {
  int b = 0;
  return mpisw_parse_bool(v, &b) == 0 && b;
}

int rmax_has_keys(MPI_Info info) {
  char v[64];
  return mpisw_info_get(info, KEY_SCOPE, v, sizeof v) || mpisw_info_get(info, KEY_ORDER, v, sizeof v) ||
         mpisw_info_get(info, KEY_ACC, v, sizeof v);
}

/* Only the keys present change k: a duplicate starts from its parent's. */
void rmax_keys_from_info(MPI_Info info, struct rmax_keys *k) {
  char v[64];
  if (mpisw_info_get(info, KEY_SCOPE, v, sizeof v)) {
    if (!strcasecmp(v, "thread")) k->thread_scope = 1;
    else if (!strcasecmp(v, "process")) k->thread_scope = 0;
  }
  if (mpisw_info_get(info, KEY_ORDER, v, sizeof v)) k->order = is_true(v);
  if (mpisw_info_get(info, KEY_ACC, v, sizeof v)) k->acc_intrinsic = is_true(v);
}

/* A handle's keys changed after its root was made (a duplicate, a
 * memory-handle window, MPI_Win_set_info): an ordered handle needs its
 * root's epochs counted from now on. */
void rmax_keys_apply(struct rmax_win *w, MPI_Info info) {
  rmax_keys_from_info(info, &w->keys);
  if (w->keys.order) rmax_epoch_watch(w->root);
}

/* A thread-scope flush needs per-thread completion inside the MPI (the
 * paper's Open MPI branch has per-thread UCX workers). Neither Debian MPI
 * offers it, and emulating it with per-thread windows would need a
 * collective at duplication time, which MPIX_Win_dup_with_info is not; so
 * flushes stay process-wide, which is correct (a superset), and the key
 * says so. */
int rmax_thread_scope_supported(void) { return 0; }

void rmax_keys_put(const struct rmax_win *w, MPI_Info info) {
  const struct rmax_keys *k = w ? &w->keys : NULL;
  int thread = k && k->thread_scope && rmax_thread_scope_supported();
  PMPI_Info_set(info, KEY_SCOPE, thread ? "thread" : "process");
  /* ordering is honoured by flushing between operations to one target */
  PMPI_Info_set(info, KEY_ORDER, k && k->order ? "true" : "false");
  /* an assertion: ignoring it is always correct; it shows true only where
   * the window took the processor-atomic path (atomic.c), which a duplicate
   * shares with its parent whatever its own keys say */
  PMPI_Info_set(info, KEY_ACC, w && w->root && w->root->atomic ? "true" : "false");
}
