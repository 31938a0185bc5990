/* Ranges of bytes in and out of a rank's segment: file data, and the
 * records and index entries that are more than a word. Other nodes: MPI_Put
 * / MPI_Get, complete (flush) when the call returns. This node: the
 * segments are mapped here.
 *
 * A memory pool keeps the pages its files have used: a deleted file's
 * blocks go back to the pool with their pages, so the next file writes into
 * memory that is already there. Which way a copy goes in depends on that:
 * - into pages that exist, a memcpy, once this process has them in its page
 *   tables (MADV_POPULATE_WRITE maps a 64 KiB chunk in one call instead of
 *   a fault per page; a bitmap remembers the chunks mapped here);
 * - into pages that do not exist yet, pwrite on the node's memfd: the
 *   kernel copies into a new page without zeroing it first, where a store
 *   through the mapping faults, zeroes, then copies.
 * Reads of pages that do not exist use pread (zeros, nothing allocated). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/storage.h"
#include "pmpi/pmpi.h"
#include "pool/internal.h"

/* Large ranges in pieces the MPI's int count can take. */
#define MPI_PIECE ((uint64_t)1 << 30)
/* Below this a copy is a memcpy whatever the pages (a system call costs
 * more than the faults it saves). */
#define SYSCALL_MIN (16 * 1024)
/* Granule of "mapped in this process". */
#define CHUNK_SHIFT 16

static uint8_t *mapped; /* bit per chunk of the node's memfd mapping */
static uint64_t nchunks;

void mpisw_pool_data_open(uint64_t len) {
  nchunks = (len + (1ULL << CHUNK_SHIFT) - 1) >> CHUNK_SHIFT;
  mapped = calloc((size_t)(nchunks + 7) / 8, 1); /* NULL: every copy asks mincore */
}

void mpisw_pool_data_close(void) {
  free(mapped);
  mapped = NULL;
  nchunks = 0;
}

static int is_mapped(uint64_t c) { return mapped && (mapped[c / 8] >> (c % 8) & 1); }

/* 1 when the page holding a exists in the memfd (mincore looks at the file,
 * not at this process's page tables). */
static int resident(const char *a) {
  unsigned char v = 0;
  void *page = (void *)((uintptr_t)a & ~(uintptr_t)(POOL_PAGE - 1));
  return mincore(page, POOL_PAGE, &v) == 0 && (v & 1);
}

/* Whether [a, a+len) of the memfd mapping can be copied with memcpy
 * without a fault per page: its chunks are mapped here, or its pages exist
 * and get mapped now (the first and last page stand for the range). */
static int ready_here(char *a, uint64_t len) {
  uint64_t o = (uint64_t)(a - P->mem_base), c0 = o >> CHUNK_SHIFT,
           c1 = (o + len - 1) >> CHUNK_SHIFT, c;
  for (c = c0; c <= c1 && is_mapped(c); c++) {
  }
  if (c > c1) return 1;
  if (!resident(a) || !resident(a + len - 1)) return 0;
  char *lo = P->mem_base + (c0 << CHUNK_SHIFT);
  uint64_t n = (c1 + 1 - c0) << CHUNK_SHIFT;
  if (madvise(lo, n, MADV_POPULATE_WRITE) == 0 && mapped)
    for (c = c0; c <= c1; c++) mapped[c / 8] |= (uint8_t)(1u << (c % 8));
  return 1;
}

/* The memfd holds every segment of the node: reads cannot come up short. */
static int memfd_read(const char *a, void *buf, uint64_t len) {
  off_t at = (off_t)(a - P->mem_base);
  for (uint64_t done = 0; done < len;) {
    ssize_t n = pread(P->mem_fd, (char *)buf + done, len - done, at + (off_t)done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    done += (uint64_t)n;
  }
  return 0;
}

int mpisw_pool_rm_put(int r, uint64_t d, const void *buf, uint64_t len) {
  if (P->seg[r]) {
    char *a = P->seg[r] + d;
    if (P->mem_fd >= 0 && len >= SYSCALL_MIN && !ready_here(a, len))
      return mpisw_pwrite_all(P->mem_fd, buf, len, (uint64_t)(a - P->mem_base)) ? -1 : 0;
    memcpy(a, buf, len);
    return 0;
  }
  if (mpisw_pool_rm_gone(r)) return -1;
  for (uint64_t done = 0; done < len;) {
    uint64_t n = len - done < MPI_PIECE ? len - done : MPI_PIECE;
    if (mpisw_next.Put((const char *)buf + done, (int)n, MPI_BYTE, r, (MPI_Aint)(d + done),
                       (int)n, MPI_BYTE, P->world) != MPI_SUCCESS)
      return -1;
    done += n;
  }
  return mpisw_next.Win_flush(r, P->world) == MPI_SUCCESS ? 0 : -1;
}

int mpisw_pool_rm_get(int r, uint64_t d, void *buf, uint64_t len) {
  if (P->seg[r]) {
    char *a = P->seg[r] + d;
    if (P->mem_fd >= 0 && len >= SYSCALL_MIN && !ready_here(a, len))
      return memfd_read(a, buf, len);
    memcpy(buf, a, len);
    return 0;
  }
  if (mpisw_pool_rm_gone(r)) return -1;
  for (uint64_t done = 0; done < len;) {
    uint64_t n = len - done < MPI_PIECE ? len - done : MPI_PIECE;
    if (mpisw_next.Get((char *)buf + done, (int)n, MPI_BYTE, r, (MPI_Aint)(d + done), (int)n,
                       MPI_BYTE, P->world) != MPI_SUCCESS)
      return -1;
    done += n;
  }
  return mpisw_next.Win_flush(r, P->world) == MPI_SUCCESS ? 0 : -1;
}

/* Zeroes [a, a+len) of the memfd mapping: pages that do not exist read as
 * zeros already and stay out (mincore asks in pieces of 256 pages). */
static void zero_existing(char *a, uint64_t len) {
  char *end = a + len;
  while (a < end) {
    char *page = (char *)((uintptr_t)a & ~(uintptr_t)(POOL_PAGE - 1));
    unsigned char v[256];
    uint64_t pages = ((uint64_t)(end - page) + POOL_PAGE - 1) / POOL_PAGE;
    if (pages > sizeof v) pages = sizeof v;
    if (mincore(page, pages * POOL_PAGE, v)) memset(v, 1, sizeof v); /* unsure: zero all */
    for (uint64_t i = 0; i < pages && a < end; i++) {
      char *next = page + (i + 1) * POOL_PAGE;
      if (next > end) next = end;
      if (v[i] & 1) memset(a, 0, (size_t)(next - a));
      a = next;
    }
  }
}

int mpisw_pool_rm_zero(int r, uint64_t d, uint64_t len) {
  static const char zeros[65536];
  if (P->seg[r]) {
    if (P->mem_fd >= 0) zero_existing(P->seg[r] + d, len);
    else memset(P->seg[r] + d, 0, len);
    return 0;
  }
  if (mpisw_pool_rm_gone(r)) return -1;
  for (uint64_t done = 0; done < len;) {
    uint64_t n = len - done < sizeof zeros ? len - done : sizeof zeros;
    if (mpisw_next.Put(zeros, (int)n, MPI_BYTE, r, (MPI_Aint)(d + done), (int)n, MPI_BYTE,
                       P->world) != MPI_SUCCESS)
      return -1;
    done += n;
  }
  return mpisw_next.Win_flush(r, P->world) == MPI_SUCCESS ? 0 : -1;
}
