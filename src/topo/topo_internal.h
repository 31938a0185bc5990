/* Inside src/topo/: the parsed switch tree, shared by conf.c (which builds
 * it) and net.c (which reads it). */
#ifndef MPISW_TOPO_INTERNAL_H
#define MPISW_TOPO_INTERNAL_H

#include "topo/topo.h"

/* One switch or node of the file. */
struct topo_vert {
  char name[MPISW_TOPO_NAME_MAX];
  int is_switch;
  int parent; /* vertex index of its switch; -1: none (the root) */
  int line;   /* where it was defined (switch) or listed (node) */
};

/* Names -> vertex index: open addressing, size a power of two. */
struct topo_index {
  int *slot; /* -1: empty */
  size_t mask, count;
};

struct mpisw_topo_tree {
  struct topo_vert *v;
  int n, cap;
  int nswitches, nnodes;
  int root;
  struct topo_index switches, nodes;
};

int mpisw_topo_index_init(struct topo_index *x, size_t want);
void mpisw_topo_index_free(struct topo_index *x);
/* Index of name, or -1. */
int mpisw_topo_index_find(const struct topo_index *x, const struct topo_vert *v, const char *name);
/* Adds vertex i under its name, growing the table: 0, or -1 (no memory). */
int mpisw_topo_index_add(struct topo_index *x, const struct topo_vert *v, int i);

#endif
