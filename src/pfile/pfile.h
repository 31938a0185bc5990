/* Pooled files: MPI-IO on the pool (src/pool/), for files named "mem:..." or
 * matching MPISW_MEM_PATHS (docs/POOLED_FILES.md). What src/dispatch/file.c
 * calls: a pooled file's handle is this module's own (never the MPI's), so
 * every call on it comes here. */
#ifndef MPISW_PFILE_PFILE_H
#define MPISW_PFILE_PFILE_H

#include <mpi.h>

#include "core/error.h"
#include "pfile/typemap.h"
#include "pmpi/next.h"
#include "process/module.h"

/* Pooled files open in this process: the calls on other files look further
 * only when > 0. */
extern volatile int mpisw_pfile_live;

/* 1 when fh is a pooled file of this process. */
int mpisw_pfile_owns(MPI_File fh);

/* Routing by name (route.c): 1 when filename is a pooled file's ("mem:"
 * prefix, or a pattern of MPISW_MEM_PATHS), with *name its name in the pool
 * (the prefix removed); 0 for every other file. */
int mpisw_pfile_route(const char *filename, const char **name);

/* The calls that do not start from an open pooled file. */
int mpisw_pfile_open(MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh);
int mpisw_pfile_close(MPI_File *fh);
int mpisw_pfile_delete(const char *name, MPI_Info info);
/* A POSIX removal of a pooled file's path: 1 when the pool held it and it
 * is gone, 0 otherwise (no pool, no such file, or still open). */
int mpisw_pfile_unlink(const char *name);
MPI_Fint mpisw_pfile_c2f(MPI_File fh);
/* The pooled file of a Fortran handle, or MPI_FILE_NULL when it is not one. */
MPI_File mpisw_pfile_f2c(MPI_Fint f);
/* MPI_File_create_errhandler made eh for fn: remembered, so that pooled
 * files can call it. */
void mpisw_pfile_errhandler_made(MPI_Errhandler eh, MPI_File_errhandler_function *fn);

/* Every call on an open file (the MPISW_FILE lines of pmpi/calls.def):
 * mpisw_pfile_X, with the wide types and "large" for the calls that have an
 * MPI-4 twin. */
#define MPISW_COUNT MPI_Count
#define MPISW_DISP MPI_Aint
#define MPISW_CALL(name, params, args)
#define MPISW_CALL_C(name, params, args)
#define MPISW_CALL4(name, params, args)
#define MPISW_FILE(name, params, args) int mpisw_pfile_##name params;
#define MPISW_FILE_C(name, params, args) \
  int mpisw_pfile_##name(MPISW_UNPAREN params, int large);
#define MPISW_FILE4(name, params, args)
#include "pmpi/calls.def"
#if MPI_VERSION >= 4
int mpisw_pfile_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent);
#endif

/* For the collective I/O engine serving a pooled file (src/cio/,
 * ranges.c). The file's view: *esize its etype's size; 0, or -1 when the
 * engine cannot take it (external32). The file pieces of stream bytes
 * [pos, pos + len) of the view, as mpisw_view_map gives them. */
int mpisw_pfile_view_esize(MPI_File fh, MPI_Count *esize);
int mpisw_pfile_view_map(MPI_File fh, MPI_Count pos, MPI_Count len, mpisw_view_piece_fn fn,
                         void *ctx);
/* len bytes at file offset off written from buf / read into it through the
 * pool (zeros past the end of the file): 0, or an errno value (ENOSPC: the
 * pool is full) with e saying what. */
int mpisw_pfile_write_range(MPI_File fh, const void *buf, size_t len, MPI_Offset off,
                            struct mpisw_error *e);
int mpisw_pfile_read_range(MPI_File fh, void *buf, size_t len, MPI_Offset off,
                           struct mpisw_error *e);

/* The module's table (process/module.h): at MPI_Finalize, pooled files with
 * a drain path are written out, and MPISW_REPORT's lines per pooled file. */
extern const struct mpisw_module mpisw_pfile_module;

#endif
