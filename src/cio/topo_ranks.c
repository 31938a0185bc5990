/* The distance matrix D of a communicator (cio.h): which node each rank is
 * on, how far apart its nodes are (rank 0 reads MPISW_TOPOLOGY and
 * broadcasts the part of the switch tree the job uses: a cluster has one
 * copy of the file, not one per node), and how close two ranks of one node
 * are (each node's ranks compute their own distances with their own hwloc
 * view, so a mixed cluster gets each node's truth and every rank one D). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cio/cio.h"
#include "core/config.h"
#include "core/path.h"
#include "core/warn.h"

struct rank_rec {
  int leader; /* rank in comm of the shared-memory communicator's first rank */
  char host[MPISW_TOPO_NAME_MAX];
  char binding[256];
};

/* One error for every rank: the lowest failing rank's (kind and message). */
static int agree(MPI_Comm comm, int failed, struct mpisw_error *e) {
  int rank, size, first;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  int mine = failed ? rank : size;
  PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return 0;
  PMPI_Bcast(e, (int)sizeof *e, MPI_BYTE, first, comm);
  return -1;
}

/* The name this rank gives: MPISW_TOPO_HOSTNAME (a pattern, or a hostlist
 * of which world rank r takes the r-th name), else the processor name. */
struct pick {
  int want, seen;
  char name[MPISW_TOPO_NAME_MAX];
};

static int pick_name(void *arg, const char *name) {
  struct pick *p = arg;
  if (p->seen++ == p->want) snprintf(p->name, sizeof p->name, "%s", name);
  return 0;
}

static int host_name(char *out, struct mpisw_error *e) {
  int wrank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  const char *fake = mpisw_cfg_text(MPISW_CFG_TOPO_HOSTNAME);
  if (!fake) {
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    if (PMPI_Get_processor_name(name, &len) != MPI_SUCCESS || len <= 0)
      mpisw_path_hostname(name, sizeof name);
    snprintf(out, MPISW_TOPO_NAME_MAX, "%s", name);
    return 0;
  }
  char real[256], text[1024];
  mpisw_path_hostname(real, sizeof real);
  struct mpisw_error sub;
  if (mpisw_path_expand(fake, wrank, real, text, sizeof text, &sub))
    return mpisw_fail(e, MPISW_K_HINT, "MPISW_TOPO_HOSTNAME='%s': only %%r, %%h and %%%% are "
                      "expanded, to fewer than %zu characters", fake, sizeof text);
  struct pick p = {-1, 0, ""}; /* count the names, then take this rank's */
  if (mpisw_hostlist_expand(text, pick_name, &p, &sub))
    return mpisw_fail(e, MPISW_K_HINT, "MPISW_TOPO_HOSTNAME='%s': %s", fake, sub.msg);
  p.want = wrank % p.seen; /* fewer names than ranks: round robin */
  p.seen = 0;
  mpisw_hostlist_expand(text, pick_name, &p, &sub);
  snprintf(out, MPISW_TOPO_NAME_MAX, "%s", p.name);
  return 0;
}

/* ---- rank 0's reading of the file, broadcast as the net's arrays ---- */
struct net_msg {
  int rc, flat, nverts, warn;
  struct mpisw_error err; /* rc != 0: the error; warn: the warning's text */
};

