/* Data of pooled files: reads and writes block by block straight into the
 * owner's segment (memcpy on this node, MPI_Put/MPI_Get beyond), never
 * read-modify-write (the fill map says what reads as zeros, fill.c); the
 * size is raised with one atomic max after the data; shrinking frees
 * blocks; and the file-wide calls (lock, shared file pointer, owner). */
#include <string.h>

#include "pool/internal.h"
#include "win/internal.h"

#define ENTER(f, e)                                                          \
  do {                                                                       \
    if (!(f)) {                                                              \
      mpisw_fail(e, MPISW_K_USAGE, "pooled file: NULL handle");              \
      return MPISW_POOL_USAGE;                                               \
    }                                                                        \
    if (mpisw_pool_need((f)->name, e)) return MPISW_POOL_USAGE;              \
    pthread_mutex_lock(&P->mu);                                              \
  } while (0)
#define LEAVE(rc)                                                            \
  do {                                                                       \
    pthread_mutex_unlock(&P->mu);                                            \
    return rc;                                                               \
  } while (0)

static int io_failed(struct mpisw_pool_file *f, const char *what, int r, struct mpisw_error *e) {
  mpisw_fail(e, MPISW_K_IO, "pooled file %s: %s rank %d failed in the MPI", f->name, what, r);
  return MPISW_POOL_IO;
}

static int too_far(struct mpisw_pool_file *f, uint64_t off, uint64_t len,
                   struct mpisw_error *e) {
  if (len <= INT64_MAX - off) return 0;
  mpisw_fail(e, MPISW_K_USAGE, "pooled file %s: offset %llu + length %llu passes 2^63", f->name,
             (unsigned long long)off, (unsigned long long)len);
  return 1;
}

static int too_big(struct mpisw_pool_file *f, uint64_t size, struct mpisw_error *e) {
  if (size <= INT64_MAX) return 0;
  mpisw_fail(e, MPISW_K_USAGE, "pooled file %s: size %llu passes 2^63", f->name,
             (unsigned long long)size);
  return 1;
}

int mpisw_pool_write(struct mpisw_pool_file *f, uint64_t off, const void *buf, uint64_t len,
                     struct mpisw_error *e) {
  ENTER(f, e);
  if (too_far(f, off, len, e)) LEAVE(MPISW_POOL_USAGE);
  mpisw_pool_cache_check(f);
  int rc = MPISW_POOL_OK;
  uint64_t pos = off, end = off + len;
  while (pos < end) {
    uint64_t b = pos / f->unit, in = pos % f->unit, n = f->unit - in;
    struct pool_blk bk;
    if (n > end - pos) n = end - pos;
    if (!mpisw_pool_block_find(f, b, 1, &bk, e)) {
      rc = e->kind == MPISW_K_NOSPACE ? MPISW_POOL_NOSPACE : MPISW_POOL_IO;
      break;
    }
    if (mpisw_pool_fill_mark(f, b, &bk, in, n) ||
        rm_put(bk.owner, bk.disp + in, (const char *)buf + (pos - off), n)) {
      rc = io_failed(f, "writing to", bk.owner, e);
      break;
    }
    pos += n;
  }
  if (pos > off) { /* what was written is readable, also after NOSPACE */
    mpisw_pool_rm_publish();
    rm_fmax(f->home_rank, f->rec + R_SIZE, pos);
  }
  LEAVE(rc);
}

int mpisw_pool_read(struct mpisw_pool_file *f, uint64_t off, void *buf, uint64_t len,
                    uint64_t *got, struct mpisw_error *e) {
  *got = 0;
  ENTER(f, e);
  if (too_far(f, off, len, e)) LEAVE(MPISW_POOL_USAGE);
  mpisw_pool_cache_check(f);
  uint64_t size = rm_load(f->home_rank, f->rec + R_SIZE);
  uint64_t end = off + len < size ? off + len : size;
  for (uint64_t pos = off; pos < end;) {
    uint64_t b = pos / f->unit, in = pos % f->unit, n = f->unit - in;
    struct pool_blk bk;
    if (n > end - pos) n = end - pos;
    char *to = (char *)buf + (pos - off);
    int found = mpisw_pool_block_find(f, b, 0, &bk, e);
    if (found < 0) LEAVE(MPISW_POOL_IO);
    if (!found) memset(to, 0, n); /* a hole */
    else if (mpisw_pool_fill_read(f, &bk, in, to, n))
      LEAVE(io_failed(f, "reading from", bk.owner, e));
    pos += n;
  }
  *got = end > off ? end - off : 0;
  LEAVE(MPISW_POOL_OK);
}

int mpisw_pool_get_size(struct mpisw_pool_file *f, uint64_t *size, struct mpisw_error *e) {
  ENTER(f, e);
  *size = rm_load(f->home_rank, f->rec + R_SIZE);
  LEAVE(MPISW_POOL_OK);
}

