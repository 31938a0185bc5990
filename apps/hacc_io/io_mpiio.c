/* MPI-IO checkpoint and restart: each rank writes its 9 arrays into its
 * section (MPI_File_write_at, the CORAL kernel's way, or
 * MPI_File_write_at_all), syncs and closes; a restart reads every particle
 * of its share, from whichever writer's sections hold it, so the reader's
 * rank count may differ from the writer's. Works on a real path or a mem:
 * name (a pooled file, src/pfile/). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hacc_io.h"

#define PIECE_MAX (1ull << 30) /* bytes per MPI call: counts are ints */

struct piece {
  MPI_Offset off;
  char *buf;
  uint64_t len;
};

struct pieces {
  struct piece *p;
  size_t n, cap;
};

static int add(struct pieces *ps, MPI_Offset off, char *buf, uint64_t len) {
  while (len) {
    uint64_t l = len < PIECE_MAX ? len : PIECE_MAX;
    if (ps->n == ps->cap) {
      size_t cap = ps->cap ? 2 * ps->cap : 16;
      struct piece *p = realloc(ps->p, cap * sizeof *p);
      if (!p) return -1;
      ps->p = p, ps->cap = cap;
    }
    ps->p[ps->n++] = (struct piece){off, buf, l};
    off += (MPI_Offset)l, buf += l, len -= l;
  }
  return 0;
}

/* The pieces of this rank's particles in a file written by p ranks with
 * total particles: for each array, the part of each writer's section that
 * holds particles of [pt->first, pt->first + pt->n). */
static int plan(const struct hacc_particles *pt, uint64_t total, int p, struct pieces *ps) {
  uint64_t lo = pt->first, hi = pt->first + pt->n;
  for (int a = 0; a < HACC_ARRAYS; a++) {
    unsigned sz = hacc_array_size[a];
    for (int q = 0; q < p; q++) {
      uint64_t qf, qn;
      hacc_share(total, p, q, &qf, &qn);
      uint64_t b = qf > lo ? qf : lo, e = qf + qn < hi ? qf + qn : hi;
      if (b >= e) continue;
      MPI_Offset off = (MPI_Offset)(hacc_section_offset(total, p, q) + hacc_array_offset(qn, a) +
                                    (b - qf) * sz);
      if (add(ps, off, (char *)pt->array[a] + (b - lo) * sz, (e - b) * sz)) return -1;
    }
  }
  return 0;
}

/* Every piece, independent or collective. A collective call needs every
 * rank: ranks with fewer pieces (or an error) join with count 0. */
static int transfer(MPI_File f, const struct pieces *ps, int coll, int writing, int *err) {
  unsigned long long mine = ps->n, rounds = mine;
  if (coll) MPI_Allreduce(&mine, &rounds, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  *err = MPI_SUCCESS;
  int shortio = 0;
  for (unsigned long long i = 0; i < rounds; i++) {
    int use = i < ps->n && *err == MPI_SUCCESS && !shortio;
    MPI_Offset off = use ? ps->p[i].off : 0;
    void *buf = use ? ps->p[i].buf : NULL;
    int count = use ? (int)ps->p[i].len : 0, e;
    MPI_Status st;
    if (!use && !coll) continue;
    if (writing)
      e = coll ? MPI_File_write_at_all(f, off, buf, count, MPI_BYTE, &st)
               : MPI_File_write_at(f, off, buf, count, MPI_BYTE, &st);
    else
      e = coll ? MPI_File_read_at_all(f, off, buf, count, MPI_BYTE, &st)
               : MPI_File_read_at(f, off, buf, count, MPI_BYTE, &st);
    if (e == MPI_SUCCESS && use) {
      int got = 0;
      MPI_Get_count(&st, MPI_BYTE, &got);
      if (got != count) shortio = 1; /* past the end of the file, or full */
    }
    if (use && e != MPI_SUCCESS) *err = e;
  }
  return shortio;
}

int hacc_mpiio_checkpoint(const struct hacc_options *o, struct hacc_particles *pt, int step,
                          struct hacc_io_result *res) {
  (void)step;
  int p = hacc_nranks(), rc = 0, err;
  struct pieces ps = {0};
  if (plan(pt, o->particles, p, &ps)) {
    snprintf(res->why, sizeof res->why, "out of memory");
    return HACC_IO_ERROR;
  }
  MPI_File f;
  err = MPI_File_open(MPI_COMM_WORLD, o->path, MPI_MODE_WRONLY, MPI_INFO_NULL, &f);
  if (err != MPI_SUCCESS) {
    hacc_mpi_why(err, "cannot open the checkpoint file", res->why, sizeof res->why);
    free(ps.p);
    return HACC_IO_ERROR;
  }
  int shortio = transfer(f, &ps, o->method == HACC_COLL, 1, &err);
  if (err != MPI_SUCCESS) {
    hacc_mpi_why(err, "cannot write the particles", res->why, sizeof res->why);
    rc = HACC_IO_ERROR;
  } else if (shortio) {
    snprintf(res->why, sizeof res->why, "a write was short (the file system is full?)");
    rc = HACC_IO_ERROR;
  }
  /* Durable before it counts: sync inside the timed phase (collective). */
  err = MPI_File_sync(f);
  if (!rc && err != MPI_SUCCESS) {
    hacc_mpi_why(err, "cannot sync the checkpoint file", res->why, sizeof res->why);
    rc = HACC_IO_ERROR;
  }
  err = MPI_File_close(&f);
  if (!rc && err != MPI_SUCCESS) {
    hacc_mpi_why(err, "cannot close the checkpoint file", res->why, sizeof res->why);
    rc = HACC_IO_ERROR;
  }
  free(ps.p);
  return rc;
}

int hacc_mpiio_restart(const struct hacc_options *o, struct hacc_particles *pt, int *step,
                       struct hacc_io_result *res) {
  struct hacc_header h;
  int rc = hacc_agree(hacc_file_header(o, &h, res->why, sizeof res->why));
  if (rc) return rc;
  *step = (int)h.step;
  struct pieces ps = {0};
  if (plan(pt, h.total, (int)h.ranks, &ps)) {
    snprintf(res->why, sizeof res->why, "out of memory");
    return HACC_IO_ERROR;
  }
  MPI_File f;
  int err = MPI_File_open(MPI_COMM_WORLD, o->path, MPI_MODE_RDONLY, MPI_INFO_NULL, &f);
  if (err != MPI_SUCCESS) {
    hacc_mpi_why(err, "cannot open the checkpoint file", res->why, sizeof res->why);
    free(ps.p);
    return HACC_IO_ERROR;
  }
  int shortio = transfer(f, &ps, o->method == HACC_COLL, 0, &err);
  if (err != MPI_SUCCESS) {
    hacc_mpi_why(err, "cannot read the particles", res->why, sizeof res->why);
    rc = HACC_IO_ERROR;
  } else if (shortio) {
    snprintf(res->why, sizeof res->why, "a read was short: the file was cut");
    rc = HACC_BAD_FILE;
  }
  MPI_File_close(&f);
  free(ps.p);
  return rc;
}
