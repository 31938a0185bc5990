/* late_mpi SONAME: a program linked with no MPI that loads one with dlopen
 * (as Python's mpi4py does) and then calls MPI_Init through the global
 * scope, where a preloaded libmpisw comes first. wrong_mpi.sh preloads the
 * libmpisw built for the other MPI: MPI_Init must stop with its one line
 * (the check when the library was loaded could not see this MPI yet). */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: late_mpi SONAME\n");
    return 2;
  }
  if (!dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL)) {
    fprintf(stderr, "late_mpi: %s\n", dlerror());
    return 2;
  }
  int (*init)(int *, char ***) = (int (*)(int *, char ***))dlsym(RTLD_DEFAULT, "MPI_Init");
  if (!init) {
    fprintf(stderr, "late_mpi: no MPI_Init\n");
    return 2;
  }
  init(&argc, &argv);
  printf("late_mpi: MPI_Init returned\n");
  return 0;
}
