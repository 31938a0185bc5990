/* The pager's insides, shared by its files (see pager.c for the design):
 * kernel ABI newer than Debian 12's headers, block states, the pager's
 * state, and the functions each file offers the others. */
#ifndef MPISW_PAGER_PAGER_INTERNAL_H
#define MPISW_PAGER_PAGER_INTERNAL_H

#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>

#include "core/uffd_abi.h"
#include "pager/pager.h"

/* ---- kernel ABI newer than Debian 12's headers (Linux 6.8; the rest in core/uffd_abi.h) ---- */
#ifndef UFFD_FEATURE_MOVE
#define UFFD_FEATURE_MOVE (1 << 16)
#endif
#ifndef UFFDIO_MOVE
struct uffdio_move {
  __u64 dst, src, len, mode;
  __s64 move;
};
#define UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES ((__u64)1 << 1)
#define UFFDIO_MOVE _IOWR(UFFDIO, 0x05, struct uffdio_move)
#endif

/* The pager's threads hash, write back and touch the application's window
 * pages while the application may be writing them: by design, since
 * write-protection (PAGEMAP_SCAN, UFFDIO_MOVE), not memory ordering, tells
 * which writes the pager has saved. ThreadSanitizer cannot see that
 * protocol; these brackets hide such accesses (and only those) from it.
 * They are nothing in a build without -fsanitize=thread. */
#if defined(__SANITIZE_THREAD__) /* gcc */
#define PAGER_TSAN 1
#elif defined(__has_feature) /* clang */
#if __has_feature(thread_sanitizer)
#define PAGER_TSAN 1
#endif
#endif
#ifdef PAGER_TSAN
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
void AnnotateIgnoreWritesBegin(const char *file, int line);
void AnnotateIgnoreWritesEnd(const char *file, int line);
#define PAGER_WINDOW_ACCESS_BEGIN() \
  (AnnotateIgnoreReadsBegin(__FILE__, __LINE__), AnnotateIgnoreWritesBegin(__FILE__, __LINE__))
#define PAGER_WINDOW_ACCESS_END() \
  (AnnotateIgnoreWritesEnd(__FILE__, __LINE__), AnnotateIgnoreReadsEnd(__FILE__, __LINE__))
#else
#define PAGER_WINDOW_ACCESS_BEGIN() ((void)0)
#define PAGER_WINDOW_ACCESS_END() ((void)0)
#endif

#define PAGER_ALIGN 4096u /* O_DIRECT alignment that every device here accepts */
/* Adjacent blocks queued together go to the file in one request of at most
 * these bytes (a sync's write-backs; read-ahead loads): one large request
 * keeps many of the device's requests in flight (the kernel splits it). */
#define PAGER_RUN_WRITE_BYTES (16u << 20)
#define PAGER_RUN_READ_BYTES (8u << 20)
#define PAGER_RUN_MAX_BLOCKS 64u

enum { ABSENT, LOADING, PRESENT, EVICTING };
/* F_STUCK: its last eviction failed (pages pinned, or shared with a forked
 * child); the budget stretches by one block for each such block.
 * F_REFLUSH: a sync write-protected pages of it while a flush or an eviction
 * was under way or queued, which must then write it (again).
 * F_READERR: the file could not be read into it: never written back (its
 * zeros would overwrite the file's data); the next load reads again.
 * F_WFAIL: an eviction could not write it (device error, full device): it
 * stays in memory, also F_STUCK so the budget stretches and no fault waits
 * for room it cannot give, and evictions pass it by (retrying would only
 * fail again) until a sync's flush writes it; every sync until then
 * reports the error.
 * F_WLOAD: loaded for a write fault (or announced overwritten), so installed
 * writable whole: the written-page scan cannot tell what was written until
 * its next write-back (pager_evict.c writes it whole).
 * F_PUTWHOLE: an announced overwrite (mpisw_pager_will_overwrite) covered it
 * whole, so it is likely overwritten whole again: read-ahead passes it by
 * (reading it would be wasted) until a read fault on it says otherwise.
 * F_LOADGONE: queued for a load (F_LOADQ) and loaded meanwhile by another
 * (a fault): the queued load is void, also once the block has left again
 * (loading it then would push out a block in use), unless read-ahead asks
 * for it anew. */
