/* Intrinsic accumulates: MPI_Accumulate, MPI_Get_accumulate (and their
 * request forms), MPI_Fetch_and_op and MPI_Compare_and_swap of sum,
 * replace, no_op and cas on 4- and 8-byte integers, done by the calling
 * process with processor atomics instead of the MPI's locked software path.
 *
 * Where: storage windows on the MPI's node-shared window
 * (win/node_shared.c), where every process maps every rank's file over that
 * rank's segment, so any rank's part is ordinary memory here. When: the
 * window was made with mpi_assert_accumulate_intrinsic=true (the user
 * promises to issue only operations MPIX_Win_op_intrinsic calls intrinsic,
 * so the MPI's own accumulates never touch the same locations) and
 * accumulate_ordering=none (no order between accumulates to keep, so an
 * operation may complete at once, before later ones and before the flush).
 * Both are read once at creation: switching later could race with the
 * other processes' operations in flight.
 *
 * Memory order: __ATOMIC_SEQ_CST. Each operation completes when the call
 * returns, and the MPI's flush, unlock or fence after it may be no fence at
 * all on the shared-memory path (Open MPI's osc/sm flush is empty); a
 * sequentially consistent operation is visible to every process before any
 * later access of this thread, and orders the user's own plain loads and
 * stores around it. On x86-64 read-modify-writes are locked instructions
 * (full barriers) either way; only the store of a replace without a result
 * costs an xchg instead of a mov.
 *
 * What the MPI would refuse is refused here too: a target beyond the rank's
 * part (MPI_ERR_RMA_RANGE, not a fault), and outside an access epoch the MPI
 * itself is asked (a zero-count MPI_Get to the target), since epochs opened
 * by fence or start are not tracked here; in a lock or lock_all epoch that
 * check is one load. Anything else not taken here (another op or datatype,
 * origin and target types differing, a derived type, a displacement not a
 * multiple of the element size, MPI_PROC_NULL, a rank out of the group)
 * goes on to the MPI, which handles or refuses it as before. */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rmax/rmax.h"

/* ---- datatypes: the predefined integer types of 4 or 8 bytes ---- */
#define MAX_TYPES 16
static struct {
  MPI_Datatype t;
  int size;
} types[MAX_TYPES];
static int ntypes;
static pthread_once_t types_once = PTHREAD_ONCE_INIT;

static void find_types(void) {
  /* handles are not constant expressions in Open MPI: compared at run time */
  MPI_Datatype cand[] = {MPI_INT,      MPI_UNSIGNED, MPI_LONG,      MPI_UNSIGNED_LONG,
                         MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG,       MPI_INT32_T,
                         MPI_UINT32_T, MPI_INT64_T,  MPI_UINT64_T,  MPI_AINT,
                         MPI_OFFSET,   MPI_COUNT};
  for (size_t i = 0; i < sizeof cand / sizeof cand[0] && ntypes < MAX_TYPES; i++) {
    int size = 0;
    if (cand[i] == MPI_DATATYPE_NULL || PMPI_Type_size(cand[i], &size) != MPI_SUCCESS) continue;
    if (size == 4 || size == 8) {
      types[ntypes].t = cand[i];
      types[ntypes++].size = size;
    }
  }
}

/* 4 or 8 for a datatype taken here, else 0. */
static int type_size(MPI_Datatype dt) {
  pthread_once(&types_once, find_types);
  for (int i = 0; i < ntypes; i++)
    if (types[i].t == dt) return types[i].size;
  return 0;
}

enum { OP_SUM, OP_REPLACE, OP_NOOP };

static int op_kind(MPI_Op op) {
  if (op == MPI_SUM) return OP_SUM;
  if (op == MPI_REPLACE) return OP_REPLACE;
  if (op == MPI_NO_OP) return OP_NOOP;
  return -1;
}

/* ---- setup ---- */
static int ordering_none(MPI_Info info) {
  char v[64];
  if (!mpisw_info_get(info, "accumulate_ordering", v, sizeof v)) return 0;
  char *s = v, *e = v + strlen(v);
  while (*s == ' ') s++;
  while (e > s && e[-1] == ' ') e--;
  return e - s == 4 && !strncasecmp(s, "none", 4);
}

int mpisw_rmax_atomic_setup(struct rmax_win *root, MPI_Info info) {
  if (root->kind != RMAX_PLAIN || !root->shift || !root->keys.acc_intrinsic ||
      info == MPI_INFO_NULL || !ordering_none(info))
    return 0;
  int n = root->nranks;
  root->seg_addr = calloc((size_t)n, sizeof *root->seg_addr);
  root->seg_bytes = calloc((size_t)n, sizeof *root->seg_bytes);
  if (!root->seg_addr || !root->seg_bytes) return 0;
  for (int r = 0; r < n; r++) {
    void *a = NULL;
    if (!mpisw_win_node_segment(root->handle, r, &a, &root->seg_bytes[r])) return 0;
    root->seg_addr[r] = a;
  }
  __atomic_store_n(&root->atomic, 1, __ATOMIC_RELEASE);
  return 1;
}