int mpisw_pool_set_size(struct mpisw_pool_file *f, uint64_t size, struct mpisw_error *e) {
  ENTER(f, e);
  if (too_big(f, size, e)) LEAVE(MPISW_POOL_USAGE);
  uint64_t cur = rm_load(f->home_rank, f->rec + R_SIZE);
  uint64_t extent = rm_load(f->home_rank, f->rec + R_EXTENT);
  if (size >= cur) { /* grow: sparse */
    rm_fmax(f->home_rank, f->rec + R_SIZE, size);
    LEAVE(MPISW_POOL_OK);
  }
  rm_store(f->home_rank, f->rec + R_SIZE, size);
  rm_fadd(f->home_rank, f->rec + R_TRUNC, 1); /* other handles drop their caches */
  uint64_t keep = (size + f->unit - 1) / f->unit;
  struct pool_blk bk;
  if (size % f->unit && mpisw_pool_block_find(f, size / f->unit, 0, &bk, e) > 0)
    mpisw_pool_fill_cut(f, &bk, size % f->unit); /* a later grow reads zeros */
  if (mpisw_pool_blocks_free(f->name, f->uid, f->unit, f->factor, f->first, keep, extent, e))
    LEAVE(MPISW_POOL_IO);
  if (extent > keep * f->unit) rm_store(f->home_rank, f->rec + R_EXTENT, keep * f->unit);
  mpisw_pool_cache_clear(f);
  f->trunc_seen = rm_load(f->home_rank, f->rec + R_TRUNC);
  mpisw_pool_rm_publish();
  LEAVE(MPISW_POOL_OK);
}

int mpisw_pool_preallocate(struct mpisw_pool_file *f, uint64_t size, struct mpisw_error *e) {
  ENTER(f, e);
  if (too_big(f, size, e)) LEAVE(MPISW_POOL_USAGE);
  mpisw_pool_cache_check(f);
  struct pool_blk bk;
  for (uint64_t b = 0; b * f->unit < size; b++)
    if (!mpisw_pool_block_find(f, b, 1, &bk, e))
      LEAVE(e->kind == MPISW_K_NOSPACE ? MPISW_POOL_NOSPACE : MPISW_POOL_IO);
  rm_fmax(f->home_rank, f->rec + R_SIZE, size);
  LEAVE(MPISW_POOL_OK);
}

int mpisw_pool_sync(struct mpisw_pool_file *f, struct mpisw_error *e) {
  ENTER(f, e);
  mpisw_pool_rm_publish();
  if (P->rma) mpisw_next.Win_flush_all(P->world);
  if (P->storage) {
    struct mpisw_win *w = mpisw_win_lookup(P->shm);
    struct mpisw_error se;
    if (w && mpisw_win_sync_storage(w, &se)) {
      mpisw_fail(e, se.kind, "pooled file %s: sync of the pool's storage: %s", f->name, se.msg);
      LEAVE(MPISW_POOL_IO);
    }
  }
  LEAVE(MPISW_POOL_OK);
}

int mpisw_pool_lock(struct mpisw_pool_file *f, struct mpisw_error *e) {
  ENTER(f, e);
  if (f->locked) {
    mpisw_fail(e, MPISW_K_USAGE, "pooled file %s: this process holds its lock already",
               f->name);
    LEAVE(MPISW_POOL_USAGE);
  }
  /* Other threads may run between tries (one may be about to unlock). */
  struct mpisw_pool_wait w;
  mpisw_pool_rm_wait_init(&w);
  while (!mpisw_pool_rm_trylock(f->home_rank, f->rec + R_FLOCK)) {
    pthread_mutex_unlock(&P->mu);
    int rc = mpisw_pool_rm_wait(&w, f->home_rank, f->rec + R_FLOCK, "file lock (atomic mode)",
                                f->name, e);
    pthread_mutex_lock(&P->mu);
    if (rc) LEAVE(rc);
  }
  f->locked = 1;
  mpisw_pool_cache_check(f); /* what the previous holder did */
  LEAVE(MPISW_POOL_OK);
}

int mpisw_pool_unlock(struct mpisw_pool_file *f, struct mpisw_error *e) {
  ENTER(f, e);
  if (!f->locked) {
    mpisw_fail(e, MPISW_K_USAGE, "pooled file %s: unlock without the lock", f->name);
    LEAVE(MPISW_POOL_USAGE);
  }
  f->locked = 0;
  mpisw_pool_rm_unlock(f->home_rank, f->rec + R_FLOCK);
  LEAVE(MPISW_POOL_OK);
}

