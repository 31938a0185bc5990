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
 * the block with the hash it had when it last matched the file.
 *
 * Files: this one starts, syncs and stops a pager; pager_fault.c is the
 * fault thread and loads; pager_evict.c the budget, evictions and
 * write-backs; pager_worker.c the worker threads; pager_io.c block I/O and
 * the change hash; pager_kernel.c the userfaultfd and pagemap calls;
 * pager_shared.c a range other processes map too; pager_internal.h the
 * state they share. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/journal.h"
#include "core/storage.h"
#include "pager/pager_internal.h"

static void destroy(struct mpisw_pager *pg) {
  if (pg->uffd >= 0) close(pg->uffd);
  if (pg->pagemap >= 0) close(pg->pagemap);
  if (pg->wake_fd >= 0) close(pg->wake_fd);
  if (pg->dfd >= 0) close(pg->dfd);
  if (pg->shared_fd >= 0) close(pg->shared_fd);
  if (pg->slots) munmap(pg->slots, pg->slots_len);
  free(pg->fault_buf);
  if (pg->zero_buf) munmap((void *)pg->zero_buf, pg->block);
  free(pg->b);
  free(pg->workers);
  free(pg->fifo.v);
  free(pg->q_evict.v);
  free(pg->q_flush.v);
  free(pg->q_load.v);
  free(pg->jpos);
  free(pg->jreg);
  pthread_mutex_destroy(&pg->jmu);
  pthread_mutex_destroy(&pg->mu);
  pthread_mutex_destroy(&pg->sync_mu);
  pthread_cond_destroy(&pg->cv);
  pthread_cond_destroy(&pg->qcv);
  free(pg);
}

static uint32_t run_blocks(uint64_t n) {
  return n < 1 ? 1 : n > PAGER_RUN_MAX_BLOCKS ? PAGER_RUN_MAX_BLOCKS : (uint32_t)n;
}

