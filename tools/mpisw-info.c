/* mpisw-info: is the library there, which version, which MPI was it built
 * for, and what configuration holds in this environment.
 *   mpisw-info            all of it
 *   mpisw-info --version  the version only
 *   mpisw-info --vars     every MPISW_* variable: default, accepted forms, help
 * Runs without mpiexec: it never initializes MPI (MPI_Get_library_version may
 * be called before MPI_Init). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "core/config.h"
#include "mpisw.h"

#ifndef MPISW_BUILT_FOR
#define MPISW_BUILT_FOR "unknown"
#endif

static const char *flavor_name(const char *f) {
  if (!strcmp(f, "mpich")) return "MPICH";
  if (!strcmp(f, "openmpi")) return "Open MPI";
  return f;
}

/* The table of this tool's copy of the cores (the same source as the
 * library's): what each variable accepts. */
static void print_vars(void) {
  for (int id = 0; id < MPISW_CFG_COUNT; id++) {
    const struct mpisw_cfg_var *v = &mpisw_cfg_vars[id];
    char forms[256];
    mpisw_cfg_forms(id, forms, sizeof forms);
    printf("%s\n  default: %s\n  accepts: %s\n  %s\n", v->name, v->def, forms, v->help);
  }
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--version")) {
    printf("%s\n", mpisw_version());
    return 0;
  }
  if (argc > 1 && !strcmp(argv[1], "--vars")) {
    print_vars();
    return 0;
  }
  if (argc > 1) {
    fprintf(stderr, "usage: %s [--version | --vars]\n", argv[0]);
    return argc > 1 && !strcmp(argv[1], "--help") ? 0 : 2;
  }
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  if (MPI_Get_library_version(lib, &len) != MPI_SUCCESS) snprintf(lib, sizeof lib, "unknown");
  lib[strcspn(lib, "\n")] = 0; /* MPICH adds its configure options on more lines */
  for (char *c = lib; *c; c++)
    if (*c == '\t') *c = ' ';
  Dl_info where;
  const char *path = dladdr((void *)mpisw_version, &where) && where.dli_fname
                         ? where.dli_fname : "unknown";
  printf("mpisw %s\n", mpisw_version());
  printf("library:     %s\n", path);
  printf("built for:   %s (MPI %d.%d headers)\n", flavor_name(MPISW_BUILT_FOR), MPI_VERSION,
         MPI_SUBVERSION);
  printf("MPI library: %s\n", lib);
  printf("active:      %s\n", mpisw_active() ? "yes" : "no (MPISW_DISABLE)");
  int need = mpisw_config_string(NULL, 0);
  char *cfg = malloc((size_t)need + 1);
  if (!cfg) return 1;
  mpisw_config_string(cfg, need + 1);
  printf("configuration:\n%s", cfg);
  free(cfg);
  return 0;
}
