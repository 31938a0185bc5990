/* MPI-IO. Every call on a file mpisw does not own goes to the MPI
 * untouched: a program without pooled files behaves exactly as without the
 * library. The calls on an open file (MPISW_FILE lines of pmpi/calls.def)
 * are generated here. */
#include "dispatch/dispatch.h"
#include "pmpi/pmpi.h"
#include "process/process.h"

/* ---- the calls on an open file ---- */
#define MPISW_COUNT MPI_Count
#define MPISW_DISP MPI_Aint
#define MPISW_CALL(name, params, args)
#define MPISW_CALL_C(name, params, args)
#define MPISW_CALL4(name, params, args)
#define MPISW_FILE(name, params, args) \
  int mpisw_do_##name params { return mpisw_next.name args; }
#define MPISW_FILE_C(name, params, args)                  \
  int mpisw_do_##name(MPISW_UNPAREN params, int large) { \
    return mpisw_mpi_##name(MPISW_UNPAREN args, large);  \
  }
#define MPISW_FILE4(name, params, args)
#include "pmpi/calls.def"
/* the MPI-4 calls that are not twins */
#define MPISW_CALL_C(name, params, args)
#define MPISW_CALL4(name, params, args)
#define MPISW_FILE_C(name, params, args)
#define MPISW_FILE4(name, params, args) \
  int mpisw_do_##name params { return mpisw_next.name args; }
#include "pmpi/calls_c.def"

/* ---- open, close, delete, handles ---- */
int mpisw_do_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info,
                       MPI_File *fh) {
  return mpisw_next.File_open(comm, filename, amode, info, fh);
}

int mpisw_do_File_close(MPI_File *fh) { return mpisw_next.File_close(fh); }

int mpisw_do_File_delete(const char *filename, MPI_Info info) {
  return mpisw_next.File_delete(filename, info);
}

int mpisw_do_File_create_errhandler(MPI_File_errhandler_function *fn, MPI_Errhandler *eh) {
  return mpisw_next.File_create_errhandler(fn, eh);
}

MPI_Fint mpisw_do_File_c2f(MPI_File file) { return mpisw_next.File_c2f(file); }

MPI_File mpisw_do_File_f2c(MPI_Fint file) { return mpisw_next.File_f2c(file); }
