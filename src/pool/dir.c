/* The directory: nslots file records on every rank, one table of
 * nranks * nslots slots. A name's home slot is its hash modulo the table;
 * it lives there or further on (linear probing; a free slot ends the
 * search, a deleted one does not). Lookups and opens take no lock: a
 * record is read, the name compared, and the open count raised with a
 * compare-and-swap that also checks the record's generation, so an open
 * never counts on a record that was deleted or reused meanwhile. Creating
 * and deleting a name take the chain lock of its home slot, so exactly one
 * of racing exclusive creates wins; two names of different homes that
 * want the same free slot settle it with a compare-and-swap on its state. */
#include <stdlib.h>
#include <string.h>

#include "pool/internal.h"

static uint64_t name_hash(const char *s, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
  return h ^ (h >> 29);
}

static uint64_t nglobal(void) { return (uint64_t)P->nranks * P->nslots; }
static int slot_rank(uint64_t g) { return (int)(g / P->nslots); }
static uint64_t slot_disp(uint64_t g) { return P->dir_off + (g % P->nslots) * REC_SIZE; }

enum { FOUND = 1, ABSENT = 0, RETRY = 2, DIR_FULL = 3 };

/* A name's probe path: every directory slot once, from its hash's home slot
 * on (linear probing over all ranks' slots); lookup and create walk it. */
struct probe {
  uint64_t n, h, k, left; /* slots in all, the hash, the step, steps left */
  uint64_t g, d;          /* the slot: global number, displacement */
  int r;                  /* its rank */
};

/* Moves to step p->k and returns that slot's state word. */
static uint64_t probe_load(struct probe *p) {
  p->g = (p->h % p->n + p->k) % p->n;
  p->r = slot_rank(p->g);
  p->d = slot_disp(p->g);
  return rm_load(p->r, p->d + R_STATE);
}

static uint64_t probe_first(uint64_t h, struct probe *p) {
  p->n = nglobal();
  p->h = h;
  p->k = 0;
  p->left = p->n;
  return p->left ? probe_load(p) : 0;
}

static uint64_t probe_next(struct probe *p) {
  p->k++;
  p->left--;
  return p->left ? probe_load(p) : 0;
}
#define CHAIN_LOCK "directory's chain lock (create and delete)"

struct found {
  uint64_t g;
  uint64_t w[R_NAME / 8]; /* the record's words */
};

/* Looks name up; with open, also raises its open count (FOUND means it is
 * counted). RETRY: the record changed under the lookup; look again. */
static int lookup(const char *name, size_t len, uint64_t h, int open, struct found *out) {
  char other[MPISW_POOL_NAME_MAX + 1];
  struct probe p;
  for (uint64_t st = probe_first(h, &p); p.left; st = probe_next(&p)) {
    int r = p.r;
    uint64_t d = p.d, g = p.g;
    if (st == S_FREE) return ABSENT;
    if (st != S_LIVE) continue;
    rm_get(r, d, out->w, sizeof out->w);
    if (out->w[R_HASH / 8] != h || out->w[R_NAMELEN / 8] != len) continue;
    rm_get(r, d + R_NAME, other, len);
    if (memcmp(other, name, len)) continue;
    out->g = g;
    uint64_t gen = out->w[R_GEN / 8] & 0xffffffffULL;
    for (;;) {
      uint64_t oc = rm_load(r, d + R_OCOUNT);
      if (oc >> 32 != gen) return RETRY;     /* deleted and reused */
      if ((oc & OC_COUNT) == OC_DELETING) return open ? ABSENT : RETRY;
      if (!open) return FOUND;
      if (rm_cas(r, d + R_OCOUNT, oc, oc + 1) == oc) return FOUND;
    }
  }
  return ABSENT;
}

static int check_name(const char *name, struct mpisw_error *e) {
  if (!name || !name[0])
    return mpisw_fail(e, MPISW_K_USAGE, "pooled file: the name is empty");
  size_t len = strlen(name);
  if (len > MPISW_POOL_NAME_MAX)
    return mpisw_fail(e, MPISW_K_USAGE,
                      "pooled file %.64s...: the name is %zu bytes long; the pool takes at "
                      "most %d",
                      name, len, MPISW_POOL_NAME_MAX);
  return 0;
}

/* Claims a free or deleted slot on name's probe path and writes the record
 * (caller holds the home slot's chain lock). */
