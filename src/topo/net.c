/* The network between a job's hosts: the part of the switch tree on their
 * paths (or the flat default's one switch), hop counts and link loads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo_internal.h"

static int net_alloc(struct mpisw_topo_net *net, int nhosts, int cap, struct mpisw_error *e) {
  memset(net, 0, sizeof *net);
  net->nhosts = nhosts;
  net->parent = malloc((size_t)cap * sizeof *net->parent);
  net->depth = malloc((size_t)cap * sizeof *net->depth);
  net->name = malloc((size_t)cap * sizeof *net->name);
  if (!net->parent || !net->depth || !net->name) {
    mpisw_topo_net_free(net);
    return mpisw_fail(e, MPISW_K_NOMEM, "no memory for the network of %d hosts", nhosts);
  }
  return 0;
}

void mpisw_topo_net_free(struct mpisw_topo_net *net) {
  free(net->parent);
  free(net->depth);
  free(net->name);
  memset(net, 0, sizeof *net);
}

/* Depths from the parents; -1 when they are not one tree with the hosts at
 * its leaves (a loop, a host as a parent, several roots). */
static int set_depths(struct mpisw_topo_net *net) {
  int roots = 0;
  for (int v = 0; v < net->nverts; v++) {
    int p = net->parent[v];
    if (p < -1 || p >= net->nverts || p == v || (p >= 0 && p < net->nhosts)) return -1;
    if (p < 0) roots++;
  }
  if (roots != 1 || (net->nhosts > 0 && net->parent[0] < 0 && net->nverts > 1)) return -1;
  for (int v = 0; v < net->nverts; v++) {
    int d = 0;
    for (int k = net->parent[v]; k >= 0; k = net->parent[k])
      if (++d > net->nverts) return -1;
    net->depth[v] = d;
  }
  return 0;
}

int mpisw_topo_net_flat(const char *const *hosts, int n, struct mpisw_topo_net *net,
                        struct mpisw_error *e) {
  if (net_alloc(net, n, n + 1, e)) return -1;
  net->nverts = n + 1;
  for (int i = 0; i < n; i++) {
    net->parent[i] = n;
    snprintf(net->name[i], MPISW_TOPO_NAME_MAX, "%s", hosts[i]);
  }
  net->parent[n] = -1;
  snprintf(net->name[n], MPISW_TOPO_NAME_MAX, "(flat)");
  set_depths(net);
  return 0;
}

/* The file's node for a host name: the name itself, else without its domain. */
static int find_node(const struct mpisw_topo_tree *t, const char *host) {
  int k = mpisw_topo_index_find(&t->nodes, t->v, host);
  if (k >= 0) return k;
  char shortname[MPISW_TOPO_NAME_MAX];
  snprintf(shortname, sizeof shortname, "%s", host);
  char *dot = strchr(shortname, '.');
  if (!dot) return -1;
  *dot = 0;
  return mpisw_topo_index_find(&t->nodes, t->v, shortname);
}

int mpisw_topo_net_build(const struct mpisw_topo_tree *t, const char *const *hosts, int n,
                         struct mpisw_topo_net *net, struct mpisw_error *e) {
  int *node = malloc((size_t)(n ? n : 1) * sizeof *node);
  int *map = malloc((size_t)(t->n ? t->n : 1) * sizeof *map); /* tree vertex -> net vertex */
  if (!node || !map) {
    free(node);
    free(map);
    return mpisw_fail(e, MPISW_K_NOMEM, "no memory for the network of %d hosts", n);
  }
  char missing[MPISW_MSG_MAX];
  int nmissing = 0, len = 0;
  for (int i = 0; i < n; i++) {
    node[i] = find_node(t, hosts[i]);
    if (node[i] >= 0) continue;
    int dup = 0; /* name each missing host once */
    for (int j = 0; j < i && !dup; j++) dup = node[j] < 0 && !strcmp(hosts[j], hosts[i]);
    if (dup) continue;
    if (nmissing++ < 8)
      len += snprintf(missing + len, sizeof missing - (size_t)len, "%s'%s'", nmissing > 1 ? ", " : "",
                      hosts[i]);
  }
  if (nmissing) {
    free(node);
    free(map);
    if (nmissing > 8) snprintf(missing + len, sizeof missing - (size_t)len, " and %d more",
                               nmissing - 8);
    mpisw_fail(e, MPISW_K_HINT, "%s %s not in the topology file", missing,
               nmissing > 1 ? "are" : "is");
    return 1;
  }
  /* The hosts, then every switch on their paths up to the root. */
  int cap = n + t->nswitches;
  if (net_alloc(net, n, cap > 0 ? cap : 1, e)) {
    free(node);
    free(map);
    return -1;
  }
  for (int k = 0; k < t->n; k++) map[k] = -1;
  int nv = n;
  for (int i = 0; i < n; i++) {
    snprintf(net->name[i], MPISW_TOPO_NAME_MAX, "%s", hosts[i]);
    int child = i;
    for (int k = t->v[node[i]].parent; k >= 0; k = t->v[k].parent) {
      int fresh = map[k] < 0;
      if (fresh) {
        map[k] = nv++;
        snprintf(net->name[map[k]], MPISW_TOPO_NAME_MAX, "%s", t->v[k].name);
        net->parent[map[k]] = -1;
      }
      net->parent[child] = map[k];
      child = map[k];
      if (!fresh) break; /* its path up is there already */
    }
  }
  net->nverts = nv;
  free(node);
  free(map);
  if (n == 0) return 0;
  if (set_depths(net)) { /* the parser made one tree: this cannot fail */
    mpisw_topo_net_free(net);
    return mpisw_fail(e, MPISW_K_HINT, "the topology file's switches are not one tree");
  }
  return 0;
}

