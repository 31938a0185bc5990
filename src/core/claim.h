/* One window's bytes of a file are its own: a window claims its byte range
 * with an open-file-description write lock (F_OFD_SETLK), held as long as its
 * descriptor is open. It conflicts with any other claim on the node (another
 * rank of the window, another live window of this or any process, another
 * job) and goes with the process, however it ends. Peers that open a file
 * another rank claimed (shared windows, node-shared mappings) do not claim. */
#ifndef MPISW_CORE_CLAIM_H
#define MPISW_CORE_CLAIM_H

#include <stdint.h>

#include "core/error.h"
#include "core/storage.h"

/* Claims [off, off+len) of the file open on fd (path for the message).
 * 0 (also when len is 0 or the file system has no such locks), or -1 with
 * MPISW_K_USAGE naming the file and the range when someone holds part of it. */
int mpisw_claim_range(int fd, const char *path, uint64_t off, uint64_t len,
                      struct mpisw_error *e);

/* After a collective undo (every rank of the window released its claims):
 * removes the file f created but had to keep at rollback because another
 * rank's claim on it came first, when nobody claims any of it any more. */
void mpisw_claim_drop_orphan(struct mpisw_file *f);

#endif
