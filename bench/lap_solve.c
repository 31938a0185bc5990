/* Solves one assignment problem from a file with mpisw's solver
 * (src/core/lap.c) and times the solve alone, for the scipy comparisons:
 * the test tests/tools/lap_scipy.py and the benchmark bench/lap_bench.py.
 *
 *   lap_solve IN [OUT]
 *
 * IN: nrows and ncols as two native int64, then nrows*ncols native doubles,
 * row-major (+inf: forbidden). OUT (optional): col_row[ncols] then
 * row_col[nrows] as native int64 (-1: unassigned). Prints one JSON line:
 * {"status": "ok"|<error text>, "code": n, "total": t, "seconds": s,
 *  "nrows": r, "ncols": c}. Exit 0 when the solver answered (also with an
 * error status: that is a result), 2 on bad usage or an unreadable file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/lap.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s IN [OUT]\n", argv[0]);
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  int64_t dims[2];
  if (!f || fread(dims, sizeof dims, 1, f) != 1 || dims[0] < 0 || dims[1] < 0 ||
      (dims[0] && dims[1] > INT64_MAX / 8 / dims[0])) {
    fprintf(stderr, "lap_solve: %s: cannot read the matrix header\n", argv[1]);
    return 2;
  }
  size_t nr = (size_t)dims[0], nc = (size_t)dims[1], cells = nr * nc;
  double *c = malloc(sizeof *c * (cells ? cells : 1));
  long *col_row = malloc(sizeof(long) * (nc ? nc : 1));
  long *row_col = malloc(sizeof(long) * (nr ? nr : 1));
  if (!c || !col_row || !row_col) {
    fprintf(stderr, "lap_solve: out of memory for a %zu x %zu matrix\n", nr, nc);
    return 2;
  }
  if (fread(c, sizeof *c, cells, f) != cells) {
    fprintf(stderr, "lap_solve: %s: fewer than %zu x %zu entries\n", argv[1], nr, nc);
    return 2;
  }
  fclose(f);
  double total = 0, t0 = now();
  int rc = mpisw_lap_solve(c, nr, nc, col_row, row_col, &total);
  double secs = now() - t0;
  printf("{\"status\": \"%s\", \"code\": %d, \"total\": %.17g, \"seconds\": %.9f, "
         "\"nrows\": %zu, \"ncols\": %zu}\n",
         rc ? mpisw_lap_strerror(rc) : "ok", rc, rc ? 0.0 : total, secs, nr, nc);
  if (argc == 3 && rc == MPISW_LAP_OK) {
    FILE *o = fopen(argv[2], "wb");
    int ok = o != NULL;
    for (size_t j = 0; ok && j < nc; j++) {
      int64_t v = col_row[j];
      ok = fwrite(&v, sizeof v, 1, o) == 1;
    }
    for (size_t i = 0; ok && i < nr; i++) {
      int64_t v = row_col[i];
      ok = fwrite(&v, sizeof v, 1, o) == 1;
    }
    if (!o || fclose(o) != 0 || !ok) {
      fprintf(stderr, "lap_solve: %s: cannot write the assignment\n", argv[2]);
      return 2;
    }
  }
  free(c);
  free(col_row);
  free(row_col);
  return 0;
}
