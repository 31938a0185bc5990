/* Stage 3: the communication matrix C (bytes of each rank in each file
 * domain), N (how many pieces of each rank fall in each domain: the
 * exchange sizes its messages from it when the call has one round) and, per
 * domain, the first and last byte any rank accesses (where the aggregator's
 * rounds start and end, as ROMIO's st_loc/end_loc). One Allgather of four
 * numbers per domain and a flag: the flag carries a failure of any rank
 * before it (no memory for the exchange's plan), so that no further
 * collective is needed to agree on it. The buffers are taken before the
 * call's agreement (mpisw_cio_matrix_alloc), whose own flag reports them. */
#include <stdint.h>
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
  int64_t *parts, *lo, *hi; /* NULL: only bytes */
};

static void count_part(void *ctx, int d, MPI_Offset off, MPI_Count len) {
  struct row_ctx *c = ctx;
  c->row[d] += (double)len;
  if (c->lo) {
    c->parts[d]++;
    if (off < c->lo[d]) c->lo[d] = off;
    if (off + len > c->hi[d]) c->hi[d] = off + len;
  }
}

void mpisw_cio_row(const struct cio_access *a, int k, const MPI_Offset *start,
                   const MPI_Offset *end, double *row) {
  memset(row, 0, sizeof *row * (size_t)k);
  struct row_ctx c = {row, NULL, NULL, NULL};
  walk_parts(a, k, start, end, count_part, &c);
}

/* What each rank sends: the flag, then per domain bytes, pieces, lo, hi. */
enum { R_BYTES, R_PARTS, R_LO, R_HI, R_N };

int mpisw_cio_matrix_alloc(struct cio_matrix *x, int P, int m) {
  memset(x, 0, sizeof *x);
  size_t per = 1 + R_N * (size_t)m;
  x->P = P;
  x->m = m;
  x->C = malloc(sizeof *x->C * (size_t)m * (size_t)P);
  x->N = malloc(sizeof *x->N * (size_t)m * (size_t)P);
  x->lo = malloc(sizeof *x->lo * (size_t)m);
  x->hi = malloc(sizeof *x->hi * (size_t)m);
  x->row = malloc(sizeof *x->row * (size_t)m);
  x->gather = malloc(sizeof *x->gather * per * (size_t)(P + 1));
  if (x->C && x->N && x->lo && x->hi && x->row && x->gather) return 0;
  mpisw_cio_matrix_free(x);
  return -1;
}

size_t mpisw_cio_matrix_words(int m) { return 1 + R_N * (size_t)m; }

void mpisw_cio_matrix_row(const struct cio_access *a, int m, const MPI_Offset *start,
                          const MPI_Offset *end, int fail, double *scratch, int64_t *out) {
  int64_t *parts = out + 1 + (size_t)R_PARTS * m, *lo = out + 1 + (size_t)R_LO * m;
  int64_t *hi = out + 1 + (size_t)R_HI * m;
  memset(scratch, 0, sizeof *scratch * (size_t)m);
  for (int d = 0; d < m; d++) parts[d] = 0, lo[d] = INT64_MAX, hi[d] = 0;
  struct row_ctx c = {scratch, parts, lo, hi};
  walk_parts(a, m, start, end, count_part, &c);
  out[0] = fail;
  for (int d = 0; d < m; d++) out[1 + d] = (int64_t)scratch[d];
}

int mpisw_cio_matrix_merge(struct cio_matrix *x, int m, const int64_t *all, size_t stride,
                           int *who) {
  int P = x->P;
  x->m = m;
  *who = -1;
  for (int d = 0; d < m; d++) x->lo[d] = INT64_MAX, x->hi[d] = 0;
  for (int p = 0; p < P; p++) {
    const int64_t *r = all + (size_t)p * stride;
    if (r[0] && *who < 0) *who = p;
    r++;
    for (int d = 0; d < m; d++) {
      x->C[(size_t)p * m + d] = (double)r[R_BYTES * m + d];
      x->N[(size_t)p * m + d] = r[R_PARTS * m + d];
      if (r[d] > 0) {
        if (r[R_LO * m + d] < x->lo[d]) x->lo[d] = r[R_LO * m + d];
        if (r[R_HI * m + d] > x->hi[d]) x->hi[d] = r[R_HI * m + d];
      }
    }
  }
  for (int d = 0; d < m; d++)
    if (x->lo[d] > x->hi[d]) x->lo[d] = x->hi[d] = 0;
  return *who < 0 ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

int mpisw_cio_matrix(MPI_Comm comm, const struct cio_access *a, int m, const MPI_Offset *start,
                     const MPI_Offset *end, int fail, struct cio_matrix *x, int *who) {
  size_t per = mpisw_cio_matrix_words(m);
  int64_t *mine = x->gather + per * (size_t)x->P, *all = x->gather;
  mpisw_cio_matrix_row(a, m, start, end, fail, x->row, mine);
  PMPI_Allgather(mine, (int)per, MPI_INT64_T, all, (int)per, MPI_INT64_T, comm);
  return mpisw_cio_matrix_merge(x, m, all, per, who);
}

void mpisw_cio_matrix_free(struct cio_matrix *x) {
  free(x->C);
  free(x->N);
  free(x->lo);
  free(x->hi);
  free(x->row);
  free(x->gather);
  memset(x, 0, sizeof *x);
}
