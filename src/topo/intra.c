/* Distances inside a node from hwloc: two processes whose CPU bindings fit
 * in one core are closest (they share its caches), then in one package
 * (socket: the last-level cache and memory controller), then the node.
 * Unbound processes may run anywhere on the node: the node's distance. */
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "topo/topo.h"

struct mpisw_topo_machine {
  hwloc_topology_t topo;
};

int mpisw_topo_machine_open(const char *synthetic, struct mpisw_topo_machine **out,
                            struct mpisw_error *e) {
  *out = NULL;
  struct mpisw_topo_machine *m = calloc(1, sizeof *m);
  if (!m) return mpisw_fail(e, MPISW_K_NOMEM, "no memory for the machine's topology");
  if (hwloc_topology_init(&m->topo)) {
    free(m);
    return mpisw_fail(e, MPISW_K_NOMEM, "hwloc_topology_init failed");
  }
  if (synthetic && hwloc_topology_set_synthetic(m->topo, synthetic)) {
    hwloc_topology_destroy(m->topo);
    free(m);
    return mpisw_fail(e, MPISW_K_USAGE, "hwloc: '%s' is not a synthetic topology", synthetic);
  }
  if (hwloc_topology_load(m->topo)) {
    hwloc_topology_destroy(m->topo);
    free(m);
    return mpisw_fail(e, MPISW_K_IO, "hwloc could not read this machine's topology");
  }
  *out = m;
  return 0;
}

void mpisw_topo_machine_close(struct mpisw_topo_machine *m) {
  if (!m) return;
  hwloc_topology_destroy(m->topo);
  free(m);
}

void mpisw_topo_binding(struct mpisw_topo_machine *m, char *buf, size_t len) {
  buf[0] = 0;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (!set) return;
  hwloc_const_cpuset_t all = hwloc_topology_get_topology_cpuset(m->topo);
  if (!hwloc_get_cpubind(m->topo, set, HWLOC_CPUBIND_PROCESS) && !hwloc_bitmap_iszero(set) &&
      !hwloc_bitmap_isincluded(all, set)) {
    int n = hwloc_bitmap_list_snprintf(buf, len, set);
    if (n < 0 || (size_t)n >= len) buf[0] = 0; /* does not fit: taken as unbound */
  }
  hwloc_bitmap_free(set);
}

/* The smallest object holding both sets: within a core, a package, or neither. */
double mpisw_topo_intra(struct mpisw_topo_machine *m, const char *a, const char *b) {
  if (!a || !b || !*a || !*b) return MPISW_TOPO_SAME_NODE;
  double d = MPISW_TOPO_SAME_NODE;
  hwloc_bitmap_t sa = hwloc_bitmap_alloc(), sb = hwloc_bitmap_alloc();
  if (sa && sb && !hwloc_bitmap_list_sscanf(sa, a) && !hwloc_bitmap_list_sscanf(sb, b) &&
      !hwloc_bitmap_iszero(sa) && !hwloc_bitmap_iszero(sb)) {
    hwloc_bitmap_or(sa, sa, sb);
    hwloc_obj_t o = hwloc_get_obj_covering_cpuset(m->topo, sa);
    if (o && (o->type == HWLOC_OBJ_CORE || o->type == HWLOC_OBJ_PU ||
              hwloc_get_ancestor_obj_by_type(m->topo, HWLOC_OBJ_CORE, o)))
      d = MPISW_TOPO_SAME_CORE;
    else if (o && (o->type == HWLOC_OBJ_PACKAGE ||
                   hwloc_get_ancestor_obj_by_type(m->topo, HWLOC_OBJ_PACKAGE, o)))
      d = MPISW_TOPO_SAME_PACKAGE;
  }
  hwloc_bitmap_free(sa);
  hwloc_bitmap_free(sb);
  return d;
}
