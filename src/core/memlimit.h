/* How much memory a process may still use: MemAvailable, the cgroup's room,
 * or MPISW_MEMORY_LIMIT. Feeds storage_alloc_factor=auto. */
#ifndef MPISW_CORE_MEMLIMIT_H
#define MPISW_CORE_MEMLIMIT_H

#include <stdint.h>

/* MemAvailable from /proc/meminfo, in bytes (UINT64_MAX when unknown). */
uint64_t mpisw_mem_available(void);

/* Room left in the memory cgroup of this process: memory.max minus
 * memory.current, smallest along the hierarchy (UINT64_MAX: no limit). */
uint64_t mpisw_cgroup_room(void);

/* min(MemAvailable, cgroup room): what this node's processes may still use
 * (UINT64_MAX when neither is known). */
uint64_t mpisw_node_memory(void);

/* MPISW_MEMORY_LIMIT: 0 when unset; 1 and *bytes when set; -1 when it is not
 * a byte count, with *bytes = 0 (a malformed limit must not mean "no limit"). */
int mpisw_memory_limit_env(uint64_t *bytes);

#endif
