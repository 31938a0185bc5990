/* Collective I/O (issue 18; docs/COLLECTIVE_IO.md): the two-phase engine's
 * module. Its interface to src/dispatch/file.c (the calls it may take), and
 * the topology of a communicator's ranks, the distance matrix D of the
 * assignment (W = D x C). cio/ may include pfile/ and below, and topo/ (the
 * MPI-free topology model). The engine's insides: cio/engine.h. */
#ifndef MPISW_CIO_CIO_H
#define MPISW_CIO_CIO_H

#include <mpi.h>

#include "core/error.h"
#include "pmpi/next.h"
#include "topo/topo.h"

/* Where the ranks of a communicator are, and how far apart.
 * D[i * size + j]: 0 on the diagonal; between ranks of one node the hwloc
 * distance of their CPU bindings (topo.h: 0.25 one core, 0.5 one package,
 * 1 the node; 1 when unbound); between nodes the hop count through the
 * switch tree of MPISW_TOPOLOGY, or 2 (the flat default). Nodes: ranks in
 * one MPI_COMM_TYPE_SHARED communicator with one host name (the processor
 * name, or MPISW_TOPO_HOSTNAME when set), numbered in rank order. */
struct mpisw_cio_topo {
  int size;       /* ranks of the communicator */
  double *D;      /* size x size */
  int nnodes;
  int *node_of;   /* [size]: node of each rank */
  char (*binding)[256]; /* [size]: each rank's PU list, "" when unbound */
  struct mpisw_topo_net net; /* hosts 0..nnodes-1 are the nodes */
  int flat;       /* 1: the flat default (no file, or a host not in it) */
  char file[1024]; /* the topology file used; "" for the flat default */
};

/* Collective over comm; every rank gets the same D, or the same error
 * (kind and message: "MPISW_TOPOLOGY: FILE:LINE: problem", ...). Rank 0
 * alone reads the file. A host the file does not name: one warning from
 * rank 0 (once per process) and the flat default. 0 or -1. */
int mpisw_cio_topo_build(MPI_Comm comm, struct mpisw_cio_topo *t, struct mpisw_error *e);
void mpisw_cio_topo_free(struct mpisw_cio_topo *t);

/* ---- the engine's calls (src/cio/file.c, calls.c) ----
 * Each returns MPISW_CIO_PASS (-1) for a file or call it does not take (the
 * caller passes it to the MPI), else the call's result. */
#define MPISW_CIO_PASS (-1)
extern int mpisw_cio_live; /* files the engine serves are open: ask it */
/* Opens through the MPI; a file with a strategy gets the engine's state.
 * Always the whole open (never PASS): the hints are agreed first. */
int mpisw_cio_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info,
                        MPI_File *fh);
/* The same for the pooled file pool_name (src/pfile/ opens it; filename
 * is the name the program gave). */
int mpisw_cio_pfile_open(MPI_Comm comm, const char *filename, const char *pool_name, int amode,
                         MPI_Info info, MPI_File *fh);
int mpisw_cio_File_close(MPI_File *fh);
/* The MPISW_FILE_CIO and MPISW_FILE_CIO_C lines of pmpi/calls.def. */
#define MPISW_COUNT MPI_Count
#define MPISW_DISP MPI_Aint
#define MPISW_CALL(name, params, args)
#define MPISW_CALL_C(name, params, args)
#define MPISW_CALL4(name, params, args)
#define MPISW_FILE_CIO(name, params, args) int mpisw_cio_##name params;
#define MPISW_FILE_CIO_C(name, params, args) int mpisw_cio_##name(MPISW_UNPAREN params, int large);
#include "pmpi/calls.def"

/* The module's table (process/module.h). */
struct mpisw_module;
extern const struct mpisw_module mpisw_cio_module;

#endif
