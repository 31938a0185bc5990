/* kv_file.c: making the store's file durable. Calls only the window module. */
#ifndef MPISW_KV_FILE_H
#define MPISW_KV_FILE_H

#include <mpi.h>

#include "core/error.h"

/* Syncs the storage window win (the store's file at path) to storage. */
int mpisw__kv_file_sync(MPI_Win win, const char *path, struct mpisw_error *e);

#endif
