/* The driver shared by the collective I/O benchmarks bench/cio_cube.c and
 * bench/cio_btio.c (issue 18): options, the sides (otp, latp, tatp through
 * the engine's hint mpisw_cb_strategy; romio without it), the timed
 * collective write (and read), verification, the engine's per-call figures
 * (MPI_File_get_info) and the benchmark's own model of each strategy's
 * hop-bytes and maximum link load, one JSON line per measurement.
 * Each program gives its pattern and how to build its MPI file view. */
#ifndef MPISW_BENCH_CIO_RUN_H
#define MPISW_BENCH_CIO_RUN_H

#include <mpi.h>

#include "cio_pattern.h"

/* The file view of rank's boxes: *etype (the element: MPI_DOUBLE, or BT's 5
 * doubles) and *ftype (the boxes in the global array), both committed; the
 * caller frees them. The memory side is the boxes' elements one after the
 * other, each box in C order. */
typedef void (*cio_view_fn)(const struct cio_pattern *pt, int rank, MPI_Datatype *etype,
                            MPI_Datatype *ftype);

/* main() of a benchmark: name ("cio_cube"), its kind and view builder. */
int cio_run_main(int argc, char **argv, const char *name, enum cio_kind kind, cio_view_fn view);

#endif
