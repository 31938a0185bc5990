/* MPI-IO. Files named "mem:..." or matching MPISW_MEM_PATHS are pooled
 * files (src/pfile/, whose handles are its own); files opened with a
 * collective I/O strategy (mpisw_cb_strategy, MPISW_CB_STRATEGY), pooled or
 * not, have their collective reads and writes done by the engine
 * (src/cio/), asked first, which passes back what it does not take; every other call goes to the MPI untouched,
 * so a program without either behaves exactly as without the library (one
 * load per call while no such file is open). The calls on an open file (MPISW_FILE lines of
 * pmpi/calls.def) are generated here. */
#include <errno.h>

#include "cio/cio.h"
#include "dispatch/dispatch.h"
#include "pfile/pfile.h"
#include "pmpi/pmpi.h"
#include "process/process.h"

static inline int pooled(MPI_File fh) {
  return __atomic_load_n(&mpisw_pfile_live, __ATOMIC_RELAXED) && mpisw_pfile_owns(fh);
}

static inline int engine_live(void) {
  return __atomic_load_n(&mpisw_cio_live, __ATOMIC_RELAXED) != 0;
}

/* ---- the calls on an open file ---- */
#define ON_OPEN_FILE(name, params, args)            \
  int mpisw_do_##name params {                      \
    if (pooled(fh)) return mpisw_pfile_##name args; \
    return mpisw_next.name args;                    \
  }
#define MPISW_COUNT MPI_Count
#define MPISW_DISP MPI_Aint
#define MPISW_CALL(name, params, args)
#define MPISW_CALL_C(name, params, args)
#define MPISW_CALL4(name, params, args)
#define MPISW_FILE ON_OPEN_FILE
#define MPISW_FILE_C(name, params, args)                               \
  int mpisw_do_##name(MPISW_UNPAREN params, int large) {              \
    if (pooled(fh)) return mpisw_pfile_##name(MPISW_UNPAREN args, large); \
    return mpisw_mpi_##name(MPISW_UNPAREN args, large);               \
  }
#define MPISW_FILE4(name, params, args)
#define MPISW_FILE_CIO(name, params, args)                   \
  int mpisw_do_##name params {                               \
    if (engine_live()) {                                     \
      int rc = mpisw_cio_##name args;                        \
      if (rc != MPISW_CIO_PASS) return rc;                   \
    }                                                        \
    if (pooled(fh)) return mpisw_pfile_##name args;          \
    return mpisw_next.name args;                             \
  }
#define MPISW_FILE_CIO_C(name, params, args)                              \
  int mpisw_do_##name(MPISW_UNPAREN params, int large) {                 \
    if (engine_live()) {                                                  \
      int rc = mpisw_cio_##name(MPISW_UNPAREN args, large);               \
      if (rc != MPISW_CIO_PASS) return rc;                                \
    }                                                                     \
    if (pooled(fh)) return mpisw_pfile_##name(MPISW_UNPAREN args, large); \
    return mpisw_mpi_##name(MPISW_UNPAREN args, large);                   \
  }
#include "pmpi/calls.def"
/* the MPI-4 calls that are not twins */
#define MPISW_CALL_C(name, params, args)
#define MPISW_CALL4(name, params, args)
#define MPISW_FILE_C(name, params, args)
#define MPISW_FILE4 ON_OPEN_FILE
#include "pmpi/calls_c.def"

/* ---- open, close, delete, handles ---- */
int mpisw_do_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info,
                       MPI_File *fh) {
  const char *name;
  if (mpisw_pfile_route(filename, &name)) /* the engine's too, with a strategy */
    return mpisw_cio_pfile_open(comm, filename, name, amode, info, fh);
  if (mpisw_disabled) return mpisw_next.File_open(comm, filename, amode, info, fh);
  return mpisw_cio_File_open(comm, filename, amode, info, fh);
}

int mpisw_do_File_close(MPI_File *fh) {
  if (fh && engine_live()) {
    int rc = mpisw_cio_File_close(fh);
    if (rc != MPISW_CIO_PASS) return rc;
  }
  if (fh && pooled(*fh)) return mpisw_pfile_close(fh);
  return mpisw_next.File_close(fh);
}

int mpisw_do_File_delete(const char *filename, MPI_Info info) {
  const char *name;
  if (mpisw_pfile_route(filename, &name)) return mpisw_pfile_delete(name, info);
  return mpisw_next.File_delete(filename, info);
}

int mpisw_do_remove_path(const char *path, int real_ok) {
  const char *name;
  int saved = errno;
  if (!mpisw_pfile_route(path, &name) || !mpisw_pfile_unlink(name)) {
    errno = saved;
    return real_ok ? 0 : -1;
  }
  errno = saved;
  return 0; /* the pooled file was removed (a real one of the name too, if any) */
}

/* The program's handlers are remembered: a pooled file calls them itself. */
int mpisw_do_File_create_errhandler(MPI_File_errhandler_function *fn, MPI_Errhandler *eh) {
  int rc = mpisw_next.File_create_errhandler(fn, eh);
  if (rc == MPI_SUCCESS && !mpisw_disabled) mpisw_pfile_errhandler_made(*eh, fn);
  return rc;
}

MPI_Fint mpisw_do_File_c2f(MPI_File file) {
  if (pooled(file)) return mpisw_pfile_c2f(file);
  return mpisw_next.File_c2f(file);
}

MPI_File mpisw_do_File_f2c(MPI_Fint file) {
  MPI_File fh = mpisw_pfile_live ? mpisw_pfile_f2c(file) : MPI_FILE_NULL;
  return fh != MPI_FILE_NULL ? fh : mpisw_next.File_f2c(file);
}
