/* MR-2S, the classic MPI MapReduce (Hoefler et al.): each rank maps its
 * tasks into one local table (the combiner), the tables are shuffled by
 * word hash with MPI_Alltoallv, each rank reduces its share. Checkpoints:
 * the local table after chosen map rounds and the reduced table after the
 * reduce, with collective MPI-IO (ckpt2s.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt2s.h"

static struct mr_rec *pack(const struct mr_table *t, uint64_t *n) {
  struct mr_rec *r = malloc((t->used + 1) * sizeof *r);
  *n = mr_table_pack(t, r);
  return r;
}

/* Local table -> every word's owner (hash % np), summed there. */
static void shuffle_reduce(struct mr_job *j, const struct mr_table *local, struct mr_table *red) {
  int np = j->np;
  int *scnt = calloc((size_t)np, sizeof *scnt), *rcnt = calloc((size_t)np, sizeof *rcnt);
  int *sdis = calloc((size_t)np, sizeof *sdis), *rdis = calloc((size_t)np, sizeof *rdis);
  for (uint64_t i = 0; i < local->cap; i++)
    if (local->slot[i].hash) scnt[local->slot[i].hash % (uint64_t)np]++;
  for (int q = 1; q < np; q++) sdis[q] = sdis[q - 1] + scnt[q - 1];
  struct mr_rec *out = malloc((local->used + 1) * sizeof *out);
  int *fill = calloc((size_t)np, sizeof *fill);
  for (uint64_t i = 0; i < local->cap; i++) {
    const struct mr_rec *e = &local->slot[i];
    if (!e->hash) continue;
    int q = (int)(e->hash % (uint64_t)np);
    out[sdis[q] + fill[q]++] = *e;
  }
  double t0 = mr_now();
  MPI_Alltoall(scnt, 1, MPI_INT, rcnt, 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  for (int q = 0; q < np; q++) rdis[q] = total, total += rcnt[q];
  struct mr_rec *in = malloc(((size_t)total + 1) * sizeof *in);
  MPI_Alltoallv(out, scnt, sdis, mr_rec_type(), in, rcnt, rdis, mr_rec_type(), MPI_COMM_WORLD);
  j->t_comm += mr_now() - t0;
  for (int i = 0; i < total; i++) mr_table_get(red, in[i].hash, in[i].word)->count += in[i].count;
  free(in), free(out), free(fill), free(scnt), free(rcnt), free(sdis), free(rdis);
}

int mr_run_2s(struct mr_job *j) {
  const struct mr_opts *o = j->o;
  struct ck2 ck;
  struct mr_table local, red;
  int rc, phase = CK2_MAP, ft = o->checkpoints != 0;
  uint64_t start = 0, n = 0;
  struct mr_rec *r = NULL;
  memset(&ck, 0, sizeof ck);
  ck.fh[0] = ck.fh[1] = MPI_FILE_NULL;
  mr_table_init(&local, 1 << 16);
  mr_table_init(&red, 1 << 16);
  if (ft && o->restart) {
    if ((rc = ck2_load(j, &ck, &phase, &start, &r, &n))) goto out;
    struct mr_table *into = phase == CK2_REDUCED ? &red : &local;
    for (uint64_t i = 0; i < n; i++) mr_table_get(into, r[i].hash, r[i].word)->count = r[i].count;
    free(r), r = NULL;
    j->restarted = 1;
    j->resumed_round = phase == CK2_REDUCED ? j->rounds : start;
  } else if (ft && (rc = ck2_open(j, &ck))) {
    goto out;
  }
  double t = mr_now();
  if (phase == CK2_MAP) {
    int failed = MR_OK; /* a failed map is agreed on at the next collective step */
    for (uint64_t round = start; round < j->rounds; round++) {
      uint64_t task = round * (uint64_t)j->np + (uint64_t)j->rank;
      if (!failed && task < j->in.ntasks) failed = mr_map_task(j, task, &local, NULL);
      if (o->task_delay_ms) mr_msleep(o->task_delay_ms);
      if (ft && mr_ckpt_after(o, round, j->rounds)) {
        if ((rc = mr_agree(j, failed))) goto out;
        r = pack(&local, &n);
        rc = ck2_write(j, &ck, CK2_MAP, round + 1, r, n);
        free(r), r = NULL;
        if (rc) goto out;
      }
    }
    if ((rc = mr_agree(j, failed))) goto out;
    j->t_map = mr_now() - t;
    t = mr_now();
    shuffle_reduce(j, &local, &red);
    mr_table_free(&local);
    if (ft) {
      r = pack(&red, &n);
      rc = ck2_write(j, &ck, CK2_REDUCED, j->rounds, r, n);
      free(r), r = NULL;
      if (rc) goto out;
    }
    j->t_reduce = mr_now() - t;
  }
  r = pack(&red, &n);
  uint64_t words = 0, distinct = n, all[2], mine[2];
  for (uint64_t i = 0; i < n; i++) words += r[i].count;
  rc = mr_write_counts(j, r, n);
  mine[0] = words, mine[1] = distinct;
  MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (!rc) mr_report(j, "2s", "none", all[1], all[0]);
out:
  free(r);
  ck2_close(&ck);
  mr_table_free(&local);
  mr_table_free(&red);
  return rc;
}
