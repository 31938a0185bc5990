/* Jonker-Volgenant linear assignment (see lap.h). The solver works on an
 * "item x target" matrix a (n items, N >= n targets, row-major, one item per
 * row so that a search reads one contiguous row): every item gets a distinct
 * target. Targets carry dual prices v; an item's reduced cost to target j is
 * a[i][j] - v[j] - u[i] >= 0, zero on the assigned pairs.
 *
 * Square (n == N), the full method of Jonker and Volgenant (1987):
 *   1. column reduction: v[j] = min over items, the minimum's item takes j
 *      if it has nothing yet (targets taken from the last to the first);
 *   2. reduction transfer: an item holding one target passes its slack to it;
 *   3. augmenting row reduction (twice): each free item takes its cheapest
 *      target, lowering that target's price to its second cheapest, and the
 *      item it displaces continues at once (strict decrease) or waits;
 *   4. shortest augmenting paths (Dijkstra on reduced costs) for the rest.
 * Rectangular (n < N): the prices start at 0 and only ever drop on assigned
 * targets, so a target left free keeps price 0, which is the optimality
 * condition when targets may stay unassigned; each item first tries its
 * cheapest target (ties: lowest index), then step 4 places the rest. Steps
 * 1-3 assume every target is used and are skipped.
 *
 * Forbidden entries (+inf) are edges that do not exist: never the minimum,
 * never relaxed; a search that finds no target at finite distance proves
 * that no complete assignment exists (Berge: with none from a free item,
 * every matching leaves one item unassigned).
 *
 * Work arrays are allocated once per solve; nothing is allocated in loops. */
#include "core/lap.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct lap_work {
  const double *a; /* n x N item-major */
  int n, N;
  double *v;     /* N target prices */
  double *d;     /* N shortest distances of the current search */
  int *x;        /* n item -> target */
  int *y;        /* N target -> item, -1 free */
  int *pred;     /* N item before each target on the search tree */
  int *cols;     /* N targets ordered: ready | to scan | unscanned */
  int *freeitems; /* n items without a target */
};

/* Steps 1 and 2 (square only). Returns the number of free items, or -1 when
 * a target has only forbidden entries (no complete assignment). */
static int column_reduction(struct lap_work *w) {
  const int n = w->n, N = w->N;
  const double *a = w->a;
  double *v = w->v;
  int *argmin = w->pred; /* borrowed: the item of each column's minimum */
  for (int j = 0; j < N; j++) {
    v[j] = a[j];
    argmin[j] = 0;
  }
  /* row by row: the matrix is read in memory order; a strict < keeps the
   * lowest item on ties */
  for (int i = 1; i < n; i++) {
    const double *row = a + (size_t)i * N;
    for (int j = 0; j < N; j++)
      if (row[j] < v[j]) {
        v[j] = row[j];
        argmin[j] = i;
      }
  }
  int *matches = w->cols; /* borrowed: how many columns chose each item */
  memset(matches, 0, sizeof *matches * (size_t)n);
  for (int i = 0; i < n; i++) w->x[i] = -1;
  for (int j = N - 1; j >= 0; j--) {
    if (isinf(v[j])) return -1;
    int i = argmin[j];
    if (matches[i]++ == 0) {
      w->x[i] = j;
      w->y[j] = i;
    } else {
      w->y[j] = -1;
    }
  }
  int nfree = 0;
  for (int i = 0; i < n; i++) {
    if (matches[i] == 0) {
      w->freeitems[nfree++] = i;
    } else if (matches[i] == 1) {
      /* transfer: lower the price of the item's only target by the item's
       * slack to its next best, so the next best becomes as good */
      int j1 = w->x[i];
      const double *row = a + (size_t)i * N;
      double m = INFINITY;
      for (int j = 0; j < N; j++)
        if (j != j1 && row[j] - v[j] < m) m = row[j] - v[j];
      if (!isinf(m)) v[j1] -= m;
    }
  }
  return nfree;
}

/* Step 3 on the nfree items of freeitems[]. Returns the new number of free
 * items, or -1 when an item has only forbidden entries. */
