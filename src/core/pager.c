/* The user-level pager (see pager.h and docs/PAGER.md).
 *
 * Threads: one fault thread reads userfaultfd messages and loads the missing
 * block (never calls MPI, never waits on the application); worker threads run
 * read-ahead loads, write-backs for a sync and evictions. Block states:
 *   ABSENT -> LOADING -> PRESENT -> EVICTING -> ABSENT
 * Dirty tracking: blocks are mapped write-protected (UFFDIO_COPY_MODE_WP)
 * under UFFD_FEATURE_WP_ASYNC, so a write costs no round trip; PAGEMAP_SCAN
 * lists written pages and write-protects them again in one call.
 * Eviction moves the block's pages to a staging slot with UFFDIO_MOVE, so
 * nothing can write them while they are written back; a write that slipped
 * in between the dirty scan and the move is caught by comparing a hash of
 * the block with the hash it had when it last matched the file. */
#include "core/pager.h"
#include "core/storage.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- kernel ABI newer than Debian 12's headers (Linux 6.7 / 6.8) ---- */
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif
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
#ifndef PAGEMAP_SCAN
struct page_region {
  __u64 start, end, categories;
};
struct pm_scan_arg {
  __u64 size, flags, start, end, walk_end, vec, vec_len, max_pages;
  __u64 category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define PM_SCAN_WP_MATCHING (1 << 0)
#define PM_SCAN_CHECK_WPASYNC (1 << 1)
#define PAGE_IS_WRITTEN (1 << 1)
#define PAGE_IS_PRESENT (1 << 3)
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#endif

#define ALIGN 4096u /* O_DIRECT alignment that every device here accepts */

enum { ABSENT, LOADING, PRESENT, EVICTING };
/* F_STUCK: its last eviction failed (pages pinned, or shared with a forked
 * child); the budget stretches by one block for each such block. */
enum { F_ONFILE = 1, F_EVICTQ = 2, F_FLUSHING = 4, F_LOADQ = 8, F_OVERWRITE = 16, F_STUCK = 32 };

struct block {
  unsigned char state, flags;
  uint64_t hash; /* of the contents when they last matched the file */
};

/* A ring of block numbers; each block is in a given ring at most once. */
struct ring {
  uint32_t *v;
  uint64_t cap, head, n;
};

struct mpisw_pager {
  char *addr;
  uint64_t len, block, nblocks, file_off, data_end, zero_from;
  int fd, dfd, uffd, pagemap, wake_fd, debug;
  struct block *b;
  uint64_t held, max, evq, headroom; /* blocks in memory, limit, queued evictions */
  uint64_t stuck;                    /* blocks with F_STUCK */
  uint64_t loading;                  /* blocks being loaded now */
  int nevicting, flush_pending, ra, last_fault;
  struct ring fifo, q_evict, q_flush, q_load;
  pthread_mutex_t mu;
  pthread_cond_t cv;   /* block states, budget, flushes */
  pthread_cond_t qcv;  /* work for the workers */
  int stop, nworkers;
  pthread_t fault_thread, *workers;
  char *slots;         /* one staging block per worker, registered for UFFDIO_MOVE */
  char *fault_buf;
  int err;             /* first background I/O error (errno) */
  char err_what[96];
  uint64_t zero_hash;
  struct mpisw_pager_stats st;
};

/* ---------------------------------------------------------------- utils */

static void ring_init(struct ring *r, uint64_t cap) {
  r->v = calloc(cap ? cap : 1, sizeof *r->v);
  r->cap = cap;
  r->head = r->n = 0;
}
static void ring_push(struct ring *r, uint32_t x) {
  r->v[(r->head + r->n++) % r->cap] = x;
}
static uint32_t ring_pop(struct ring *r) {
  uint32_t x = r->v[r->head];
  r->head = (r->head + 1) % r->cap;
  r->n--;
  return x;
}

/* Change detection, not cryptography: a Fletcher-style sum in four lanes
 * (position-dependent, so moved or swapped words change it), fast enough to
 * run on every block the pager loads or evicts clean. */
static uint64_t hash_block(const void *p, uint64_t n) {
  const uint64_t *w = p;
  uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
  for (uint64_t i = 0; i + 4 <= n / 8; i += 4) {
    a0 += w[i];
    a1 += w[i + 1];
    a2 += w[i + 2];
    a3 += w[i + 3];
    b0 += a0;
    b1 += a1;
    b2 += a2;
    b3 += a3;
  }
  uint64_t h = n ^ a0 ^ (a1 << 1) ^ (a2 << 2) ^ (a3 << 3);
  h = (h ^ b0) * 0xff51afd7ed558ccdull;
  h = (h ^ b1 ^ (h >> 29)) * 0xc4ceb9fe1a85ec53ull;
  h = (h ^ b2 ^ (h >> 31)) * 0xff51afd7ed558ccdull;
  return (h ^ b3 ^ (h >> 33)) * 0xc4ceb9fe1a85ec53ull;
}

static void set_error(struct mpisw_pager *pg, int err, const char *what) {
  pthread_mutex_lock(&pg->mu);
  if (!pg->err) {
    pg->err = err;
    snprintf(pg->err_what, sizeof pg->err_what, "%s", what);
  }
  pthread_mutex_unlock(&pg->mu);
}

static uint64_t block_bytes(const struct mpisw_pager *pg, uint64_t i) {
  uint64_t rest = pg->len - i * pg->block;
  return rest < pg->block ? rest : pg->block;
}

/* ------------------------------------------------------------------ I/O */

/* Fills dst with block i from the file (zeros past EOF or in new space);
 * *got is the number of bytes the file gave. */
static int read_block(struct mpisw_pager *pg, uint64_t i, char *dst, uint64_t *got) {
  uint64_t n = block_bytes(pg, i), off = pg->file_off + i * pg->block, done = 0;
  while (done < n) {
    ssize_t r = pread(pg->dfd, dst + done, n - done, (off_t)(off + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return errno;
    if (r == 0) break;
    done += (uint64_t)r;
    if (done % ALIGN) break; /* short read at an unaligned EOF */
  }
  if (done < n) memset(dst + done, 0, n - done);
  *got = done;
  return 0;
}

static int write_all(int fd, const char *src, uint64_t n, uint64_t off) {
  uint64_t done = 0;
  while (done < n) {
    ssize_t w = pwrite(fd, src + done, n - done, (off_t)(off + done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return w < 0 ? errno : EIO;
    done += (uint64_t)w;
  }
  return 0;
}

/* Writes block i's file bytes below data_end: the aligned part with
 * O_DIRECT, an unaligned tail through the page cache. *wrote: bytes written
 * (counted by the caller, under the lock, with the write-back). */
static int write_block(struct mpisw_pager *pg, uint64_t i, const char *src, uint64_t *wrote) {
  uint64_t off = pg->file_off + i * pg->block, n = block_bytes(pg, i);
  *wrote = 0;
  if (off >= pg->data_end) return 0;
  if (n > pg->data_end - off) n = pg->data_end - off;
  uint64_t aligned = n & ~(uint64_t)(ALIGN - 1);
  int rc = write_all(pg->dfd, src, aligned, off);
  if (!rc && n > aligned) rc = write_all(pg->fd, src + aligned, n - aligned, off + aligned);
  if (!rc) *wrote = n;
  return rc;
}

/* ------------------------------------------------------ kernel helpers */

/* wp: map write-protected (clean); without it the pages count as written,
 * which saves a write-protect fault per page of a block loaded for a write. */
static int uffd_copy(struct mpisw_pager *pg, char *dst, const char *src, uint64_t n, int wp) {
  uint64_t done = 0;
  while (done < n) {
    struct uffdio_copy c = {.dst = (uintptr_t)(dst + done), .src = (uintptr_t)(src + done),
                            .len = n - done, .mode = wp ? UFFDIO_COPY_MODE_WP : 0};
    if (ioctl(pg->uffd, UFFDIO_COPY, &c) == 0) return 0;
    if (c.copy > 0) done += (uint64_t)c.copy;
    else if (errno == EEXIST) { /* a page is there already: skip it */
      if (pg->debug) fprintf(stderr, "mpisw pager: EEXIST at %p\n", (void *)(dst + done));
      done += 4096;
    } else if (errno != EAGAIN) return errno;
  }
  return 0;
}

/* 1 if a page of [p, p+n) was written since it was last write-protected;
 * with reprotect, write-protects those pages again. each (if any) gets the
 * written regions a batch at a time. -1 on error. */
static int scan_written(struct mpisw_pager *pg, char *p, uint64_t n, int reprotect,
                        void (*each)(struct mpisw_pager *, const struct page_region *, long)) {
  struct page_region vec[64];
  uint64_t start = (uintptr_t)p, end = start + n;
  int any = 0;
  while (start < end) {
    struct pm_scan_arg a = {.size = sizeof a, .start = start, .end = end,
                            .vec = (uintptr_t)vec, .vec_len = 64,
                            .category_mask = PAGE_IS_WRITTEN | PAGE_IS_PRESENT,
                            .return_mask = PAGE_IS_WRITTEN};
    if (reprotect) a.flags = PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC;
    long r = ioctl(pg->pagemap, PAGEMAP_SCAN, &a);
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return -1;
    }
    if (r > 0) {
      any = 1;
      if (each) each(pg, vec, r);
    }
    if (a.walk_end <= start) break;
    start = a.walk_end;
  }
  return any;
}

/* -------------------------------------------------------------- budget */

/* Queues evictions until the blocks that stay fit with headroom. */
static void maybe_evict_locked(struct mpisw_pager *pg) {
  uint64_t tries = pg->fifo.n;
  while (pg->held - pg->evq + pg->headroom > pg->max + pg->stuck && pg->fifo.n && tries--) {
    uint32_t i = ring_pop(&pg->fifo);
    struct block *bl = &pg->b[i];
    if (bl->flags & F_FLUSHING) { /* a sync writes it now: later */
      ring_push(&pg->fifo, i);
      continue;
    }
    bl->flags |= F_EVICTQ;
    pg->evq++;
    ring_push(&pg->q_evict, i);
    pthread_cond_signal(&pg->qcv);
  }
}

/* --------------------------------------------------------------- loads */

/* Loads block i into memory through buf. Caller set LOADING and counted it. */
static void load(struct mpisw_pager *pg, uint64_t i, char *buf, int for_write) {
  struct block *bl = &pg->b[i];
  uint64_t n = block_bytes(pg, i);
  char *dst = pg->addr + i * pg->block;
  uint64_t h = pg->zero_hash;
  uint64_t got = 0;
  int rc = 0, fresh = !(bl->flags & F_ONFILE) || (bl->flags & F_OVERWRITE);
  if (fresh) {
    memset(buf, 0, n);
    if (n != pg->block) h = hash_block(buf, n);
  } else {
    if (pg->debug > 1) fprintf(stderr, "pager: read block %llu\n", (unsigned long long)i);
    rc = read_block(pg, i, buf, &got);
    if (rc) {
      set_error(pg, rc, "read");
      memset(buf, 0, n);
    }
    h = hash_block(buf, n);
  }
  int crc = uffd_copy(pg, dst, buf, n, !for_write);
  if (crc && pg->debug) fprintf(stderr, "mpisw pager: UFFDIO_COPY of block %llu: %s\n", (unsigned long long)i, strerror(crc));
  if (crc && crc != ENOENT && crc != ESRCH) set_error(pg, crc, "UFFDIO_COPY");
  pthread_mutex_lock(&pg->mu);
  bl->hash = h;
  bl->state = PRESENT;
  /* an overwrite hint read as zeros: the block differs from the file */
  if (fresh && (bl->flags & F_OVERWRITE)) bl->hash = ~h;
  bl->flags &= (unsigned char)~F_OVERWRITE;
  if (bl->flags & F_FLUSHING) { /* a sync saw it written while loading */
    ring_push(&pg->q_flush, (uint32_t)i);
    pthread_cond_signal(&pg->qcv);
  }
  ring_push(&pg->fifo, (uint32_t)i);
  /* a load's counters change together, so a snapshot never sees half a load */
  pg->st.loads++;
  pg->st.zero_loads += (uint64_t)fresh;
  pg->st.bytes_read += got;
  pg->loading--;
  maybe_evict_locked(pg);
  pthread_cond_broadcast(&pg->cv);
  pthread_mutex_unlock(&pg->mu);
}

/* Queues read-ahead of the blocks after i (caller holds mu). */
static void readahead_locked(struct mpisw_pager *pg, uint64_t i) {
  for (uint64_t k = i + 1; k <= i + (uint64_t)pg->ra && k < pg->nblocks; k++) {
    struct block *bl = &pg->b[k];
    if (bl->state != ABSENT || (bl->flags & F_LOADQ) || pg->q_load.n >= pg->q_load.cap) continue;
    bl->flags |= F_LOADQ;
    ring_push(&pg->q_load, (uint32_t)k);
    pthread_cond_signal(&pg->qcv);
  }
}

/* One missing-page fault at byte offset off of the range. */
static void serve_fault(struct mpisw_pager *pg, uint64_t off, int write) {
  uint64_t i = off / pg->block;
  struct block *bl = &pg->b[i];
  pthread_mutex_lock(&pg->mu);
  pg->st.faults++;
  int seq = pg->ra > 0 && (pg->last_fault + 1 == (int64_t)i || (i > 0 && pg->b[i - 1].state != ABSENT));
  pg->last_fault = (int)i;
  for (;;) {
    if (bl->state == ABSENT && pg->held < pg->max + pg->stuck) break;
    if (bl->state == PRESENT) break;
    if (bl->state == ABSENT) maybe_evict_locked(pg);
    if (bl->state == LOADING && seq) readahead_locked(pg, i);
    pthread_cond_wait(&pg->cv, &pg->mu);
  }
  if (bl->state == PRESENT) { /* loaded meanwhile: wake the faulting thread */
    if (seq) readahead_locked(pg, i);
    pthread_mutex_unlock(&pg->mu);
    struct uffdio_range r = {.start = (uintptr_t)pg->addr + (off & ~(uint64_t)4095), .len = 4096};
    ioctl(pg->uffd, UFFDIO_WAKE, &r);
    return;
  }
  bl->state = LOADING;
  pg->held++;
  pg->loading++;
  if (seq) readahead_locked(pg, i);
  pthread_mutex_unlock(&pg->mu);
  load(pg, i, pg->fault_buf, write);
}

/* Faults inside the staging slots (only holes of a moved block): zeros. */
static void serve_slot_fault(struct mpisw_pager *pg, uint64_t addr) {
  if (pg->debug) fprintf(stderr, "mpisw pager: fault in slot at +%llu\n", (unsigned long long)(addr - (uintptr_t)pg->slots));
  struct uffdio_zeropage z = {.range = {.start = addr & ~(uint64_t)4095, .len = 4096}};
  ioctl(pg->uffd, UFFDIO_ZEROPAGE, &z);
}

static void *fault_main(void *arg) {
  struct mpisw_pager *pg = arg;
  struct pollfd fds[2] = {{.fd = pg->uffd, .events = POLLIN}, {.fd = pg->wake_fd, .events = POLLIN}};
  uint64_t slots_len = (uint64_t)pg->nworkers * pg->block;
  for (;;) {
    if (poll(fds, 2, -1) < 0 && errno != EINTR) break;
    if (fds[1].revents) break;
    struct uffd_msg msg[16];
    ssize_t n = read(pg->uffd, msg, sizeof msg);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      break;
    }
    for (ssize_t k = 0; k < n / (ssize_t)sizeof msg[0]; k++) {
      if (msg[k].event != UFFD_EVENT_PAGEFAULT) continue;
      uint64_t a = msg[k].arg.pagefault.address;
      if (a >= (uintptr_t)pg->addr && a < (uintptr_t)pg->addr + pg->len)
        serve_fault(pg, a - (uintptr_t)pg->addr,
                    (msg[k].arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WRITE) != 0);
      else if (a >= (uintptr_t)pg->slots && a < (uintptr_t)pg->slots + slots_len)
        serve_slot_fault(pg, a);
    }
  }
  return NULL;
}

/* ------------------------------------------------------------- workers */

/* Moves every page present in the slot back to the same place in the block
 * (a failed or partial UFFDIO_MOVE may have taken some of them). */
static void move_back(struct mpisw_pager *pg, char *slot, char *src, uint64_t n) {
  struct page_region v[64];
  uint64_t start = (uintptr_t)slot, end = start + n;
  while (start < end) {
    struct pm_scan_arg a = {.size = sizeof a, .start = start, .end = end, .vec = (uintptr_t)v,
                            .vec_len = 64, .category_mask = PAGE_IS_PRESENT,
                            .return_mask = PAGE_IS_PRESENT};
    long r = ioctl(pg->pagemap, PAGEMAP_SCAN, &a);
    if (r < 0) break;
    for (long k = 0; k < r; k++) {
      uint64_t off = v[k].start - (uintptr_t)slot;
      struct uffdio_move back = {.dst = (uintptr_t)src + off, .src = v[k].start,
                                 .len = v[k].end - v[k].start};
      for (int t = 0; t < 1000 && ioctl(pg->uffd, UFFDIO_MOVE, &back) != 0 && errno == EAGAIN; t++) {
        if (back.move > 0) {
          back.dst += (uint64_t)back.move;
          back.src += (uint64_t)back.move;
          back.len -= (uint64_t)back.move;
        }
        back.move = 0;
      }
    }
    if (a.walk_end <= start) break;
    start = a.walk_end;
  }
  madvise(slot, pg->block, MADV_DONTNEED);
}

static void evict(struct mpisw_pager *pg, uint32_t i, char *slot) {
  struct block *bl = &pg->b[i];
  char *src = pg->addr + (uint64_t)i * pg->block;
  uint64_t n = block_bytes(pg, i);
  pthread_mutex_lock(&pg->mu);
  bl->state = EVICTING;
  bl->flags &= (unsigned char)~F_EVICTQ;
  pg->evq--;
  pg->nevicting++;
  pthread_mutex_unlock(&pg->mu);
  int dirty = scan_written(pg, src, n, 0, NULL) != 0; /* errors count as dirty */
  struct uffdio_move m = {.dst = (uintptr_t)slot, .src = (uintptr_t)src, .len = n,
                          .mode = UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES};
  int moved = 0;
  for (int tries = 0; tries < 100; tries++) {
    if (ioctl(pg->uffd, UFFDIO_MOVE, &m) == 0) { moved = 1; break; }
    if (errno != EAGAIN) break;
    if (m.move > 0) { /* partial: go on from there */
      m.dst += (uint64_t)m.move;
      m.src += (uint64_t)m.move;
      m.len -= (uint64_t)m.move;
    }
    m.move = 0;
  }
  if (!moved) { /* pinned or shared pages: keep the block */
    if (pg->debug) fprintf(stderr, "mpisw pager: UFFDIO_MOVE of block %u: %s\n", i, strerror(errno));
    move_back(pg, slot, src, n);
    /* A sync may have write-protected its written pages while it was queued
     * (and flipped its hash), counting on this eviction to write it. */
    int changed = dirty || hash_block(src, n) != bl->hash;
    pthread_mutex_lock(&pg->mu);
    bl->state = PRESENT;
    ring_push(&pg->fifo, i);
    if (changed && !(bl->flags & F_FLUSHING)) {
      bl->flags |= F_FLUSHING;
      pg->flush_pending++;
      ring_push(&pg->q_flush, i);
      pthread_cond_signal(&pg->qcv);
    }
    if (!(bl->flags & F_STUCK)) { /* faults must not wait for it */
      bl->flags |= F_STUCK;
      pg->stuck++;
    }
    pg->nevicting--;
    pg->st.move_failures++;
    pthread_cond_broadcast(&pg->cv);
    pthread_mutex_unlock(&pg->mu);
    return;
  }
  if (!dirty) dirty = hash_block(slot, n) != bl->hash;
  uint64_t wrote = 0;
  int rc = dirty ? write_block(pg, i, slot, &wrote) : 0;
  if (rc) { /* keep the data: back into the window, dirty again */
    set_error(pg, rc, "write-back");
    move_back(pg, slot, src, n);
  }
  madvise(slot, pg->block, MADV_DONTNEED);
  pthread_mutex_lock(&pg->mu);
  if (rc) {
    bl->state = PRESENT;
    ring_push(&pg->fifo, i);
  } else {
    bl->state = ABSENT;
    if (dirty) bl->flags |= F_ONFILE;
    if (bl->flags & F_STUCK) {
      bl->flags &= (unsigned char)~F_STUCK;
      pg->stuck--;
    }
    pg->held--;
    pg->st.evictions++;
    if (dirty) pg->st.writebacks++;
    pg->st.bytes_written += wrote;
  }
  pg->nevicting--;
  pthread_cond_broadcast(&pg->cv);
  pthread_mutex_unlock(&pg->mu);
}

static void flush(struct mpisw_pager *pg, uint32_t i) {
  struct block *bl = &pg->b[i];
  char *src = pg->addr + (uint64_t)i * pg->block;
  uint64_t n = block_bytes(pg, i);
  pthread_mutex_lock(&pg->mu);
  int present = bl->state == PRESENT;
  pthread_mutex_unlock(&pg->mu);
  uint64_t wrote = 0;
  int rc = present ? write_block(pg, i, src, &wrote) : 0;
  uint64_t h = present && !rc ? hash_block(src, n) : 0;
  if (rc) set_error(pg, rc, "write-back");
  pthread_mutex_lock(&pg->mu);
  if (present && !rc) {
    bl->hash = h;
    bl->flags |= F_ONFILE;
    pg->st.writebacks++;
    pg->st.bytes_written += wrote;
  }
  bl->flags &= (unsigned char)~F_FLUSHING;
  pg->flush_pending--;
  pthread_cond_broadcast(&pg->cv);
  pthread_mutex_unlock(&pg->mu);
}

struct worker_arg {
  struct mpisw_pager *pg;
  int id;
};

static void *worker_main(void *arg) {
  struct worker_arg *wa = arg;
  struct mpisw_pager *pg = wa->pg;
  char *slot = pg->slots + (uint64_t)wa->id * pg->block;
  char *buf = NULL;
  if (posix_memalign((void **)&buf, ALIGN, pg->block)) buf = NULL;
  free(wa);
  pthread_mutex_lock(&pg->mu);
  for (;;) {
    while (!pg->stop && !pg->q_evict.n && !pg->q_flush.n && !pg->q_load.n)
      pthread_cond_wait(&pg->qcv, &pg->mu);
    if (pg->stop) break;
    if (pg->q_evict.n) {
      uint32_t i = ring_pop(&pg->q_evict);
      pthread_mutex_unlock(&pg->mu);
      evict(pg, i, slot);
    } else if (pg->q_flush.n) {
      uint32_t i = ring_pop(&pg->q_flush);
      pthread_mutex_unlock(&pg->mu);
      flush(pg, i);
    } else {
      uint32_t i = ring_pop(&pg->q_load);
      struct block *bl = &pg->b[i];
      bl->flags &= (unsigned char)~F_LOADQ;
      /* read-ahead never waits for room: dropped when there is none */
      if (bl->state != ABSENT || pg->held + 1 > pg->max || !buf) {
        if (!pg->q_load.n) pthread_cond_broadcast(&pg->cv); /* for get_stats */
        continue;
      }
      bl->state = LOADING;
      pg->held++;
      pg->loading++;
      pg->st.readaheads++;
      pthread_mutex_unlock(&pg->mu);
      load(pg, i, buf, 0);
    }
    pthread_mutex_lock(&pg->mu);
  }
  pthread_mutex_unlock(&pg->mu);
  free(buf);
  return NULL;
}

/* ------------------------------------------------------------ lifecycle */

static int open_uffd(struct mpisw_error *e) {
  int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return mpisw_fail(e, MPISW_K_ACCESS, "userfaultfd unavailable: %s%s", strerror(errno),
                      errno == EPERM ? " (needs CAP_SYS_PTRACE or vm.unprivileged_userfaultfd=1)" : "");
  struct uffdio_api api = {.api = UFFD_API, .features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_MOVE};
  if (ioctl(fd, UFFDIO_API, &api) != 0 ||
      (api.features & (UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_MOVE)) !=
          (UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_MOVE)) {
    close(fd);
    return mpisw_fail(e, MPISW_K_ACCESS,
                      "userfaultfd lacks asynchronous write-protect or UFFDIO_MOVE "
                      "(Linux >= 6.8 needed)");
  }
  return fd;
}

int mpisw_pager_probe(struct mpisw_error *e) {
  int fd = open_uffd(e);
  if (fd < 0) return -1;
  close(fd);
  int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  struct pm_scan_arg a = {.size = sizeof a};
  int ok = pm >= 0 && ioctl(pm, PAGEMAP_SCAN, &a) >= 0;
  if (pm >= 0) close(pm);
  if (!ok) return mpisw_fail(e, MPISW_K_ACCESS, "PAGEMAP_SCAN unavailable (Linux >= 6.7 needed)");
  return 0;
}

static void destroy(struct mpisw_pager *pg) {
  if (pg->uffd >= 0) close(pg->uffd);
  if (pg->pagemap >= 0) close(pg->pagemap);
  if (pg->wake_fd >= 0) close(pg->wake_fd);
  if (pg->dfd >= 0) close(pg->dfd);
  if (pg->slots) munmap(pg->slots, (uint64_t)pg->nworkers * pg->block);
  free(pg->fault_buf);
  free(pg->b);
  free(pg->workers);
  free(pg->fifo.v);
  free(pg->q_evict.v);
  free(pg->q_flush.v);
  free(pg->q_load.v);
  pthread_mutex_destroy(&pg->mu);
  pthread_cond_destroy(&pg->cv);
  pthread_cond_destroy(&pg->qcv);
  free(pg);
}

static int register_range(int uffd, char *p, uint64_t n, uint64_t mode) {
  struct uffdio_register r = {.range = {.start = (uintptr_t)p, .len = n}, .mode = mode};
  return ioctl(uffd, UFFDIO_REGISTER, &r);
}

struct mpisw_pager *mpisw_pager_start(char *addr, uint64_t len, int fd, uint64_t file_off,
                                      uint64_t data_end, uint64_t zero_from,
                                      const struct mpisw_pager_opts *o, struct mpisw_error *e) {
  if (mpisw_pager_probe(e)) return NULL;
  struct mpisw_pager *pg = calloc(1, sizeof *pg);
  if (!pg) return mpisw_fail(e, MPISW_K_NOMEM, "pager: out of memory"), NULL;
  pthread_mutex_init(&pg->mu, NULL);
  pthread_cond_init(&pg->cv, NULL);
  pthread_cond_init(&pg->qcv, NULL);
  pg->uffd = pg->pagemap = pg->wake_fd = pg->dfd = -1;
  pg->addr = addr;
  pg->len = len;
  pg->fd = fd;
  pg->file_off = file_off;
  pg->data_end = data_end;
  pg->zero_from = zero_from;
  pg->debug = o->debug;
  pg->block = o->block ? o->block : 2u << 20;
  pg->nblocks = (len + pg->block - 1) / pg->block;
  pg->nworkers = o->workers > 0 ? o->workers : 4;
  if (pg->nworkers > 64) pg->nworkers = 64;
  pg->last_fault = -2;
  uint64_t max = o->memory / pg->block;
  pg->max = max < 4 ? 4 : max;
  pg->ra = o->readahead >= 0 ? o->readahead : (int)(pg->max / 4 < 16 ? pg->max / 4 : 16);
  pg->headroom = (uint64_t)pg->ra + 1 < pg->max / 4 ? (uint64_t)pg->ra + 1 : pg->max / 4;
  if (!pg->headroom) pg->headroom = 1;
  pg->st.block = pg->block;
  pg->st.max_blocks = pg->max;

  char fdpath[64];
  snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fd);
  pg->dfd = open(fdpath, O_RDWR | O_DIRECT | O_CLOEXEC);
  if (pg->dfd < 0) {
    mpisw_fail(e, MPISW_K_ACCESS, "the file system refuses O_DIRECT: %s", strerror(errno));
    destroy(pg);
    return NULL;
  }
  pg->uffd = open_uffd(e);
  pg->pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  pg->wake_fd = eventfd(0, EFD_CLOEXEC);
  pg->b = calloc(pg->nblocks, sizeof *pg->b);
  pg->workers = calloc((size_t)pg->nworkers, sizeof *pg->workers);
  if (posix_memalign((void **)&pg->fault_buf, ALIGN, pg->block)) pg->fault_buf = NULL;
  ring_init(&pg->fifo, pg->nblocks);
  ring_init(&pg->q_evict, pg->nblocks);
  ring_init(&pg->q_flush, pg->nblocks);
  ring_init(&pg->q_load, pg->nblocks);
  void *s = mmap(NULL, (uint64_t)pg->nworkers * pg->block, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  pg->slots = s == MAP_FAILED ? NULL : s;
  if (pg->uffd < 0 || pg->pagemap < 0 || pg->wake_fd < 0 || !pg->b || !pg->workers ||
      !pg->fault_buf || !pg->fifo.v || !pg->q_evict.v || !pg->q_flush.v || !pg->q_load.v ||
      !pg->slots) {
    if (pg->uffd >= 0) mpisw_fail(e, MPISW_K_NOMEM, "pager: out of memory or descriptors");
    destroy(pg);
    return NULL;
  }
  for (uint64_t i = 0; i < pg->nblocks; i++)
    if (file_off + i * pg->block < zero_from) pg->b[i].flags = F_ONFILE;
  memset(pg->fault_buf, 0, pg->block);
  pg->zero_hash = hash_block(pg->fault_buf, pg->block);
  madvise(pg->slots, (uint64_t)pg->nworkers * pg->block, MADV_NOHUGEPAGE);

  /* From here on the range changes: anonymous memory, registered. */
  void *m = mmap(addr, len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
  int ok = m != MAP_FAILED, err = ok ? 0 : errno;
  if (ok) madvise(addr, len, MADV_NOHUGEPAGE);
  if (ok && (register_range(pg->uffd, addr, len,
                            UFFDIO_REGISTER_MODE_MISSING | UFFDIO_REGISTER_MODE_WP) ||
             register_range(pg->uffd, pg->slots, (uint64_t)pg->nworkers * pg->block,
                            UFFDIO_REGISTER_MODE_MISSING))) {
    ok = 0;
    err = errno;
  }
  /* pthread_create returns its error; it does not set errno */
  if (ok && (err = pthread_create(&pg->fault_thread, NULL, fault_main, pg))) ok = 0;
  int started = 0;
  for (int k = 0; ok && k < pg->nworkers; k++) {
    struct worker_arg *wa = malloc(sizeof *wa);
    if (!wa) {
      err = ENOMEM;
      break;
    }
    wa->pg = pg;
    wa->id = k;
    if ((err = pthread_create(&pg->workers[k], NULL, worker_main, wa))) {
      free(wa);
      break;
    }
    started++;
  }
  if (!ok || started < pg->nworkers) {
    if (ok) { /* some threads run: stop them */
      pg->nworkers = started;
      mpisw_pager_stop(pg);
    } else {
      destroy(pg);
    }
    if (m != MAP_FAILED) /* the file mapping back, as promised, with its advice */
      mpisw_map_file_fixed(addr, len, fd, file_off, o->access);
    mpisw_fail(e, MPISW_K_ACCESS, "pager: cannot take over the range: %s", strerror(err));
    return NULL;
  }
  if (pg->debug)
    fprintf(stderr, "mpisw pager: %llu bytes, %llu blocks of %llu, memory %llu blocks, "
            "read-ahead %d, %d workers\n", (unsigned long long)len,
            (unsigned long long)pg->nblocks, (unsigned long long)pg->block,
            (unsigned long long)pg->max, pg->ra, pg->nworkers);
  return pg;
}

static void mark_flush(struct mpisw_pager *pg, uint64_t from, uint64_t to) {
  for (uint64_t i = from / pg->block; i * pg->block < to && i < pg->nblocks; i++) {
    struct block *bl = &pg->b[i];
    if (bl->flags & F_FLUSHING) continue;
    if (bl->flags & F_EVICTQ) { /* the eviction must see it dirty */
      bl->hash = ~bl->hash;
      continue;
    }
    if (bl->state == LOADING) { /* written right after its copy: flush once loaded */
      bl->flags |= F_FLUSHING;
      pg->flush_pending++;
      continue;
    }
    if (bl->state != PRESENT) continue; /* EVICTING: the eviction writes it */
    bl->flags |= F_FLUSHING;
    pg->flush_pending++;
    ring_push(&pg->q_flush, (uint32_t)i);
  }
}

/* Marks, under mu, the blocks of a batch of regions scan_written found. */
static void collect(struct mpisw_pager *pg, const struct page_region *v, long n) {
  pthread_mutex_lock(&pg->mu);
  for (long k = 0; k < n; k++)
    mark_flush(pg, v[k].start - (uintptr_t)pg->addr, v[k].end - (uintptr_t)pg->addr);
  pthread_cond_broadcast(&pg->qcv);
  pthread_mutex_unlock(&pg->mu);
}

int mpisw_pager_sync(struct mpisw_pager *pg, struct mpisw_error *e) {
  /* One scan: each block written before it is flushed, or left to the
   * eviction in its way, which writes it or (failing to move it) flushes it. */
  if (scan_written(pg, pg->addr, pg->len, 1, collect) < 0)
    return mpisw_fail(e, MPISW_K_IO, "pager: PAGEMAP_SCAN failed: %s", strerror(errno));
  pthread_mutex_lock(&pg->mu);
  while (pg->flush_pending || pg->nevicting || pg->evq) pthread_cond_wait(&pg->cv, &pg->mu);
  int err = pg->err;
  char what[96];
  snprintf(what, sizeof what, "%s", pg->err_what);
  pg->err = 0;
  pthread_mutex_unlock(&pg->mu);
  if (err)
    return mpisw_fail(e, mpisw_errno_kind(err), "pager: %s failed: %s", what, strerror(err));
  if (fdatasync(pg->fd) != 0)
    return mpisw_fail(e, mpisw_errno_kind(errno), "fdatasync failed: %s", strerror(errno));
  return 0;
}

void mpisw_pager_will_overwrite(struct mpisw_pager *pg, const void *addr, uint64_t len) {
  uint64_t a = (uintptr_t)addr, base = (uintptr_t)pg->addr;
  if (a < base || a + len > base + pg->len) return;
  uint64_t from = (a - base + pg->block - 1) / pg->block, to = (a - base + len) / pg->block;
  if (a - base + len == pg->len) to = pg->nblocks; /* a short last block counts */
  if (from >= to) return; /* covers no block whole: the usual put, no lock */
  pthread_mutex_lock(&pg->mu);
  for (uint64_t i = from; i < to; i++)
    if (pg->b[i].state == ABSENT) pg->b[i].flags |= F_OVERWRITE;
  pthread_mutex_unlock(&pg->mu);
}

void mpisw_pager_get_stats(struct mpisw_pager *pg, struct mpisw_pager_stats *s) {
  pthread_mutex_lock(&pg->mu);
  /* a faulting thread runs on once its block is copied in, before the load
   * is counted: let loads started or queued settle */
  while (!pg->stop && (pg->loading || pg->q_load.n)) pthread_cond_wait(&pg->cv, &pg->mu);
  *s = pg->st;
  pthread_mutex_unlock(&pg->mu);
}

void mpisw_pager_stop(struct mpisw_pager *pg) {
  if (!pg) return;
  /* Let queued work finish so no thread holds a slot or a half-moved block. */
  pthread_mutex_lock(&pg->mu);
  while (pg->nevicting || pg->evq || pg->flush_pending) pthread_cond_wait(&pg->cv, &pg->mu);
  pg->stop = 1;
  pthread_cond_broadcast(&pg->qcv);
  pthread_mutex_unlock(&pg->mu);
  uint64_t one = 1;
  if (write(pg->wake_fd, &one, sizeof one) < 0) { /* poll sees it anyway below */
  }
  for (int k = 0; k < pg->nworkers; k++) pthread_join(pg->workers[k], NULL);
  pthread_join(pg->fault_thread, NULL);
  if (pg->debug) {
    struct mpisw_pager_stats s;
    mpisw_pager_get_stats(pg, &s);
    fprintf(stderr, "mpisw pager: faults %llu loads %llu (zero %llu, read-ahead %llu) "
            "evictions %llu (failed moves %llu) write-backs %llu read %.1f MiB written %.1f MiB\n",
            (unsigned long long)s.faults, (unsigned long long)s.loads,
            (unsigned long long)s.zero_loads, (unsigned long long)s.readaheads,
            (unsigned long long)s.evictions, (unsigned long long)s.move_failures,
            (unsigned long long)s.writebacks,
            s.bytes_read / 1048576.0, s.bytes_written / 1048576.0);
  }
  struct uffdio_range r = {.start = (uintptr_t)pg->addr, .len = pg->len};
  ioctl(pg->uffd, UFFDIO_UNREGISTER, &r);
  destroy(pg);
}
