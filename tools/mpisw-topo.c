/* mpisw-topo: the distance matrix collective I/O uses (docs/COLLECTIVE_IO.md
 * "The topology model").
 *   mpisw-topo --hosts n[0-3],login1 [--topology FILE] [--strict]
 *       hop distances between those nodes, and the links of the tree they use
 *   mpiexec -n 8 mpisw-topo [--topology FILE]
 *       this job's ranks: node, host, CPU binding, and the rank matrix D
 * FILE defaults to MPISW_TOPOLOGY; neither: the flat default (2 hops).
 * Exit: 0 printed; 1 the topology file is wrong (or, with --strict, does not
 * name a host); 2 usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "cio/cio.h"
#include "core/config.h"
#include "core/path.h"
#include "topo/topo.h"

static void usage(FILE *f, const char *me) {
  fprintf(f,
          "usage: %s --hosts HOSTLIST [--topology FILE] [--strict]\n"
          "       mpiexec -n N %s [--topology FILE]\n"
          "Prints the distance matrix mpisw's collective I/O uses: hops between nodes\n"
          "through the switch tree of FILE (Slurm's topology.conf; default\n"
          "$MPISW_TOPOLOGY; neither: every pair of nodes 2 hops), and the tree's links.\n"
          "Under mpiexec without --hosts: this job's ranks and their matrix D, with\n"
          "distances inside a node from hwloc (0.25 one core, 0.5 one package, 1 the node).\n"
          "  --hosts HOSTLIST  nodes as a Slurm hostlist: n[0-3],login1\n"
          "  --topology FILE   the topology file (instead of $MPISW_TOPOLOGY)\n"
          "  --strict          a host the file does not name is an error (exit 1); by\n"
          "                    default it is a warning and the flat default, as in the library\n"
          "Exit status: 0 printed, 1 bad topology file (or --strict), 2 usage.\n",
          me, me);
}

/* The tree's links: each node or switch and the one above it. */
static void print_links(const struct mpisw_topo_net *net) {
  int sw = net->nverts - net->nhosts;
  printf("links (%d hosts, %d switch%s):\n", net->nhosts, sw, sw == 1 ? "" : "es");
  for (int v = 0; v < net->nverts; v++) {
    if (net->parent[v] < 0)
      printf("  %s (root)\n", net->name[v]);
    else
      printf("  %s -> %s\n", net->name[v], net->name[net->parent[v]]);
  }
}

static void print_hops(const struct mpisw_topo_net *net) {
  int w = 3;
  for (int i = 0; i < net->nhosts; i++) {
    int l = (int)strlen(net->name[i]);
    if (l > w) w = l;
  }
  printf("hops between nodes (diameter %d):\n%*s", mpisw_topo_diameter(net), w + 2, "");
  for (int j = 0; j < net->nhosts; j++) printf(" %*s", w, net->name[j]);
  printf("\n");
  for (int i = 0; i < net->nhosts; i++) {
    printf("  %-*s", w, net->name[i]);
    for (int j = 0; j < net->nhosts; j++) printf(" %*d", w, mpisw_topo_hops(net, i, j));
    printf("\n");
  }
}

struct list {
  char **name;
  int n, cap;
};

static int add_host(void *arg, const char *name) {
  struct list *l = arg;
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 16;
    char **more = realloc(l->name, (size_t)cap * sizeof *more);
    if (!more) return -1;
    l->name = more;
    l->cap = cap;
  }
  l->name[l->n] = strdup(name);
  return l->name[l->n++] ? 0 : -1;
}

