/* The parts of a parallel run that MR-1S and MR-2S share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job.h"

MPI_Datatype mr_rec_type(void) {
  static MPI_Datatype t = MPI_DATATYPE_NULL;
  if (t == MPI_DATATYPE_NULL) {
    MPI_Type_contiguous((int)sizeof(struct mr_rec), MPI_BYTE, &t);
    MPI_Type_commit(&t);
  }
  return t;
}

void mr_rec_type_free(void) {
  MPI_Datatype t = mr_rec_type();
  MPI_Type_free(&t);
}

int mr_agree(struct mr_job *j, int rc) {
  int all = rc;
  if (rc) fprintf(stderr, "mapreduce: rank %d: %s\n", j->rank, j->err);
  MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

static char *task_buf;
static size_t task_cap;

int mr_map_task(struct mr_job *j, uint64_t task, struct mr_table *t, void (*poke)(void)) {
  size_t len;
  if (mr_task_read(&j->in, task, &task_buf, &task_cap, &len) < 0) {
    snprintf(j->err, sizeof j->err, "cannot read task %llu of '%s'",
             (unsigned long long)task, j->in.path);
    return MR_ERR_INPUT;
  }
  size_t s = 0;
  while (s < len) { /* in pieces of about 32 KiB ending on a word boundary: a poke each */
    size_t e = s + (32u << 10);
    if (e >= len) e = len;
    else
      while (e < len && mr_word_byte[(unsigned char)task_buf[e]] &&
             mr_word_byte[(unsigned char)task_buf[e - 1]])
        e++;
    mr_table_add_run(t, task_buf + s, e - s);
    s = e;
    if (poke) poke();
  }
  return MR_OK;
}

/* Every rank's words to rank 0, which sorts and writes them. */
int mr_write_counts(struct mr_job *j, struct mr_rec *r, uint64_t n) {
  int mine = (int)n, *cnt = NULL, *disp = NULL, total = 0, rc = MR_OK;
  struct mr_rec *all = NULL;
  if (j->rank == 0) cnt = calloc((size_t)j->np, sizeof *cnt), disp = calloc((size_t)j->np, sizeof *disp);
  MPI_Gather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (j->rank == 0) {
    for (int i = 0; i < j->np; i++) disp[i] = total, total += cnt[i];
    all = malloc(((size_t)total + 1) * sizeof *all);
  }
  MPI_Gatherv(r, mine, mr_rec_type(), all, cnt, disp, mr_rec_type(), 0, MPI_COMM_WORLD);
  if (j->rank == 0) rc = mr_output_write(j->o->output, all, (uint64_t)total, j->err, sizeof j->err);
  free(all), free(cnt), free(disp);
  return mr_agree(j, rc);
}

void mr_report(struct mr_job *j, const char *mode, const char *window, uint64_t distinct,
               uint64_t words) {
  double v[5] = {j->t_ckpt, j->t_map, j->t_reduce, (double)j->nckpt, j->t_comm}, mx[5];
  unsigned long long b = j->ckpt_bytes, btot;
  MPI_Reduce(v, mx, 5, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&b, &btot, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (j->rank) return;
  const struct mr_opts *o = j->o;
  double load[1] = {-1};
  getloadavg(load, 1); /* the machine is shared: say how busy it was */
  printf("{\"bench\":\"mapreduce\",\"mode\":\"%s\",\"ranks\":%d,\"ft\":%s,\"checkpoints\":%ld,"
         "\"window\":\"%s\",\"task_size\":%llu,\"input_bytes\":%llu,\"tasks\":%llu,"
         "\"rounds\":%llu,\"seconds\":%.6f,\"map_seconds\":%.6f,\"reduce_seconds\":%.6f,"
         "\"ckpt_seconds\":%.6f,\"comm_seconds\":%.6f,\"ckpt_count\":%.0f,\"ckpt_bytes\":%llu,\"words\":%llu,"
         "\"distinct\":%llu,\"restarted\":%d,\"resumed_round\":%llu,\"load1\":%.2f,"
         "\"cores\":%ld}\n",
         mode, j->np, o->checkpoints ? "true" : "false", o->checkpoints, window,
         (unsigned long long)o->task_size, (unsigned long long)j->in.size,
         (unsigned long long)j->in.ntasks, (unsigned long long)j->rounds, mr_now() - j->t0,
         mx[1], mx[2], mx[0], mx[4], mx[3], btot, (unsigned long long)words,
         (unsigned long long)distinct, j->restarted, (unsigned long long)j->resumed_round,
         load[0], sysconf(_SC_NPROCESSORS_ONLN));
  fflush(stdout);
}

uint64_t mr_hash_block(const void *p, size_t n) {
  const unsigned char *c = p;
  uint64_t h = 0x243f6a8885a308d3ull ^ n, w;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    memcpy(&w, c + i, 8);
    h = (h ^ w) * 0x9fb21c651e98df25ull;
    h ^= h >> 29;
  }
  for (; i < n; i++) h = (h ^ c[i]) * 0x100000001b3ull;
  return h ^ (h >> 32);
}
