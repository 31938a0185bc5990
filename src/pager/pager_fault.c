/* The pager's fault thread: a missing page loads its block (waiting for
 * room under the budget), and a sequential stream queues read-ahead. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pager/pager_internal.h"

/* Block i's bytes are in buf (read, or zeros for a fresh block; rc: the
 * read's error, got: bytes the file gave, h: their hash): into the window,
 * then PRESENT. */
static void install(struct mpisw_pager *pg, uint64_t i, const char *buf, int fresh, int rc,
                    uint64_t got, uint64_t h, int for_write) {
  struct block *bl = &pg->b[i];
  uint64_t n = pager_block_bytes(pg, i);
  char *dst = pg->addr + i * pg->block;
  uint64_t t0 = pager_clock(pg);
  int crc = mpisw_pager_uffd_copy(pg, dst, buf, n, !for_write);
  pager_timed(pg, PT_FILL, t0);
  if (crc && pg->debug) fprintf(stderr, "mpisw pager: filling block %llu: %s\n", (unsigned long long)i, strerror(crc));
  if (crc && crc != ENOENT && crc != ESRCH)
    mpisw_pager_set_error(pg, crc, "UFFDIO_COPY");
  pthread_mutex_lock(&pg->mu);
  bl->hash = h;
  bl->state = PRESENT;
  bl->loads++;
  /* an overwrite hint read as zeros: the block differs from the file */
  if (fresh && (bl->flags & F_OVERWRITE)) bl->hash = ~h;
  bl->flags &= ~(unsigned)(F_OVERWRITE | F_WLOAD);
  if (bl->flags & F_LOADQ) bl->flags |= F_LOADGONE; /* loaded: its queued load is void */
  if (for_write) bl->flags |= F_WLOAD; /* installed writable: written whole, as far as a scan sees */
  if (rc) bl->flags |= F_READERR;
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
  mpisw_pager_maybe_evict_locked(pg);
  pthread_cond_broadcast(&pg->cv);
  pthread_mutex_unlock(&pg->mu);
}

/* Loads block i into memory through buf. Caller set LOADING and counted it. */
void mpisw_pager_load(struct mpisw_pager *pg, uint64_t i, char *buf, int for_write) {
  struct block *bl = &pg->b[i];
  uint64_t n = pager_block_bytes(pg, i);
  uint64_t h = pg->zero_hash;
  uint64_t got = 0;
  /* flags change under mu while the block loads (a sync marks it, a
   * read-ahead is queued): read them under mu too */
  pthread_mutex_lock(&pg->mu);
  unsigned flags = bl->flags;
  pthread_mutex_unlock(&pg->mu);
  int rc = 0, fresh = !(flags & F_ONFILE) || (flags & F_OVERWRITE);
  if (flags & F_OVERWRITE) for_write = 1; /* about to be written whole: writable at once */
  const char *src = buf;
  if (fresh) {
    if (n != pg->block) h = mpisw_pager_hash_block(pg->zero_buf, n);
    src = pg->zero_buf;
  } else {
    if (pg->debug > 1) fprintf(stderr, "pager: read block %llu\n", (unsigned long long)i);
    uint64_t t0 = pager_clock(pg);
    rc = mpisw_pager_read_block(pg, i, buf, &got);
    pager_timed(pg, PT_READ, t0);
    if (rc) {
      mpisw_pager_set_error(pg, rc, "read");
      memset(buf, 0, n);
    }
    t0 = pager_clock(pg);
    h = mpisw_pager_hash_block(buf, n);
    pager_timed(pg, PT_HASH, t0);
  }
  install(pg, i, src, fresh, rc, got, h, for_write);
}

void mpisw_pager_load_run(struct mpisw_pager *pg, uint64_t i, uint64_t n, char *buf) {
  pthread_mutex_lock(&pg->mu);
  int all_on_file = 1; /* else block by block: fresh ones need no read */
  for (uint64_t k = i; k < i + n; k++)
    if (!(pg->b[k].flags & F_ONFILE) || (pg->b[k].flags & F_OVERWRITE)) all_on_file = 0;
  pthread_mutex_unlock(&pg->mu);
  if (n == 1 || !all_on_file) {
    for (uint64_t k = i; k < i + n; k++) mpisw_pager_load(pg, k, buf, 0);
    return;
  }
  uint64_t got = 0, len = (n - 1) * pg->block + pager_block_bytes(pg, i + n - 1);
  uint64_t t0 = pager_clock(pg);
  int rc = mpisw_pager_read_run(pg, i, n, buf, &got);
  pager_timed(pg, PT_READ, t0);
  if (rc) {
    mpisw_pager_set_error(pg, rc, "read");
    memset(buf, 0, len);
    got = 0;
  }
  for (uint64_t k = 0; k < n; k++) {
    const char *p = buf + k * pg->block;
    uint64_t bytes = pager_block_bytes(pg, i + k), from = k * pg->block;
    uint64_t gotk = got <= from ? 0 : got - from < bytes ? got - from : bytes;
    t0 = pager_clock(pg);
    uint64_t h = mpisw_pager_hash_block(p, bytes);
    pager_timed(pg, PT_HASH, t0);
    install(pg, i + k, p, 0, rc, gotk, h, 0);
  }
}

