/* MR-2S checkpoints. File layout: a 256-byte header per rank (rank r at
 * r * 256), then every rank's records, rank after rank (offsets by
 * MPI_Exscan). A checkpoint is valid when every rank's header and records
 * check (both checksums) and all carry the same sequence number; a crash
 * while one file is written leaves the other, older one valid. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ckpt2s.h"

#define CK2_MAGIC 0x4d523253434b5031ull /* "MR2SCKP1" */
#define HEAD 256

struct ck2_head {
  uint64_t magic, fingerprint, nprocs, rank, seq, phase, rounds_done, nrec, data_off,
      data_sum, head_sum;
};

static uint64_t head_area(int np) { return ((uint64_t)np * HEAD + 4095) & ~4095ull; }

static void name(const struct mr_job *j, int k, char *out, size_t n) {
  snprintf(out, n, "%s/mr2s.ckpt.%d", j->o->path, k);
}

static int io_err(struct mr_job *j, const char *what, int code) {
  char s[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, s, &len);
  snprintf(j->err, sizeof j->err, "%s: %s", what, s);
  return MR_ERR_RUN;
}

int ck2_open(struct mr_job *j, struct ck2 *c) {
  char p[4200];
  int rc = MR_OK;
  memset(c, 0, sizeof *c);
  if (j->rank == 0)
    for (int k = 0; k < 2; k++) name(j, k, p, sizeof p), unlink(p);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int k = 0; k < 2 && !rc; k++) {
    name(j, k, p, sizeof p);
    int e = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                          &c->fh[k]);
    if (e) rc = io_err(j, p, e), c->fh[k] = MPI_FILE_NULL;
  }
  return mr_agree(j, rc);
}

void ck2_close(struct ck2 *c) {
  for (int k = 0; k < 2; k++)
    if (c->fh[k] != MPI_FILE_NULL && c->fh[k]) MPI_File_close(&c->fh[k]);
}

int ck2_write(struct mr_job *j, struct ck2 *c, int phase, uint64_t rounds_done,
              const struct mr_rec *r, uint64_t n) {
  double t = mr_now();
  uint64_t bytes = n * sizeof *r, before = 0;
  MPI_Exscan(&bytes, &before, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (j->rank == 0) before = 0;
  c->seq++;
  MPI_File fh = c->fh[c->seq % 2];
  struct ck2_head h = {CK2_MAGIC, j->in.fingerprint, (uint64_t)j->np, (uint64_t)j->rank,
                       c->seq, (uint64_t)phase, rounds_done, n, head_area(j->np) + before,
                       mr_hash_block(r, bytes), 0};
  h.head_sum = mr_hash_block(&h, offsetof(struct ck2_head, head_sum));
  char hb[HEAD] = {0};
  memcpy(hb, &h, sizeof h);
  int rc = MR_OK, e;
  e = MPI_File_write_at_all(fh, (MPI_Offset)h.data_off, r, (int)n, mr_rec_type(),
                            MPI_STATUS_IGNORE);
  if (!e) e = MPI_File_write_at_all(fh, (MPI_Offset)j->rank * HEAD, hb, HEAD, MPI_BYTE,
                                    MPI_STATUS_IGNORE);
  if (!e) e = MPI_File_sync(fh);
  if (e) rc = io_err(j, "writing the checkpoint", e);
  j->ckpt_bytes += bytes + HEAD;
  j->nckpt++;
  j->t_ckpt += mr_now() - t;
  if (j->o->verbose && !rc)
    fprintf(stderr, "mapreduce: rank %d: checkpoint %llu (%s, %llu map rounds) written\n",
            j->rank, (unsigned long long)c->seq, phase == CK2_MAP ? "map" : "reduce",
            (unsigned long long)rounds_done);
  return mr_agree(j, rc);
}

/* This rank's part of file k: its header if valid with its records, else
 * seq 0. bad_origin: a valid header of another corpus or rank count. */
static uint64_t check(struct mr_job *j, MPI_File fh, struct ck2_head *h, struct mr_rec **r,
                      int *bad_origin) {
  char hb[HEAD];
  MPI_Offset size;
  *r = NULL;
  MPI_File_get_size(fh, &size);
  if ((uint64_t)size < head_area(j->np) ||
      MPI_File_read_at(fh, (MPI_Offset)j->rank * HEAD, hb, HEAD, MPI_BYTE, MPI_STATUS_IGNORE))
    return 0;
  memcpy(h, hb, sizeof *h);
  if (h->magic != CK2_MAGIC ||
      h->head_sum != mr_hash_block(h, offsetof(struct ck2_head, head_sum)))
    return 0;
  if (h->fingerprint != j->in.fingerprint || h->nprocs != (uint64_t)j->np ||
      h->rank != (uint64_t)j->rank) {
    *bad_origin = 1;
    return 0;
  }
  if (h->data_off + h->nrec * sizeof **r > (uint64_t)size) return 0;
  *r = malloc((h->nrec + 1) * sizeof **r);
  if (MPI_File_read_at(fh, (MPI_Offset)h->data_off, *r, (int)h->nrec, mr_rec_type(),
                       MPI_STATUS_IGNORE) ||
      mr_hash_block(*r, h->nrec * sizeof **r) != h->data_sum) {
    free(*r), *r = NULL;
    return 0;
  }
  return h->seq;
}

int ck2_load(struct mr_job *j, struct ck2 *c, int *phase, uint64_t *rounds_done,
             struct mr_rec **r, uint64_t *n) {
  char p[4200];
  int rc = MR_OK, bad_origin = 0;
  memset(c, 0, sizeof *c);
  for (int k = 0; k < 2 && !rc; k++) {
    name(j, k, p, sizeof p);
    if (access(p, F_OK)) {
      snprintf(j->err, sizeof j->err, "--restart: no MR-2S checkpoint '%s' (run without "
                                      "--restart first, with the same --path)", p);
      rc = MR_ERR_CKPT;
      c->fh[k] = MPI_FILE_NULL;
      continue;
    }
    int e = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDWR, MPI_INFO_NULL, &c->fh[k]);
    if (e) rc = io_err(j, p, e), c->fh[k] = MPI_FILE_NULL;
  }
  if ((rc = mr_agree(j, rc))) return rc;
  struct ck2_head h[2];
  struct mr_rec *recs[2];
  uint64_t seq[2], lo[2], hi[2];
  for (int k = 0; k < 2; k++) seq[k] = check(j, c->fh[k], &h[k], &recs[k], &bad_origin);
  MPI_Allreduce(seq, lo, 2, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(seq, hi, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  int use = -1;
  for (int k = 0; k < 2; k++)
    if (lo[k] && lo[k] == hi[k] && (use < 0 || lo[k] > lo[use])) use = k;
  int any_bad = 0;
  MPI_Allreduce(&bad_origin, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (use < 0) { /* the same on every rank: one message, from rank 0 */
    rc = MR_ERR_CKPT;
    if (j->rank == 0 && any_bad)
      fprintf(stderr, "mapreduce: --restart: the checkpoint in '%s' is of another input, task "
              "size or rank count\n", j->o->path);
    else if (j->rank == 0)
      fprintf(stderr, "mapreduce: --restart: no complete MR-2S checkpoint in '%s'\n",
              j->o->path);
  } else {
    c->seq = seq[use];
    *phase = (int)h[use].phase;
    *rounds_done = h[use].rounds_done;
    *n = h[use].nrec;
    *r = recs[use], recs[use] = NULL;
  }
  free(recs[0]), free(recs[1]);
  return rc;
}