static int create(const char *name, size_t len, uint64_t h, const struct mpisw_pool_layout *l,
                  struct found *out, struct mpisw_error *e) {
  uint64_t unit = l && l->stripe_unit ? l->stripe_unit : MPISW_POOL_DEFAULT_UNIT;
  unit = (unit + POOL_PAGE - 1) / POOL_PAGE * POOL_PAGE;
  if (unit > P->size - P->heap_off)
    return mpisw_fail(e, MPISW_K_USAGE,
                      "pooled file %s: stripe unit %llu bytes is larger than a rank's part of "
                      "the pool (%llu bytes)",
                      name, (unsigned long long)unit,
                      (unsigned long long)(P->size - P->heap_off));
  if (l && l->stripe_factor < 0)
    return mpisw_fail(e, MPISW_K_USAGE, "pooled file %s: stripe factor %d is negative", name,
                      l->stripe_factor);
  int factor = l && l->stripe_factor ? l->stripe_factor : P->nranks;
  if (factor > P->nranks) factor = P->nranks;
  struct probe p;
  for (uint64_t st = probe_first(h, &p); p.left; st = probe_next(&p)) {
    int r = p.r;
    uint64_t d = p.d, g = p.g;
    if (st != S_FREE && st != S_TOMB) continue;
    if (rm_cas(r, d + R_STATE, st, S_CLAIMED) != st) continue;
    uint64_t gen = (rm_fadd(r, d + R_GEN, 1) + 1) & 0xffffffffULL;
    uint64_t *w = out->w;
    memset(w, 0, sizeof out->w);
    w[R_STATE / 8] = S_LIVE;
    w[R_GEN / 8] = gen;
    w[R_HASH / 8] = h;
    w[R_UNIT / 8] = unit;
    w[R_FACTOR / 8] = (uint64_t)factor;
    w[R_FIRST / 8] = (h >> 17) % (uint64_t)P->nranks;
    w[R_NAMELEN / 8] = len;
    w[R_UID / 8] = gen << 32 | (g + 1);
    /* everything but the state, the open count, the generation and the
     * chain lock (another name's creator may hold it) */
    rm_put(r, d + R_HASH, w + R_HASH / 8, R_CHAIN - R_HASH);
    rm_put(r, d + R_NAMELEN, w + R_NAMELEN / 8, R_NAME - R_NAMELEN);
    rm_put(r, d + R_NAME, name, len);
    mpisw_pool_rm_publish();
    rm_store(r, d + R_OCOUNT, gen << 32 | 1); /* opened by its creator */
    rm_store(r, d + R_STATE, S_LIVE);
    out->g = g;
    return FOUND;
  }
  return DIR_FULL;
}

static int fail_code(const struct mpisw_error *e) {
  switch (e->kind) {
  case MPISW_K_NOSPACE: return MPISW_POOL_NOSPACE;
  case MPISW_K_USAGE: return MPISW_POOL_USAGE;
  default: return MPISW_POOL_IO;
  }
}

static int make_handle(const char *name, const struct found *fd, struct mpisw_pool_file **f,
                       struct mpisw_error *e) {
  struct mpisw_pool_file *h = calloc(1, sizeof *h);
  char *copy = strdup(name);
  if (!h || !copy) {
    free(h);
    free(copy);
    mpisw_pool_rm_fadd(slot_rank(fd->g), slot_disp(fd->g) + R_OCOUNT, (uint64_t)-1);
    mpisw_fail(e, MPISW_K_NOMEM, "pooled file %s: out of memory for its handle", name);
    return MPISW_POOL_IO;
  }
  h->name = copy;
  h->home_rank = slot_rank(fd->g);
  h->rec = slot_disp(fd->g);
  h->gen = fd->w[R_GEN / 8];
  h->uid = fd->w[R_UID / 8];
  h->unit = fd->w[R_UNIT / 8];
  h->factor = (int)fd->w[R_FACTOR / 8];
  h->first = (int)fd->w[R_FIRST / 8];
  h->trunc_seen = rm_load(h->home_rank, h->rec + R_TRUNC);
  *f = h;
  return MPISW_POOL_OK;
}

