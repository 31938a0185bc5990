/* Memory windows must not take the machine down. With MPISW_MEMORY_LIMIT set,
 * libmpisw refuses a memory window past it (MPISW_ERR_NOMEM, before anything
 * is allocated). Without it, nothing is refused and the kernel overcommits,
 * so the DHT checks a memory table against what the ranks on this node may
 * use: min(MemAvailable, the memory cgroup's room) / ranks on the node. */
#include <stdio.h>

#include "core/memlimit.h"
#include "dht.h"

int dht_memory_precheck(const struct dht_options *o, uint64_t bytes_per_rank, int local_ranks,
                        int rank) {
  uint64_t limit;
  /* With any MPISW_MEMORY_LIMIT (a malformed one warns and sets no limit) libmpisw decides. */
  if (o->kind != DHT_MEMORY || mpisw_memory_limit_env(&limit)) return DHT_OK;
  uint64_t avail = mpisw_node_memory();
  if (avail == UINT64_MAX) return DHT_OK; /* nothing known: the library decides */
  uint64_t share = avail / (uint64_t)(local_ranks > 0 ? local_ranks : 1);
  if (bytes_per_rank <= share) return DHT_OK;
  char need[32], have[32];
  dht_human(need, sizeof need, (double)bytes_per_rank);
  dht_human(have, sizeof have, (double)share);
  if (rank == 0)
    fprintf(stderr,
            "dht: over the memory budget: memory windows of %s per rank do not fit the %s each "
            "of the %d rank(s) on this node may use (MemAvailable and the memory cgroup); "
            "nothing was allocated. Use --kind auto to put the excess on storage.\n",
            need, have, local_ranks);
  return DHT_OVER_BUDGET;
}
