/* The staging module (process/module.h): MPI_Finalize waits for every
 * pending drain of the process and stops the drain thread (a checkpoint
 * that "returned when LOCAL was durable" must still reach PFS before the
 * job ends), and MPISW_REPORT gets one line on the drains of all ranks. */
#include <stdio.h>

#include "ckpt/stage.h"
#include "ckpt/stage_module.h"
#include "pmpi/pmpi.h"
#include "process/process.h"

static void before_finalize(void) {
  struct mpisw_error e;
  if (mpisw_stage_stop(&e) == 0) return;
  /* Nobody is left to raise it on: say it, it is the job's last word. */
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "mpisw: MPI_Finalize: rank %d: a checkpoint drain to PFS failed: %s\n", rank,
          e.msg);
}

enum { V_DONE, V_FAILED, V_BYTES, V_SECONDS, V_COUNT };

static void report(void) {
  struct mpisw_stage_stats s;
  mpisw_stage_stats(&s);
  double v[V_COUNT] = {(double)s.done, (double)s.failed, (double)s.bytes, s.seconds}, sum[V_COUNT];
  double slowest = 0;
  int rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  PMPI_Reduce(v, sum, V_COUNT, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Reduce(&v[V_SECONDS], &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank != 0 || (sum[V_DONE] == 0 && sum[V_FAILED] == 0)) return;
  char b[32];
  fprintf(stderr,
          "mpisw:   staging: %.0f checkpoint images drained to PFS, %.0f failed; %s in %.3f s "
          "of drain time (slowest rank %.3f s), %.1f MB/s per rank\n",
          sum[V_DONE], sum[V_FAILED], mpisw_format_bytes(sum[V_BYTES], b, sizeof b), sum[V_SECONDS],
          slowest, sum[V_SECONDS] > 0 ? sum[V_BYTES] / sum[V_SECONDS] / 1e6 : 0.0);
}

const struct mpisw_module mpisw_stage_module = {
    .name = "stage",
    .before_finalize = before_finalize,
    .report = report,
};
