#include "core/memlimit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"

static int read_u64(const char *path, uint64_t *out) {
  FILE *f = fopen(path, "r");
  char buf[64];
  if (!f) return -1;
  char *ok = fgets(buf, sizeof buf, f);
  fclose(f);
  if (!ok) return -1;
  if (!strncmp(buf, "max", 3)) {
    *out = UINT64_MAX;
    return 0;
  }
  char *end;
  *out = strtoull(buf, &end, 10);
  return end == buf ? -1 : 0;
}

uint64_t mpisw_mem_available(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  unsigned long long kb;
  uint64_t avail = UINT64_MAX;
  if (!f) return avail;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
      avail = (uint64_t)kb * 1024;
      break;
    }
  fclose(f);
  return avail;
}

/* One memory cgroup level: its limit and the room under it. */
static void level(uint64_t lim, uint64_t use, uint64_t *limit, uint64_t *room) {
  uint64_t r = lim > use ? lim - use : 0;
  if (lim < *limit) *limit = lim;
  if (r < *room) *room = r;
}

/* cgroup v2: this cgroup and its ancestors (a parent's limit binds the
 * child too). */
static void v2_walk(const char *rel, uint64_t *limit, uint64_t *room) {
  char dir[4096], path[4200 + 16];
  snprintf(dir, sizeof dir, "/sys/fs/cgroup%s", rel);
  for (;;) {
    uint64_t max, cur;
    snprintf(path, sizeof path, "%s/memory.max", dir);
    if (read_u64(path, &max) == 0 && max != UINT64_MAX) {
      snprintf(path, sizeof path, "%s/memory.current", dir);
      if (read_u64(path, &cur) != 0) cur = 0;
      level(max, cur, limit, room);
    }
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir || !strcmp(dir, "/sys/fs/cgroup")) break;
    *slash = 0;
  }
}

/* cgroup v1: the memory controller's own hierarchy, the same way. */
static void v1_walk(const char *rel, uint64_t *limit, uint64_t *room) {
  char dir[4096], path[4200 + 32];
  snprintf(dir, sizeof dir, "/sys/fs/cgroup/memory%s", strcmp(rel, "/") ? rel : "");
  for (;;) {
    uint64_t lim, use;
    snprintf(path, sizeof path, "%s/memory.limit_in_bytes", dir);
    if (read_u64(path, &lim) == 0 && lim < (1ULL << 60)) {
      snprintf(path, sizeof path, "%s/memory.usage_in_bytes", dir);
      if (read_u64(path, &use) != 0) use = 0;
      level(lim, use, limit, room);
    }
    char *slash = strrchr(dir, '/');
    if (!slash || !strcmp(dir, "/sys/fs/cgroup/memory")) break;
    *slash = 0;
  }
}

/* The smallest limit and room over every memory cgroup of this process. */
static void cgroup_walk(uint64_t *limit, uint64_t *room) {
  FILE *f = fopen("/proc/self/cgroup", "r");
  char line[4096];
  const char *rel;
  *limit = *room = UINT64_MAX;
  if (!f) return;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (!strncmp(line, "0::", 3)) /* cgroup v2 (alone, or beside v1) */
      v2_walk(line + 3, limit, room);
    else if ((rel = strstr(line, ":memory:")) != NULL) /* cgroup v1 */
      v1_walk(rel + strlen(":memory:"), limit, room);
  }
  fclose(f);
}

uint64_t mpisw_cgroup_room(void) {
  uint64_t limit, room;
  cgroup_walk(&limit, &room);
  return room;
}

uint64_t mpisw_cgroup_limit(void) {
  uint64_t limit, room;
  cgroup_walk(&limit, &room);
  return limit;
}

uint64_t mpisw_node_memory(void) {
  uint64_t avail = mpisw_mem_available(), room = mpisw_cgroup_room();
  return room < avail ? room : avail;
}

int mpisw_memory_limit_env(uint64_t *bytes) {
  int set = mpisw_cfg_source(MPISW_CFG_MEMORY_LIMIT) == MPISW_CFG_FROM_ENV;
  *bytes = set ? mpisw_cfg_size(MPISW_CFG_MEMORY_LIMIT) : 0;
  return set;
}
