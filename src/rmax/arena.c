/* The arena: one window allocated with MPI_Win_allocate at MPI_Init over
 * MPI_COMM_WORLD (MPISW_ARENA_SIZE bytes per process, default 64 MiB;
 * 0 leaves only the handle slots, so MPI_Alloc_mem is the MPI's). MPI_Alloc_mem serves memory from it, so a memory handle on
 * such memory is just (world rank, offset) and RMA through it runs at
 * allocated-window speed instead of through the dynamic window's lookup.
 * The arena stays in an MPI_Win_lock_all epoch for its whole life, so
 * operations routed into it are always legal; the parent's flush and
 * unlock complete them.
 *
 * Layout: SLOTS generation words (memory-handle validity, read remotely by
 * MPIX_Win_from_memhandle), then the heap (first fit, 64-byte aligned). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/hints.h"
#include "mpisw.h"
#include "rmax/rmax.h"

#define SLOTS 4096
#define SLOT_BYTES ((MPI_Aint)SLOTS * 8)
#define ALIGN 64

struct block {
  MPI_Aint off, size;
  int used;
  struct block *next; /* address order */
};

static MPI_Win arena = MPI_WIN_NULL;
static char *base;
static MPI_Aint total;
static struct block *blocks;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static uint32_t free_slots[SLOTS];
static int nfree_slots;
static uint64_t next_gen = 1;

MPI_Win mpisw_rmax_arena_win(void) { return arena; }

/* MPISW_ARENA_SIZE (validated by core/config.c's table) must fit the memory
 * this process may use, or the MPI tries to allocate it and stalls or fails
 * inside MPI_Init: rank 0 warns and no arena is made, as with
 * MPISW_ARENA_SIZE=0 (MPI_Alloc_mem is then the MPI's own). A size the user
 * gave must fit the budget (MPISW_MEMORY_LIMIT, else the process's share of
 * MemAvailable and the memory cgroup); the default only the share, since
 * MPISW_MEMORY_LIMIT budgets windows and was never charged for it. */
static uint64_t arena_size(void) {
  uint64_t n = mpisw_cfg_size(MPISW_CFG_ARENA_SIZE);
  const char *given = mpisw_cfg_text(MPISW_CFG_ARENA_SIZE);
  int by_limit = given && mpisw_budget_enforced();
  uint64_t left = by_limit ? mpisw_budget_left(1) : mpisw_node_share();
  if (n <= left) return n;
  mpisw_warn("MPISW_ARENA_SIZE=%s (%llu bytes) is more than the %.1f MiB of memory this "
             "process may use (%s); no arena is made, MPI_Alloc_mem is the MPI's own (set "
             "MPISW_ARENA_SIZE=0 or a smaller size to silence this)",
             given ? given : mpisw_cfg_vars[MPISW_CFG_ARENA_SIZE].def, (unsigned long long)n,
             (double)left / (1 << 20),
             by_limit ? "MPISW_MEMORY_LIMIT"
                      : "its share of MemAvailable and the memory cgroup among the node's ranks");
  return 0;
}

int mpisw_rmax_arena_init(void) {
  uint64_t heap = arena_size();
  total = SLOT_BYTES + (MPI_Aint)heap;
  MPI_Errhandler eh = mpisw_comm_errors_return(MPI_COMM_WORLD);
  int rc = mpisw_next.Win_allocate(total, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &arena);
  if (rc == MPI_SUCCESS) rc = mpisw_next.Win_lock_all(MPI_MODE_NOCHECK, arena);
  mpisw_comm_errors_restore(MPI_COMM_WORLD, eh);
  if (rc != MPI_SUCCESS) {
    if (arena != MPI_WIN_NULL) mpisw_next.Win_free(&arena);
    arena = MPI_WIN_NULL;
    return -1;
  }
  memset(base, 0, SLOT_BYTES);
  mpisw_next.Win_sync(arena);
  blocks = heap ? calloc(1, sizeof *blocks) : NULL;
  if (blocks) {
    blocks->off = SLOT_BYTES;
    blocks->size = (MPI_Aint)heap;
  }
  for (int i = 0; i < SLOTS; i++) free_slots[i] = (uint32_t)(SLOTS - 1 - i);
  nfree_slots = SLOTS;
  /* nobody may read a slot before every rank zeroed its own */
  PMPI_Barrier(MPI_COMM_WORLD);
  return 0;
}