/* ---- shared file pointers: one per collective open (MPI-4 14.4.4) ----
 * Slot g is the g % NSHP-th of rank g / NSHP's header: a count of the
 * open's processes that have not closed it (0: free) and the pointer. A
 * taker claims a free slot with a compare-and-swap 0 -> users; each user
 * drops one at close, and the last one's drop frees it: no collective. */
static int shp_rank(int id) { return id / NSHP; }
static uint64_t shp_disp(int id) { return H_SHP + (uint64_t)(id % NSHP) * SHP_SIZE; }
static int shp_count(void) { return P->nranks * NSHP; }

int mpisw_pool_shared_ptr_take(const char *name, int users, int64_t start, int *id,
                               struct mpisw_error *e) {
  static int cursor = -1; /* where the last take ended: the next free one is near */
  *id = -1;
  if (mpisw_pool_need(name, e)) return MPISW_POOL_USAGE;
  if (users < 1 || start < 0) {
    mpisw_fail(e, MPISW_K_USAGE, "pooled file %s: shared pointer for %d processes at %lld", name,
               users, (long long)start);
    return MPISW_POOL_USAGE;
  }
  pthread_mutex_lock(&P->mu);
  int n = shp_count(), from = cursor >= 0 ? cursor : P->rank * NSHP; /* own rank's first */
  for (int k = 0; k < n; k++) {
    int g = (from + k) % n;
    if (rm_load(shp_rank(g), shp_disp(g)) != 0) continue;
    if (rm_cas(shp_rank(g), shp_disp(g), 0, (uint64_t)users) != 0) continue;
    rm_store(shp_rank(g), shp_disp(g) + 8, (uint64_t)start); /* nobody else knows g yet */
    cursor = (g + 1) % n;
    *id = g;
    LEAVE(MPISW_POOL_OK);
  }
  pthread_mutex_unlock(&P->mu);
  mpisw_fail(e, MPISW_K_NOSPACE,
             "pooled file %s: no shared file pointer left: all %d (%d per rank) belong to "
             "files open now (each collective open holds one until its last process closes "
             "the file)",
             name, n, NSHP);
  return MPISW_POOL_NOSPACE;
}

void mpisw_pool_shptr_drop(int id, int users) {
  if (id < 0 || id >= shp_count() || users < 1) return;
  rm_fadd(shp_rank(id), shp_disp(id), (uint64_t)0 - (uint64_t)users);
}

void mpisw_pool_shared_ptr_release(int id, int users) {
  if (!mpisw_pool_ready()) return;
  pthread_mutex_lock(&P->mu);
  mpisw_pool_shptr_drop(id, users);
  pthread_mutex_unlock(&P->mu);
}

void mpisw_pool_shared_ptr_attach(struct mpisw_pool_file *f, int id) {
  if (f && id >= 0) f->shptr = id + 1;
}

static int no_shptr(struct mpisw_pool_file *f, struct mpisw_error *e) {
  mpisw_fail(e, MPISW_K_USAGE, "pooled file %s: this handle has no shared file pointer", f->name);
  return MPISW_POOL_USAGE;
}

int mpisw_pool_shared_ptr(struct mpisw_pool_file *f, int64_t add, int64_t *before,
                          struct mpisw_error *e) {
  ENTER(f, e);
  if (!f->shptr) LEAVE(no_shptr(f, e));
  int r = shp_rank(f->shptr - 1);
  uint64_t d = shp_disp(f->shptr - 1) + 8;
  *before = (int64_t)(add ? rm_fadd(r, d, (uint64_t)add) : rm_load(r, d));
  LEAVE(MPISW_POOL_OK);
}

int mpisw_pool_shared_ptr_set(struct mpisw_pool_file *f, int64_t value, struct mpisw_error *e) {
  ENTER(f, e);
  if (!f->shptr) LEAVE(no_shptr(f, e));
  rm_store(shp_rank(f->shptr - 1), shp_disp(f->shptr - 1) + 8, (uint64_t)value);
  LEAVE(MPISW_POOL_OK);
}

void mpisw_pool_shared_ptrs(uint64_t *in_use, uint64_t *capacity) {
  *in_use = *capacity = 0;
  if (!mpisw_pool_ready()) return;
  pthread_mutex_lock(&P->mu);
  int n = shp_count();
  for (int g = 0; g < n; g++) *in_use += rm_load(shp_rank(g), shp_disp(g)) != 0;
  *capacity = (uint64_t)n;
  pthread_mutex_unlock(&P->mu);
}

int mpisw_pool_owner(struct mpisw_pool_file *f, uint64_t off, int *world_rank, uint64_t *run) {
  if (!f || !P->ready) return MPISW_POOL_USAGE;
  *world_rank = mpisw_pool_block_owner(f, off / f->unit);
  *run = f->factor == 1 ? UINT64_MAX : f->unit - off % f->unit;
  return MPISW_POOL_OK;
}
