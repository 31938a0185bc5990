/* The two access patterns of the collective I/O benchmarks (issue 18; the
 * source document's evaluation), MPI-free so that the unit test
 * tests/unit/test_cio_patterns.c computes the same communication matrix C
 * as the benchmark programs bench/cio_cube.c and bench/cio_btio.c.
 *
 * Both write one global array stored in C row-major order, dimension 0
 * slowest: file offset of element (i0, i1, i2) = ((i0 * g1 + i1) * g2 + i2)
 * * elem bytes.
 *
 *  cube: g0 x g1 x g2 doubles (elem 8); P processes in a p0 x p1 x p2 grid
 *        (cio_dims3, as MPI_Dims_create), rank = (c0 * p1 + c1) * p2 + c2,
 *        one box (subarray) per process;
 *  btio: N^3 points of 5 doubles (elem 40), NAS BT's block-tridiagonal
 *        decomposition: P = q^2, the array cut into q x q x q cells, and
 *        process p owns q cells, one in each slice z = c (c = 0..q-1), at
 *        x = (p mod q + c) mod q, y = (p div q - c) mod q (NPB's make_set).
 *        In BT-IO's file u(5, nx, ny, nz) Fortran order, which is this C
 *        order with (z, y, x, component).
 *
 * Blocks of a dimension: n cut into k parts, the first n mod k one larger. */
#ifndef MPISW_BENCH_CIO_PATTERN_H
#define MPISW_BENCH_CIO_PATTERN_H

#include <stddef.h>

enum cio_kind { CIO_CUBE, CIO_BTIO };

struct cio_pattern {
  enum cio_kind kind;
  long g[3];   /* global size in elements, dimension 0 slowest */
  long elem;   /* bytes per element: 8 (cube) or 40 (BT-IO's 5 doubles) */
  int nprocs;
  int p[3];    /* cube: the process grid; btio: q, q, q */
};

/* One box of elements: lo[k] .. lo[k] + n[k] - 1 in each dimension. */
struct cio_box {
  long lo[3], n[3];
};

/* The pattern for nprocs processes; 0, or -1 with why[] said (btio: nprocs
 * not a square; a dimension smaller than its number of blocks). */
int cio_pattern_init(struct cio_pattern *pt, enum cio_kind kind, const long g[3], int nprocs,
                     char *why, size_t whylen);

/* Balanced 3-D factorisation of n, largest first (MPI_Dims_create's). */
void cio_dims3(int n, int dims[3]);

/* The boxes of one rank in file order (cube 1, btio q); returns how many
 * (at most CIO_MAX_CELLS). */
#define CIO_MAX_CELLS 64
int cio_pattern_boxes(const struct cio_pattern *pt, int rank, struct cio_box *box);

/* Bytes of the whole file. */
long cio_pattern_file_bytes(const struct cio_pattern *pt);

/* Bytes rank writes (sum of its boxes). */
long cio_pattern_rank_bytes(const struct cio_pattern *pt, int rank);

/* ROMIO's test for two phases (romio_cb_write=automatic): 1 when, in rank
 * order, some rank's first byte lies before the previous rank's last byte
 * + 1 (the ranks' ranges interleave); 0: each rank writes its own range. */
int cio_pattern_interleaved(const struct cio_pattern *pt);

/* ROMIO's even file domains (ADIOI_Calc_file_domains without alignment):
 * the file's accessed range [0, F) cut into m domains of ceil(F / m) bytes,
 * the last one shorter (or empty). C (nprocs x m, row-major, doubles) gets
 * the bytes of each domain each process holds. */
void cio_pattern_comm_matrix(const struct cio_pattern *pt, int m, double *C);

#endif