struct mpisw_pager *mpisw_pager_start(char *addr, uint64_t len, int fd, uint64_t file_off,
                                      uint64_t data_start, uint64_t data_end,
                                      uint64_t zero_from, const struct mpisw_pager_opts *o,
                                      struct mpisw_error *e) {
  if (mpisw_pager_probe(e)) return NULL;
  struct mpisw_pager *pg = calloc(1, sizeof *pg);
  if (!pg) return mpisw_fail(e, MPISW_K_NOMEM, "pager: out of memory"), NULL;
  pthread_mutex_init(&pg->mu, NULL);
  pthread_mutex_init(&pg->sync_mu, NULL);
  pthread_mutex_init(&pg->jmu, NULL);
  pthread_cond_init(&pg->cv, NULL);
  pthread_cond_init(&pg->qcv, NULL);
  pg->uffd = pg->pagemap = pg->wake_fd = pg->dfd = pg->shared_fd = -1;
  pg->addr = addr;
  pg->len = len;
  pg->fd = fd;
  pg->file_off = file_off;
  pg->data_start = data_start;
  pg->data_end = data_end;
  pg->zero_from = zero_from;
  pg->debug = o->debug;
  pg->t_start = pager_clock(pg);
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
  if (o->shared) { /* every block stays in memory: no read-ahead, no eviction */
    if (pg->nblocks > pg->max) {
      mpisw_fail(e, MPISW_K_USAGE, "pager: a shared range must fit in the pager's memory");
      destroy(pg);
      return NULL;
    }
    pg->ra = 0;
    pg->headroom = 0;
  }
  pg->run_write = run_blocks(PAGER_RUN_WRITE_BYTES / pg->block);
  /* evictions in batches of up to a write's blocks, an eighth of the budget */
  pg->evict_batch = pg->max / 8 < pg->run_write ? pg->max / 8 : pg->run_write;
  if (!pg->evict_batch) pg->evict_batch = 1;
  /* reads: the read-ahead window in (at least) 4 requests, one per worker */
  uint64_t ra_quarter = (uint64_t)pg->ra / 4, per_read = PAGER_RUN_READ_BYTES / pg->block;
  pg->run_read = run_blocks(per_read < ra_quarter ? per_read : ra_quarter);
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
  pg->uffd = mpisw_pager_open_uffd(o->shared ? UFFD_FEATURE_WP_HUGETLBFS_SHMEM : 0, e);
  if (o->shared) {
    pg->shared_fd = memfd_create("mpisw-pager", MFD_CLOEXEC);
    if (pg->shared_fd >= 0 && ftruncate(pg->shared_fd, (off_t)len) != 0) {
      close(pg->shared_fd);
      pg->shared_fd = -1;
    }
  }
  pg->pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  pg->wake_fd = eventfd(0, EFD_CLOEXEC);
  pg->b = calloc(pg->nblocks, sizeof *pg->b);
  pg->workers = calloc((size_t)pg->nworkers, sizeof *pg->workers);
  if (posix_memalign((void **)&pg->fault_buf, PAGER_ALIGN, pg->block)) pg->fault_buf = NULL;
  ring_init(&pg->fifo, pg->nblocks);
  ring_init(&pg->q_evict, pg->nblocks);
  ring_init(&pg->q_flush, pg->nblocks);
  ring_init(&pg->q_load, pg->nblocks);
  /* each worker's slot holds the largest eviction, a run of blocks */
  pg->slots_len = (uint64_t)pg->nworkers * pg->run_write * pg->block;
  void *s = mmap(NULL, pg->slots_len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  pg->slots = s == MAP_FAILED ? NULL : s;
  void *z = mmap(NULL, pg->block, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  pg->zero_buf = z == MAP_FAILED ? NULL : z;
  if (pg->uffd < 0 || pg->pagemap < 0 || pg->wake_fd < 0 || !pg->b || !pg->workers ||
      !pg->fault_buf || !pg->fifo.v || !pg->q_evict.v || !pg->q_flush.v || !pg->q_load.v ||
      !pg->slots || !pg->zero_buf || (o->shared && pg->shared_fd < 0)) {
    if (pg->uffd >= 0) mpisw_fail(e, MPISW_K_NOMEM, "pager: out of memory or descriptors");
    destroy(pg);
    return NULL;
  }
  for (uint64_t i = 0; i < pg->nblocks; i++)
    if (file_off + i * pg->block < zero_from) pg->b[i].flags = F_ONFILE;
  pg->zero_hash = mpisw_pager_hash_block(pg->zero_buf, pg->block);
  madvise(pg->slots, pg->slots_len, MADV_NOHUGEPAGE);

  /* From here on the range changes: anonymous memory (or the shared
   * memfd), registered. */
  void *m = pg->shared_fd >= 0
                ? mmap(addr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, pg->shared_fd, 0)
                : mmap(addr, len, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
  int ok = m != MAP_FAILED, err = ok ? 0 : errno;
  if (ok) madvise(addr, len, MADV_NOHUGEPAGE);
  if (ok && (mpisw_pager_register_range(pg->uffd, addr, len,
                            UFFDIO_REGISTER_MODE_MISSING | UFFDIO_REGISTER_MODE_WP) ||
             mpisw_pager_register_range(pg->uffd, pg->slots, pg->slots_len,
                            UFFDIO_REGISTER_MODE_MISSING))) {
    ok = 0;
    err = errno;
  }
  /* pthread_create returns its error; it does not set errno */
  if (ok && (err = pthread_create(&pg->fault_thread, NULL, mpisw_pager_fault_main, pg))) ok = 0;
  int started = 0;
  for (int k = 0; ok && k < pg->nworkers; k++) {
    struct worker_arg *wa = malloc(sizeof *wa);
    if (!wa) {
      err = ENOMEM;
      break;
    }
    wa->pg = pg;
    wa->id = k;
    if ((err = pthread_create(&pg->workers[k], NULL, mpisw_pager_worker_main, wa))) {
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
  if (pg->shared_fd >= 0) mpisw_pager_load_all(pg); /* before others map it */
  if (pg->debug)
    fprintf(stderr, "mpisw pager: %llu bytes, %llu blocks of %llu, memory %llu blocks, "
            "read-ahead %d, %d workers, requests up to %u blocks written, %u read\n",
            (unsigned long long)len, (unsigned long long)pg->nblocks,
            (unsigned long long)pg->block, (unsigned long long)pg->max, pg->ra, pg->nworkers,
            pg->run_write, pg->run_read);
  return pg;
}

static void mark_flush(struct mpisw_pager *pg, uint64_t from, uint64_t to) {
  for (uint64_t i = from / pg->block; i * pg->block < to && i < pg->nblocks; i++) {
    struct block *bl = &pg->b[i];
    /* A flush may have written before these writes, an eviction may have
     * looked already: either writes the block (again) when it sees the flag. */
    if ((bl->flags & (F_FLUSHING | F_EVICTQ)) || bl->state == EVICTING) {
      bl->flags |= F_REFLUSH;
      continue;
    }
    if (bl->state == LOADING) { /* written right after its copy: flush once loaded */
      bl->flags |= F_FLUSHING;
      pg->flush_pending++;
      continue;
    }
    if (bl->state != PRESENT) continue; /* ABSENT: nothing written */
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

/* Atomic: the written regions are kept, to journal only their pages. */
static void collect_regions(struct mpisw_pager *pg, const struct page_region *v, long n) {
  if (pg->njreg + 2 * (uint64_t)n > pg->capjreg) {
    uint64_t cap = pg->capjreg ? pg->capjreg : 256;
    while (cap < pg->njreg + 2 * (uint64_t)n) cap *= 2;
    uint64_t *r = realloc(pg->jreg, cap * sizeof *r);
    if (!r) { /* whole blocks then, as a plain sync flushes them */
      collect(pg, v, n);
      return;
    }
    pg->jreg = r;
    pg->capjreg = cap;
  }
  for (long k = 0; k < n; k++) {
    pg->jreg[pg->njreg++] = v[k].start - (uintptr_t)pg->addr;
    pg->jreg[pg->njreg++] = v[k].end - (uintptr_t)pg->addr;
  }
}

/* Journals the written pages of block i, the pieces [v[2k], v[2k+1]) of
 * window offsets, when the block is in memory and idle (claimed like a flush
 * meanwhile, so no eviction moves it), then takes its hash once as the one
 * matching the file; any other block goes the plain way, written whole by a
 * flush or its eviction. */
static void journal_block(struct mpisw_pager *pg, uint64_t i, const uint64_t *v, uint64_t n) {
  struct block *bl = &pg->b[i];
  pthread_mutex_lock(&pg->mu);
  int mine = bl->state == PRESENT && !(bl->flags & (F_FLUSHING | F_EVICTQ | F_READERR));
  if (mine) {
    bl->flags |= F_FLUSHING;
    pg->flush_pending++;
  } else {
    mark_flush(pg, i * pg->block, i * pg->block + pager_block_bytes(pg, i));
    pthread_cond_broadcast(&pg->qcv);
  }
  pthread_mutex_unlock(&pg->mu);
  if (!mine) return;
  int rc = 0;
  PAGER_WINDOW_ACCESS_BEGIN(); /* the application may write meanwhile */
  pthread_mutex_lock(&pg->jmu);
  for (uint64_t k = 0; k < n && !rc; k += 2) {
    uint64_t lo = pg->file_off + v[k], hi = pg->file_off + v[k + 1];
    if (lo < pg->data_start) lo = pg->data_start;
    if (hi > pg->data_end) hi = pg->data_end;
    struct mpisw_error e;
    if (lo < hi && !mpisw_journal_add(pg->jr, lo, pg->addr + (lo - pg->file_off), hi - lo, &e))
      rc = ENOMEM;
  }
  pthread_mutex_unlock(&pg->jmu);
  uint64_t h = rc ? 0 : mpisw_pager_hash_block(pg->addr + i * pg->block, pager_block_bytes(pg, i));
  PAGER_WINDOW_ACCESS_END();
  if (rc) { /* not saved: marked written again, for the next sync */
    mpisw_pager_set_error(pg, rc, "journal");
    for (uint64_t k = 0; k < n; k += 2) mpisw_pager_unprotect(pg, pg->addr + v[k], v[k + 1] - v[k]);
  }
  pthread_mutex_lock(&pg->mu);
  if (!rc) {
    bl->hash = h;
    bl->flags |= F_ONFILE;
  }
  bl->flags &= ~(unsigned)(F_FLUSHING | F_REFLUSH);
  pg->flush_pending--;
  pthread_cond_broadcast(&pg->cv);
  pthread_mutex_unlock(&pg->mu);
}

/* The regions (in address order) cut at block boundaries, block by block. */
static void journal_regions(struct mpisw_pager *pg) {
  uint64_t piece[128], np = 0, cur = UINT64_MAX;
  for (uint64_t k = 0; k < pg->njreg; k += 2) {
    for (uint64_t s = pg->jreg[k], end = pg->jreg[k + 1]; s < end;) {
      uint64_t i = s / pg->block, to = (i + 1) * pg->block < end ? (i + 1) * pg->block : end;
      if ((i != cur || np == 128) && np) {
        journal_block(pg, cur, piece, np);
        np = 0;
      }
      cur = i;
      piece[np++] = s;
      piece[np++] = to;
      s = to;
    }
  }
  if (np) journal_block(pg, cur, piece, np);
  pg->njreg = 0;
}

int mpisw_pager_sync(struct mpisw_pager *pg, struct mpisw_error *e) {
  /* One scan: each block written before it is flushed, or left to the
   * eviction in its way, which writes it or (failing to move it) flushes it.
   * Syncs go one at a time: a second one must not find pages the first has
   * write-protected but not yet marked, and return before they are saved. */
  pthread_mutex_lock(&pg->sync_mu);
  pg->njreg = 0;
  if (pg->shared_fd >= 0) mpisw_pager_find_foreign_writes(pg);
  if (mpisw_pager_scan_written(pg, pg->addr, pg->len, 1, pg->jr ? collect_regions : collect) < 0) {
    pthread_mutex_unlock(&pg->sync_mu);
    return mpisw_fail(e, MPISW_K_IO, "pager: PAGEMAP_SCAN failed: %s", strerror(errno));
  }
  if (pg->jr) journal_regions(pg); /* atomic: the written pages, not whole blocks */
  pthread_mutex_lock(&pg->mu);
  while (pg->flush_pending || pg->nevicting || pg->evq) pthread_cond_wait(&pg->cv, &pg->mu);
  int err = pg->err;
  char what[96];
  snprintf(what, sizeof what, "%s", pg->err_what);
  pg->err = 0;
  pthread_mutex_unlock(&pg->mu);
  pthread_mutex_unlock(&pg->sync_mu);
  if (err)
    return mpisw_fail(e, mpisw_errno_kind(err), "pager: %s failed: %s", what, strerror(err));
  if (pg->jr) return mpisw_pager_journal_sync(pg, e); /* its apply syncs the file */
  if (fdatasync(pg->fd) != 0) {
    int err = errno;
    /* A write the kernel took into its cache failed on the way to the
     * device: an O_DIRECT write it cannot do directly (cached pages of the
     * range it cannot drop, e.g. of a block device another process reads)
     * goes buffered and returns success, and only this fdatasync reports
     * the loss. Which block it was is unknown: every block in memory counts
     * as written, so the next sync writes them all again. */
    mpisw_pager_unprotect(pg, pg->addr, pg->len);
    return mpisw_fail(e, mpisw_errno_kind(err), "fdatasync failed: %s", strerror(err));
  }
  return 0;
}

void mpisw_pager_will_overwrite(struct mpisw_pager *pg, const void *addr, uint64_t len) {
  uint64_t a = (uintptr_t)addr, base = (uintptr_t)pg->addr;
  if (a < base || a + len > base + pg->len) return;
  uint64_t from = (a - base + pg->block - 1) / pg->block, to = (a - base + len) / pg->block;
  if (a - base + len == pg->len) to = pg->nblocks; /* a short last block counts */
  if (from >= to) return; /* covers no block whole: the usual put, no lock */
  pthread_mutex_lock(&pg->mu);
  for (uint64_t i = from; i < to; i++) {
    struct block *bl = &pg->b[i];
    bl->flags |= F_PUTWHOLE;
    if (bl->state != ABSENT) continue;
    /* zero-filled, not read; the workers bring them in (writable) while
     * the writer fills the first, so it waits for none of the others */
    bl->flags |= F_OVERWRITE;
    bl->flags &= ~(unsigned)F_LOADGONE; /* queued already: wanted again */
    if (!(bl->flags & F_LOADQ)) {
      bl->flags |= F_LOADQ;
      ring_push(&pg->q_load, (uint32_t)i);
    }
  }
  pthread_cond_broadcast(&pg->qcv);
  pthread_mutex_unlock(&pg->mu);
  /* Pages already in memory (read ahead, or kept since) are marked written
   * now, as the write will mark them: one call instead of a write-protect
   * fault per page. Harmless wherever no page is (missing pages stay so). */
  uint64_t end = to * pg->block < pg->len ? to * pg->block : pg->len;
  mpisw_pager_unprotect(pg, pg->addr + from * pg->block, end - from * pg->block);
}

void mpisw_pager_get_stats(struct mpisw_pager *pg, struct mpisw_pager_stats *s) {
  pthread_mutex_lock(&pg->mu);
  /* a faulting thread runs on once its block is copied in, before the load
   * is counted: let loads started or queued settle */
  while (!pg->stop && (pg->loading || pg->q_load.n)) pthread_cond_wait(&pg->cv, &pg->mu);
  *s = pg->st;
  pthread_mutex_unlock(&pg->mu);
}

int mpisw_pager_shared_fd(const struct mpisw_pager *pg) { return pg ? pg->shared_fd : -1; }

uint64_t mpisw_pager_bytes_written(struct mpisw_pager *pg) {
  pthread_mutex_lock(&pg->mu);
  uint64_t n = pg->st.bytes_written;
  pthread_mutex_unlock(&pg->mu);
  return n;
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
            "evictions %llu (failed moves %llu) write-backs %llu read %.1f MiB "
            "written %.1f MiB\n",
            (unsigned long long)s.faults, (unsigned long long)s.loads,
            (unsigned long long)s.zero_loads, (unsigned long long)s.readaheads,
            (unsigned long long)s.evictions, (unsigned long long)s.move_failures,
            (unsigned long long)s.writebacks,
            s.bytes_read / 1048576.0, s.bytes_written / 1048576.0);
    static const char *const stage[PT_N] = {"fault waits", "reads", "fills", "hashes",
                                            "scans", "moves", "writes", "frees"};
    fprintf(stderr, "mpisw pager: seconds (summed over threads) over %.3f s:",
            (pager_clock(pg) - pg->t_start) / 1e9);
    for (int k = 0; k < PT_N; k++) fprintf(stderr, " %s %.3f", stage[k], pg->t_ns[k] / 1e9);
    fputc('\n', stderr);
  }
  struct uffdio_range r = {.start = (uintptr_t)pg->addr, .len = pg->len};
  ioctl(pg->uffd, UFFDIO_UNREGISTER, &r);
  destroy(pg);
}
