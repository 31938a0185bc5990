/* The info keys mpisw interprets beyond the storage hints (the RMA
 * extensions' keys, alloc_shared_noncontig on storage), read with the one
 * rule of src/core/hints.c: a bad value is MPISW_ERR_HINT naming the key,
 * the value and the accepted spellings, never read as false. */
#ifndef MPISW_WIN_INFO_KEYS_H
#define MPISW_WIN_INFO_KEYS_H

#include <mpi.h>

#include "core/error.h"

/* A boolean key of info: 1 with *out set when present, 0 when absent
 * (*out untouched), -1 with e when its value is not a boolean. */
int mpisw_info_bool(MPI_Info info, const char *key, int *out, struct mpisw_error *e);
/* Every RMA extension key present in info has a valid value: 0, or -1 with e. */
int mpisw_info_rma_check(MPI_Info info, struct mpisw_error *e);
/* The same, agreed over comm before the MPI makes a window (MPI_Win_create,
 * MPI_Win_create_dynamic): MPI_SUCCESS on every rank, or every rank gets the
 * lowest failing rank's error, raised on comm. Collective. */
int mpisw_win_keys_agree(const char *routine, MPI_Info info, MPI_Comm comm);

#endif
