/* Rectangular linear assignment (LAP) solver: Jonker-Volgenant's shortest
 * augmenting path method, written for the collective I/O engine's TATP
 * strategy (docs/COLLECTIVE_IO.md "The assignment solver"). MPI-free.
 *
 * Rows are processes (aggregator candidates), columns are file domains. With
 * nrows >= ncols every column gets a distinct row and nrows - ncols rows stay
 * unassigned; with nrows < ncols the problem is solved transposed: every row
 * gets a distinct column and ncols - nrows columns stay unassigned. The total
 * of the chosen entries is minimal.
 *
 * Costs are dense, row-major doubles. Hop-bytes are integers below 2^53, so a
 * double holds them exactly, and the solver's sums and differences stay exact
 * as long as ncols * (largest |cost|) < 2^53 (otherwise they are rounded like
 * any floating-point sum). MPISW_LAP_FORBIDDEN (+inf) marks a pair that may
 * not be chosen (a process that may not aggregate). The result is
 * deterministic: the same matrix gives the same assignment on every run and
 * machine (no randomness, a fixed scan order; among equal choices the lower
 * index met first wins). Errors are returned, never aborted on. */
#ifndef MPISW_CORE_LAP_H
#define MPISW_CORE_LAP_H

#include <math.h>
#include <stddef.h>

#define MPISW_LAP_FORBIDDEN INFINITY
/* Finite costs must be within +-MPISW_LAP_MAX_COST, so that the dual
 * potentials (sums of ncols costs) cannot overflow. */
#define MPISW_LAP_MAX_COST 1e300

enum mpisw_lap_status {
  MPISW_LAP_OK = 0,
  MPISW_LAP_EINVAL,      /* a NULL matrix with entries, or a size past INT_MAX */
  MPISW_LAP_EVALUE,      /* an entry is NaN, -inf or beyond MPISW_LAP_MAX_COST */
  MPISW_LAP_EINFEASIBLE, /* the forbidden entries leave no complete assignment */
  MPISW_LAP_ENOMEM,      /* the solver's work arrays could not be allocated */
};

/* Solves min sum cost[r*ncols + c] over the assignment described above.
 * col_row[ncols] gets each column's row, row_col[nrows] each row's column,
 * -1 where unassigned; either may be NULL. *total (may be NULL) gets the
 * optimal total, 0 for an empty matrix. On an error the outputs are
 * untouched. Returns an enum mpisw_lap_status. */
int mpisw_lap_solve(const double *cost, size_t nrows, size_t ncols, long *col_row,
                    long *row_col, double *total);

/* A short English text for a status ("no feasible assignment: ..."). */
const char *mpisw_lap_strerror(int status);

#endif