int mpisw_rmax_atomic_intrinsic(MPI_Win win, int ops_atomic, MPI_Datatype datatype) {
  if (!ops_atomic || !type_size(datatype)) return 0;
  struct rmax_win *w = mpisw_rmax_lookup(win);
  return w && w->kind != RMAX_MEMH && __atomic_load_n(&w->root->atomic, __ATOMIC_ACQUIRE);
}

/* ---- one call ---- */
static struct rmax_win *atomic_root(struct rmax_win *w) {
  if (!w || w->kind == RMAX_MEMH) return NULL;
  struct rmax_win *root = w->root;
  return __atomic_load_n(&root->atomic, __ATOMIC_ACQUIRE) ? root : NULL;
}

/* The MPI's own class and string ("target memory is not contained within
 * the window"): MPICH garbles the text of codes added under its predefined
 * classes, so no code of our own. */
static int range_error(struct rmax_win *w) {
  return mpisw_raise_win(w->handle, MPI_ERR_RMA_RANGE);
}

/* Where count elements of size bytes at (rank, disp) are in this process.
 * 1: *at set (NULL for count 0 at an empty part); 0: the call goes to the
 * MPI; -1: an error, raised, in *rc. */
static int locate(struct rmax_win *w, struct rmax_win *root, int rank,
                  MPI_Aint disp, MPI_Count count, int size, MPI_Datatype dt, char **at, int *rc) {
  if (rank < 0 || rank >= root->nranks || count < 0) return 0; /* MPI_PROC_NULL, MPI_ERR_RANK */
  const MPI_Aint *du = root->shift_du;
  if (!du || !root->shift) return 0;
  MPI_Aint bytes = root->seg_bytes[rank];
  /* disp * du[rank] + count * size <= bytes, without overflow */
  if (disp < 0 || count > bytes / size ||
      (du[rank] > 0 && disp > (bytes - (MPI_Aint)count * size) / du[rank])) {
    *rc = range_error(w);
    return -1;
  }
  MPI_Aint off = disp * du[rank];
  char *p = root->seg_addr[rank] ? root->seg_addr[rank] + off : NULL;
  if (count > 0 && (!p || (uintptr_t)p % (uintptr_t)size)) return 0; /* unaligned */
  /* an access epoch: one load in a lock or lock_all epoch; otherwise the
   * MPI decides (fence and start epochs are not tracked here) */
  if (mpisw_rmax_in_passive_epoch(root, rank) <= 0) {
    char none[8];
    int e = mpisw_next.Get(none, 0, dt, rank, root->shift[rank] + off, 0, dt, root->handle);
    if (e != MPI_SUCCESS) {
      *rc = e;
      return -1;
    }
  }
  *at = p;
  return 1;
}

/* Element-wise: at[i] op= src[i], old values to res (may be NULL). Origin
 * and result buffers need no alignment: copied through locals. */
#define APPLY(T)                                                               \
  static void apply_##T(T *at, const char *src, char *res, int kind, MPI_Count n) { \
    for (MPI_Count i = 0; i < n; i++) {                                        \
      T v = 0, old;                                                            \
      if (kind != OP_NOOP) memcpy(&v, src + i * sizeof v, sizeof v);           \
      if (kind == OP_SUM) old = __atomic_fetch_add(&at[i], v, __ATOMIC_SEQ_CST); \
      else if (kind == OP_NOOP) old = __atomic_load_n(&at[i], __ATOMIC_SEQ_CST); \
      else if (res) old = __atomic_exchange_n(&at[i], v, __ATOMIC_SEQ_CST);   \
      else {                                                                   \
        __atomic_store_n(&at[i], v, __ATOMIC_SEQ_CST);                         \
        continue;                                                              \
      }                                                                        \
      if (res) memcpy(res + i * sizeof old, &old, sizeof old);                 \
    }                                                                          \
  }
APPLY(uint32_t)
APPLY(uint64_t)

/* On failure the builtin leaves the current value in expect: either way
 * expect ends up holding the old value, which is the result. */
#define CAS(T)                                                                     \
  static void cas_##T(T *at, const void *oa, const void *ca, void *ra) {            \
    T expect, desired;                                                             \
    memcpy(&expect, ca, sizeof expect);                                            \
    memcpy(&desired, oa, sizeof desired);                                          \
    __atomic_compare_exchange_n(at, &expect, desired, 0, __ATOMIC_SEQ_CST,         \
                                __ATOMIC_SEQ_CST);                                 \
    memcpy(ra, &expect, sizeof expect);                                            \
  }
CAS(uint32_t)
CAS(uint64_t)