enum {
  F_ONFILE = 1, F_EVICTQ = 2, F_FLUSHING = 4, F_LOADQ = 8, F_OVERWRITE = 16, F_STUCK = 32,
  F_REFLUSH = 64, F_READERR = 128, F_WFAIL = 256, F_WLOAD = 512, F_PUTWHOLE = 1024,
  F_LOADGONE = 2048
};

struct block {
  unsigned char state;
  unsigned flags;
  uint32_t loads; /* times installed (pager_fault.c: a fault message older than a load is stale) */
  uint64_t hash; /* of the contents when they last matched the file */
};

/* A ring of block numbers; each block is in a given ring at most once. */
struct ring {
  uint32_t *v;
  uint64_t cap, head, n;
};

/* Where the pager's threads spend their time (MPISW_PAGER_DEBUG: printed at
 * stop; docs/PAGER.md, Measurements): nanoseconds summed over threads. */
enum {
  PT_ROOM,   /* a fault waiting for room (an eviction) or for a load under way */
  PT_READ,   /* file reads (a fault's load, read-ahead) */
  PT_FILL,   /* installing loaded blocks (UFFDIO_COPY) */
  PT_HASH,   /* change hashes */
  PT_SCAN,   /* PAGEMAP_SCAN of a block before its eviction or write-back */
  PT_MOVE,   /* UFFDIO_MOVE out of the window */
  PT_WRITE,  /* file writes (evictions, a sync's write-backs) */
  PT_FREE,   /* freeing an evicted block's pages */
  PT_N
};

struct mpisw_pager {
  char *addr;
  uint64_t len, block, nblocks, file_off, data_start, data_end, zero_from;
  int fd, dfd, uffd, pagemap, wake_fd, debug;
  struct block *b;
  uint64_t held, max, evq, headroom; /* blocks in memory, limit, queued evictions */
  uint64_t evict_batch;              /* blocks an eviction frees at least (pager_evict.c) */
  uint64_t stuck;                    /* blocks with F_STUCK */
  uint64_t loading;                  /* blocks being loaded now */
  int nevicting, flush_pending, ra, last_fault;
  uint32_t run_write, run_read; /* blocks per request at most (PAGER_RUN_*) */
  struct ring fifo, q_evict, q_flush, q_load;
  pthread_mutex_t mu;
  pthread_mutex_t sync_mu; /* one sync at a time: a second must not pass the first's scan */
  pthread_cond_t cv;   /* block states, budget, flushes */
  pthread_cond_t qcv;  /* work for the workers */
  int stop, nworkers;
  pthread_t fault_thread, *workers;
  char *slots;         /* per worker a staging run of blocks, registered for UFFDIO_MOVE */
  uint64_t slots_len;
  char *fault_buf;
  const char *zero_buf; /* a block of zeros (the zero page, read-only): fresh blocks' source */
  int err;             /* first background I/O error (errno) */
  char err_what[96];
  uint64_t zero_hash;
  struct mpisw_pager_stats st;
  /* storage_sync=atomic (pager_io.c): write-backs go into the journal's
   * body, loads read them from there until a sync applied them */
  struct mpisw_journal *jr;
  pthread_mutex_t jmu;  /* the journal, jpos, and loads against a sync's apply */
  uint64_t *jpos;       /* per block: 1 + offset in jr->buf of its latest bytes, 0: none */
  uint64_t *jreg;       /* a sync's written regions (start, end pairs), see pager.c */
  uint64_t njreg, capjreg;
  int shared_fd;        /* opts.shared: the memfd the range maps (pager_shared.c), else -1 */
  uint64_t t_ns[PT_N]; /* debug: time per stage (pager_timed) */
  uint64_t t_start;    /* debug: pager_clock at start */
};

/* Rings of block numbers (each block in a given ring at most once). */
static inline void ring_init(struct ring *r, uint64_t cap) {
  r->v = calloc(cap ? cap : 1, sizeof *r->v);
  r->cap = cap;
  r->head = r->n = 0;
}
static inline void ring_push(struct ring *r, uint32_t x) {
  r->v[(r->head + r->n++) % r->cap] = x;
}
static inline uint32_t ring_pop(struct ring *r) {
  uint32_t x = r->v[r->head];
  r->head = (r->head + 1) % r->cap;
  r->n--;
  return x;
}

static inline uint64_t pager_block_bytes(const struct mpisw_pager *pg, uint64_t i) {
  uint64_t rest = pg->len - i * pg->block;
  return rest < pg->block ? rest : pg->block;
}

