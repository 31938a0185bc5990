/* Collective agreement on success before a collective acts, so that one
 * rank's failure becomes every rank's error and nobody waits forever. One
 * function for every layer: windows carry an error kind, pooled files an
 * MPI error class, both with the failing rank's message. */
#include <stdio.h>
#include <string.h>

#include "win/internal.h"

struct wire {
  int kind, cls;
  char msg[MPISW_MSG_MAX];
};

int mpisw_agree_class(MPI_Comm comm, int failed, struct mpisw_error *e, int *cls, int *flag) {
  int rank, size;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  int root = 0;
  if (size > 1) {
    int in[2] = {failed ? size - rank : 0, flag ? *flag : 0}, out[2];
    PMPI_Allreduce(in, out, 2, MPI_INT, MPI_MAX, comm);
    if (flag) *flag = out[1];
    if (!out[0]) return 0;
    root = size - out[0]; /* the lowest rank that failed */
  } else if (!failed) {
    return 0; /* alone: nothing to tell anyone */
  }
  struct wire w;
  memset(&w, 0, sizeof w);
  if (rank == root) {
    w.kind = e->kind;
    w.cls = cls ? *cls : 0;
    snprintf(w.msg, sizeof w.msg, "rank %d: %s", root, e->msg);
  }
  if (size > 1) PMPI_Bcast(&w, (int)sizeof w, MPI_BYTE, root, comm);
  e->kind = w.kind;
  if (cls) *cls = w.cls;
  memcpy(e->msg, w.msg, sizeof e->msg);
  e->msg[sizeof e->msg - 1] = 0;
  return -1;
}

int mpisw_agree(MPI_Comm comm, int failed, struct mpisw_error *e, int *flag) {
  return mpisw_agree_class(comm, failed, e, NULL, flag);
}

int mpisw_any(MPI_Comm comm, int failed) {
  int in = failed != 0, out = 1;
  PMPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, comm);
  return out;
}

int mpisw_one_node(MPI_Comm comm) {
  MPI_Comm node;
  int n = -1, all = 0;
  PMPI_Comm_size(comm, &all);
  if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
    return 0;
  PMPI_Comm_size(node, &n);
  PMPI_Comm_free(&node);
  return n == all; /* the same answer on every rank */
}
