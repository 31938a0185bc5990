/* The aggregator assignment strategies (see cb_assign.h). */
#include "core/cb_assign.h"

#include <stdlib.h>
#include <string.h>

#include "core/lap.h"

/* A problem the strategies can work on: matrices present, candidates
 * distinct and in range, at least one per domain (when need_cand). */
static int check_problem(const struct mpisw_cb_problem *pb, int need_cand) {
  if (!pb) return MPISW_LAP_EINVAL;
  if (pb->nprocs && pb->ndomains && !pb->bytes) return MPISW_LAP_EINVAL;
  if (pb->ncand && !pb->cand) return MPISW_LAP_EINVAL;
  if (need_cand && pb->ncand < pb->ndomains) return MPISW_LAP_EINVAL;
  if (pb->ncand > pb->nprocs) return MPISW_LAP_EINVAL;
  unsigned char *seen = calloc(pb->nprocs ? pb->nprocs : 1, 1);
  if (!seen) return MPISW_LAP_ENOMEM;
  int rc = MPISW_LAP_OK;
  for (size_t k = 0; k < pb->ncand && rc == MPISW_LAP_OK; k++) {
    long p = pb->cand[k];
    if (p < 0 || (size_t)p >= pb->nprocs || seen[p])
      rc = MPISW_LAP_EINVAL;
    else
      seen[p] = 1;
  }
  free(seen);
  return rc;
}

int mpisw_cb_otp(const struct mpisw_cb_problem *pb, long *agg) {
  int rc = check_problem(pb, 1);
  if (rc) return rc;
  for (size_t d = 0; d < pb->ndomains; d++) agg[d] = pb->cand[d];
  return MPISW_LAP_OK;
}

/* One aggregator a node: the LAP on nodes x domains, a node's cost for d
 * the least of its rows' (best[] keeps which row), then that row. Exact:
 * with one domain a node at most, the rows of a node never compete, so
 * each domain takes its node's best row. EINFEASIBLE when fewer nodes
 * than domains have a row that may aggregate. */
static int assign_per_node(const struct mpisw_cb_problem *pb, const double *cost,
                           const long *rows, size_t nrows, long *col_row) {
  size_t m = pb->ndomains, H = pb->nnodes;
  double *ncost = malloc(sizeof *ncost * H * m);
  size_t *best = malloc(sizeof *best * H * m);
  long *col_node = malloc(sizeof *col_node * m);
  int rc = MPISW_LAP_ENOMEM;
  if (ncost && best && col_node) {
    for (size_t i = 0; i < H * m; i++) ncost[i] = MPISW_LAP_FORBIDDEN, best[i] = 0;
    rc = MPISW_LAP_OK;
    for (size_t r = 0; r < nrows && rc == MPISW_LAP_OK; r++) {
      int h = pb->node_of[rows ? rows[r] : (long)r];
      if (h < 0 || (size_t)h >= H) {
        rc = MPISW_LAP_EINVAL;
        break;
      }
      for (size_t d = 0; d < m; d++) /* first of equals: the lowest row */
        if (cost[r * m + d] < ncost[(size_t)h * m + d]) {
          ncost[(size_t)h * m + d] = cost[r * m + d];
          best[(size_t)h * m + d] = r;
        }
    }
    if (rc == MPISW_LAP_OK) rc = mpisw_lap_solve(ncost, H, m, col_node, NULL, NULL);
    if (rc == MPISW_LAP_OK)
      for (size_t d = 0; d < m; d++) col_row[d] = (long)best[(size_t)col_node[d] * m + d];
  }
  free(ncost);
  free(best);
  free(col_node);
  return rc;
}

/* Solves the LAP on cost (nrows x m, one row per process in rows[]) and
 * maps the chosen rows back to processes; under the problem's node rule
 * when it has one and it applies (no more domains than nodes, and enough
 * nodes with a row that may aggregate). */
static int assign_rows(const struct mpisw_cb_problem *pb, const double *cost, const long *rows,
                       size_t nrows, long *agg) {
  long *col_row = malloc(sizeof *col_row * (pb->ndomains ? pb->ndomains : 1));
  if (!col_row) return MPISW_LAP_ENOMEM;
  int rc = MPISW_LAP_EINFEASIBLE;
  if (pb->node_of && pb->ndomains <= pb->nnodes)
    rc = assign_per_node(pb, cost, rows, nrows, col_row);
  if (rc == MPISW_LAP_EINFEASIBLE)
    rc = mpisw_lap_solve(cost, nrows, pb->ndomains, col_row, NULL, NULL);
  if (rc == MPISW_LAP_OK)
    for (size_t d = 0; d < pb->ndomains; d++)
      agg[d] = rows ? rows[col_row[d]] : col_row[d];
  free(col_row);
  return rc;
}

int mpisw_cb_latp(const struct mpisw_cb_problem *pb, long *agg) {
  int rc = check_problem(pb, 1);
  if (rc) return rc;
  size_t m = pb->ndomains, nc = pb->ncand;
  if (m == 0) return MPISW_LAP_OK;
  double *total = calloc(m, sizeof *total);
  double *cost = malloc(sizeof *cost * nc * m);
  if (!total || !cost) {
    free(total);
    free(cost);
    return MPISW_LAP_ENOMEM;
  }
  for (size_t q = 0; q < pb->nprocs; q++)
    for (size_t d = 0; d < m; d++) total[d] += pb->bytes[q * m + d];
  /* the bytes of d that are not local to the candidate: they must move */
  for (size_t k = 0; k < nc; k++) {
    const double *own = pb->bytes + (size_t)pb->cand[k] * m;
    for (size_t d = 0; d < m; d++) cost[k * m + d] = total[d] - own[d];
  }
  rc = assign_rows(pb, cost, pb->cand, nc, agg);
  free(total);
  free(cost);
  return rc;
}

