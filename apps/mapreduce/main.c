/* mapreduce: word count (gen, serial, 1s, 2s). gen and serial are plain
 * processes; 1s and 2s run under mpiexec and exit with the same code on
 * every rank (mr.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"

static int parallel(const struct mr_opts *o) {
  struct mr_job j;
  memset(&j, 0, sizeof j);
  j.o = o;
  MPI_Init(NULL, NULL);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &j.np);
  int rc = mr_input_open(&j.in, o->input, o->task_size, j.err, sizeof j.err);
  if (!rc && o->checkpoints != 0) rc = mr_dir_writable(o->path, j.err, sizeof j.err);
  if (!rc && o->mode == MR_1S && o->window && !strcmp(o->window, "storage") && !o->checkpoints)
    rc = mr_dir_writable(o->path, j.err, sizeof j.err);
  rc = mr_agree(&j, rc);
  if (!rc) {
    j.rounds = (j.in.ntasks + (uint64_t)j.np - 1) / (uint64_t)j.np;
    j.t0 = mr_now();
    rc = o->mode == MR_1S ? mr_run_1s(&j) : mr_run_2s(&j);
  }
  mr_input_close(&j.in);
  mr_rec_type_free();
  MPI_Finalize();
  return rc;
}

int main(int argc, char **argv) {
  struct mr_opts o;
  int rc = mr_parse(argc, argv, &o);
  if (rc) return rc;
  switch (o.mode) {
  case MR_GEN: return mr_gen(&o);
  case MR_SERIAL: return mr_serial(&o);
  default: return parallel(&o);
  }
}