int mpisw_pool_open(const char *name, int create_it, int excl, const struct mpisw_pool_layout *l,
                    struct mpisw_pool_file **f, struct mpisw_error *e) {
  *f = NULL;
  if (mpisw_pool_need(name, e) || check_name(name, e)) return MPISW_POOL_USAGE;
  size_t len = strlen(name);
  uint64_t h = name_hash(name, len), home = h % nglobal();
  struct found fd;
  pthread_mutex_lock(&P->mu);
  int rc;
  /* Without exclusive create, an existing file opens without any lock. */
  if (!(create_it && excl)) {
    while ((rc = lookup(name, len, h, 1, &fd)) == RETRY) {
    }
    if (rc == FOUND) goto opened;
    if (!create_it) {
      pthread_mutex_unlock(&P->mu);
      mpisw_fail(e, MPISW_K_NOFILE, "pooled file %s does not exist", name);
      return MPISW_POOL_NOENT;
    }
  }
  if (mpisw_pool_rm_lock(slot_rank(home), slot_disp(home) + R_CHAIN, CHAIN_LOCK, name, e)) {
    pthread_mutex_unlock(&P->mu);
    return MPISW_POOL_IO;
  }
  while ((rc = lookup(name, len, h, !excl, &fd)) == RETRY) {
  }
  if (rc == FOUND && excl) {
    mpisw_pool_rm_unlock(slot_rank(home), slot_disp(home) + R_CHAIN);
    pthread_mutex_unlock(&P->mu);
    mpisw_fail(e, MPISW_K_USAGE, "pooled file %s exists (exclusive create)", name);
    return MPISW_POOL_EXISTS;
  }
  if (rc != FOUND) {
    rc = create(name, len, h, l, &fd, e);
    if (rc != FOUND) {
      mpisw_pool_rm_unlock(slot_rank(home), slot_disp(home) + R_CHAIN);
      pthread_mutex_unlock(&P->mu);
      if (rc == DIR_FULL)
        mpisw_fail(e, MPISW_K_NOSPACE,
                   "pooled file %s: the pool's directory is full (%llu files on %d ranks)",
                   name, (unsigned long long)nglobal(), P->nranks);
      return fail_code(e);
    }
  }
  mpisw_pool_rm_unlock(slot_rank(home), slot_disp(home) + R_CHAIN);
opened:
  rc = make_handle(name, &fd, f, e);
  pthread_mutex_unlock(&P->mu);
  return rc;
}

int mpisw_pool_close(struct mpisw_pool_file *f, struct mpisw_error *e) {
  if (!f) return mpisw_fail(e, MPISW_K_USAGE, "pooled file: close of a NULL handle"),
              MPISW_POOL_USAGE;
  if (mpisw_pool_need(f->name, e)) return MPISW_POOL_USAGE;
  pthread_mutex_lock(&P->mu);
  if (f->locked) mpisw_pool_rm_unlock(f->home_rank, f->rec + R_FLOCK);
  if (f->shptr) mpisw_pool_shptr_drop(f->shptr - 1, 1); /* the last closer frees it */
  mpisw_pool_rm_publish();
  rm_fadd(f->home_rank, f->rec + R_OCOUNT, (uint64_t)-1);
  pthread_mutex_unlock(&P->mu);
  mpisw_pool_cache_clear(f);
  free(f->name);
  free(f);
  return MPISW_POOL_OK;
}

int mpisw_pool_delete(const char *name, struct mpisw_error *e) {
  if (mpisw_pool_need(name, e) || check_name(name, e)) return MPISW_POOL_USAGE;
  size_t len = strlen(name);
  uint64_t h = name_hash(name, len), home = h % nglobal();
  struct found fd;
  pthread_mutex_lock(&P->mu);
  if (mpisw_pool_rm_lock(slot_rank(home), slot_disp(home) + R_CHAIN, CHAIN_LOCK, name, e)) {
    pthread_mutex_unlock(&P->mu);
    return MPISW_POOL_IO;
  }
  int rc, out = MPISW_POOL_OK;
  for (;;) {
    while ((rc = lookup(name, len, h, 0, &fd)) == RETRY) {
    }
    if (rc != FOUND) {
      mpisw_fail(e, MPISW_K_NOFILE, "pooled file %s does not exist", name);
      out = MPISW_POOL_NOENT;
      break;
    }
    int r = slot_rank(fd.g);
    uint64_t d = slot_disp(fd.g), gen = fd.w[R_GEN / 8] & 0xffffffffULL;
    uint64_t oc = rm_cas(r, d + R_OCOUNT, gen << 32, gen << 32 | OC_DELETING);
    if (oc >> 32 != gen) continue; /* reused meanwhile: look again */
    if (oc != gen << 32) {
      mpisw_fail(e, MPISW_K_USAGE, "pooled file %s is open (%llu handles): not deleted", name,
                 (unsigned long long)(oc & OC_COUNT));
      out = MPISW_POOL_BUSY;
      break;
    }
    uint64_t extent = rm_load(r, d + R_EXTENT);
    if (mpisw_pool_blocks_free(name, fd.w[R_UID / 8], fd.w[R_UNIT / 8], (int)fd.w[R_FACTOR / 8],
                               (int)fd.w[R_FIRST / 8], 0, extent, e)) {
      out = MPISW_POOL_IO; /* stays "being deleted": neither opens nor deletes again */
      break;
    }
    rm_store(r, d + R_STATE, S_TOMB);
    break;
  }
  mpisw_pool_rm_unlock(slot_rank(home), slot_disp(home) + R_CHAIN);
  pthread_mutex_unlock(&P->mu);
  return out;
}