static inline uint64_t pager_clock(const struct mpisw_pager *pg) {
  if (!pg->debug) return 0;
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
/* Adds the time since t0 (a pager_clock) to stage k. */
static inline void pager_timed(struct mpisw_pager *pg, int k, uint64_t t0) {
  if (pg->debug) __atomic_fetch_add(&pg->t_ns[k], pager_clock(pg) - t0, __ATOMIC_RELAXED);
}

struct worker_arg {
  struct mpisw_pager *pg;
  int id;
};

/* ---- pager_io.c: file I/O and change detection ---- */
uint64_t mpisw_pager_hash_block(const void *p, uint64_t n);
void mpisw_pager_set_error(struct mpisw_pager *pg, int err, const char *what);
int mpisw_pager_read_block(struct mpisw_pager *pg, uint64_t i, char *dst, uint64_t *got);
/* The same for the adjacent blocks [i, i+n), in one request. */
int mpisw_pager_read_run(struct mpisw_pager *pg, uint64_t i, uint64_t n, char *dst, uint64_t *got);
/* Writes the adjacent blocks [i, i+n) (n = 1: one block) in one request. */
int mpisw_pager_write_run(struct mpisw_pager *pg, uint64_t i, uint64_t n, const char *src,
                          uint64_t *wrote);
/* Atomic sync: commits the journal, writes it in place, fdatasync. */
int mpisw_pager_journal_sync(struct mpisw_pager *pg, struct mpisw_error *e);

/* ---- pager_kernel.c: userfaultfd and pagemap ---- */
/* extra: features wanted beyond asynchronous write-protect and UFFDIO_MOVE */
int mpisw_pager_open_uffd(uint64_t extra, struct mpisw_error *e);
int mpisw_pager_register_range(int uffd, char *p, uint64_t n, uint64_t mode);
int mpisw_pager_uffd_copy(struct mpisw_pager *pg, char *dst, const char *src, uint64_t n, int wp);
int mpisw_pager_scan_written(struct mpisw_pager *pg, char *p, uint64_t n, int reprotect,
                       void (*each)(struct mpisw_pager *, const struct page_region *, long));
int mpisw_pager_move(struct mpisw_pager *pg, char *dst, char *src, uint64_t len, uint64_t mode,
               int tries);
void mpisw_pager_move_back(struct mpisw_pager *pg, char *slot, char *src, uint64_t n);
void mpisw_pager_unprotect(struct mpisw_pager *pg, char *p, uint64_t n);
void mpisw_pager_touch_present(struct mpisw_pager *pg, char *p, uint64_t n);

/* ---- pager_fault.c: loads on faults, read-ahead ---- */
void mpisw_pager_load(struct mpisw_pager *pg, uint64_t i, char *buf, int for_write);
/* Loads the adjacent blocks [i, i+n) (read-ahead) with one read into buf
 * (n blocks long); caller set each LOADING and counted it. */
void mpisw_pager_load_run(struct mpisw_pager *pg, uint64_t i, uint64_t n, char *buf);
void *mpisw_pager_fault_main(void *arg);

/* ---- pager_evict.c: the memory budget, evictions, write-backs ---- */
void mpisw_pager_maybe_evict_locked(struct mpisw_pager *pg);
/* pager_evict.c: move the adjacent blocks [i, i+n) popped together from the
 * eviction queue out (through this worker's slot, n blocks long) and write
 * those that changed, adjacent ones in one request; write block i in place
 * for a sync. */
void mpisw_pager_evict_run(struct mpisw_pager *pg, uint32_t i, uint32_t n, char *slot);
void mpisw_pager_flush_block(struct mpisw_pager *pg, uint32_t i);
/* A sync's write-back of the adjacent blocks [i, i+n) popped together from
 * the flush queue: one request for those that can be written. */
void mpisw_pager_flush_run(struct mpisw_pager *pg, uint32_t i, uint32_t n);
/* ---- pager_shared.c: a range other processes map too (opts.shared) ---- */
/* Loads every block (before anyone else maps the range). */
void mpisw_pager_load_all(struct mpisw_pager *pg);
/* Marks written the blocks whose bytes no longer match their hash (others'
 * writes), so that the sync's scan writes them back. */
void mpisw_pager_find_foreign_writes(struct mpisw_pager *pg);
/* pager_worker.c: a worker thread's loop. */
void *mpisw_pager_worker_main(void *arg);

#endif