void mpisw_rmax_arena_finalize(void) {
  if (arena == MPI_WIN_NULL) return;
  mpisw_next.Win_unlock_all(arena);
  mpisw_next.Win_free(&arena);
  arena = MPI_WIN_NULL;
  while (blocks) {
    struct block *n = blocks->next;
    free(blocks);
    blocks = n;
  }
}

void *mpisw_rmax_arena_alloc(size_t size) {
  if (arena == MPI_WIN_NULL || size == 0) return NULL;
  MPI_Aint want = (MPI_Aint)((size + ALIGN - 1) / ALIGN * ALIGN);
  void *p = NULL;
  pthread_mutex_lock(&mu);
  for (struct block *b = blocks; b; b = b->next) {
    if (b->used || b->size < want) continue;
    if (b->size > want) {
      struct block *rest = malloc(sizeof *rest);
      if (!rest) break;
      rest->off = b->off + want;
      rest->size = b->size - want;
      rest->used = 0;
      rest->next = b->next;
      b->next = rest;
      b->size = want;
    }
    b->used = 1;
    p = base + b->off;
    break;
  }
  pthread_mutex_unlock(&mu);
  return p;
}

int mpisw_rmax_arena_free(void *p) {
  if (arena == MPI_WIN_NULL || (char *)p < base || (char *)p >= base + total) return 0;
  MPI_Aint off = (char *)p - base;
  pthread_mutex_lock(&mu);
  struct block *prev = NULL;
  for (struct block *b = blocks; b; prev = b, b = b->next) {
    if (b->off != off || !b->used) continue;
    b->used = 0;
    struct block *n = b->next;
    if (n && !n->used) { /* merge with the next */
      b->size += n->size;
      b->next = n->next;
      free(n);
    }
    if (prev && !prev->used) { /* and with the previous */
      prev->size += b->size;
      prev->next = b->next;
      free(b);
    }
    break;
  }
  pthread_mutex_unlock(&mu);
  return 1;
}

MPI_Aint mpisw_rmax_arena_offset(const void *p, MPI_Aint size) {
  const char *c = p;
  if (arena == MPI_WIN_NULL || c < base + SLOT_BYTES || size < 0 || c + size > base + total)
    return -1;
  return c - base;
}

int mpisw_rmax_slot_take(uint32_t *slot, uint64_t *gen) {
  if (arena == MPI_WIN_NULL) return -1;
  pthread_mutex_lock(&mu);
  int ok = nfree_slots > 0;
  if (ok) {
    *slot = free_slots[--nfree_slots];
    *gen = next_gen++;
    __atomic_store_n((uint64_t *)(base + (MPI_Aint)*slot * 8), *gen, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&mu);
  if (ok) mpisw_next.Win_sync(arena);
  return ok ? 0 : -1;
}

void mpisw_rmax_slot_release(uint32_t slot) {
  if (arena == MPI_WIN_NULL || slot >= SLOTS) return;
  pthread_mutex_lock(&mu);
  __atomic_store_n((uint64_t *)(base + (MPI_Aint)slot * 8), 0, __ATOMIC_RELEASE);
  free_slots[nfree_slots++] = slot;
  pthread_mutex_unlock(&mu);
  mpisw_next.Win_sync(arena);
}

int mpisw_rmax_slot_read(int owner, uint32_t slot, uint64_t *gen) {
  if (arena == MPI_WIN_NULL || slot >= SLOTS) return -1;
  int me = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (owner == me) {
    *gen = __atomic_load_n((uint64_t *)(base + (MPI_Aint)slot * 8), __ATOMIC_ACQUIRE);
    return 0;
  }
  uint64_t v = 0;
  int rc = mpisw_next.Get_accumulate(NULL, 0, MPI_UINT64_T, &v, 1, MPI_UINT64_T, owner,
                               (MPI_Aint)slot * 8, 1, MPI_UINT64_T, MPI_NO_OP, arena);
  if (rc == MPI_SUCCESS) rc = mpisw_next.Win_flush(owner, arena);
  *gen = v;
  return rc == MPI_SUCCESS ? 0 : -1;
}
