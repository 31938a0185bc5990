/* The pool: a distributed byte store that every rank of MPI_COMM_WORLD
 * gives memory to (MPISW_POOL_SIZE each; storage with MPISW_POOL_HINTS), made
 * at MPI_Init and freed at MPI_Finalize. Pooled files (the MPI-IO layer,
 * src/pfile/) live in it: a directory of file records spread over the ranks,
 * data striped in blocks over the ranks, everything reached one-sidedly
 * (processor atomics and memcpy on one node, MPI RMA across nodes), so one
 * rank opening a file alone needs no other rank's CPU. docs/POOLED_FILES.md,
 * "The pool".
 *
 * Every call returns one of the MPISW_POOL_* codes and, on failure, fills
 * *e (kind MPISW_K_*, message naming the file and the reason). Calls may
 * come from several threads of one process; they are serialized inside.
 * Offsets and sizes are bytes. */
#ifndef MPISW_POOL_POOL_H
#define MPISW_POOL_POOL_H

#include <stdint.h>

#include "core/error.h"
#include "process/module.h"

enum {
  MPISW_POOL_OK = 0,
  MPISW_POOL_NOENT = -1,   /* no such file */
  MPISW_POOL_EXISTS = -2,  /* exclusive create of an existing file */
  MPISW_POOL_NOSPACE = -3, /* no block, index entry or directory slot left */
  MPISW_POOL_BUSY = -4,    /* delete of a file open somewhere */
  MPISW_POOL_IO = -5,      /* the MPI or the storage under the pool failed */
  MPISW_POOL_USAGE = -6    /* no pool, bad argument, name too long */
};

/* Longest file name (bytes, without the terminating NUL). */
#define MPISW_POOL_NAME_MAX 1151
/* Defaults of a new file's layout. */
#define MPISW_POOL_DEFAULT_UNIT (1024 * 1024)

/* 1 when the pool exists (made at MPI_Init, not yet freed). */
int mpisw_pool_ready(void);

/* This process's handle on one file (opaque). */
struct mpisw_pool_file;

/* Layout of a new file: 0 = default (stripe unit 1 MiB; stripe factor all
 * ranks of MPI_COMM_WORLD). A unit is rounded up to a multiple of 4 KiB; a
 * factor above the ranks is the ranks. */
struct mpisw_pool_layout {
  uint64_t stripe_unit;
  int stripe_factor;
};

/* Opens name (any bytes but NUL, 1 to MPISW_POOL_NAME_MAX long). create: make
 * it if missing (with layout l, may be NULL); excl: with create, EXISTS when
 * it is there (of two racing exclusive creates exactly one wins). Without
 * create, NOENT when missing. Not collective: any process opens alone. */
int mpisw_pool_open(const char *name, int create, int excl, const struct mpisw_pool_layout *l,
                    struct mpisw_pool_file **f, struct mpisw_error *e);
/* Releases the handle (the file stays, with its data, until deleted or the
 * job ends). */
int mpisw_pool_close(struct mpisw_pool_file *f, struct mpisw_error *e);
/* Removes the file and frees its blocks: NOENT when missing, BUSY while any
 * process has it open. */
int mpisw_pool_delete(const char *name, struct mpisw_error *e);

/* Writes len bytes at off; the size becomes at least off+len. Blocks are
 * allocated on first write, on their owner rank. NOSPACE when the pool
 * (the owner rank's part) is full: what was written before is intact, the
 * bytes of this call up to the failing block are written and counted in
 * the size, the file stays readable. Unaligned writes never read. */
int mpisw_pool_write(struct mpisw_pool_file *f, uint64_t off, const void *buf, uint64_t len,
                     struct mpisw_error *e);
/* Reads up to len bytes at off into buf; *got is what lay below the size
 * (short at the end of the file, 0 past it). Holes read as zeros. */
int mpisw_pool_read(struct mpisw_pool_file *f, uint64_t off, void *buf, uint64_t len,
                    uint64_t *got, struct mpisw_error *e);
int mpisw_pool_get_size(struct mpisw_pool_file *f, uint64_t *size, struct mpisw_error *e);
/* Shrinking frees the blocks past the new size (and zeroes the kept block's
 * tail, so a later grow reads zeros); growing is sparse. */
int mpisw_pool_set_size(struct mpisw_pool_file *f, uint64_t size, struct mpisw_error *e);
/* Allocates every missing block of [0, size) now (NOSPACE now, not at a
 * later write); the size becomes at least size. */
int mpisw_pool_preallocate(struct mpisw_pool_file *f, uint64_t size, struct mpisw_error *e);
/* This process's writes visible to every process, and durable for blocks
 * on this node's storage when the pool is on storage. */
int mpisw_pool_sync(struct mpisw_pool_file *f, struct mpisw_error *e);

/* A file-wide exclusive lock across processes (MPI atomic mode). Not
 * recursive: a process (any of its threads) holds it at most once. */
int mpisw_pool_lock(struct mpisw_pool_file *f, struct mpisw_error *e);
int mpisw_pool_unlock(struct mpisw_pool_file *f, struct mpisw_error *e);

/* Shared file pointers: one per collective open (MPI-4 14.4.4), not per
 * file, so opens of one file by different communicators move their own.
 * One process of the open takes a slot for the open's users processes,
 * starting at start, and sends its id to the others (NOSPACE when every
 * slot belongs to an open file: NSHP per rank of MPI_COMM_WORLD); each
 * attaches it to its handle, and mpisw_pool_close of an attached handle
 * drops one user: the last one frees the slot (no collective). release
 * drops users that never attached (an open that failed). */
int mpisw_pool_shared_ptr_take(const char *name, int users, int64_t start, int *id,
                               struct mpisw_error *e);
void mpisw_pool_shared_ptr_attach(struct mpisw_pool_file *f, int id);
void mpisw_pool_shared_ptr_release(int id, int users);
/* Fetch-and-add on the handle's shared file pointer (add 0 reads it);
 * *before is the value before the add. USAGE without an attached slot. */
int mpisw_pool_shared_ptr(struct mpisw_pool_file *f, int64_t add, int64_t *before,
                          struct mpisw_error *e);
int mpisw_pool_shared_ptr_set(struct mpisw_pool_file *f, int64_t value, struct mpisw_error *e);
/* Slots in use now and their number (a snapshot, for tests and reports). */
void mpisw_pool_shared_ptrs(uint64_t *in_use, uint64_t *capacity);

/* Which rank of MPI_COMM_WORLD holds byte off, and how many bytes from off
 * stay on that rank (to the end of its block; UINT64_MAX with one stripe).
 * For parallel drains: each rank copies the runs it holds. */
int mpisw_pool_owner(struct mpisw_pool_file *f, uint64_t off, int *world_rank, uint64_t *run);

/* Bytes of blocks in use and the pool's capacity over all ranks, and the
 * sum of every rank's peak use (an upper bound of the job's peak). Read
 * from the ranks' headers without locks (a snapshot); after MPI_Finalize
 * the values seen when the pool was freed (across nodes only with
 * MPISW_REPORT=1; else 0). For MPISW_REPORT. */
void mpisw_pool_usage(uint64_t *used, uint64_t *capacity, uint64_t *peak);

/* The pool's module table (process/module.h): the pool made at MPI_Init
 * (after_init), freed before MPI_Finalize. */
extern const struct mpisw_module mpisw_pool_module;

#endif
