/* The user-level pager: a storage range kept in anonymous memory that
 * userfaultfd fills from the file (O_DIRECT reads of aligned blocks), with
 * dirty pages tracked by asynchronous userfaultfd write-protection, written
 * back with O_DIRECT by worker threads, and evicted under a memory limit.
 * MPI-free (unit-tested without MPI); docs/PAGER.md explains the design. */
#ifndef MPISW_PAGER_PAGER_H
#define MPISW_PAGER_PAGER_H

#include <stdint.h>

#include "core/error.h"

struct mpisw_pager;

struct mpisw_pager_opts {
  uint64_t block;       /* bytes per block, a page multiple (0: 2 MiB) */
  uint64_t memory;      /* bytes of blocks the pager may hold (at least 4 blocks) */
  int workers;          /* I/O threads (0: 4) */
  int readahead;        /* blocks read ahead of a sequential stream; -1: default */
  int debug;            /* statistics and decisions on stderr */
  unsigned access;      /* access_style bits, for the file mapping put back on failure */
  int shared;           /* 1: the range is a memfd other processes may map (see
                         * mpisw_pager_shared_fd); it must fit in memory: every
                         * block is loaded at start and none is evicted */
};

/* The range [addr, addr+len) (page-aligned, already reserved by the caller)
 * mirrors file bytes [file_off, file_off+len) of fd (file_off page-aligned).
 * Only file bytes in [data_start, data_end) are ever written (the range's
 * edges may hold a neighbour's bytes); file bytes at or above zero_from read
 * as zeros without I/O (space the caller just created).
 * On success the range is anonymous memory served by the pager. On failure
 * (no userfaultfd, missing kernel features, no O_DIRECT) *e says why and the
 * range is left as it was. */
struct mpisw_pager *mpisw_pager_start(char *addr, uint64_t len, int fd, uint64_t file_off,
                                      uint64_t data_start, uint64_t data_end,
                                      uint64_t zero_from, const struct mpisw_pager_opts *o, struct mpisw_error *e);

/* 0 when this process can run a pager at all, else -1 with the reason. */
int mpisw_pager_probe(struct mpisw_error *e);

/* Writes back every block written since its last write-back, then fdatasync:
 * durable on return. Also reports an I/O error a background thread met. */
int mpisw_pager_sync(struct mpisw_pager *pg, struct mpisw_error *e);

struct mpisw_journal;
/* storage_sync=atomic (docs/DURABILITY.md): from now on no write of the
 * pager reaches the file between syncs. A block written back (evicted or
 * flushed) goes into j's body in memory instead, and loads of it read it
 * from there; each sync commits j, writes its records in place and marks it
 * applied (core/journal.h). j: opened on [data_start, data_end), kept by the
 * caller until the pager stops. Call before the range is used. */
void mpisw_pager_set_atomic(struct mpisw_pager *pg, struct mpisw_journal *j);
/* 1 once set_atomic took effect (0: out of memory). */
int mpisw_pager_is_atomic(const struct mpisw_pager *pg);

/* Hint: [addr, addr+len) is about to be overwritten entirely, so blocks it
 * covers completely need not be read from the file. */
void mpisw_pager_will_overwrite(struct mpisw_pager *pg, const void *addr, uint64_t len);

/* Stops the threads and unregisters the range (no write-back: sync first).
 * The range keeps what is resident; the caller unmaps it. */
void mpisw_pager_stop(struct mpisw_pager *pg);

struct mpisw_pager_stats {
  uint64_t faults, loads, zero_loads, readaheads, evictions, writebacks;
  uint64_t bytes_read, bytes_written, move_failures;
  uint64_t block, max_blocks;
};
/* Waits for loads in flight or queued (call it while the range is idle),
 * then copies the counters; a load's counters always change together. */
void mpisw_pager_get_stats(struct mpisw_pager *pg, struct mpisw_pager_stats *s);
/* The memfd a shared pager's range maps (opts.shared), for other processes
 * to map at offsets from the range's start; -1 for a private range. Their
 * writes are found by comparing each block with its file bytes' hash at
 * every sync (pager_shared.c). The pager closes it when it stops. */
int mpisw_pager_shared_fd(const struct mpisw_pager *pg);
/* Bytes written back so far, without waiting for loads (a sync's count). */
uint64_t mpisw_pager_bytes_written(struct mpisw_pager *pg);

#endif
