/* The cube and BT-IO access patterns (cio_pattern.h). */
#include "cio_pattern.h"

#include <stdio.h>
#include <string.h>

void cio_dims3(int n, int dims[3]) {
  dims[0] = dims[1] = dims[2] = 1;
  int f[32], nf = 0; /* prime factors, ascending (at most 31 for an int) */
  for (int d = 2; (long)d * d <= n; d++)
    while (n % d == 0) {
      f[nf++] = d;
      n /= d;
    }
  if (n > 1) f[nf++] = n;
  for (int i = nf - 1; i >= 0; i--) { /* largest factor to the smallest dimension */
    int k = 0;
    for (int j = 1; j < 3; j++)
      if (dims[j] < dims[k]) k = j;
    dims[k] *= f[i];
  }
  for (int i = 0; i < 3; i++) /* largest first */
    for (int j = i + 1; j < 3; j++)
      if (dims[j] > dims[i]) {
        int t = dims[i];
        dims[i] = dims[j];
        dims[j] = t;
      }
}

/* Part i of n cut into k: its first index and length. */
static void block(long n, int k, int i, long *lo, long *len) {
  long base = n / k, rem = n % k;
  *lo = i * base + (i < rem ? i : rem);
  *len = base + (i < rem ? 1 : 0);
}

int cio_pattern_init(struct cio_pattern *pt, enum cio_kind kind, const long g[3], int nprocs,
                     char *why, size_t whylen) {
  memset(pt, 0, sizeof *pt);
  pt->kind = kind;
  pt->nprocs = nprocs;
  memcpy(pt->g, g, sizeof pt->g);
  if (nprocs < 1) {
    snprintf(why, whylen, "%d processes", nprocs);
    return -1;
  }
  if (kind == CIO_CUBE) {
    pt->elem = 8;
    cio_dims3(nprocs, pt->p);
  } else {
    int q = 0;
    while ((q + 1) * (q + 1) <= nprocs) q++;
    if (q * q != nprocs || q > CIO_MAX_CELLS) {
      snprintf(why, whylen, "BT-IO needs a square number of processes (4, 9, 16, ...; at most "
               "%d^2), not %d", CIO_MAX_CELLS, nprocs);
      return -1;
    }
    pt->elem = 40;
    pt->p[0] = pt->p[1] = pt->p[2] = q;
  }
  for (int k = 0; k < 3; k++)
    if (g[k] < pt->p[k]) {
      snprintf(why, whylen, "dimension %d has %ld elements for %d blocks of processes", k, g[k],
               pt->p[k]);
      return -1;
    }
  return 0;
}

int cio_pattern_boxes(const struct cio_pattern *pt, int rank, struct cio_box *box) {
  if (pt->kind == CIO_CUBE) {
    int c[3] = {rank / (pt->p[1] * pt->p[2]), (rank / pt->p[2]) % pt->p[1], rank % pt->p[2]};
    for (int k = 0; k < 3; k++) block(pt->g[k], pt->p[k], c[k], &box->lo[k], &box->n[k]);
    return 1;
  }
  int q = pt->p[0];
  for (int c = 0; c < q; c++) { /* cell c lies in slice z = c: file order */
    int x = (rank % q + c) % q, y = ((rank / q - c) % q + q) % q;
    block(pt->g[0], q, c, &box[c].lo[0], &box[c].n[0]);
    block(pt->g[1], q, y, &box[c].lo[1], &box[c].n[1]);
    block(pt->g[2], q, x, &box[c].lo[2], &box[c].n[2]);
  }
  return q;
}

long cio_pattern_file_bytes(const struct cio_pattern *pt) {
  return pt->g[0] * pt->g[1] * pt->g[2] * pt->elem;
}

long cio_pattern_rank_bytes(const struct cio_pattern *pt, int rank) {
  struct cio_box b[CIO_MAX_CELLS];
  int n = cio_pattern_boxes(pt, rank, b);
  long sum = 0;
  for (int i = 0; i < n; i++) sum += b[i].n[0] * b[i].n[1] * b[i].n[2] * pt->elem;
  return sum;
}

void cio_pattern_comm_matrix(const struct cio_pattern *pt, int m, double *C) {
  long F = cio_pattern_file_bytes(pt), fd = (F + m - 1) / m;
  memset(C, 0, sizeof *C * (size_t)pt->nprocs * (size_t)m);
  struct cio_box b[CIO_MAX_CELLS];
  for (int r = 0; r < pt->nprocs; r++) {
    int n = cio_pattern_boxes(pt, r, b);
    double *row = C + (size_t)r * (size_t)m;
    for (int i = 0; i < n; i++)
      for (long z = b[i].lo[0]; z < b[i].lo[0] + b[i].n[0]; z++)
        for (long y = b[i].lo[1]; y < b[i].lo[1] + b[i].n[1]; y++) {
          /* one contiguous run of the box's last dimension */
          long off = ((z * pt->g[1] + y) * pt->g[2] + b[i].lo[2]) * pt->elem;
          long end = off + b[i].n[2] * pt->elem;
          while (off < end) {
            long d = off / fd, stop = (d + 1) * fd < end ? (d + 1) * fd : end;
            row[d] += (double)(stop - off);
            off = stop;
          }
        }
  }
}

/* File offset of one element of the global array. */
static long elem_offset(const struct cio_pattern *pt, long z, long y, long x) {
  return ((z * pt->g[1] + y) * pt->g[2] + x) * pt->elem;
}

int cio_pattern_interleaved(const struct cio_pattern *pt) {
  struct cio_box b[CIO_MAX_CELLS];
  long prev_end = -1;
  for (int r = 0; r < pt->nprocs; r++) {
    int n = cio_pattern_boxes(pt, r, b);
    if (!n || !b[0].n[0] || !b[0].n[1] || !b[0].n[2]) continue;
    const struct cio_box *f = &b[0], *l = &b[n - 1]; /* boxes are in file order */
    long start = elem_offset(pt, f->lo[0], f->lo[1], f->lo[2]);
    long end = elem_offset(pt, l->lo[0] + l->n[0] - 1, l->lo[1] + l->n[1] - 1,
                           l->lo[2] + l->n[2] - 1) + pt->elem;
    if (start < prev_end) return 1;
    prev_end = end;
  }
  return 0;
}
