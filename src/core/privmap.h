/* The storage part of an atomic-sync window on the mmap backend: the file
 * mapped MAP_PRIVATE, so the kernel never writes a changed page back on its
 * own; a sync finds the pages written since the last sync, journals them,
 * and writes them in place (core/journal.h). Written pages stay private (in
 * memory, swappable): dropping them could lose a write landing during the
 * sync.
 * Finding them: userfaultfd asynchronous write-protection of the range
 * (Linux 6.7: any memory with WP_ASYNC), PAGEMAP_SCAN listing the pages
 * written since and protecting them again in one call, as the pager does;
 * without it, every page that is private (a written file page becomes
 * anonymous: /proc/self/pagemap says so) whose hash changed since the last
 * sync, which reads every page ever written. MPI-free. */
#ifndef MPISW_CORE_PRIVMAP_H
#define MPISW_CORE_PRIVMAP_H

#include <stdint.h>

#include "core/error.h"
#include "core/journal.h"

struct mpisw_privmap {
  char *addr;                    /* page-aligned mapping of len bytes */
  uint64_t len, file_off;        /* file offset of addr */
  uint64_t data_start, data_end; /* the file bytes that are ours (edges: a neighbour's) */
  uint64_t *hash;                /* per page: hash of our bytes at the last sync, 0: none */
  int pagemap;                   /* /proc/self/pagemap */
  uint64_t *pend;                /* (page, hash) pairs of the sync under way */
  uint64_t npend, cap;
  int uffd;                      /* write-protect tracking, or -1: pagemap + hashes */
  int redo;                      /* a sync failed after its scan: take every private page */
};

enum { MPISW_PRIVMAP_AUTO = 0, MPISW_PRIVMAP_HASH = 1 }; /* how: tests force the fallback */

/* Maps file bytes [file_off, file_off+len) of fd privately over [addr,
 * addr+len) (MAP_FIXED: the caller reserved it) with the access_style advice. */
int mpisw_privmap_start(struct mpisw_privmap *m, char *addr, uint64_t len, int fd,
                        uint64_t file_off, uint64_t data_start, uint64_t data_end,
                        unsigned access, int how, struct mpisw_error *e);

/* One atomic sync: changed pages into j, commit, write in place, fdatasync,
 * mark applied. Durable and all-or-nothing on return. *written: bytes
 * written (journal + file). On failure nothing is taken as synced: the next
 * sync writes the same pages again. */
int mpisw_privmap_sync(struct mpisw_privmap *m, struct mpisw_journal *j, int fd,
                       uint64_t *written, struct mpisw_error *e);

/* Frees the state; the mapping stays (the caller unmaps its range). */
void mpisw_privmap_stop(struct mpisw_privmap *m);

#endif