static int augmenting_row_reduction(struct lap_work *w, int nfree) {
  const int N = w->N;
  const double *a = w->a;
  double *v = w->v;
  int *x = w->x, *y = w->y, *fr = w->freeitems;
  int k = 0, prev = nfree;
  nfree = 0;
  /* A displaced item continues at once only after a strict price drop, so
   * this ends; the bound only guards against floating-point crawling. */
  long steps = 0, limit = 16L * N + 1024;
  while (k < prev) {
    int i = fr[k++];
    const double *row = a + (size_t)i * N;
    double u1 = row[0] - v[0], u2 = INFINITY;
    int j1 = 0, j2 = -1;
    for (int j = 1; j < N; j++) {
      double h = row[j] - v[j];
      if (h < u2) {
        if (h >= u1) {
          u2 = h;
          j2 = j;
        } else {
          u2 = u1;
          u1 = h;
          j2 = j1;
          j1 = j;
        }
      }
    }
    if (isinf(u1)) return -1;
    int i0 = y[j1];
    if (isinf(u2)) {
      /* one permitted target: take it only if nobody holds it; else the
       * augmenting paths decide */
      if (i0 >= 0) {
        fr[nfree++] = i;
        continue;
      }
    } else if (u1 < u2) {
      v[j1] -= u2 - u1;
    } else if (i0 >= 0) {
      j1 = j2; /* a tie: take the second best instead of displacing */
      i0 = y[j1];
    }
    x[i] = j1;
    y[j1] = i;
    if (i0 >= 0) {
      x[i0] = -1;
      if (u1 < u2 && ++steps < limit)
        fr[--k] = i0;
      else
        fr[nfree++] = i0;
    }
  }
  return nfree;
}

/* Step 4 for free item f: Dijkstra over targets on reduced costs, then the
 * prices of the settled targets move so reduced costs stay >= 0, then the
 * path is flipped. Returns 0, or -1 when no free target is reachable. */
static int augment(struct lap_work *w, int f) {
  const int N = w->N;
  const double *a = w->a;
  double *v = w->v, *d = w->d;
  int *x = w->x, *y = w->y, *pred = w->pred, *cols = w->cols;
  const double *row = a + (size_t)f * N;
  for (int j = 0; j < N; j++) {
    d[j] = row[j] - v[j];
    pred[j] = f;
    cols[j] = j;
  }
  /* cols[0, low): settled; [low, up): at the current minimum, to scan;
   * [up, N): not reached at the minimum yet */
  int low = 0, up = 0, end = -1;
  double min = 0;
  for (;;) {
    if (up == low) {
      min = d[cols[up++]];
      for (int k = up; k < N; k++) {
        int j = cols[k];
        double h = d[j];
        if (h <= min) {
          if (h < min) {
            up = low;
            min = h;
          }
          cols[k] = cols[up];
          cols[up++] = j;
        }
      }
      if (isinf(min)) return -1;
      for (int k = low; k < up; k++)
        if (y[cols[k]] < 0) {
          end = cols[k];
          break;
        }
      if (end >= 0) break;
    }
    int j1 = cols[low++];
    int i = y[j1];
    const double *ri = a + (size_t)i * N;
    double u1 = ri[j1] - v[j1] - min;
    for (int k = up; k < N; k++) {
      int j = cols[k];
      double h = ri[j] - v[j] - u1;
      if (h < d[j]) {
        d[j] = h;
        pred[j] = i;
        if (h == min) {
          if (y[j] < 0) {
            end = j;
            goto found;
          }
          cols[k] = cols[up];
          cols[up++] = j;
        }
      }
    }
  }
found:
  for (int k = 0; k < low; k++) {
    int j = cols[k];
    v[j] += d[j] - min;
  }
  for (;;) {
    int i = pred[end];
    y[end] = i;
    int next = x[i];
    x[i] = end;
    if (i == f) break;
    end = next;
  }
  return 0;
}

/* Every item of a (n <= N) gets a target; x, y filled. */
static int solve_items(struct lap_work *w) {
  const int n = w->n, N = w->N;
  for (int j = 0; j < N; j++) w->y[j] = -1;
  int nfree;
  if (n == N) {
    nfree = column_reduction(w);
    for (int pass = 0; pass < 2 && nfree > 0; pass++)
      nfree = augmenting_row_reduction(w, nfree);
    if (nfree < 0) return MPISW_LAP_EINFEASIBLE;
  } else {
    nfree = 0;
    for (int j = 0; j < N; j++) w->v[j] = 0;
    for (int i = 0; i < n; i++) {
      const double *row = w->a + (size_t)i * N;
      int best = 0;
      for (int j = 1; j < N; j++)
        if (row[j] < row[best]) best = j;
      w->x[i] = -1;
      if (isinf(row[best])) return MPISW_LAP_EINFEASIBLE;
      if (w->y[best] < 0) {
        w->x[i] = best;
        w->y[best] = i;
      } else {
        w->freeitems[nfree++] = i;
      }
    }
  }
  for (int k = 0; k < nfree; k++)
    if (augment(w, w->freeitems[k]) < 0) return MPISW_LAP_EINFEASIBLE;
  return MPISW_LAP_OK;
}

