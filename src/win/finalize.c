/* MPI_Finalize, before the real one: storage still mapped is synced, so that
 * a program that never frees its windows loses nothing; then MPISW_REPORT's
 * summary (src/process/report.c), which counts what was not freed. */
#include <stdio.h>

#include "win/internal.h"

static void sync_one(struct mpisw_place *p, void *arg) {
  struct mpisw_error e;
  if (!p->h.discard && mpisw_place_sync(p, &e))
    fprintf(stderr, "mpisw: MPI_Finalize: %s\n", e.msg);
  (void)arg;
}

void mpisw_finalize(void) {
  mpisw_each_place(sync_one, NULL);
  mpisw_report_finalize();
}
