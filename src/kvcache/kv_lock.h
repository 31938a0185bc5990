/* kv_lock.c: one open store per file. Calls nothing else of the store. */
#ifndef MPISW_KV_LOCK_H
#define MPISW_KV_LOCK_H

#include "core/error.h"

/* Takes the store's lock on fd (the file at path): 0, or -1 with *e saying
 * that the file is in use (and by which process, when the system tells). */
int mpisw__kv_lock(int fd, const char *path, struct mpisw_error *e);

#endif
