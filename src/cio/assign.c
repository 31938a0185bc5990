/* Stage 4: which rank aggregates which file domain (src/core/cb_assign.c on
 * C and the communicator's D), the hop-bytes every strategy would cost on
 * the same C, and the busiest link of the switch tree for the chosen one.
 *
 * Candidates. OTP takes ROMIO's order: the first rank of each node (nodes
 * in rank order), then the second of each, ...; domain d goes to the d-th.
 * LATP and TATP may choose any rank (the source document's example puts a
 * domain on a rank that is not the first of its node); each rank
 * aggregates one domain at most, and, with no more domains than nodes, each
 * node one at most (ROMIO's cb_config_list "*:1", core/cb_assign.h): TATP
 * over every rank would otherwise pile aggregators on the node that holds
 * most data and load its uplink with several domains. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cio/engine.h"
#include "core/cb_assign.h"
#include "core/lap.h"

/* ROMIO's order of aggregators: round robin over the nodes. */
static void romio_order(const struct mpisw_cio_topo *t, long *cand) {
  int n = 0;
  for (int round = 0; n < t->size; round++)
    for (int node = 0; node < t->nnodes; node++) {
      int seen = 0;
      for (int p = 0; p < t->size; p++)
        if (t->node_of[p] == node && seen++ == round) {
          cand[n++] = p;
          break;
        }
    }
}

static int solve(int strategy, const struct mpisw_cb_problem *pb, long *agg) {
  switch (strategy) {
  case CIO_OTP: return mpisw_cb_otp(pb, agg);
  case CIO_LATP: return mpisw_cb_latp(pb, agg);
  default: return mpisw_cb_tatp(pb, 1, NULL, agg);
  }
}

static uint64_t max_link_load(const struct mpisw_cio_topo *t, const struct cio_matrix *x,
                              const long *agg, int writing) {
  int H = t->nnodes, V = t->net.nverts;
  uint64_t *traffic = calloc((size_t)H * H, sizeof *traffic);
  uint64_t *up = calloc((size_t)V, sizeof *up), *down = calloc((size_t)V, sizeof *down);
  uint64_t top = 0;
  if (traffic && up && down) {
    for (int p = 0; p < x->P; p++)
      for (int d = 0; d < x->m; d++) {
        int a = t->node_of[agg[d]], q = t->node_of[p];
        uint64_t b = (uint64_t)x->C[(size_t)p * x->m + d];
        if (writing) traffic[(size_t)q * H + a] += b;
        else traffic[(size_t)a * H + q] += b;
      }
    top = mpisw_topo_link_loads(&t->net, traffic, up, down, NULL, NULL);
  }
  free(traffic);
  free(up);
  free(down);
  return top;
}

int mpisw_cio_assign(struct cio_file *f, const struct cio_matrix *x, int writing, int *agg,
                     struct cio_report *r, char *why, size_t whylen) {
  const struct mpisw_cio_topo *t = &f->topo->t;
  size_t P = (size_t)x->P, m = (size_t)x->m;
  long *romio = malloc(sizeof *romio * P), *all = malloc(sizeof *all * P);
  long *each = malloc(sizeof *each * m * CIO_NSTRAT);
  if (!romio || !all || !each) {
    free(romio), free(all), free(each);
    snprintf(why, whylen, "no memory for the assignment of %zu domains", m);
    return MPI_ERR_NO_MEM;
  }
  romio_order(t, romio);
  for (size_t p = 0; p < P; p++) all[p] = (long)p;
  struct mpisw_cb_problem pb = {P, m, x->C, t->D, NULL, 0, t->node_of, (size_t)t->nnodes};
  int rc = 0;
  for (int s = CIO_OTP; s < CIO_NSTRAT && !rc; s++) {
    pb.cand = s == CIO_OTP ? romio : all;
    pb.ncand = P;
    long *a = each + (size_t)s * m;
    rc = solve(s, &pb, a);
    if (!rc) r->hop[s] = mpisw_cb_hopbytes(&pb, a);
  }
  if (rc) {
    snprintf(why, whylen, "the assignment of %zu file domains failed: %s", m,
             mpisw_lap_strerror(rc));
    free(romio), free(all), free(each);
    return MPI_ERR_INTERN;
  }
  const long *chosen = each + (size_t)f->h.strategy * m;
  for (size_t d = 0; d < m; d++) agg[d] = (int)chosen[d];
  r->hop[CIO_ROMIO] = r->hop[CIO_OTP];
  r->hopbytes = r->hop[f->h.strategy];
  r->max_link = max_link_load(t, x, chosen, writing);
  free(romio), free(all), free(each);
  return MPI_SUCCESS;
}

