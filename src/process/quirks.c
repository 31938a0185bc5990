/* Known bugs of the MPIs we run on, worked around before MPI_Init.
 *
 * MPICH 4.0.x with UCX >= 1.13: MPI_Win_create replaces the window base by
 * the address UCX's registration cache reports, which is rounded down to 16
 * bytes. Remote operations into a window whose base is not 16-byte aligned
 * then land up to 15 bytes early (fixed in MPICH 4.1). Storage windows have
 * such bases (an unaligned storage_alloc_offset, contiguous shared
 * segments), and so may any program's MPI_Win_create. Without the cache UCX
 * reports the exact address. A UCX_RCACHE_ENABLE set by the user is kept. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "process/process.h"

static int mpich_before_4_1(void) {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0, major = 0, minor = 0;
  if (PMPI_Get_library_version(text, &len) != MPI_SUCCESS) return 0;
  const char *v = strstr(text, "MPICH Version:");
  if (!v || sscanf(v, "MPICH Version: %d.%d", &major, &minor) != 2) return 0;
  return major < 4 || (major == 4 && minor < 1);
}

static int ucx_at_least_1_13(void) {
  void (*get)(unsigned *, unsigned *, unsigned *) =
      (void (*)(unsigned *, unsigned *, unsigned *))dlsym(RTLD_DEFAULT, "ucp_get_version");
  unsigned major = 0, minor = 0, release = 0;
  if (!get) return 0;
  get(&major, &minor, &release);
  return major > 1 || (major == 1 && minor >= 13);
}

void mpisw_quirks_before_init(void) {
  if (getenv("UCX_RCACHE_ENABLE")) return;
  if (mpich_before_4_1() && ucx_at_least_1_13()) setenv("UCX_RCACHE_ENABLE", "n", 0);
}