static int hosts_mode(const char *hostlist, const char *file, int strict) {
  struct list l = {NULL, 0, 0};
  struct mpisw_error e;
  int rc = 0;
  e.msg[0] = 0;
  if (mpisw_hostlist_expand(hostlist, add_host, &l, &e)) {
    fprintf(stderr, "mpisw-topo: --hosts: %s\n", e.msg[0] ? e.msg : "no memory");
    return 2;
  }
  struct mpisw_topo_net net;
  memset(&net, 0, sizeof net);
  if (!file) {
    printf("topology: the flat default (no --topology, MPISW_TOPOLOGY unset): every pair of "
           "nodes 2 hops\n");
    mpisw_topo_net_flat((const char *const *)l.name, l.n, &net, &e);
  } else {
    struct mpisw_topo_tree *t;
    if (mpisw_topo_tree_load(file, &t, &e)) {
      fprintf(stderr, "mpisw-topo: %s\n", e.msg);
      rc = 1;
      goto out;
    }
    printf("topology: %s (%d switches, %d nodes)\n", file, mpisw_topo_tree_switches(t),
           mpisw_topo_tree_nodes(t));
    int got = mpisw_topo_net_build(t, (const char *const *)l.name, l.n, &net, &e);
    mpisw_topo_tree_free(t);
    if (got == 1) {
      fprintf(stderr, "mpisw-topo: %s: %s%s\n", file, e.msg,
              strict ? "" : "; the library uses the flat default (every pair of nodes 2 hops) "
                            "for such a job");
      if (strict) {
        rc = 1;
        goto out;
      }
      printf("topology: the flat default: %s\n", e.msg);
      got = mpisw_topo_net_flat((const char *const *)l.name, l.n, &net, &e);
    }
    if (got) {
      fprintf(stderr, "mpisw-topo: %s\n", e.msg);
      rc = 1;
      goto out;
    }
  }
  print_hops(&net);
  print_links(&net);
out:
  mpisw_topo_net_free(&net);
  for (int i = 0; i < l.n; i++) free(l.name[i]);
  free(l.name);
  return rc;
}

static int job_mode(void) {
  MPI_Init(NULL, NULL);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  struct mpisw_cio_topo t;
  struct mpisw_error e;
  if (mpisw_cio_topo_build(MPI_COMM_WORLD, &t, &e)) {
    if (rank == 0) fprintf(stderr, "mpisw-topo: %s\n", e.msg);
    MPI_Finalize();
    return 1;
  }
  if (rank == 0) {
    if (t.flat)
      printf("topology: the flat default: every pair of nodes 2 hops\n");
    else
      printf("topology: %s\n", t.file);
    printf("%d ranks on %d nodes\n  rank  node  host  binding\n", t.size, t.nnodes);
    for (int i = 0; i < t.size; i++)
      printf("  %4d  %4d  %s  %s\n", i, t.node_of[i], t.net.name[t.node_of[i]],
             t.binding[i][0] ? t.binding[i] : "unbound");
    printf("distance matrix D (inside a node: %.2f one core, %.2f one package, %.2f the node; "
           "between nodes: hops):\n      ",
           MPISW_TOPO_SAME_CORE, MPISW_TOPO_SAME_PACKAGE, MPISW_TOPO_SAME_NODE);
    for (int j = 0; j < t.size; j++) printf(" %5d", j);
    printf("\n");
    for (int i = 0; i < t.size; i++) {
      printf("  %4d", i);
      for (int j = 0; j < t.size; j++) printf(" %5.2f", t.D[(size_t)i * t.size + j]);
      printf("\n");
    }
    print_links(&t.net);
    fflush(stdout);
  }
  mpisw_cio_topo_free(&t);
  MPI_Finalize();
  return 0;
}

int main(int argc, char **argv) {
  const char *hosts = NULL, *file = NULL;
  int strict = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout, argv[0]);
      return 0;
    } else if (!strcmp(argv[i], "--hosts") && i + 1 < argc) {
      hosts = argv[++i];
    } else if (!strcmp(argv[i], "--topology") && i + 1 < argc) {
      file = argv[++i];
    } else if (!strcmp(argv[i], "--strict")) {
      strict = 1;
    } else {
      fprintf(stderr, "mpisw-topo: unknown or incomplete option '%s'\n", argv[i]);
      usage(stderr, argv[0]);
      return 2;
    }
  }
  if (file && !*file) {
    fprintf(stderr, "mpisw-topo: --topology needs a file name\n");
    return 2;
  }
  if (hosts) {
    char path[4096]; /* MPISW_TOPOLOGY's %h and %r as rank 0 of a job expands them */
    const char *env = mpisw_cfg_text(MPISW_CFG_TOPOLOGY);
    if (!file && env) {
      char host[256];
      struct mpisw_error e;
      mpisw_path_hostname(host, sizeof host);
      if (mpisw_path_expand(env, 0, host, path, sizeof path, &e)) {
        fprintf(stderr, "mpisw-topo: MPISW_TOPOLOGY='%s': only %%r, %%h and %%%% are expanded\n",
                env);
        return 1;
      }
      file = path;
    }
    return hosts_mode(hosts, file, strict);
  }
  if (strict) {
    fprintf(stderr, "mpisw-topo: --strict goes with --hosts (a job always falls back)\n");
    return 2;
  }
  if (file) { /* the library reads its variables once; read them again */
    setenv("MPISW_TOPOLOGY", file, 1);
    mpisw_config_reload(0);
  }
  return job_mode();
}
