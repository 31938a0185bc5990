#include "core/layout.h"

#include <string.h>

static uint64_t round_up(uint64_t x, uint64_t p) { return (x + p - 1) / p * p; }
static uint64_t round_down(uint64_t x, uint64_t p) { return x / p * p; }

uint64_t mpisw_layout_mem_target(uint64_t size, double factor, uint64_t page) {
  if (factor <= 0.0) return size;
  if (factor >= 1.0) return 0;
  double sto = (double)size * factor;
  uint64_t sto_pages = (uint64_t)(sto / (double)page + 0.5);
  uint64_t s = sto_pages * page;
  if (s > size) s = size;
  return size - s;
}

int mpisw_layout_compute(uint64_t size, uint64_t mem_target, int storage_first,
                         uint64_t file_off, uint64_t page, struct mpisw_layout *l,
                         struct mpisw_error *e) {
  memset(l, 0, sizeof *l);
  l->size = size;
  l->storage_first = storage_first;
  l->file_off = file_off;
  if (size > UINT64_MAX - 2 * page || file_off > UINT64_MAX - size - page)
    return mpisw_fail(e, MPISW_K_HINT,
                      "storage_alloc_offset: offset %llu plus size %llu overflows",
                      (unsigned long long)file_off, (unsigned long long)size);
  uint64_t delta = file_off % page;
  if (mem_target > size) mem_target = size;

  /* How much goes to memory, with the split on a page boundary. */
  uint64_t mem;
  if (mem_target == size) {
    mem = size;
  } else if (!storage_first) {
    mem = round_down(mem_target, page);
  } else {
    uint64_t sto = round_up(delta + (size - mem_target), page) - delta;
    mem = sto >= size ? 0 : size - sto;
  }
  l->mem_len = mem;
  l->sto_len = size - mem;

  if (l->sto_len == 0) { /* all memory */
    l->map_mem_len = round_up(size, page);
    l->reserve_len = l->map_mem_len;
    return 0;
  }
  if (l->mem_len == 0) { /* all storage */
    l->lead = delta;
    l->map_file_off = file_off - delta;
    l->map_file_len = round_up(delta + size, page);
    l->reserve_len = l->map_file_len;
    return 0;
  }
  if (!storage_first) {
    if (delta)
      return mpisw_fail(e, MPISW_K_HINT,
                        "storage_alloc_offset: %llu is not a multiple of the page size "
                        "(%llu), which a combined memory_first window needs",
                        (unsigned long long)file_off, (unsigned long long)page);
    l->map_mem_len = mem;
    l->map_file_at = mem;
    l->map_file_off = file_off;
    l->map_file_len = round_up(l->sto_len, page);
  } else {
    l->lead = delta;
    l->map_file_off = file_off - delta;
    l->map_file_len = delta + l->sto_len; /* a page multiple by construction */
    l->map_mem_at = l->map_file_len;
    l->map_mem_len = round_up(mem, page);
  }
  l->reserve_len = l->map_file_len + l->map_mem_len;
  return 0;
}
