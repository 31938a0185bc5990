/* Stage 3: the communication matrix C (bytes of each rank in each file
 * domain) and, per domain, the first and last byte any rank accesses (where
 * the aggregator's rounds start and end, as ROMIO's st_loc/end_loc). One
 * Allgather of three numbers per domain. */
#include <stdlib.h>
#include <string.h>

#include "cio/engine.h"

/* Calls fn for each part of this rank's pieces inside a domain. */
typedef void (*part_fn)(void *ctx, int d, MPI_Offset off, MPI_Count len);

static void walk_parts(const struct cio_access *a, int k, const MPI_Offset *start,
                       const MPI_Offset *end, part_fn fn, void *ctx) {
  int d = 0;
  for (MPI_Count i = 0; i < a->n; i++) {
    MPI_Offset off = a->off[i], stop = off + a->len[i];
    while (off < stop) {
      /* pieces are sorted: the domain only moves forward (a reread overlap
       * of a read view may step back: search again then) */
      if (d >= k || start[d] < 0 || off < start[d] || off > end[d]) {
        int nd = mpisw_cio_domain_of(start, end, k, off);
        if (nd < 0) return; /* cannot happen: the domains cover every piece */
        d = nd;
      }
      MPI_Offset upto = stop < end[d] + 1 ? stop : end[d] + 1;
      fn(ctx, d, off, upto - off);
      off = upto;
    }
  }
}

struct row_ctx {
  double *row;
  MPI_Offset *lo, *hi;
};

static void count_part(void *ctx, int d, MPI_Offset off, MPI_Count len) {
  struct row_ctx *c = ctx;
  c->row[d] += (double)len;
  if (c->lo) {
    if (off < c->lo[d]) c->lo[d] = off;
    if (off + len > c->hi[d]) c->hi[d] = off + len;
  }
}

void mpisw_cio_row(const struct cio_access *a, int k, const MPI_Offset *start,
                   const MPI_Offset *end, double *row) {
  memset(row, 0, sizeof *row * (size_t)k);
  struct row_ctx c = {row, NULL, NULL};
  walk_parts(a, k, start, end, count_part, &c);
}

int mpisw_cio_matrix(MPI_Comm comm, const struct cio_access *a, int m, const MPI_Offset *start,
                     const MPI_Offset *end, struct cio_matrix *x) {
  int P;
  PMPI_Comm_size(comm, &P);
  memset(x, 0, sizeof *x);
  x->P = P;
  x->m = m;
  double *row = calloc((size_t)m, sizeof *row);
  MPI_Offset *mine = malloc(sizeof *mine * 3 * (size_t)m);
  MPI_Offset *all = malloc(sizeof *all * 3 * (size_t)m * (size_t)P);
  x->C = malloc(sizeof *x->C * (size_t)m * (size_t)P);
  x->lo = malloc(sizeof *x->lo * (size_t)m);
  x->hi = malloc(sizeof *x->hi * (size_t)m);
  int bad = !row || !mine || !all || !x->C || !x->lo || !x->hi, any = 0;
  PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
  if (any) {
    free(row);
    free(mine);
    free(all);
    mpisw_cio_matrix_free(x);
    return MPI_ERR_NO_MEM;
  }
  MPI_Offset *lo = mine + m, *hi = mine + 2 * m;
  for (int d = 0; d < m; d++) lo[d] = INT64_MAX, hi[d] = 0;
  struct row_ctx c = {row, lo, hi};
  walk_parts(a, m, start, end, count_part, &c);
  for (int d = 0; d < m; d++) mine[d] = (MPI_Offset)row[d];
  PMPI_Allgather(mine, 3 * m, MPI_OFFSET, all, 3 * m, MPI_OFFSET, comm);
  for (int d = 0; d < m; d++) x->lo[d] = INT64_MAX, x->hi[d] = 0;
  for (int p = 0; p < P; p++) {
    const MPI_Offset *r = all + (size_t)p * 3 * m;
    for (int d = 0; d < m; d++) {
      x->C[(size_t)p * m + d] = (double)r[d];
      if (r[d] > 0) {
        if (r[m + d] < x->lo[d]) x->lo[d] = r[m + d];
        if (r[2 * m + d] > x->hi[d]) x->hi[d] = r[2 * m + d];
      }
    }
  }
  for (int d = 0; d < m; d++)
    if (x->lo[d] > x->hi[d]) x->lo[d] = x->hi[d] = 0;
  free(row);
  free(mine);
  free(all);
  return MPI_SUCCESS;
}

void mpisw_cio_matrix_free(struct cio_matrix *x) {
  free(x->C);
  free(x->lo);
  free(x->hi);
  memset(x, 0, sizeof *x);
}
