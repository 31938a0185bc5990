/* The pager's calls into the kernel: userfaultfd (copy, move, register)
 * and PAGEMAP_SCAN. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pager/pager_internal.h"

int mpisw_pager_open_uffd(uint64_t extra, struct mpisw_error *e) {
  int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return mpisw_fail(e, MPISW_K_ACCESS, "userfaultfd unavailable: %s%s", strerror(errno),
                      errno == EPERM ? " (needs CAP_SYS_PTRACE or vm.unprivileged_userfaultfd=1)" : "");
  uint64_t want = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_MOVE | extra;
  struct uffdio_api api = {.api = UFFD_API, .features = want};
  if (ioctl(fd, UFFDIO_API, &api) != 0 || (api.features & want) != want) {
    close(fd);
    return mpisw_fail(e, MPISW_K_ACCESS,
                      "userfaultfd lacks asynchronous write-protect or UFFDIO_MOVE "
                      "(Linux >= 6.8 needed)");
  }
  return fd;
}

int mpisw_pager_probe(struct mpisw_error *e) {
  int fd = mpisw_pager_open_uffd(0, e);
  if (fd < 0) return -1;
  close(fd);
  int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  struct pm_scan_arg a = {.size = sizeof a};
  int ok = pm >= 0 && ioctl(pm, PAGEMAP_SCAN, &a) >= 0;
  if (pm >= 0) close(pm);
  if (!ok) return mpisw_fail(e, MPISW_K_ACCESS, "PAGEMAP_SCAN unavailable (Linux >= 6.7 needed)");
  return 0;
}

int mpisw_pager_register_range(int uffd, char *p, uint64_t n, uint64_t mode) {
  struct uffdio_register r = {.range = {.start = (uintptr_t)p, .len = n}, .mode = mode};
  return ioctl(uffd, UFFDIO_REGISTER, &r);
}

/* wp: map write-protected (clean); without it the pages count as written,
 * which saves a write-protect fault per page of a block loaded for a write. */
int mpisw_pager_uffd_copy(struct mpisw_pager *pg, char *dst, const char *src, uint64_t n, int wp) {
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

/* One PAGEMAP_SCAN walk over [p, p+n) with the flags and masks of q: each
 * gets the matching regions a batch at a time and returns nonzero to stop.
 * 1 if any region matched, 0 if none, -1 on error. */
static int pm_walk(struct mpisw_pager *pg, char *p, uint64_t n, struct pm_scan_arg q,
                   int (*each)(struct mpisw_pager *, const struct page_region *, long, void *),
                   void *arg) {
  struct page_region vec[64];
  uint64_t start = (uintptr_t)p, end = start + n;
  int any = 0;
  while (start < end) {
    struct pm_scan_arg a = q;
    a.size = sizeof a;
    a.start = start;
    a.end = end;
    a.vec = (uintptr_t)vec;
    a.vec_len = 64;
    long r = ioctl(pg->pagemap, PAGEMAP_SCAN, &a);
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return -1;
    }
    if (r > 0) {
      any = 1;
      if (each(pg, vec, r, arg)) break;
    }
    if (a.walk_end <= start) break;
    start = a.walk_end;
  }
  return any;
}

/* Moves [src, src+len) to dst, going on after partial moves and EAGAIN for
 * up to tries attempts. 0 when all moved, else -1 with errno. */
int mpisw_pager_move(struct mpisw_pager *pg, char *dst, char *src, uint64_t len, uint64_t mode,
               int tries) {
  struct uffdio_move m = {.dst = (uintptr_t)dst, .src = (uintptr_t)src, .len = len, .mode = mode};
  for (int t = 0; t < tries; t++) {
    if (ioctl(pg->uffd, UFFDIO_MOVE, &m) == 0) return 0;
    if (errno != EAGAIN) return -1;
    if (m.move > 0) { /* partial: go on from there */
      m.dst += (uint64_t)m.move;
      m.src += (uint64_t)m.move;
      m.len -= (uint64_t)m.move;
    }
    m.move = 0;
  }
  return -1;
}

