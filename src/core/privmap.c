/* Atomic sync of a private file mapping (privmap.h). */
#include "core/privmap.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/hash.h"
#include "core/storage.h"
#include "core/uffd_abi.h"

#define PM_PRESENT (1ull << 63)
#define PM_SWAPPED (1ull << 62)
#define PM_FILE (1ull << 61)
enum { CHUNK = 4096 }; /* pagemap entries read at a time */


/* Write-protect tracking of [addr, addr+len): -1 when this kernel or
 * process cannot (no userfaultfd, no WP_ASYNC, no PAGEMAP_SCAN). */
static int track_start(char *addr, uint64_t len, int pagemap) {
  int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return -1;
  struct uffdio_api api = {.api = UFFD_API,
                           .features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED};
  struct uffdio_register r = {.range = {.start = (uintptr_t)addr, .len = len},
                              .mode = UFFDIO_REGISTER_MODE_WP};
  struct uffdio_writeprotect wp = {.range = {.start = (uintptr_t)addr, .len = len},
                                   .mode = UFFDIO_WRITEPROTECT_MODE_WP};
  struct pm_scan_arg a = {.size = sizeof a};
  if (ioctl(fd, UFFDIO_API, &api) != 0 || !(api.features & UFFD_FEATURE_WP_ASYNC) ||
      ioctl(fd, UFFDIO_REGISTER, &r) != 0 || ioctl(fd, UFFDIO_WRITEPROTECT, &wp) != 0 ||
      ioctl(pagemap, PAGEMAP_SCAN, &a) < 0) {
    close(fd); /* closing unregisters the range */
    return -1;
  }
  return fd;
}

int mpisw_privmap_start(struct mpisw_privmap *m, char *addr, uint64_t len, int fd,
                        uint64_t file_off, uint64_t data_start, uint64_t data_end,
                        unsigned access, int how, struct mpisw_error *e) {
  memset(m, 0, sizeof *m);
  m->uffd = -1;
  uint64_t page = mpisw_page_size();
  m->pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (m->pagemap < 0)
    return mpisw_fail(e, MPISW_K_ACCESS, "storage_sync=atomic: cannot read /proc/self/pagemap: "
                      "%s", strerror(errno));
  m->hash = calloc(len / page + 1, sizeof *m->hash);
  if (!m->hash) {
    close(m->pagemap);
    return mpisw_fail(e, MPISW_K_NOMEM, "storage_sync=atomic: out of memory");
  }
  void *p = mmap(addr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, (off_t)file_off);
  if (p == MAP_FAILED) {
    int err = errno;
    mpisw_privmap_stop(m);
    return mpisw_fail(e, mpisw_errno_kind(err), "storage_sync=atomic: cannot map %llu bytes of "
                      "the file privately: %s", (unsigned long long)len, strerror(err));
  }
  if (access & MPISW_ACCESS_RANDOM) madvise(p, len, MADV_RANDOM);
  m->addr = addr;
  m->len = len;
  m->file_off = file_off;
  m->data_start = data_start;
  m->data_end = data_end;
  if (how == MPISW_PRIVMAP_AUTO) m->uffd = track_start(addr, len, m->pagemap);
  return 0;
}

static int pend(struct mpisw_privmap *m, uint64_t i, uint64_t h) {
  if (m->npend + 2 > m->cap) {
    uint64_t cap = m->cap ? m->cap * 2 : 1024;
    uint64_t *v = realloc(m->pend, cap * sizeof *v);
    if (!v) return -1;
    m->pend = v;
    m->cap = cap;
  }
  m->pend[m->npend++] = i;
  m->pend[m->npend++] = h;
  return 0;
}

/* Journals page i's bytes of ours if they changed since the last sync. */
static int take_page(struct mpisw_privmap *m, struct mpisw_journal *j, uint64_t i, int by_hash,
                     uint64_t *data, struct mpisw_error *e) {
  uint64_t page = mpisw_page_size();
  uint64_t lo = m->file_off + i * page, hi = lo + page;
  if (lo < m->data_start) lo = m->data_start;
  if (hi > m->data_end) hi = m->data_end;
  if (lo >= hi) return 0;
  const char *src = m->addr + (lo - m->file_off);
  uint64_t h = 0;
  if (by_hash) { /* tracking by hashes: keep only pages whose bytes changed */
    h = mpisw_hash64(0, src, hi - lo) | 1; /* 0 means "never synced" */
    if (h == m->hash[i]) return 0;
  }
  /* the copy is what gets written: hash it, not the page a peer may be writing */
  const void *copy = mpisw_journal_add(j, lo, src, hi - lo, e);
  if (!copy) return -1;
  if (by_hash && pend(m, i, mpisw_hash64(0, copy, hi - lo) | 1))
    return mpisw_fail(e, MPISW_K_NOMEM, "storage_sync=atomic: out of memory");
  *data += hi - lo;
  return 0;
}

