/* The pool's internals: every rank's segment has the same layout, and all
 * shared state lives in segments, reached through the rm_* primitives
 * (rmem.c: words; data.c: ranges), so every algorithm is written once for both paths:
 *   local  every rank on this node: processor atomics and memcpy;
 *   rma    ranks on several nodes: MPI atomics for every metadata word (one
 *          coherent path), memcpy for data on this node, MPI_Put/MPI_Get +
 *          flush for data on other nodes, inside one lock_all epoch.
 *
 * A segment (offsets in bytes, "displacements"):
 *   [0, 4K)        header: allocator lock, bump, use, peak, free lists
 *   [4K, dir_end)  directory: nslots file records of REC_SIZE bytes
 *   [.., idx_end)  block index: idx_cap entries of IDX_ENTRY bytes
 *   [.., heap)     free-list links: one word per page of the segment, the
 *                  next free block after the block at that page (kept out
 *                  of the blocks: freeing touches no block's data)
 *   [heap, size)   blocks (page-aligned), allocated by bump or free list
 * Fresh memory is zero, and zero is every structure's empty state: the
 * pool needs no initialization writes (pages cost nothing until used). */
#ifndef MPISW_POOL_INTERNAL_H
#define MPISW_POOL_INTERNAL_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>

#include "pool/pool.h"

/* header words */
#define H_ALOCK 0    /* allocator lock: 0 or holder's world rank + 1 */
#define H_BUMP 8     /* heap bytes handed out by bump */
#define H_USED 16    /* bytes of blocks in use */
#define H_PEAK 24    /* highest H_USED */
#define H_FREE 64    /* NFREE lists: {block size, head displacement} */
#define NFREE 32
#define HDR_SIZE 4096
/* shared file pointers of collective opens (io.c): NSHP slots per rank of
 * {processes of the open that have not closed it (0: free), the pointer} */
#define H_SHP 1024
#define SHP_SIZE 16
#define NSHP ((HDR_SIZE - H_SHP) / SHP_SIZE)

/* file record words */
#define REC_SIZE 1280
#define R_STATE 0    /* S_FREE, S_CLAIMED, S_LIVE, S_TOMB */
#define R_OCOUNT 8   /* generation << 32 | open count (OC_DELETING: being deleted) */
#define R_GEN 16     /* generation of the slot's current (or last) file */
#define R_HASH 24
#define R_SIZE 32
#define R_UNIT 40
#define R_FACTOR 48
#define R_FIRST 56
/* word 64 unused (shared file pointers are per open: H_SHP) */
#define R_FLOCK 72   /* file lock: 0 or holder's world rank + 1 */
#define R_CHAIN 80   /* lock of the names whose home is this slot */
#define R_NAMELEN 88
#define R_UID 96
#define R_TRUNC 104  /* bumped by every shrink: handles drop cached blocks */
#define R_EXTENT 112 /* end of the highest block ever allocated */
#define R_NAME 128
enum { S_FREE = 0, S_CLAIMED = 1, S_LIVE = 2, S_TOMB = 3 };
#define OC_COUNT 0xffffffffULL
#define OC_DELETING 0xffffffffULL

/* block index entry: {uid, block number, displacement, 0, fill map}; uid 0
 * empty, IDX_TOMB removed. The fill map (fill.c) says which granules of
 * the block hold the file's bytes: 2 bits each, FILL_GRANULES of them. */
#define IDX_ENTRY 96
#define IDX_MAP 32
#define IDX_TOMB UINT64_MAX
#define FILL_GRANULES 256
#define FILL_WORDS (FILL_GRANULES * 2 / 64)

#define POOL_PAGE 4096ULL
#define POOL_MIN_SIZE (4ULL << 20)