void mpisw_cb_workload(const struct mpisw_cb_problem *pb, const long *rows, size_t nrows,
                       double *out) {
  size_t m = pb->ndomains, P = pb->nprocs;
  memset(out, 0, sizeof *out * nrows * m);
  for (size_t r = 0; r < nrows; r++) {
    const double *drow = pb->dist + (size_t)(rows ? rows[r] : (long)r) * P;
    double *w = out + r * m;
    /* row r of D times C, C read row by row in memory order */
    for (size_t q = 0; q < P; q++) {
      double h = drow[q];
      if (h == 0) continue;
      const double *c = pb->bytes + q * m;
      for (size_t d = 0; d < m; d++) w[d] += h * c[d];
    }
  }
}

int mpisw_cb_tatp(const struct mpisw_cb_problem *pb, int any_process,
                  const unsigned char *may_aggregate, long *agg) {
  int rc = check_problem(pb, !any_process);
  if (rc) return rc;
  if (!pb->dist && pb->nprocs) return MPISW_LAP_EINVAL;
  size_t m = pb->ndomains;
  if (m == 0) return MPISW_LAP_OK;
  const long *rows = any_process ? NULL : pb->cand;
  size_t nrows = any_process ? pb->nprocs : pb->ncand;
  if (nrows < m) return MPISW_LAP_EINVAL;
  double *w = malloc(sizeof *w * nrows * m);
  if (!w) return MPISW_LAP_ENOMEM;
  mpisw_cb_workload(pb, rows, nrows, w);
  if (any_process && may_aggregate)
    for (size_t p = 0; p < nrows; p++)
      if (!may_aggregate[p])
        for (size_t d = 0; d < m; d++) w[p * m + d] = MPISW_LAP_FORBIDDEN;
  rc = assign_rows(pb, w, rows, nrows, agg);
  free(w);
  return rc;
}

double mpisw_cb_hopbytes(const struct mpisw_cb_problem *pb, const long *agg) {
  size_t m = pb->ndomains, P = pb->nprocs;
  double sum = 0;
  for (size_t d = 0; d < m; d++) {
    const double *drow = pb->dist + (size_t)agg[d] * P;
    for (size_t q = 0; q < P; q++) sum += drow[q] * pb->bytes[q * m + d];
  }
  return sum;
}

double mpisw_cb_moved_bytes(const struct mpisw_cb_problem *pb, const long *agg) {
  size_t m = pb->ndomains, P = pb->nprocs;
  double sum = 0;
  for (size_t d = 0; d < m; d++)
    for (size_t q = 0; q < P; q++)
      if ((long)q != agg[d]) sum += pb->bytes[q * m + d];
  return sum;
}

void mpisw_cb_auto_defaults(struct mpisw_cb_auto_model *m) {
  m->net_bw = 1e9;
  m->agg_bw = 5e8;
  m->fs_bw = 0;
  m->agg_cost = 1e-3;
}

double mpisw_cb_auto_cost(const struct mpisw_cb_auto_model *m, size_t k, double h, double b) {
  double io_bw = (double)k * m->agg_bw;
  if (m->fs_bw > 0 && io_bw > m->fs_bw) io_bw = m->fs_bw;
  return h / m->net_bw + (b > 0 ? b / io_bw : 0) + (double)k * m->agg_cost;
}

int mpisw_cb_auto(const struct mpisw_cb_auto_model *m, size_t kmax, double b,
                  mpisw_cb_problem_fn problem, void *ctx, int any_process,
                  const unsigned char *may_aggregate, size_t *best_k, double *hop,
                  double *cost) {
  if (!m || !problem || !best_k || kmax == 0 || !(m->net_bw > 0) || !(m->agg_bw > 0) ||
      !(m->fs_bw >= 0) || !(m->agg_cost >= 0))
    return MPISW_LAP_EINVAL;
  long *agg = malloc(sizeof *agg * kmax);
  if (!agg) return MPISW_LAP_ENOMEM;
  int rc = MPISW_LAP_OK;
  double best = 0;
  *best_k = 0;
  for (size_t k = 1; k <= kmax; k++) {
    struct mpisw_cb_problem pb;
    rc = problem(k, ctx, &pb);
    if (rc == MPISW_LAP_OK && pb.ndomains != k) rc = MPISW_LAP_EINVAL;
    if (rc == MPISW_LAP_OK) rc = mpisw_cb_tatp(&pb, any_process, may_aggregate, agg);
    if (rc != MPISW_LAP_OK) break;
    double h = mpisw_cb_hopbytes(&pb, agg);
    double t = mpisw_cb_auto_cost(m, k, h, b);
    if (hop) hop[k - 1] = h;
    if (cost) cost[k - 1] = t;
    if (*best_k == 0 || t < best) {
      best = t;
      *best_k = k;
    }
  }
  free(agg);
  return rc;
}
