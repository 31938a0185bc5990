/* MR-2S checkpoints: each rank's state written with collective MPI-IO into
 * one shared file, two files used in turn (mr2s.ckpt.0, mr2s.ckpt.1) so the
 * previous checkpoint stays whole while the next is written. */
#ifndef MR_CKPT2S_H
#define MR_CKPT2S_H

#include "job.h"

enum { CK2_MAP = 1, CK2_REDUCED = 2 }; /* phase of a checkpoint */

struct ck2 {
  MPI_File fh[2];
  uint64_t seq; /* of the last checkpoint written or loaded */
};

int ck2_open(struct mr_job *j, struct ck2 *c);  /* fresh run: new, empty files */
/* restart: the newest checkpoint every rank has whole; its records (malloc'd) */
int ck2_load(struct mr_job *j, struct ck2 *c, int *phase, uint64_t *rounds_done,
             struct mr_rec **r, uint64_t *n);
int ck2_write(struct mr_job *j, struct ck2 *c, int phase, uint64_t rounds_done,
              const struct mr_rec *r, uint64_t n);
void ck2_close(struct ck2 *c);

#endif
