/* Shared by typemap*.c only (not the pfile layer's API, see typemap.h). */
#ifndef MPISW_PFILE_TYPEMAP_INTERNAL_H
#define MPISW_PFILE_TYPEMAP_INTERNAL_H

#include <mpi.h>
#include <stddef.h>

#include "pfile/typemap.h"

/* Writes the reason (printf format) into why[whylen] and returns cls. */
int mpisw_typemap_fail(char *why, size_t whylen, int cls, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The piece holding data byte r of one instance (0 <= r < map->size):
 * the last i with before[i] <= r. O(log n). */
MPI_Count mpisw_typemap_find(const struct mpisw_typemap *map, MPI_Count r);

#endif
