/* Which MPI this library was built for, and whether the process runs another
 * one. A libmpisw built for MPICH preloaded into an Open MPI program (or the
 * reverse) would hand one MPI's handles to the other and crash in MPI_Init;
 * the two MPIs' handle types differ, so nothing can be passed through. The
 * check looks for a symbol only the other MPI's library defines, so it also
 * holds for MPICH derivatives (Intel MPI, MVAPICH) and other sonames. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "process/process.h"

#ifdef OPEN_MPI
#define BUILT_FOR "Open MPI"
#define OTHER "MPICH"
#define OTHER_SYMBOL "MPIR_Err_return_comm" /* MPICH and its derivatives */
#else
#define BUILT_FOR "MPICH"
#define OTHER "Open MPI"
#define OTHER_SYMBOL "ompi_mpi_init" /* Open MPI's own MPI_Init */
#endif

const char *mpisw_built_for(void) { return BUILT_FOR; }

void mpisw_identity_check(void) {
  void *sym = dlsym(RTLD_DEFAULT, OTHER_SYMBOL);
  if (!sym) return;
  Dl_info di;
  const char *lib = dladdr(sym, &di) && di.dli_fname ? di.dli_fname : "?";
  /* One line, then out before the MPI is touched: exit() would run the other
   * MPI's destructors on a half-made state. */
  fprintf(stderr,
          "mpisw: this libmpisw was built for " BUILT_FOR " but is loaded into an " OTHER
          " program (%s); use the libmpisw built for " OTHER " (libmpisw-%s.so)\n",
          lib, OTHER[0] == 'O' ? "openmpi" : "mpich");
  fflush(stderr);
  _exit(MPISW_EXIT_WRONG_MPI);
}