static void apply(char *at, int size, const void *src, void *res, int kind, MPI_Count n) {
  /* unsigned: the sum wraps as the MPI's signed sum does in two's complement */
  if (size == 4) apply_uint32_t((uint32_t *)(void *)at, src, res, kind, n);
  else apply_uint64_t((uint64_t *)(void *)at, src, res, kind, n);
}

int mpisw_rmax_atomic_accumulate(struct rmax_win *w, const void *oa, MPI_Count oc, MPI_Datatype odt,
                           int tr, MPI_Aint td, MPI_Count tc, MPI_Datatype tdt, MPI_Op op,
                           int *rc) {
  struct rmax_win *root = atomic_root(w);
  if (!root) return 0;
  int size = type_size(tdt), kind = op_kind(op);
  /* MPI_NO_OP is not an operation of MPI_Accumulate: the MPI refuses it */
  if (!size || odt != tdt || oc != tc || (kind != OP_SUM && kind != OP_REPLACE)) return 0;
  char *at;
  int found = locate(w, root, tr, td, tc, size, tdt, &at, rc);
  if (found <= 0) return found < 0;
  if (tc > 0) apply(at, size, oa, NULL, kind, tc);
  *rc = MPI_SUCCESS;
  return 1;
}

int mpisw_rmax_atomic_get_accumulate(struct rmax_win *w, const void *oa, MPI_Count oc,
                               MPI_Datatype odt, void *ra, MPI_Count rcount, MPI_Datatype rdt,
                               int tr, MPI_Aint td, MPI_Count tc, MPI_Datatype tdt, MPI_Op op,
                               int *rc) {
  struct rmax_win *root = atomic_root(w);
  if (!root) return 0;
  int size = type_size(tdt), kind = op_kind(op);
  /* the origin buffer is ignored for MPI_NO_OP */
  if (!size || kind < 0 || rdt != tdt || rcount != tc ||
      (kind != OP_NOOP && (odt != tdt || oc != tc)))
    return 0;
  char *at;
  int found = locate(w, root, tr, td, tc, size, tdt, &at, rc);
  if (found <= 0) return found < 0;
  if (tc > 0) apply(at, size, oa, ra, kind, tc);
  *rc = MPI_SUCCESS;
  return 1;
}

int mpisw_rmax_atomic_fetch_and_op(struct rmax_win *w, const void *oa, void *ra, MPI_Datatype dt,
                             int tr, MPI_Aint td, MPI_Op op, int *rc) {
  struct rmax_win *root = atomic_root(w);
  if (!root) return 0;
  int size = type_size(dt), kind = op_kind(op);
  if (!size || kind < 0) return 0;
  char *at;
  int found = locate(w, root, tr, td, 1, size, dt, &at, rc);
  if (found <= 0) return found < 0;
  apply(at, size, oa, ra, kind, 1);
  *rc = MPI_SUCCESS;
  return 1;
}

int mpisw_rmax_atomic_compare_and_swap(struct rmax_win *w, const void *oa, const void *ca, void *ra,
                                 MPI_Datatype dt, int tr, MPI_Aint td, int *rc) {
  struct rmax_win *root = atomic_root(w);
  if (!root) return 0;
  int size = type_size(dt);
  if (!size) return 0;
  char *at;
  int found = locate(w, root, tr, td, 1, size, dt, &at, rc);
  if (found <= 0) return found < 0;
  if (size == 4) cas_uint32_t((uint32_t *)(void *)at, oa, ca, ra);
  else cas_uint64_t((uint64_t *)(void *)at, oa, ca, ra);
  *rc = MPI_SUCCESS;
  return 1;
}

/* Request forms: the operation is complete at the target on return, so the
 * request is complete too. */
int mpisw_rmax_atomic_raccumulate(struct rmax_win *w, const void *oa, MPI_Count oc, MPI_Datatype odt,
                            int tr, MPI_Aint td, MPI_Count tc, MPI_Datatype tdt, MPI_Op op,
                            MPI_Request *req, int *rc) {
  if (!mpisw_rmax_atomic_accumulate(w, oa, oc, odt, tr, td, tc, tdt, op, rc)) return 0;
  if (*rc == MPI_SUCCESS) *rc = mpisw_rmax_request_done(req);
  return 1;
}

int mpisw_rmax_atomic_rget_accumulate(struct rmax_win *w, const void *oa, MPI_Count oc,
                                MPI_Datatype odt, void *ra, MPI_Count rcount, MPI_Datatype rdt,
                                int tr, MPI_Aint td, MPI_Count tc, MPI_Datatype tdt, MPI_Op op,
                                MPI_Request *req, int *rc) {
  if (!mpisw_rmax_atomic_get_accumulate(w, oa, oc, odt, ra, rcount, rdt, tr, td, tc, tdt, op, rc))
    return 0;
  if (*rc == MPI_SUCCESS) *rc = mpisw_rmax_request_done(req);
  return 1;
}