/* Pages written since the last scan (write-protected again by the scan). */
static int scan_tracked(struct mpisw_privmap *m, struct mpisw_journal *j, uint64_t *data,
                        struct mpisw_error *e) {
  uint64_t page = mpisw_page_size(), start = (uintptr_t)m->addr, end = start + m->len;
  struct page_region vec[64];
  while (start < end) {
    struct pm_scan_arg a = {.size = sizeof a, .flags = PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC,
                            .start = start, .end = end, .vec = (uintptr_t)vec, .vec_len = 64,
                            .category_mask = PAGE_IS_WRITTEN, .return_mask = PAGE_IS_WRITTEN};
    long r = ioctl(m->pagemap, PAGEMAP_SCAN, &a);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (r < 0)
      return mpisw_fail(e, MPISW_K_IO, "storage_sync=atomic: PAGEMAP_SCAN failed: %s",
                        strerror(errno));
    for (long k = 0; k < r; k++)
      for (uint64_t p = vec[k].start; p < vec[k].end; p += page)
        if (take_page(m, j, (p - (uintptr_t)m->addr) / page, 0, data, e)) return -1;
    if (a.walk_end <= start) break;
    start = a.walk_end;
  }
  return 0;
}

/* The O_DIRECT writes of a sync drop the file's cached pages, and with them
 * our mapping's entries of pages never written, which the tracker then
 * counts as written. Protect exactly those again: written, yet neither in
 * memory nor swapped (a page really written is one of the two), atomically
 * per page, so a write landing meanwhile keeps its mark. */
static void reprotect_dropped(struct mpisw_privmap *m) {
  uint64_t start = (uintptr_t)m->addr, end = start + m->len;
  struct page_region vec[64];
  while (start < end) {
    struct pm_scan_arg a = {.size = sizeof a, .flags = PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC,
                            .start = start, .end = end, .vec = (uintptr_t)vec, .vec_len = 64,
                            .category_mask = PAGE_IS_WRITTEN | PAGE_IS_PRESENT | PAGE_IS_SWAPPED,
                            .category_inverted = PAGE_IS_PRESENT | PAGE_IS_SWAPPED,
                            .return_mask = PAGE_IS_WRITTEN};
    long r = ioctl(m->pagemap, PAGEMAP_SCAN, &a);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (r < 0 || a.walk_end <= start) break; /* at worst they are written once more */
    start = a.walk_end;
  }
}

/* Every private page (written at some time), by_hash: whose bytes' hash
 * changed since the last sync. */
static int scan_private(struct mpisw_privmap *m, struct mpisw_journal *j, int by_hash,
                        uint64_t *data, struct mpisw_error *e) {
  uint64_t page = mpisw_page_size(), pages = m->len / page;
  uint64_t *pm = malloc(CHUNK * sizeof *pm);
  if (!pm) return mpisw_fail(e, MPISW_K_NOMEM, "storage_sync=atomic: out of memory");
  int rc = 0;
  for (uint64_t at = 0; at < pages && !rc; at += CHUNK) {
    uint64_t n = pages - at < CHUNK ? pages - at : CHUNK;
    off_t where = (off_t)(((uintptr_t)m->addr / page + at) * sizeof *pm);
    ssize_t got = pread(m->pagemap, pm, n * sizeof *pm, where);
    if (got != (ssize_t)(n * sizeof *pm)) {
      rc = mpisw_fail(e, MPISW_K_IO, "storage_sync=atomic: reading /proc/self/pagemap failed: "
                      "%s", got < 0 ? strerror(errno) : "short read");
      break;
    }
    for (uint64_t k = 0; k < n && !rc; k++) {
      /* written: an anonymous copy in memory, or swapped out */
      int mine = ((pm[k] & PM_PRESENT) && !(pm[k] & PM_FILE)) || (pm[k] & PM_SWAPPED);
      if (mine) rc = take_page(m, j, at + k, by_hash, data, e);
    }
  }
  free(pm);
  return rc;
}

int mpisw_privmap_sync(struct mpisw_privmap *m, struct mpisw_journal *j, int fd,
                       uint64_t *written, struct mpisw_error *e) {
  if (written) *written = 0;
  if (!m->addr) return 0;
  uint64_t data = 0;
  mpisw_journal_begin(j);
  m->npend = 0;
  int tracked = m->uffd >= 0, redo = m->redo;
  /* after a failed sync the tracker has forgotten its pages: take every
   * private page once (the scan also re-protects what it finds) */
  int rc = !tracked ? scan_private(m, j, 1, &data, e)
           : !redo   ? scan_tracked(m, j, &data, e)
                     : scan_private(m, j, 0, &data, e);
  if (rc || !data) {
    if (rc && tracked) m->redo = 1;
    return rc;
  }
  m->redo = tracked; /* until this sync is through */
  if (mpisw_journal_commit(j, e) || mpisw_journal_apply(j, fd, e)) return -1;
  if (written) *written = mpisw_journal_bytes(j) + data;
  if (tracked) reprotect_dropped(m);
  mpisw_journal_mark_applied(j, e); /* best effort: replaying it again is harmless */
  m->redo = 0;
  for (uint64_t k = 0; k < m->npend; k += 2) m->hash[m->pend[k]] = m->pend[k + 1];
  return 0;
}

void mpisw_privmap_stop(struct mpisw_privmap *m) {
  if (m->uffd >= 0) close(m->uffd);
  m->uffd = -1;
  if (m->pagemap > 0) close(m->pagemap);
  m->pagemap = -1;
  free(m->hash);
  free(m->pend);
  m->hash = m->pend = NULL;
  m->addr = NULL;
}
