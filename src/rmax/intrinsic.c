/* MPIX_Win_op_intrinsic (paper, section 2.3): are these accumulate
 * operations done by hardware atomics intrinsic to the origin, without a
 * lock or the target's CPU? The answer must be honest:
 *  - The MPIs below have no such path. MPICH 4.0 ch4: shared-memory windows
 *    apply accumulates under an inter-process mutex (software), other
 *    windows use active messages at the target; UCX atomics are used only
 *    with a network that has them. Open MPI 4.1 osc/ucx and osc/sm:
 *    accumulates and even single-element fetch-and-op take the window's
 *    accumulate lock around the operation (acc_single_intrinsic, which
 *    skips it, arrived in Open MPI 5).
 *  - mpisw's own path (atomic.c): on a node-shared storage window made with
 *    mpi_assert_accumulate_intrinsic=true and accumulate_ordering=none,
 *    sum, replace, no_op and cas on 4- and 8-byte integer types run as
 *    processor atomics in the calling process, for any count (each element
 *    is one atomic, which is all the atomicity MPI promises).
 * So the answer is 1 exactly there (duplicates of such a window included)
 * and 0 for every other window, operation or datatype. The call checks its
 * arguments either way, so a program written against it works unchanged
 * elsewhere. */
#include <string.h>
#include <strings.h>

#include "rmax/api.h"
#include "rmax/rmax.h"

static const char *const known_ops[] = {"max",  "min", "sum",  "prod",    "land",  "band",
                                        "lor",  "bor", "lxor", "bxor",    "maxloc", "minloc",
                                        "replace", "no_op", "cas", NULL};
/* what atomic.c does with processor atomics */
static const char *const atomic_ops[] = {"sum", "replace", "no_op", "cas", NULL};

static int in(const char *const *list, const char *op, size_t len) {
  for (int i = 0; list[i]; i++)
    if (strlen(list[i]) == len && !strncasecmp(list[i], op, len)) return 1;
  return 0;
}

int mpisw_rmax_op_intrinsic(MPI_Win win, const char *ops, int max_count, MPI_Datatype datatype,
                      int *flag) {
  static const char *routine = "MPIX_Win_op_intrinsic";
  if (!ops || !flag) return mpisw_rmax_error(routine, win, "ops or flag is NULL");
  if (max_count < 0) return mpisw_rmax_error(routine, win, "max_count %d is negative", max_count);
  if (datatype == MPI_DATATYPE_NULL) return mpisw_rmax_error(routine, win, "datatype is MPI_DATATYPE_NULL");
  const char *p = ops;
  int n = 0, all_atomic = 1;
  while (*p) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    while (len && (*p == ' ')) p++, len--;
    while (len && p[len - 1] == ' ') len--;
    if (!in(known_ops, p, len))
      return mpisw_rmax_error(routine, win, "unknown operation \"%.*s\" in \"%s\" (use sum, replace, cas, ...)",
                        (int)len, p, ops);
    all_atomic = all_atomic && in(atomic_ops, p, len);
    n++;
    if (!e) break;
    p = e + 1;
  }
  if (n == 0) return mpisw_rmax_error(routine, win, "ops is empty");
  /* max_count does not matter: every count is element-wise atomic there */
  *flag = mpisw_rmax_atomic_intrinsic(win, all_atomic, datatype);
  return MPI_SUCCESS;
}
