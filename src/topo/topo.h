/* The topology model of collective I/O (docs/COLLECTIVE_IO.md "The topology
 * model"), MPI-free: Slurm's topology.conf (switches and their nodes), the
 * switch tree's hop distances and link loads between a job's hosts, and
 * distances inside a node from hwloc. src/cio/topo_ranks.c puts these
 * together into the P x P distance matrix D of a communicator.
 *
 * Distances: between two hosts, the number of links on their path through
 * the tree (host -> leaf switch -> ... -> leaf switch -> host; one leaf: 2);
 * without a file every pair of hosts is 2 hops apart (the flat default).
 * Inside a node: MPISW_TOPO_SAME_CORE, _SAME_PACKAGE, _SAME_NODE, all <= 1. */
#ifndef MPISW_TOPO_TOPO_H
#define MPISW_TOPO_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* Longest switch or node name, with its NUL. */
#define MPISW_TOPO_NAME_MAX 64

/* ---- hostlist.c: Slurm hostlist expressions ----
 * "n[0-3,7],login1" -> n0 n1 n2 n3 n7 login1; "n[01-12]" keeps the width
 * (n01 ... n12); several brackets in one name give every combination
 * ("r[1-2]n[1-2]" -> r1n1 r1n2 r2n1 r2n2). fn is called for each name in
 * order; a non-zero return from fn stops and is returned. A syntax error:
 * -1 and e says what (the caller adds where). */
int mpisw_hostlist_expand(const char *expr, int (*fn)(void *arg, const char *name), void *arg,
                          struct mpisw_error *e);

/* ---- conf.c: topology.conf ----
 * Slurm's topology/tree format: one switch per line, "SwitchName=NAME"
 * followed by "Switches=HOSTLIST" (child switches) and/or "Nodes=HOSTLIST";
 * keys in any case; '#' starts a comment; a line ending in '\' continues on
 * the next; LinkSpeed and other keys are ignored. The switches must form
 * one tree: every child switch defined, no switch or node under two
 * switches, no cycle, one root. Errors (kind MPISW_K_HINT, MPISW_K_NOFILE or
 * MPISW_K_ACCESS for a file that cannot be read) read "FILE:LINE: problem". */
struct mpisw_topo_tree;

int mpisw_topo_tree_load(const char *path, struct mpisw_topo_tree **out, struct mpisw_error *e);
/* The same from text in memory; label stands for the file name in messages. */
int mpisw_topo_tree_parse(const char *text, const char *label, struct mpisw_topo_tree **out,
                          struct mpisw_error *e);
void mpisw_topo_tree_free(struct mpisw_topo_tree *t);
/* How many switches and nodes the file names. */
int mpisw_topo_tree_switches(const struct mpisw_topo_tree *t);
int mpisw_topo_tree_nodes(const struct mpisw_topo_tree *t);

/* ---- net.c: the network between a job's hosts ----
 * Vertices 0..nhosts-1 are the hosts in the order given (a name given twice
 * is two hosts under one leaf switch), then the switches on their paths.
 * Every vertex but the root has one link, to its parent: link v is
 * v <-> parent[v]; traffic up a link goes towards the root. The flat default
 * is one switch, "(flat)", with every host under it. */
struct mpisw_topo_net {
  int nhosts, nverts;
  int *parent;                      /* [nverts]; -1: the root */
  int *depth;                       /* [nverts]; links from the root */
  char (*name)[MPISW_TOPO_NAME_MAX]; /* [nverts] */
};

/* The tree's network for hosts[n]. A host is found by its name, else by its
 * name cut at the first dot (the processor name may carry the domain).
 * 0: done; 1: some hosts are not in the file (e names them; net is
 * untouched, the caller decides: the library warns and uses the flat
 * default); -1: no memory. */
int mpisw_topo_net_build(const struct mpisw_topo_tree *t, const char *const *hosts, int n,
                         struct mpisw_topo_net *net, struct mpisw_error *e);
int mpisw_topo_net_flat(const char *const *hosts, int n, struct mpisw_topo_net *net,
                        struct mpisw_error *e);
/* A net from its parent and name arrays (as broadcast); depths computed.
 * -1 when the arrays are not a tree with the hosts at its leaves. */
int mpisw_topo_net_from(int nhosts, int nverts, const int *parent,
                        const char (*name)[MPISW_TOPO_NAME_MAX], struct mpisw_topo_net *net,
                        struct mpisw_error *e);
void mpisw_topo_net_free(struct mpisw_topo_net *net);

/* Links on the path between hosts a and b (0 when a == b). */
int mpisw_topo_hops(const struct mpisw_topo_net *net, int a, int b);
/* The largest hop count between two of the hosts. */
int mpisw_topo_diameter(const struct mpisw_topo_net *net);

/* Loads of every link for traffic[i * nhosts + j] bytes sent from host i to
 * host j: up[v] (towards the root) and down[v] (away from it) of link v, in
 * arrays of nverts (the root's entries stay 0). Links are full duplex: each
 * direction carries its own load. Returns the maximum link load over both
 * directions; *link and *up_dir (may be NULL) say which (-1: no traffic). */
uint64_t mpisw_topo_link_loads(const struct mpisw_topo_net *net, const uint64_t *traffic,
                               uint64_t *up, uint64_t *down, int *link, int *up_dir);
/* Sum over i, j of traffic[i][j] * hops(i, j). */
uint64_t mpisw_topo_hop_bytes(const struct mpisw_topo_net *net, const uint64_t *traffic);

/* ---- intra.c: distances inside a node (hwloc) ---- */
#define MPISW_TOPO_SAME_CORE 0.25
#define MPISW_TOPO_SAME_PACKAGE 0.5
#define MPISW_TOPO_SAME_NODE 1.0

struct mpisw_topo_machine;

/* This machine's topology, or a synthetic one (hwloc's syntax, e.g.
 * "pack:2 core:2 pu:2"), for tests. */
int mpisw_topo_machine_open(const char *synthetic, struct mpisw_topo_machine **out,
                            struct mpisw_error *e);
void mpisw_topo_machine_close(struct mpisw_topo_machine *m);
/* This process's CPU binding as a PU list ("0-3,8"); "" when it is not
 * bound (every PU of the machine) or the list does not fit len. */
void mpisw_topo_binding(struct mpisw_topo_machine *m, char *buf, size_t len);
/* Distance of two processes of one node bound to the PU lists a and b:
 * MPISW_TOPO_SAME_CORE when both fit in one core, MPISW_TOPO_SAME_PACKAGE
 * in one package (socket), else MPISW_TOPO_SAME_NODE (also when either is
 * unbound, "", or a list is not valid). */
double mpisw_topo_intra(struct mpisw_topo_machine *m, const char *a, const char *b);

#endif
