/* A module of the library: what it does at the process's and the windows'
 * milestones. Each module (process/, win/, rmax/) fills one table and
 * src/dispatch/modules.c lists them in the order they are asked; the
 * interposed calls (src/dispatch/) go through that list instead of naming
 * each module's hooks. Every member may be NULL. No hook runs while
 * MPISW_DISABLE=1. */
#ifndef MPISW_PROCESS_MODULE_H
#define MPISW_PROCESS_MODULE_H

#include <mpi.h>

struct mpisw_module {
  const char *name;
  void (*before_init)(void);      /* before the MPI initializes */
  void (*after_init)(void);       /* after it succeeded */
  void (*before_finalize)(void);  /* before the MPI's MPI_Finalize */
  /* With MPISW_REPORT=1, after the summary (collective over MPI_COMM_WORLD;
   * rank 0 prints): the module's own lines. */
  void (*report)(void);
  /* A window was made (by the MPI or by mpisw): flavor is its
   * MPI_WIN_FLAVOR_*, base/size this rank's memory (NULL/0 for dynamic). */
  void (*win_created)(MPI_Win win, MPI_Info info, int flavor, void *base, MPI_Aint size);
  void (*win_freed)(MPI_Win was);                   /* the handle it had */
  void (*mem_allocated)(void *base, MPI_Aint size); /* MPI_Alloc_mem succeeded */
  void (*mem_freed)(void *base);                    /* MPI_Free_mem succeeded */
};

/* The process module (process/module.c): MPI bugs worked around before
 * MPI_Init, and the leak list behind MPISW_REPORT. */
extern const struct mpisw_module mpisw_process_module;

#endif