static void read_tree(const char *const *hosts, int nnodes, char *file, size_t flen,
                      struct net_msg *m, struct mpisw_topo_net *net) {
  const char *pattern = mpisw_cfg_text(MPISW_CFG_TOPOLOGY);
  memset(m, 0, sizeof *m);
  file[0] = 0;
  if (!pattern) {
    m->flat = 1;
    m->rc = mpisw_topo_net_flat(hosts, nnodes, net, &m->err);
    return;
  }
  char real[256];
  mpisw_path_hostname(real, sizeof real);
  if (mpisw_path_expand(pattern, 0, real, file, flen, &m->err)) {
    m->rc = mpisw_fail(&m->err, MPISW_K_HINT, "MPISW_TOPOLOGY='%s': only %%r, %%h and %%%% are "
                       "expanded", pattern);
    return;
  }
  struct mpisw_topo_tree *tree;
  struct mpisw_error sub;
  if (mpisw_topo_tree_load(file, &tree, &sub)) {
    m->rc = mpisw_fail(&m->err, sub.kind, "MPISW_TOPOLOGY: %s", sub.msg);
    return;
  }
  int rc = mpisw_topo_net_build(tree, hosts, nnodes, net, &sub);
  mpisw_topo_tree_free(tree);
  if (rc == 1) { /* the rule: warn, and the flat default for the job */
    m->warn = 1;
    snprintf(m->err.msg, sizeof m->err.msg, "MPISW_TOPOLOGY=%s: %s; every pair of nodes is "
             "taken as 2 hops apart (the flat default)", file, sub.msg);
    m->flat = 1;
    rc = mpisw_topo_net_flat(hosts, nnodes, net, &sub);
  }
  if (rc) m->rc = mpisw_fail(&m->err, sub.kind, "MPISW_TOPOLOGY: %s", sub.msg);
}

static int share_net(MPI_Comm comm, int rank, const char *const *hosts, int nnodes,
                     struct mpisw_cio_topo *t, struct mpisw_error *e) {
  struct net_msg m;
  memset(&m, 0, sizeof m);
  if (rank == 0) {
    read_tree(hosts, nnodes, t->file, sizeof t->file, &m, &t->net);
    m.nverts = m.rc ? 0 : t->net.nverts;
  }
  PMPI_Bcast(&m, (int)sizeof m, MPI_BYTE, 0, comm);
  PMPI_Bcast(t->file, (int)sizeof t->file, MPI_CHAR, 0, comm);
  if (m.rc) {
    *e = m.err;
    return -1;
  }
  static int warned; /* once per process, however many files are opened */
  if (m.warn && rank == 0 && !warned) {
    warned = 1;
    fprintf(mpisw_warn_stream(), "mpisw: %s\n", m.err.msg);
    fflush(mpisw_warn_stream());
  }
  t->flat = m.flat;
  if (m.flat) t->file[0] = 0;
  int nv = m.nverts;
  int *parent = rank == 0 ? t->net.parent : malloc((size_t)nv * sizeof *parent);
  char(*name)[MPISW_TOPO_NAME_MAX] = rank == 0 ? t->net.name : malloc((size_t)nv * sizeof *name);
  int bad = !parent || !name;
  if (agree(comm, bad, e)) goto out;
  PMPI_Bcast(parent, nv, MPI_INT, 0, comm);
  PMPI_Bcast(name, nv * MPISW_TOPO_NAME_MAX, MPI_CHAR, 0, comm);
  if (rank != 0) bad = mpisw_topo_net_from(nnodes, nv, parent, (const char(*)[MPISW_TOPO_NAME_MAX])name,
                                           &t->net, e) != 0;
  bad = agree(comm, bad, e);
out:
  if (rank != 0) {
    free(parent);
    free(name);
  }
  return bad ? -1 : 0;
}

