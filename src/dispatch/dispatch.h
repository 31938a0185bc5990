/* What each call mpisw takes over does: the layer between the entry points
 * (src/interpose/, generated from pmpi/calls.def) and the modules. One
 * function mpisw_do_X per line of calls.def; a call with an MPI-4 twin takes
 * the wide types and "large" (1 when the user called MPI_X_c). Each asks
 * the modules in turn: the RMA extensions (src/rmax/), the windows on
 * storage (src/win/) and the process's bookkeeping (src/process/), then
 * the MPI (pmpi/next.h). */
#ifndef MPISW_DISPATCH_DISPATCH_H
#define MPISW_DISPATCH_DISPATCH_H

#include <mpi.h>

#include "pmpi/next.h"

#define MPISW_COUNT MPI_Count
#define MPISW_DISP MPI_Aint
#define MPISW_CALL(name, params, args) int mpisw_do_##name params;
#define MPISW_CALL_C(name, params, args) int mpisw_do_##name(MPISW_UNPAREN params, int large);
#define MPISW_CALL4(name, params, args) int mpisw_do_##name params;
#define MPISW_CALL_T(type, name, params, args) type mpisw_do_##name params;
#include "pmpi/calls.def"

/* ---- file.c: a POSIX removal of path (unlink, remove, unlinkat) whose C
 * library call succeeded (real_ok) or failed (errno set): a pooled file of
 * that path goes too; 0 when either was removed, else -1 with the C
 * library's errno ---- */
int mpisw_do_remove_path(const char *path, int real_ok);

/* ---- window.c: MPIX_Win_sync_target (mpisw.h), for a duplicate its parent ---- */
int mpisw_do_Win_sync_target(MPI_Win win, int rank);

/* ---- modules.c: every module's hook for one milestone, in the modules'
 * order (nothing while MPISW_DISABLE=1) ---- */
void mpisw_modules_before_init(void);
void mpisw_modules_after_init(void);
void mpisw_modules_before_finalize(void);
void mpisw_modules_report(void);
void mpisw_modules_win_created(MPI_Win win, MPI_Info info, int flavor, void *base,
                               MPI_Aint size);
void mpisw_modules_win_freed(MPI_Win was);
void mpisw_modules_mem_allocated(void *base, MPI_Aint size);
void mpisw_modules_mem_freed(void *base);

#endif
