/* A stand-in for a PMPI profiler (mpiP, Score-P, darshan work this way):
 * it defines MPI_X, counts the call and calls PMPI_X. Stacked in front of
 * mpisw (first in LD_PRELOAD, or linked ahead of it) it must see exactly one
 * call per call of the program, and its PMPI_X must reach mpisw, which then
 * reaches the MPI (issue 14). t_stack.c reads the counts through
 * mpisw_testprof_count, found with dlsym, so a program that does not link
 * the profiler can still ask. */
#include <mpi.h>
#include <stdatomic.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* X(routine): one counter per routine this profiler intercepts. */
#define PROF_ROUTINES(X)                                                                 \
  X(MPI_Win_allocate) X(MPI_Win_free) X(MPI_Put) X(MPI_Accumulate) X(MPI_Get_accumulate) \
  X(MPI_Win_flush) X(MPI_Win_get_attr) X(MPI_Win_attach) X(MPI_Win_detach)

#define ENUM(r) C_##r,
enum { PROF_ROUTINES(ENUM) C_COUNT };
#define NAME(r) #r,
static const char *const names[C_COUNT] = {PROF_ROUTINES(NAME)};
static atomic_long counts[C_COUNT];

/* The number of calls of routine (e.g. "MPI_Put") seen so far; -1 for a
 * routine this profiler does not intercept. */
EXPORT long mpisw_testprof_count(const char *routine) {
  for (int i = 0; i < C_COUNT; i++)
    if (!strcmp(names[i], routine)) return atomic_load(&counts[i]);
  return -1;
}

#define COUNT(r) atomic_fetch_add(&counts[C_##r], 1)

EXPORT int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void *baseptr, MPI_Win *win) {
  COUNT(MPI_Win_allocate);
  return PMPI_Win_allocate(size, disp_unit, info, comm, baseptr, win);
}

EXPORT int MPI_Win_free(MPI_Win *win) {
  COUNT(MPI_Win_free);
  return PMPI_Win_free(win);
}

EXPORT int MPI_Put(const void *oa, int oc, MPI_Datatype odt, int tr, MPI_Aint td, int tc,
                   MPI_Datatype tdt, MPI_Win win) {
  COUNT(MPI_Put);
  return PMPI_Put(oa, oc, odt, tr, td, tc, tdt, win);
}

EXPORT int MPI_Accumulate(const void *oa, int oc, MPI_Datatype odt, int tr, MPI_Aint td, int tc,
                          MPI_Datatype tdt, MPI_Op op, MPI_Win win) {
  COUNT(MPI_Accumulate);
  return PMPI_Accumulate(oa, oc, odt, tr, td, tc, tdt, op, win);
}

EXPORT int MPI_Get_accumulate(const void *oa, int oc, MPI_Datatype odt, void *ra, int rc,
                              MPI_Datatype rdt, int tr, MPI_Aint td, int tc, MPI_Datatype tdt,
                              MPI_Op op, MPI_Win win) {
  COUNT(MPI_Get_accumulate);
  return PMPI_Get_accumulate(oa, oc, odt, ra, rc, rdt, tr, td, tc, tdt, op, win);
}

EXPORT int MPI_Win_flush(int rank, MPI_Win win) {
  COUNT(MPI_Win_flush);
  return PMPI_Win_flush(rank, win);
}

EXPORT int MPI_Win_get_attr(MPI_Win win, int keyval, void *value, int *flag) {
  COUNT(MPI_Win_get_attr);
  return PMPI_Win_get_attr(win, keyval, value, flag);
}

EXPORT int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size) {
  COUNT(MPI_Win_attach);
  return PMPI_Win_attach(win, base, size);
}

EXPORT int MPI_Win_detach(MPI_Win win, const void *base) {
  COUNT(MPI_Win_detach);
  return PMPI_Win_detach(win, base);
}