struct pool {
  int ready;
  int rma;                  /* 0: local path, 1: rma path */
  int rank, nranks;         /* in MPI_COMM_WORLD */
  MPI_Comm node;            /* this node's ranks */
  MPI_Win shm;              /* the node's shared window (the segments) */
  MPI_Win world;            /* rma path: every segment, lock_all held */
  char **seg;               /* by world rank: the mapped segment, NULL on other nodes */
  int storage;              /* on storage (MPISW_POOL_HINTS alloc_type=storage) */
  int mem_fd;               /* memory pool: this process's descriptor of the node's memfd */
  char *mem_base;           /* ... and where it is mapped (segments inside) */
  uint64_t size;            /* every segment's size */
  uint64_t nslots, dir_off; /* directory */
  uint64_t idx_cap, idx_off;
  uint64_t link_off;        /* free-list links */
  uint64_t heap_off;        /* heap: [heap_off, size) */
  pthread_mutex_t mu;       /* one call at a time in this process */
  char why_not[512];        /* when not ready: why */
  uint64_t last_used, last_cap, last_peak; /* usage when freed */
  /* lock holders that die (rmem.c): by world rank, the pid and a pidfd
   * (-1 when its process runs under another kernel: another node) */
  int *pid, *pidfd;
  int timeout;              /* MPISW_POOL_TIMEOUT: seconds for an unseen holder */
  int mpi_rc, mpi_rank;     /* the first MPI call that failed, and its target */
  int mpi_dead;             /* ... not made: the target had died */
};
extern struct pool mpisw_pool;
#define P (&mpisw_pool)

/* ---- rmem.c: one word of rank r's segment at displacement d ---- */
uint64_t mpisw_pool_rm_load(int r, uint64_t d);
void mpisw_pool_rm_store(int r, uint64_t d, uint64_t v);
uint64_t mpisw_pool_rm_cas(int r, uint64_t d, uint64_t expect, uint64_t v); /* old */
uint64_t mpisw_pool_rm_fadd(int r, uint64_t d, uint64_t add);               /* old */
uint64_t mpisw_pool_rm_fmax(int r, uint64_t d, uint64_t v);                 /* old */
/* 1 when rank r is known dead (then no MPI call is made to it, and the
 * pool's first MPI failure names it). */
int mpisw_pool_rm_gone(int r);
/* Spin lock word at (r, d): waits until it holds it (value rank+1):
 * MPISW_POOL_OK, or MPISW_POOL_IO with *e filled (naming the file name,
 * the lock what, the holder) when the holder died, or, on another node,
 * did not let go within MPISW_POOL_TIMEOUT, or an MPI atomic failed. */
int mpisw_pool_rm_lock(int r, uint64_t d, const char *what, const char *name,
                       struct mpisw_error *e);
void mpisw_pool_rm_unlock(int r, uint64_t d);
/* 1 on the first try when free (no wait). */
int mpisw_pool_rm_trylock(int r, uint64_t d);
/* For loops of their own around trylock: one round of waiting for the
 * lock at (r, d), with mpisw_pool_rm_lock's errors. */
struct mpisw_pool_wait {
  int round, holder;
  int64_t since, checked; /* ns: this holder seen first, last look */
};
void mpisw_pool_rm_wait_init(struct mpisw_pool_wait *w);
int mpisw_pool_rm_wait(struct mpisw_pool_wait *w, int r, uint64_t d, const char *what,
                       const char *name, struct mpisw_error *e);
/* After local stores: visible to the others (memory barrier + Win_sync). */
void mpisw_pool_rm_publish(void);
void mpisw_pool_rm_backoff(int round);

/* ---- data.c: ranges of bytes of rank r's segment at displacement d ---- */
/* Complete at the target when they return. 0 or -1 (MPI failed). */
int mpisw_pool_rm_put(int r, uint64_t d, const void *buf, uint64_t len);
int mpisw_pool_rm_get(int r, uint64_t d, void *buf, uint64_t len);
int mpisw_pool_rm_zero(int r, uint64_t d, uint64_t len);
/* The memory pool's mapping of len bytes is made / about to go. */
void mpisw_pool_data_open(uint64_t len);
void mpisw_pool_data_close(void);

#define rm_load mpisw_pool_rm_load
#define rm_store mpisw_pool_rm_store
#define rm_cas mpisw_pool_rm_cas
#define rm_fadd mpisw_pool_rm_fadd
#define rm_fmax mpisw_pool_rm_fmax
#define rm_put mpisw_pool_rm_put
#define rm_get mpisw_pool_rm_get
#define rm_zero mpisw_pool_rm_zero

