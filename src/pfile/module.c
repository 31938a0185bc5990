/* The pooled-file module's table (process/module.h): files the program
 * left open are closed at MPI_Finalize (their drain runs), and with
 * MPISW_REPORT=1 one line per pooled file and the pool's peak use
 * (stats.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfile/internal.h"

static void close_left_open(struct mpisw_pfile *f, void *arg) {
  MPI_File fh = pfile_handle(f);
  fprintf(stderr, "mpisw: MPI_Finalize: pooled file %s was not closed; closing it\n", f->shown);
  mpisw_pfile_close(&fh);
}

static int pool_seen;
static uint64_t pool_peak;

/* The pool goes after this module (src/dispatch/modules.c): its peak is
 * taken now, for the report. */
static void before_finalize(void) {
  mpisw_pfile_each(close_left_open, NULL);
  uint64_t used = 0, cap = 0;
  pool_seen = mpisw_pool_ready();
  if (pool_seen) mpisw_pool_usage(&used, &cap, &pool_peak);
}

static void report(void) { mpisw_pfile_report_stats(pool_seen, pool_peak); }

const struct mpisw_module mpisw_pfile_module = {
    .name = "pfile",
    .before_finalize = before_finalize,
    .report = report,
};
