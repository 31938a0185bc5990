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
/* The memory cgroups' smallest limit (memory.max, memory.limit_in_bytes) on
 * this process's path; UINT64_MAX without one. */
uint64_t mpisw_cgroup_limit(void);

/* min(MemAvailable, cgroup room): what this node's processes may still use
 * (UINT64_MAX when neither is known). */
uint64_t mpisw_node_memory(void);

/* MPISW_MEMORY_LIMIT from the configuration table (core/config.h): 1 and
 * *bytes when set; 0 and *bytes = 0 when unset, or when its value is not a
 * byte count (the table warned and the default, no limit, holds). */
int mpisw_memory_limit_env(uint64_t *bytes);

#endif
