/* One-sided communication. Each call's target is translated by the RMA
 * extensions (one load when they track no window: src/rmax/route.c); a put
 * into this process's own pager window first tells the pager which blocks
 * it overwrites whole; an accumulate on a window that asked for intrinsic
 * operations may be done here with processor atomics (src/rmax/atomic.c);
 * else the MPI's call, in the form the user called. */
#include "dispatch/dispatch.h"
#include "process/process.h"
#include "rmax/api.h"
#include "rmax/rmax.h"
#include "win/internal.h"
#include "win/remote.h"

/* The translated target, or an MPI error already raised on the window. */
#define ROUTE(routine, large)                                              \
  do {                                                                     \
    if (!mpisw_disabled) {                                                 \
      int rc_ = rmax_target(large ? routine "_c" : routine, &win, &tr, &td); \
      if (rc_ != MPI_SUCCESS) return rc_;                                  \
    }                                                                      \
  } while (0)

/* An accumulate: done with processor atomics when the window took that
 * path (returns the call's result), else translated like ROUTE, with one
 * lookup of the window for both. Windows rmax does not track cost the one
 * load. */
#define ATOMIC_OR_ROUTE(routine, large, fn, ...)                              \
  do {                                                                        \
    if (!mpisw_disabled && mpisw_rmax_live) {                                 \
      struct rmax_win *w_ = mpisw_rmax_lookup(win);                           \
      int rc_;                                                                \
      if (w_ && fn(w_, __VA_ARGS__, &rc_)) return rc_;                        \
      rc_ = mpisw_rmax_target_w(large ? routine "_c" : routine, w_, &win, &tr, &td); \
      if (rc_ != MPI_SUCCESS) return rc_;                                     \
    }                                                                         \
  } while (0)

/* Blocks a put covers whole are zero-filled instead of read
 * (src/win/pager_glue.c). */
static inline void put_hint(MPI_Count oc, MPI_Datatype odt, MPI_Win win, int tr, MPI_Aint td,
                            MPI_Count tc, MPI_Datatype tdt) {
  if (mpisw_pager_windows && !mpisw_disabled) mpisw_pager_put_hint(oc, odt, win, tr, td, tc, tdt);
}

/* Bytes written into another rank's storage, for its remote sync
 * (src/win/remote_track.c); one load while no storage window lives. */
static inline void note(MPI_Win win, int tr, MPI_Aint td, MPI_Count tc, MPI_Datatype tdt) {
  if (mpisw_remote_windows && !mpisw_disabled) mpisw_remote_note(win, tr, td, tc, tdt);
}

int mpisw_do_Put(const void *oa, MPI_Count oc, MPI_Datatype odt, int tr, MPI_Aint td,
                 MPI_Count tc, MPI_Datatype tdt, MPI_Win win, int large) {
  ROUTE("MPI_Put", large);
  put_hint(oc, odt, win, tr, td, tc, tdt);
  note(win, tr, td, tc, tdt);
  return mpisw_mpi_Put(oa, oc, odt, tr, td, tc, tdt, win, large);
}

int mpisw_do_Rput(const void *oa, MPI_Count oc, MPI_Datatype odt, int tr, MPI_Aint td,
                  MPI_Count tc, MPI_Datatype tdt, MPI_Win win, MPI_Request *req, int large) {
  ROUTE("MPI_Rput", large);
  put_hint(oc, odt, win, tr, td, tc, tdt);
  note(win, tr, td, tc, tdt);
  return mpisw_mpi_Rput(oa, oc, odt, tr, td, tc, tdt, win, req, large);
}

int mpisw_do_Get(void *oa, MPI_Count oc, MPI_Datatype odt, int tr, MPI_Aint td, MPI_Count tc,
                 MPI_Datatype tdt, MPI_Win win, int large) {
  ROUTE("MPI_Get", large);
  return mpisw_mpi_Get(oa, oc, odt, tr, td, tc, tdt, win, large);
}

