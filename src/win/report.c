/* MPISW_REPORT=1: one summary from rank 0 at MPI_Finalize, reduced over all
 * ranks before the real finalize. Also syncs storage still mapped, so that
 * a program that never frees its windows loses nothing. */
#include <stdio.h>

#include "win/internal.h"

static void sync_one(struct mpisw_place *p, void *arg) {
  struct mpisw_error e;
  if (!p->h.discard && mpisw_place_sync(p, &e))
    fprintf(stderr, "mpisw: MPI_Finalize: %s\n", e.msg);
  (void)arg;
}

static void report(void) {
  double v[10] = {
      (double)mpisw_stats.windows_memory, (double)mpisw_stats.windows_storage,
      (double)mpisw_stats.windows_combined, (double)mpisw_stats.windows_shared,
      (double)mpisw_stats.allocs_storage, mpisw_stats.bytes_memory,
      mpisw_stats.bytes_storage, mpisw_stats.bytes_synced,
      (double)mpisw_stats.syncs, mpisw_stats.sync_seconds};
  double sum[10], tmax = 0;
  int rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  PMPI_Reduce(v, sum, 10, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Reduce(&v[9], &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank != 0) return;
  const double mib = 1024.0 * 1024.0;
  fprintf(stderr,
          "mpisw: report over %d ranks\n"
          "mpisw:   windows: %.0f in memory, %.0f on storage, %.0f combined, %.0f shared on "
          "storage; %.0f MPI_Alloc_mem ranges on storage\n"
          "mpisw:   placed: %.1f MiB in memory, %.1f MiB on storage\n"
          "mpisw:   synced: %.1f MiB in %.0f syncs, %.3f s in sync (slowest rank %.3f s)\n",
          size, sum[0], sum[1], sum[2], sum[3], sum[4], sum[5] / mib, sum[6] / mib,
          sum[7] / mib, sum[8], sum[9], tmax);
}

void mpisw_finalize(void) {
  mpisw_each_place(sync_one, NULL);
  if (mpisw_report_enabled()) report();
}