/* ---- the nodes and distances inside them ---- */
int mpisw_cio_topo_build(MPI_Comm user, struct mpisw_cio_topo *t, struct mpisw_error *e) {
  memset(t, 0, sizeof *t);
  MPI_Comm comm, shm;
  if (PMPI_Comm_dup(user, &comm) != MPI_SUCCESS)
    return mpisw_fail(e, MPISW_K_USAGE, "MPI_Comm_dup of the communicator failed");
  PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int rank, size;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  t->size = size;
  struct rank_rec me, *all = calloc((size_t)size, sizeof *all);
  const char **hosts = calloc((size_t)size, sizeof *hosts);
  int *counts = calloc((size_t)size, sizeof *counts), *displs = calloc((size_t)size, sizeof *displs);
  t->D = calloc((size_t)size * (size_t)size, sizeof *t->D);
  t->node_of = calloc((size_t)size, sizeof *t->node_of);
  t->binding = calloc((size_t)size, sizeof *t->binding);
  double *row = calloc((size_t)size, sizeof *row), *blocks = NULL;
  struct mpisw_topo_machine *mach = NULL;
  memset(&me, 0, sizeof me);
  int failed = 0, rc = -1;
  if (!all || !hosts || !counts || !displs || !t->D || !t->node_of || !t->binding || !row)
    failed = mpisw_fail(e, MPISW_K_NOMEM, "no memory for the distances of %d ranks", size);
  if (!failed) failed = host_name(me.host, e);
  if (!failed) {
    struct mpisw_error quiet; /* no hwloc view: every rank unbound, distance 1 */
    if (!mpisw_topo_machine_open(NULL, &mach, &quiet))
      mpisw_topo_binding(mach, me.binding, sizeof me.binding);
  }
  if (agree(comm, failed, e)) goto out;

  if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm) != MPI_SUCCESS)
    failed = mpisw_fail(e, MPISW_K_USAGE, "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) failed");
  if (!failed) {
    me.leader = rank;
    PMPI_Bcast(&me.leader, 1, MPI_INT, 0, shm);
    PMPI_Comm_free(&shm);
  }
  if (agree(comm, failed, e)) goto out;
  PMPI_Allgather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, comm);

  /* Nodes in rank order: one shared-memory communicator and one name. */
  for (int i = 0; i < size; i++) {
    int n = -1;
    for (int j = 0; j < i && n < 0; j++)
      if (all[j].leader == all[i].leader && !strcmp(all[j].host, all[i].host)) n = t->node_of[j];
    if (n < 0) {
      n = t->nnodes++;
      hosts[n] = all[i].host;
    }
    t->node_of[i] = n;
    memcpy(t->binding[i], all[i].binding, sizeof t->binding[i]);
  }
  if (share_net(comm, rank, hosts, t->nnodes, t, e)) goto out;

  /* Inside a node: each rank's distances to its node's ranks, gathered. */
  int k = 0, total = 0;
  for (int i = 0; i < size; i++) {
    int c = 0;
    for (int j = 0; j < size; j++) c += t->node_of[j] == t->node_of[i];
    counts[i] = c;
    displs[i] = total;
    total += c;
  }
  blocks = malloc((size_t)total * sizeof *blocks);
  failed = !blocks ? mpisw_fail(e, MPISW_K_NOMEM, "no memory for the distances of %d ranks", size)
                   : 0;
  if (agree(comm, failed, e)) goto out;
  for (int j = 0; j < size; j++)
    if (t->node_of[j] == t->node_of[rank])
      row[k++] = j == rank ? 0.0
                 : mach    ? mpisw_topo_intra(mach, me.binding, all[j].binding)
                           : MPISW_TOPO_SAME_NODE;
  PMPI_Allgatherv(row, k, MPI_DOUBLE, blocks, counts, displs, MPI_DOUBLE, comm);
  for (int i = 0; i < size; i++) {
    int at = displs[i];
    for (int j = 0; j < size; j++)
      t->D[(size_t)i * size + j] = t->node_of[j] == t->node_of[i]
                                       ? blocks[at++]
                                       : (double)mpisw_topo_hops(&t->net, t->node_of[i],
                                                                 t->node_of[j]);
  }
  rc = 0;
out:
  mpisw_topo_machine_close(mach);
  free(all);
  free(hosts);
  free(counts);
  free(displs);
  free(row);
  free(blocks);
  PMPI_Comm_free(&comm);
  if (rc) mpisw_cio_topo_free(t);
  return rc;
}

void mpisw_cio_topo_free(struct mpisw_cio_topo *t) {
  free(t->D);
  free(t->node_of);
  free(t->binding);
  mpisw_topo_net_free(&t->net);
  memset(t, 0, sizeof *t);
}