/* Queues read-ahead of the blocks after i (caller holds mu). */
static void readahead_locked(struct mpisw_pager *pg, uint64_t i) {
  for (uint64_t k = i + 1; k <= i + (uint64_t)pg->ra && k < pg->nblocks; k++) {
    struct block *bl = &pg->b[k];
    /* F_LOADQ: the ring has room; F_PUTWHOLE: likely overwritten, not read */
    if (bl->state != ABSENT || (bl->flags & F_PUTWHOLE)) continue;
    if (bl->flags & F_LOADQ) { /* queued already: wanted again if void */
      bl->flags &= ~(unsigned)F_LOADGONE;
      continue;
    }
    bl->flags |= F_LOADQ;
    ring_push(&pg->q_load, (uint32_t)k);
    pthread_cond_signal(&pg->qcv);
  }
}

static void wake_page(struct mpisw_pager *pg, uint64_t off) {
  struct uffdio_range r = {.start = (uintptr_t)pg->addr + (off & ~(uint64_t)4095), .len = 4096};
  ioctl(pg->uffd, UFFDIO_WAKE, &r);
}

/* One missing-page fault at byte offset off of the range; seen: the block's
 * loads count when the message was read. A load since then woke the thread
 * that faulted (a message read in a batch waits while those before it are
 * served, and its block may come and go meanwhile): loading it again would
 * only push out a block in use, and read ahead from a place long passed. */
static void serve_fault(struct mpisw_pager *pg, uint64_t off, int write, uint32_t seen) {
  uint64_t i = off / pg->block;
  struct block *bl = &pg->b[i];
  pthread_mutex_lock(&pg->mu);
  if (bl->loads != seen) {
    pthread_mutex_unlock(&pg->mu);
    return wake_page(pg, off);
  }
  pg->st.faults++;
  int seq = pg->ra > 0 && (pg->last_fault + 1 == (int64_t)i || (i > 0 && pg->b[i - 1].state != ABSENT));
  pg->last_fault = (int)i;
  if (!write && (bl->flags & F_PUTWHOLE)) /* read after all: read ahead of it again */
    for (uint64_t k = i; k <= i + (uint64_t)pg->ra && k < pg->nblocks; k++)
      pg->b[k].flags &= ~(unsigned)F_PUTWHOLE;
  uint64_t t0 = pager_clock(pg);
  for (;;) {
    if (bl->loads != seen || bl->state == PRESENT) break;
    if (bl->state == ABSENT && pg->held < pg->max + pg->stuck) break;
    if (bl->state == ABSENT) mpisw_pager_maybe_evict_locked(pg);
    if (bl->state == LOADING && seq) readahead_locked(pg, i);
    pthread_cond_wait(&pg->cv, &pg->mu);
  }
  pager_timed(pg, PT_ROOM, t0);
  if (bl->loads != seen || bl->state == PRESENT) { /* loaded meanwhile: wake the thread */
    if (seq && bl->state == PRESENT) readahead_locked(pg, i);
    pthread_mutex_unlock(&pg->mu);
    return wake_page(pg, off);
  }
  bl->state = LOADING;
  pg->held++;
  pg->loading++;
  if (seq) readahead_locked(pg, i);
  pthread_mutex_unlock(&pg->mu);
  mpisw_pager_load(pg, i, pg->fault_buf, write);
}

/* Faults inside the staging slots (only holes of a moved block): zeros. */
static void serve_slot_fault(struct mpisw_pager *pg, uint64_t addr) {
  if (pg->debug) fprintf(stderr, "mpisw pager: fault in slot at +%llu\n", (unsigned long long)(addr - (uintptr_t)pg->slots));
  struct uffdio_zeropage z = {.range = {.start = addr & ~(uint64_t)4095, .len = 4096}};
  ioctl(pg->uffd, UFFDIO_ZEROPAGE, &z);
}

void *mpisw_pager_fault_main(void *arg) {
  struct mpisw_pager *pg = arg;
  struct pollfd fds[2] = {{.fd = pg->uffd, .events = POLLIN}, {.fd = pg->wake_fd, .events = POLLIN}};
  uint64_t slots_len = pg->slots_len;
  for (;;) {
    if (poll(fds, 2, -1) < 0 && errno != EINTR) break;
    if (fds[1].revents) break;
    struct uffd_msg msg[16];
    uint32_t seen[16];
    ssize_t n = read(pg->uffd, msg, sizeof msg);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      break;
    }
    pthread_mutex_lock(&pg->mu);
    for (ssize_t k = 0; k < n / (ssize_t)sizeof msg[0]; k++) {
      uint64_t a = msg[k].arg.pagefault.address - (uintptr_t)pg->addr; /* wraps when below */
      seen[k] = msg[k].event == UFFD_EVENT_PAGEFAULT && a < pg->len ? pg->b[a / pg->block].loads : 0;
    }
    pthread_mutex_unlock(&pg->mu);
    for (ssize_t k = 0; k < n / (ssize_t)sizeof msg[0]; k++) {
      if (msg[k].event != UFFD_EVENT_PAGEFAULT) continue;
      uint64_t a = msg[k].arg.pagefault.address;
      if (a >= (uintptr_t)pg->addr && a < (uintptr_t)pg->addr + pg->len)
        serve_fault(pg, a - (uintptr_t)pg->addr,
                    (msg[k].arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WRITE) != 0, seen[k]);
      else if (a >= (uintptr_t)pg->slots && a < (uintptr_t)pg->slots + slots_len)
        serve_slot_fault(pg, a);
    }
  }
  return NULL;
}
