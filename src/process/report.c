/* MPISW_REPORT=1: a line from rank 0 at MPI_Init saying the library is
 * active (version, the MPI it was built for), and one summary at
 * MPI_Finalize, reduced over all ranks before the real finalize, with what
 * the program did not free (the window module syncs leftovers first:
 * src/win/finalize.c). */
#include <stdio.h>
#include <stdlib.h>

#include "process/process.h"

#ifndef MPISW_PROJECT_VERSION
#define MPISW_PROJECT_VERSION "unknown"
#endif

/* "512 B", "4.0 KiB", "1.5 MiB", "2.0 GiB": the largest unit that keeps the
 * number at least 1, so that a small window never shows as "0.0 MiB". */
const char *mpisw_format_bytes(double bytes, char *buf, int len) {
  static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 5) bytes /= 1024.0, u++;
  if (u == 0) snprintf(buf, len, "%.0f B", bytes);
  else snprintf(buf, len, "%.1f %s", bytes, unit[u]);
  return buf;
}

void mpisw_report_init(void) {
  if (!mpisw_report_enabled()) return;
  int rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank != 0) return;
  fprintf(stderr, "mpisw: %s: version %s, built for %s, %d ranks\n",
          mpisw_disabled ? "loaded but disabled (MPISW_DISABLE)" : "active",
          MPISW_PROJECT_VERSION, mpisw_built_for(), size);
}

enum {
  V_WIN_MEM, V_WIN_STO, V_WIN_COMB, V_WIN_SHARED, V_ALLOCS, V_BYTES_MEM, V_BYTES_STO,
  V_WRITTEN, V_SYNCS, V_SYNC_S, V_OPEN_WINS, V_OPEN_WIN_BYTES, V_OPEN_MEMS, V_OPEN_MEM_BYTES,
  V_LEAKY_RANKS, V_COUNT
};

void mpisw_report_finalize(void) {
  if (!mpisw_report_enabled()) return;
  double v[V_COUNT] = {0}, sum[V_COUNT], tmax = 0;
  long open_wins, open_mems;
  v[V_WIN_MEM] = (double)mpisw_stats.windows_memory;
  v[V_WIN_STO] = (double)mpisw_stats.windows_storage;
  v[V_WIN_COMB] = (double)mpisw_stats.windows_combined;
  v[V_WIN_SHARED] = (double)mpisw_stats.windows_shared;
  v[V_ALLOCS] = (double)mpisw_stats.allocs_storage;
  v[V_BYTES_MEM] = mpisw_stats.bytes_memory;
  v[V_BYTES_STO] = mpisw_stats.bytes_storage;
  v[V_WRITTEN] = mpisw_stats.bytes_synced; /* dirty bytes written to storage */
  v[V_SYNCS] = (double)mpisw_stats.syncs;
  v[V_SYNC_S] = mpisw_stats.sync_seconds;
  mpisw_open_count(MPISW_OPEN_WIN, &open_wins, &v[V_OPEN_WIN_BYTES]);
  mpisw_open_count(MPISW_OPEN_MEM, &open_mems, &v[V_OPEN_MEM_BYTES]);
  v[V_OPEN_WINS] = (double)open_wins;
  v[V_OPEN_MEMS] = (double)open_mems;
  v[V_LEAKY_RANKS] = open_wins || open_mems;
  int rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  PMPI_Reduce(v, sum, V_COUNT, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Reduce(&v[V_SYNC_S], &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank != 0) return;
  char a[32], b[32], c[32];
  fprintf(stderr,
          "mpisw: report over %d ranks\n"
          "mpisw:   windows: %.0f in memory, %.0f on storage, %.0f combined, %.0f shared on "
          "storage; %.0f MPI_Alloc_mem ranges on storage\n"
          "mpisw:   placed: %s in memory, %s on storage\n"
          "mpisw:   written: %s in %.0f syncs, %.3f s in sync (slowest rank %.3f s)\n",
          size, sum[V_WIN_MEM], sum[V_WIN_STO], sum[V_WIN_COMB], sum[V_WIN_SHARED],
          sum[V_ALLOCS], mpisw_format_bytes(sum[V_BYTES_MEM], a, sizeof a),
          mpisw_format_bytes(sum[V_BYTES_STO], b, sizeof b),
          mpisw_format_bytes(sum[V_WRITTEN], c, sizeof c), sum[V_SYNCS], sum[V_SYNC_S], tmax);
  if (sum[V_OPEN_WINS] > 0 || sum[V_OPEN_MEMS] > 0)
    fprintf(stderr,
            "mpisw:   not freed at MPI_Finalize: %.0f windows (%s), %.0f MPI_Alloc_mem ranges "
            "(%s), on %.0f of %d ranks\n",
            sum[V_OPEN_WINS], mpisw_format_bytes(sum[V_OPEN_WIN_BYTES], a, sizeof a),
            sum[V_OPEN_MEMS], mpisw_format_bytes(sum[V_OPEN_MEM_BYTES], b, sizeof b),
            sum[V_LEAKY_RANKS], size);
  else
    fprintf(stderr, "mpisw:   not freed at MPI_Finalize: nothing\n");
}

void *mpisw_report_gather(const void *records, int n, size_t size, int *total) {
  int rank = 0, nranks = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int *counts = NULL, *displs = NULL;
  *total = 0;
  if (rank == 0) {
    counts = calloc((size_t)nranks, sizeof *counts);
    displs = calloc((size_t)nranks, sizeof *displs);
  }
  PMPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  char *all = NULL;
  if (rank == 0 && counts && displs) {
    for (int r = 0; r < nranks; r++) {
      displs[r] = *total * (int)size;
      *total += counts[r];
      counts[r] *= (int)size;
    }
    all = calloc((size_t)*total + 1, size);
  }
  /* a rank 0 without memory still takes part, and prints nothing */
  PMPI_Gatherv(records, n * (int)size, MPI_BYTE, all, counts, displs, MPI_BYTE, 0,
               MPI_COMM_WORLD);
  free(counts);
  free(displs);
  return all;
}
