/* The distance matrix D of a communicator (src/cio/topo_ranks.c) under
 * mpiexec. Modes:
 *   node    no fake names: one node; D symmetric, 0 diagonal, 0 < intra <= 1
 *   flat    MPISW_TOPO_HOSTNAME=n%r, no file: every pair of ranks 2 apart
 *   tree    MPISW_TOPO_HOSTNAME=n0,n2,n4,n5 and MPISW_TOPOLOGY=sample.conf:
 *           the hops of tests/topo/sample.conf, computed by hand
 *   pairs   MPISW_TOPO_HOSTNAME=n0,n0,n2,n2 + sample.conf: two ranks per node
 *   missing a host not in the file: the flat default (the driver checks the
 *           warning, once)
 *   error KIND TEXT   the file is wrong: every rank fails with the same kind
 *           and message, which holds TEXT, and an MPI error of that class
 * Linked with libmpisw.a to reach the internal call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "cio/cio.h"
#include "mpisw.h"
#include "pmpi/pmpi.h"

static int failures;
#define EXPECT(c)                                                                 \
  do {                                                                            \
    if (!(c)) {                                                                   \
      failures++;                                                                 \
      fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", rank, __FILE__, __LINE__, #c); \
    }                                                                             \
  } while (0)

static int rank, size;

static double d(const struct mpisw_cio_topo *t, int i, int j) { return t->D[(size_t)i * size + j]; }

/* What every D must be: symmetric, 0 on the diagonal, within a node in
 * (0, 1], between nodes a hop count >= 2; and the same on every rank. */
static void shape(const struct mpisw_cio_topo *t) {
  EXPECT(t->size == size);
  for (int i = 0; i < size; i++)
    for (int j = 0; j < size; j++) {
      EXPECT(d(t, i, j) == d(t, j, i));
      if (i == j)
        EXPECT(d(t, i, j) == 0.0);
      else if (t->node_of[i] == t->node_of[j])
        EXPECT(d(t, i, j) > 0.0 && d(t, i, j) <= 1.0);
      else
        EXPECT(d(t, i, j) >= 2.0 && d(t, i, j) == (int)d(t, i, j));
    }
  double *root = malloc((size_t)size * size * sizeof *root);
  memcpy(root, t->D, (size_t)size * size * sizeof *root);
  MPI_Bcast(root, size * size, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  EXPECT(!memcmp(root, t->D, (size_t)size * size * sizeof *root));
  free(root);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *mode = argc > 1 ? argv[1] : "node";
  struct mpisw_cio_topo t;
  struct mpisw_error e;
  memset(&e, 0, sizeof e);
  int rc = mpisw_cio_topo_build(MPI_COMM_WORLD, &t, &e);

  if (!strcmp(mode, "error")) {
    EXPECT(rc == -1 && argc > 3);
    if (rc == -1 && argc > 3) {
      EXPECT(e.kind == atoi(argv[2]));
      EXPECT(strstr(e.msg, argv[3]) != NULL);
      struct mpisw_error root = e; /* the same error on every rank */
      MPI_Bcast(&root, (int)sizeof root, MPI_BYTE, 0, MPI_COMM_WORLD);
      EXPECT(root.kind == e.kind && !strcmp(root.msg, e.msg));
      int code = mpisw_error_code("MPI_File_write_all", &e), cls = -1, want = -2, len;
      MPI_Error_class(code, &cls);
      mpisw_error_class(e.kind, &want);
      EXPECT(cls == want);
      char text[MPI_MAX_ERROR_STRING];
      MPI_Error_string(code, text, &len);
      EXPECT(strstr(text, argv[3]) != NULL);
      if (rank == 0) printf("error as the engine will raise it: %s\n", text);
    }
  } else {
    EXPECT(rc == 0);
    if (rc) fprintf(stderr, "rank %d: %s\n", rank, e.msg);
  }
  if (rc == 0) {
    shape(&t);
    if (!strcmp(mode, "node")) {
      EXPECT(t.nnodes == 1 && t.flat);
    } else if (!strcmp(mode, "flat") || !strcmp(mode, "missing")) {
      EXPECT(t.nnodes == size && t.flat && !t.file[0]);
      for (int i = 0; i < size; i++)
        for (int j = 0; j < size; j++) EXPECT(d(&t, i, j) == (i == j ? 0.0 : 2.0));
    } else if (!strcmp(mode, "tree")) { /* ranks on n0, n2, n4, n5 */
      static const double want[4][4] = {{0, 4, 5, 5}, {4, 0, 5, 5}, {5, 5, 0, 2}, {5, 5, 2, 0}};
      EXPECT(t.nnodes == size && !t.flat && strstr(t.file, "sample.conf"));
      for (int i = 0; i < size && i < 4; i++)
        for (int j = 0; j < size && j < 4; j++) EXPECT(d(&t, i, j) == want[i][j]);
      EXPECT(mpisw_topo_diameter(&t.net) == (size > 2 ? 5 : 4));
    } else if (!strcmp(mode, "pairs")) { /* ranks 0,1 on n0; 2,3 on n2 */
      EXPECT(t.nnodes == (size + 1) / 2 && !t.flat);
      EXPECT(t.node_of[0] == 0 && t.node_of[1] == 0);
      EXPECT(d(&t, 0, 1) > 0.0 && d(&t, 0, 1) <= 1.0);
      if (size == 4) EXPECT(d(&t, 0, 2) == 4.0 && d(&t, 1, 3) == 4.0 && t.node_of[3] == 1);
    }
    mpisw_cio_topo_free(&t);
  }
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("t_topo %s: %s\n", mode, all ? "FAILED" : "ok");
  MPI_Finalize();
  return all ? 1 : 0;
}
