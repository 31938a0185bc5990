/* The paper's info keys: what a window was asked for and what it actually
 * does (MPI_Win_get_info shows the effective values). */
#include <string.h>

#include "rmax/keys.h"
#include "rmax/rmax.h"
#include "win/info_keys.h"

/* The names of mpisw_rma_keys (src/core/hints.c), which parses them. */
#define KEY_SCOPE "mpi_win_scope"
#define KEY_ORDER "mpi_win_order"
#define KEY_ACC "mpi_assert_accumulate_intrinsic"

int mpisw_rmax_has_keys(MPI_Info info) {
  char v[64];
  return mpisw_info_get(info, KEY_SCOPE, v, sizeof v) || mpisw_info_get(info, KEY_ORDER, v, sizeof v) ||
         mpisw_info_get(info, KEY_ACC, v, sizeof v);
}

/* One key into *field when present and valid. Every call that hands info
 * to rmax checked it first (mpisw_rmax_keys_check, or the window module before
 * the window was made), so a bad value here is one no caller could report
 * an error for, and it changes nothing rather than reading as false. */
static void key_into(MPI_Info info, const char *key, int *field) {
  char v[MPI_MAX_INFO_VAL + 1];
  struct mpisw_error e;
  int x;
  if (mpisw_info_get(info, key, v, sizeof v) && !mpisw_rma_key_parse(key, v, &x, &e)) *field = x;
}

/* Only the keys present change k: a duplicate starts from its parent's. */
void mpisw_rmax_keys_from_info(MPI_Info info, struct rmax_keys *k) {
  key_into(info, KEY_SCOPE, &k->thread_scope);
  key_into(info, KEY_ORDER, &k->order);
  key_into(info, KEY_ACC, &k->acc_intrinsic);
}

int mpisw_rmax_keys_check(const char *routine, MPI_Win win, MPI_Info info) {
  struct mpisw_error e;
  if (!mpisw_info_rma_check(info, &e)) return MPI_SUCCESS;
  int code = mpisw_error_code(routine, &e);
  return win == MPI_WIN_NULL ? mpisw_raise_noobj(code) : mpisw_raise_win(win, code);
}

int mpisw_rmax_keys_set(const char *routine, struct rmax_win *w, MPI_Win win, MPI_Info info) {
  int rc = mpisw_rmax_keys_check(routine, win, info);
  if (rc == MPI_SUCCESS && w) mpisw_rmax_keys_apply(w, info);
  return rc;
}

/* A handle's keys changed after its root was made (a duplicate, a
 * memory-handle window, MPI_Win_set_info): an ordered handle needs its
 * root's epochs counted from now on. */
void mpisw_rmax_keys_apply(struct rmax_win *w, MPI_Info info) {
  mpisw_rmax_keys_from_info(info, &w->keys);
  if (w->keys.order) mpisw_rmax_epoch_watch(w->root);
}

/* A thread-scope flush needs per-thread completion inside the MPI (the
 * paper's Open MPI branch has per-thread UCX workers). Neither Debian MPI
 * offers it, and emulating it with per-thread windows would need a
 * collective at duplication time, which MPIX_Win_dup_with_info is not; so
 * flushes stay process-wide, which is correct (a superset), and the key
 * says so. */
int mpisw_rmax_thread_scope_supported(void) { return 0; }

void mpisw_rmax_keys_put(const struct rmax_win *w, MPI_Info info) {
  const struct rmax_keys *k = w ? &w->keys : NULL;
  int thread = k && k->thread_scope && mpisw_rmax_thread_scope_supported();
  PMPI_Info_set(info, KEY_SCOPE, thread ? "thread" : "process");
  /* ordering is honoured by flushing between operations to one target */
  PMPI_Info_set(info, KEY_ORDER, k && k->order ? "true" : "false");
  /* an assertion: ignoring it is always correct; it shows true only where
   * the window took the processor-atomic path (atomic.c), which a duplicate
   * shares with its parent whatever its own keys say */
  PMPI_Info_set(info, KEY_ACC, w && w->root && w->root->atomic ? "true" : "false");
}

/* A root made at window creation knows its epochs from the start. */
struct rmax_win *mpisw_rmax_track_new(MPI_Win win, MPI_Info info, int counting) {
  struct rmax_win *w = mpisw_rmax_root_of(win);
  if (!w) return NULL;
  mpisw_rmax_keys_from_info(info, &w->keys);
  /* processor atomics check for a lock epoch with one load: count them */
  int atomic = mpisw_rmax_atomic_setup(w, info);
  mpisw_rmax_epoch_init(w, counting || w->keys.order || atomic);
  return w;
}