int mpisw_topo_net_from(int nhosts, int nverts, const int *parent,
                        const char (*name)[MPISW_TOPO_NAME_MAX], struct mpisw_topo_net *net,
                        struct mpisw_error *e) {
  if (nhosts < 0 || nverts < nhosts || nverts < 1)
    return mpisw_fail(e, MPISW_K_USAGE, "a network of %d hosts and %d vertices", nhosts, nverts);
  if (net_alloc(net, nhosts, nverts, e)) return -1;
  net->nverts = nverts;
  memcpy(net->parent, parent, (size_t)nverts * sizeof *parent);
  for (int v = 0; v < nverts; v++) {
    memcpy(net->name[v], name[v], MPISW_TOPO_NAME_MAX);
    net->name[v][MPISW_TOPO_NAME_MAX - 1] = 0;
  }
  if (set_depths(net)) {
    mpisw_topo_net_free(net);
    return mpisw_fail(e, MPISW_K_USAGE, "the network's parents are not a tree");
  }
  return 0;
}

int mpisw_topo_hops(const struct mpisw_topo_net *net, int a, int b) {
  int hops = 0;
  while (a != b) { /* lift the deeper one; both when level */
    int da = net->depth[a], db = net->depth[b];
    if (da >= db) {
      a = net->parent[a];
      hops++;
    }
    if (db >= da) {
      b = net->parent[b];
      hops++;
    }
  }
  return hops;
}

int mpisw_topo_diameter(const struct mpisw_topo_net *net) {
  int most = 0;
  for (int a = 0; a < net->nhosts; a++)
    for (int b = a + 1; b < net->nhosts; b++) {
      int h = mpisw_topo_hops(net, a, b);
      if (h > most) most = h;
    }
  return most;
}

uint64_t mpisw_topo_link_loads(const struct mpisw_topo_net *net, const uint64_t *traffic,
                               uint64_t *up, uint64_t *down, int *link, int *up_dir) {
  int n = net->nhosts;
  memset(up, 0, (size_t)net->nverts * sizeof *up);
  memset(down, 0, (size_t)net->nverts * sizeof *down);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      uint64_t bytes = traffic[(size_t)i * (size_t)n + (size_t)j];
      if (!bytes || i == j) continue;
      int a = i, b = j; /* a climbs up-links, b down-links, to their common switch */
      while (a != b) {
        int da = net->depth[a], db = net->depth[b];
        if (da >= db) {
          up[a] += bytes;
          a = net->parent[a];
        }
        if (db >= da) {
          down[b] += bytes;
          b = net->parent[b];
        }
      }
    }
  uint64_t most = 0;
  int where = -1, dir = 0;
  for (int v = 0; v < net->nverts; v++) {
    if (up[v] > most) most = up[v], where = v, dir = 1;
    if (down[v] > most) most = down[v], where = v, dir = 0;
  }
  if (link) *link = where;
  if (up_dir) *up_dir = dir;
  return most;
}

uint64_t mpisw_topo_hop_bytes(const struct mpisw_topo_net *net, const uint64_t *traffic) {
  uint64_t sum = 0;
  int n = net->nhosts;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      uint64_t bytes = traffic[(size_t)i * (size_t)n + (size_t)j];
      if (bytes && i != j) sum += bytes * (uint64_t)mpisw_topo_hops(net, i, j);
    }
  return sum;
}
