/* What MR-1S and MR-2S share: the job, agreement on errors, the map of one
 * task, the output gathered to rank 0, the JSON line. */
#ifndef MR_JOB_H
#define MR_JOB_H

#include <mpi.h>

#include "mr.h"

struct mr_job {
  const struct mr_opts *o;
  int rank, np;
  struct mr_input in;
  uint64_t rounds;       /* map rounds: task r * np + rank in round r */
  double t0, t_map, t_reduce, t_ckpt; /* t_ckpt: this rank's time in checkpoints */
  double t_comm;         /* 1S: in its RMA epochs; 2S: in the shuffle's collectives */
  uint64_t nckpt;        /* checkpoints this rank took */
  uint64_t ckpt_bytes;   /* bytes this rank wrote for them (2S; 1S: its window's size) */
  uint64_t resumed_round; /* first map round run after --restart */
  int restarted;
  char err[4400];        /* this rank's message when its code is not 0 */
};

MPI_Datatype mr_rec_type(void); /* 72 contiguous bytes */
void mr_rec_type_free(void);
int mr_agree(struct mr_job *j, int rc);  /* the worst code, printed by the ranks that failed */
/* counts task `task` into t (not cleared); calls poke about every 32 KiB */
int mr_map_task(struct mr_job *j, uint64_t task, struct mr_table *t, void (*poke)(void));
int mr_write_counts(struct mr_job *j, struct mr_rec *r, uint64_t n);
void mr_report(struct mr_job *j, const char *mode, const char *window, uint64_t distinct,
               uint64_t words);
uint64_t mr_hash_block(const void *p, size_t n); /* checksum of checkpoint data */

int mr_run_2s(struct mr_job *j);
int mr_run_1s(struct mr_job *j);

#endif
