/* Where the memory part and the storage part of a window lie inside one
 * reserved virtual range, and which file bytes the storage part maps.
 * Pure arithmetic, unit-tested without MPI. */
#ifndef MPISW_CORE_LAYOUT_H
#define MPISW_CORE_LAYOUT_H

#include <stdint.h>

#include "core/error.h"

struct mpisw_layout {
  uint64_t size;         /* window bytes: mem_len + sto_len */
  uint64_t mem_len;
  uint64_t sto_len;
  int storage_first;
  uint64_t file_off;     /* file offset of the window's first storage byte */
  uint64_t lead;         /* window base minus reservation start */
  uint64_t reserve_len;  /* whole reservation, a page multiple */
  uint64_t map_file_at;  /* file mapping: where in the reservation, */
  uint64_t map_file_len; /* how long, */
  uint64_t map_file_off; /* and from which (page-aligned) file offset */
  uint64_t map_mem_at;   /* memory mapping inside the reservation */
  uint64_t map_mem_len;
};

/* mem_target: bytes the caller wants in memory (size - factor*size, or the
 * memory budget for auto). The memory part never exceeds it; the split lies
 * on a page boundary. An unaligned file_off is allowed except between a
 * memory part and a following storage part (memory_first), which is an error. */
int mpisw_layout_compute(uint64_t size, uint64_t mem_target, int storage_first,
                         uint64_t file_off, uint64_t page, struct mpisw_layout *l,
                         struct mpisw_error *e);

/* Bytes wanted in memory for a fixed factor (storage share), rounded to the
 * nearest page so that 0.5 of a page multiple splits exactly. */
uint64_t mpisw_layout_mem_target(uint64_t size, double factor, uint64_t page);

#endif