int mpisw_do_Rget(void *oa, MPI_Count oc, MPI_Datatype odt, int tr, MPI_Aint td, MPI_Count tc,
                  MPI_Datatype tdt, MPI_Win win, MPI_Request *req, int large) {
  ROUTE("MPI_Rget", large);
  return mpisw_mpi_Rget(oa, oc, odt, tr, td, tc, tdt, win, req, large);
}

int mpisw_do_Accumulate(const void *oa, MPI_Count oc, MPI_Datatype odt, int tr, MPI_Aint td,
                        MPI_Count tc, MPI_Datatype tdt, MPI_Op o, MPI_Win win, int large) {
  ATOMIC_OR_ROUTE("MPI_Accumulate", large, mpisw_rmax_atomic_accumulate,
                  oa, oc, odt, tr, td, tc, tdt, o);
  note(win, tr, td, tc, tdt);
  return mpisw_mpi_Accumulate(oa, oc, odt, tr, td, tc, tdt, o, win, large);
}

int mpisw_do_Raccumulate(const void *oa, MPI_Count oc, MPI_Datatype odt, int tr, MPI_Aint td,
                         MPI_Count tc, MPI_Datatype tdt, MPI_Op o, MPI_Win win,
                         MPI_Request *req, int large) {
  ATOMIC_OR_ROUTE("MPI_Raccumulate", large, mpisw_rmax_atomic_raccumulate,
                  oa, oc, odt, tr, td, tc, tdt, o, req);
  note(win, tr, td, tc, tdt);
  return mpisw_mpi_Raccumulate(oa, oc, odt, tr, td, tc, tdt, o, win, req, large);
}

int mpisw_do_Get_accumulate(const void *oa, MPI_Count oc, MPI_Datatype odt, void *ra,
                            MPI_Count rc, MPI_Datatype rdt, int tr, MPI_Aint td, MPI_Count tc,
                            MPI_Datatype tdt, MPI_Op o, MPI_Win win, int large) {
  ATOMIC_OR_ROUTE("MPI_Get_accumulate", large, mpisw_rmax_atomic_get_accumulate,
                  oa, oc, odt, ra, rc, rdt, tr, td, tc, tdt, o);
  note(win, tr, td, tc, tdt);
  return mpisw_mpi_Get_accumulate(oa, oc, odt, ra, rc, rdt, tr, td, tc, tdt, o, win, large);
}

int mpisw_do_Rget_accumulate(const void *oa, MPI_Count oc, MPI_Datatype odt, void *ra,
                             MPI_Count rc, MPI_Datatype rdt, int tr, MPI_Aint td, MPI_Count tc,
                             MPI_Datatype tdt, MPI_Op o, MPI_Win win, MPI_Request *req,
                             int large) {
  ATOMIC_OR_ROUTE("MPI_Rget_accumulate", large, mpisw_rmax_atomic_rget_accumulate,
                  oa, oc, odt, ra, rc, rdt, tr, td, tc, tdt, o, req);
  note(win, tr, td, tc, tdt);
  return mpisw_mpi_Rget_accumulate(oa, oc, odt, ra, rc, rdt, tr, td, tc, tdt, o, win, req,
                                   large);
}

int mpisw_do_Fetch_and_op(const void *oa, void *ra, MPI_Datatype dt, int tr, MPI_Aint td,
                          MPI_Op o, MPI_Win win) {
  ATOMIC_OR_ROUTE("MPI_Fetch_and_op", 0, mpisw_rmax_atomic_fetch_and_op,
                  oa, ra, dt, tr, td, o);
  note(win, tr, td, 1, dt);
  return mpisw_next.Fetch_and_op(oa, ra, dt, tr, td, o, win);
}

int mpisw_do_Compare_and_swap(const void *oa, const void *ca, void *ra, MPI_Datatype dt, int tr,
                              MPI_Aint td, MPI_Win win) {
  ATOMIC_OR_ROUTE("MPI_Compare_and_swap", 0, mpisw_rmax_atomic_compare_and_swap,
                  oa, ca, ra, dt, tr, td);
  note(win, tr, td, 1, dt);
  return mpisw_next.Compare_and_swap(oa, ca, ra, dt, tr, td, win);
}