struct written_arg {
  void (*each)(struct mpisw_pager *, const struct page_region *, long);
  int stop_at_first;
};

static int on_written(struct mpisw_pager *pg, const struct page_region *v, long r, void *arg) {
  struct written_arg *w = arg;
  if (w->each) w->each(pg, v, r);
  return w->stop_at_first;
}

/* 1 if a page of [p, p+n) was written since it was last write-protected;
 * with reprotect, write-protects those pages again. each (if any) gets the
 * written regions a batch at a time. -1 on error. */
int mpisw_pager_scan_written(struct mpisw_pager *pg, char *p, uint64_t n, int reprotect,
                       void (*each)(struct mpisw_pager *, const struct page_region *, long)) {
  struct pm_scan_arg q = {.category_mask = PAGE_IS_WRITTEN,
                          .category_anyof_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED,
                          .return_mask = PAGE_IS_WRITTEN};
  if (reprotect) q.flags = PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC;
  /* without a callback or a reprotect the question is only "any?" */
  struct written_arg w = {each, !each && !reprotect};
  return pm_walk(pg, p, n, q, on_written, &w);
}

/* Calls each on the regions of [p, p+n) that hold pages (in memory or
 * swapped out), a batch at a time. */
static void each_page_region(struct mpisw_pager *pg, char *p, uint64_t n,
                             int (*each)(struct mpisw_pager *, const struct page_region *, long,
                                         void *),
                             void *arg) {
  struct pm_scan_arg q = {.category_anyof_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED,
                          .return_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED};
  pm_walk(pg, p, n, q, each, arg);
}

struct move_back_arg {
  char *slot, *src;
};

static int move_regions_back(struct mpisw_pager *pg, const struct page_region *v, long r,
                             void *arg) {
  struct move_back_arg *mb = arg;
  for (long k = 0; k < r; k++)
    mpisw_pager_move(pg, mb->src + (v[k].start - (uintptr_t)mb->slot), (char *)(uintptr_t)v[k].start,
               v[k].end - v[k].start, 0, 1000);
  return 0;
}

/* Moves every page in the slot back to the same place in the block (a
 * failed or partial UFFDIO_MOVE may have taken some of them). */
void mpisw_pager_move_back(struct mpisw_pager *pg, char *slot, char *src, uint64_t n) {
  struct move_back_arg mb = {slot, src};
  each_page_region(pg, slot, n, move_regions_back, &mb);
  madvise(slot, pg->block, MADV_DONTNEED);
}

/* Marks [p, p+n) written (no write-protect), as after a write the pager has
 * not saved: the next scan finds it. Wakes no thread (one waiting for a
 * missing page of the range is woken by the load that brings it). */
void mpisw_pager_unprotect(struct mpisw_pager *pg, char *p, uint64_t n) {
  struct uffdio_writeprotect w = {.range = {.start = (uintptr_t)p, .len = n},
                                  .mode = UFFDIO_WRITEPROTECT_MODE_DONTWAKE};
  ioctl(pg->uffd, UFFDIO_WRITEPROTECT, &w);
}

static int touch_regions(struct mpisw_pager *pg, const struct page_region *v, long r,
                         void *arg) {
  (void)pg;
  (void)arg;
  for (long k = 0; k < r; k++)
    for (uint64_t a = v[k].start; a < v[k].end; a += 4096)
      __atomic_fetch_add((uint64_t *)(uintptr_t)a, 0, __ATOMIC_RELAXED);
  return 0;
}

/* Writes zero more to the first word of every page of [p, p+n) that exists
 * (an atomic add of zero: it cannot lose a concurrent store), so pages
 * shared copy-on-write with a forked child become this process's own and
 * can be moved. Missing pages are left alone: touching one would fault. */
void mpisw_pager_touch_present(struct mpisw_pager *pg, char *p, uint64_t n) {
  each_page_region(pg, p, n, touch_regions, NULL);
}