/* ---- cb_nodes=auto ---- */
#define AUTO_KMAX 32

struct auto_ctx {
  int P;
  const double *rows; /* [P][kmax(kmax+1)/2]: each rank's bytes for k = 1, 2, ... */
  size_t per_rank;
  const double *D;
  double *C;          /* P x k, rebuilt per k */
  const int *node_of; /* the node rule, as the call's assignment */
  size_t nnodes;
};

static int auto_problem(size_t k, void *arg, struct mpisw_cb_problem *out) {
  struct auto_ctx *c = arg;
  size_t first = k * (k - 1) / 2; /* the row of k starts after those of 1..k-1 */
  for (int p = 0; p < c->P; p++)
    memcpy(c->C + (size_t)p * k, c->rows + (size_t)p * c->per_rank + first, k * sizeof(double));
  *out = (struct mpisw_cb_problem){(size_t)c->P, k, c->C, c->D, NULL, 0, c->node_of, c->nnodes};
  return MPISW_LAP_OK;
}

int mpisw_cio_auto_k(struct cio_file *f, const struct cio_access *a, MPI_Offset lo,
                     MPI_Offset hi, double bytes, int *k, char *why, size_t whylen) {
  int P = f->size, kmax = P < AUTO_KMAX ? P : AUTO_KMAX;
  size_t per = (size_t)kmax * (kmax + 1) / 2;
  double *mine = calloc(per, sizeof *mine);
  double *rows = malloc(sizeof *rows * per * (size_t)P);
  double *C = malloc(sizeof *C * (size_t)P * kmax);
  MPI_Offset *st = malloc(sizeof *st * kmax), *en = malloc(sizeof *en * kmax);
  int bad = !mine || !rows || !C || !st || !en, any = 0;
  PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, f->comm);
  int rc = MPI_SUCCESS;
  if (any) {
    snprintf(why, whylen, "no memory for cb_nodes=auto");
    rc = MPI_ERR_NO_MEM;
    goto out;
  }
  for (int kk = 1; kk <= kmax; kk++) {
    mpisw_cio_domains(lo, hi, kk, f->h.min_fd_size, f->h.striping_unit, st, en);
    mpisw_cio_row(a, kk, st, en, mine + (size_t)kk * (kk - 1) / 2);
  }
  PMPI_Allgather(mine, (int)per, MPI_DOUBLE, rows, (int)per, MPI_DOUBLE, f->comm);
  struct auto_ctx c = {P, rows, per, f->topo->t.D, C, f->topo->t.node_of,
                      (size_t)f->topo->t.nnodes};
  struct mpisw_cb_auto_model model;
  mpisw_cb_auto_defaults(&model);
  size_t best = 1;
  int st_rc = mpisw_cb_auto(&model, (size_t)kmax, bytes, auto_problem, &c, 1, NULL, &best, NULL,
                            NULL);
  if (st_rc) {
    snprintf(why, whylen, "cb_nodes=auto failed: %s", mpisw_lap_strerror(st_rc));
    rc = MPI_ERR_INTERN;
  }
  *k = (int)best;
out:
  free(mine), free(rows), free(C), free(st), free(en);
  return rc;
}