/* ---- the handle ---- */
/* One block of a file: its owner, where it is there, its index slot, and
 * whether every granule is known filled (then reads and writes skip the
 * fill map). */
struct pool_blk {
  int owner, full;
  uint64_t disp, slot;
};
struct pool_cache_entry { uint64_t key; struct pool_blk b; }; /* key: block + 1 */
struct mpisw_pool_file {
  char *name;
  int home_rank;            /* where the record lives */
  uint64_t rec;             /* its displacement */
  uint64_t gen, uid;
  uint64_t unit;
  int factor, first;
  uint64_t trunc_seen;
  int locked;               /* this process holds the file lock */
  int shptr;                /* its open's shared pointer slot + 1; 0: none */
  struct pool_cache_entry *cache; /* block -> displacement on its owner */
  uint64_t cache_cap, cache_n;
};

/* ---- fill.c: which granules of a block hold data ---- */
/* Granule of a file with stripe unit `unit`: a page, or unit / 256. */
static inline uint64_t mpisw_pool_granule(uint64_t unit) {
  uint64_t per = POOL_PAGE * FILL_GRANULES;
  return POOL_PAGE * ((unit + per - 1) / per);
}
/* Before writing [in, in+n) of block b (block number `block`): the granules
 * it covers become filled; a granule it covers in part is zeroed first when
 * it was empty. 0, or -1 when the MPI failed. */
int mpisw_pool_fill_mark(struct mpisw_pool_file *f, uint64_t block, struct pool_blk *b,
                         uint64_t in, uint64_t n);
/* Reads [in, in+n) of block b into to: filled granules from the block,
 * the rest zeros. 0 or -1. */
int mpisw_pool_fill_read(struct mpisw_pool_file *f, const struct pool_blk *b, uint64_t in,
                         void *to, uint64_t n);
/* A shrink ending at `end` inside block b: the granules past it empty, the
 * rest of the one holding it zeroed. 0 or -1. */
int mpisw_pool_fill_cut(struct mpisw_pool_file *f, const struct pool_blk *b, uint64_t end);
/* Displacement of slot's fill map word i on the block's owner. */
static inline uint64_t mpisw_pool_map_disp(uint64_t slot, int i) {
  return P->idx_off + slot * IDX_ENTRY + IDX_MAP + 8 * (uint64_t)i;
}

/* ---- block.c: blocks, the per-owner index, the handle's cache ---- */
int mpisw_pool_block_owner(const struct mpisw_pool_file *f, uint64_t block);
/* Where block lives: 1 found (*b), 0 hole, -1 (only without create; *e)
 * its owner cannot be reached; with create allocates a missing block (0
 * with *e filled: kind NOSPACE, or IO when the owner's allocation lock
 * cannot be had, rm_lock), its fill map empty. */
int mpisw_pool_block_find(struct mpisw_pool_file *f, uint64_t block, int create,
                          struct pool_blk *b, struct mpisw_error *e);
/* The handle remembers that every granule of block is filled. */
void mpisw_pool_block_full(struct mpisw_pool_file *f, uint64_t block);
/* Frees every block of file uid (named name) numbered >= from (up to
 * extent): MPISW_POOL_OK, or MPISW_POOL_IO (*e) as rm_lock. */
int mpisw_pool_blocks_free(const char *name, uint64_t uid, uint64_t unit, int factor, int first,
                           uint64_t from, uint64_t extent, struct mpisw_error *e);
void mpisw_pool_cache_clear(struct mpisw_pool_file *f);
/* The handle's cache is dropped when another process shrank the file. */
void mpisw_pool_cache_check(struct mpisw_pool_file *f);

/* ---- io.c: one user of shared pointer slot id gone (caller holds P->mu) */
void mpisw_pool_shptr_drop(int id, int users);

/* ---- module.c ---- */
/* USAGE with the reason when there is no pool. */
int mpisw_pool_need(const char *name, struct mpisw_error *e);
uint64_t mpisw_pool_default_size(void);

#endif
