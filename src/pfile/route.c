/* Which files are pooled: names starting with "mem:" (the rest is the
 * name in the pool), and paths matching a pattern of MPISW_MEM_PATHS
 * (their whole path is the name), so that programs that build their own
 * file names can be routed too. ROMIO's own prefixes ("ufs:", ...) and
 * every other name go to the MPI. */
#include <fnmatch.h>
#include <string.h>

#include "core/config.h"
#include "pfile/internal.h"

#define PREFIX "mem:"

static int matches(const char *patterns, const char *path) {
  char pat[4096];
  for (const char *p = patterns; *p;) {
    size_t n = strcspn(p, ":");
    if (n > 0 && n < sizeof pat) {
      memcpy(pat, p, n);
      pat[n] = 0;
      if (fnmatch(pat, path, 0) == 0) return 1;
    }
    p += n + (p[n] == ':');
  }
  return 0;
}

int mpisw_pfile_route(const char *filename, const char **name) {
  if (!filename || mpisw_disabled) return 0;
  if (!strncmp(filename, PREFIX, strlen(PREFIX))) {
    *name = filename + strlen(PREFIX);
    return 1;
  }
  const char *patterns = mpisw_cfg_text(MPISW_CFG_MEM_PATHS);
  if (patterns && mpisw_cfg_source(MPISW_CFG_MEM_PATHS) == MPISW_CFG_FROM_ENV &&
      matches(patterns, filename)) {
    *name = filename;
    return 1;
  }
  return 0;
}