/* t[c*nrows + r] = cost[r*ncols + c], in tiles that stay in cache. */
static void transpose(const double *cost, size_t nrows, size_t ncols, double *t) {
  const size_t B = 32;
  for (size_t r0 = 0; r0 < nrows; r0 += B)
    for (size_t c0 = 0; c0 < ncols; c0 += B) {
      size_t r1 = r0 + B < nrows ? r0 + B : nrows, c1 = c0 + B < ncols ? c0 + B : ncols;
      for (size_t r = r0; r < r1; r++)
        for (size_t c = c0; c < c1; c++) t[c * nrows + r] = cost[r * ncols + c];
    }
}

int mpisw_lap_solve(const double *cost, size_t nrows, size_t ncols, long *col_row,
                    long *row_col, double *total) {
  if (nrows == 0 || ncols == 0) {
    for (size_t c = 0; c < ncols && col_row; c++) col_row[c] = -1;
    for (size_t r = 0; r < nrows && row_col; r++) row_col[r] = -1;
    if (total) *total = 0;
    return MPISW_LAP_OK;
  }
  if (!cost || nrows > INT_MAX || ncols > INT_MAX || nrows > SIZE_MAX / sizeof(double) / ncols)
    return MPISW_LAP_EINVAL;
  size_t cells = nrows * ncols;
  for (size_t k = 0; k < cells; k++) {
    double c = cost[k];
    if (!(c <= MPISW_LAP_MAX_COST && c >= -MPISW_LAP_MAX_COST) && c != MPISW_LAP_FORBIDDEN)
      return MPISW_LAP_EVALUE;
  }
  /* Items are the smaller side. When items are the columns (more rows than
   * columns), the matrix is transposed once so a search reads contiguously. */
  int items_are_rows = nrows <= ncols;
  struct lap_work w;
  w.n = (int)(items_are_rows ? nrows : ncols);
  w.N = (int)(items_are_rows ? ncols : nrows);
  double *t = NULL;
  if (!items_are_rows) {
    t = malloc(sizeof *t * cells);
    if (!t) return MPISW_LAP_ENOMEM;
    transpose(cost, nrows, ncols, t);
  }
  w.a = items_are_rows ? cost : t;
  size_t n = (size_t)w.n, N = (size_t)w.N;
  w.v = malloc(sizeof(double) * N);
  w.d = malloc(sizeof(double) * N);
  w.x = malloc(sizeof(int) * n);
  w.y = malloc(sizeof(int) * N);
  w.pred = malloc(sizeof(int) * N);
  w.cols = malloc(sizeof(int) * N);
  w.freeitems = malloc(sizeof(int) * n);
  int rc = MPISW_LAP_ENOMEM;
  if (w.v && w.d && w.x && w.y && w.pred && w.cols && w.freeitems) rc = solve_items(&w);
  if (rc == MPISW_LAP_OK) {
    double sum = 0;
    for (int i = 0; i < w.n; i++) sum += w.a[(size_t)i * N + (size_t)w.x[i]];
    long *item_out = items_are_rows ? row_col : col_row;
    long *tgt_out = items_are_rows ? col_row : row_col;
    if (item_out)
      for (int i = 0; i < w.n; i++) item_out[i] = w.x[i];
    if (tgt_out)
      for (int j = 0; j < w.N; j++) tgt_out[j] = w.y[j];
    if (total) *total = sum;
  }
  free(t);
  free(w.v);
  free(w.d);
  free(w.x);
  free(w.y);
  free(w.pred);
  free(w.cols);
  free(w.freeitems);
  return rc;
}

const char *mpisw_lap_strerror(int status) {
  switch (status) {
  case MPISW_LAP_OK: return "success";
  case MPISW_LAP_EINVAL: return "invalid matrix: no entries given, or a dimension beyond INT_MAX";
  case MPISW_LAP_EVALUE:
    return "invalid cost: an entry is NaN, -inf or larger in magnitude than 1e300";
  case MPISW_LAP_EINFEASIBLE:
    return "no feasible assignment: the forbidden (+inf) entries leave some file domain "
           "without a distinct process";
  case MPISW_LAP_ENOMEM: return "out of memory for the assignment solver's work arrays";
  }
  return "unknown assignment solver status";
}
