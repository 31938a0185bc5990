/* The pager backend of a placed range (docs/PAGER.md): chosen with
 * storage_backend=pager, it takes over the storage part that place.c mapped
 * from the file. Whenever the pager cannot run (no userfaultfd privilege, an
 * older kernel, a file system without O_DIRECT) the file mapping stays and
 * the window reports storage_backend=mmap: a fallback never fails a call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "pager/pager.h"
#include "win/internal.h"

int mpisw_pager_windows;

/* MPISW_PAGER_BLOCK, validated by the configuration table (core/config.c). */
static uint64_t block_size(void) { return mpisw_cfg_size(MPISW_CFG_PAGER_BLOCK); }

/* storage_pager_memory, or 3/4 of what the memory budget leaves after the
 * range's own memory part. */
static uint64_t pager_memory(const struct mpisw_place *p) {
  if (p->h.pager_memory) return p->h.pager_memory;
  uint64_t left = mpisw_budget_left(1);
  if (left == UINT64_MAX) return 1ull << 30;
  left = left > p->region.l.mem_len ? left - p->region.l.mem_len : 0;
  return left / 4 * 3;
}

void mpisw_pager_attach(struct mpisw_place *p) {
  const struct mpisw_layout *l = &p->region.l;
  int debug = mpisw_cfg_bool(MPISW_CFG_PAGER_DEBUG);
  p->pager = NULL;
  if (p->h.backend != MPISW_BACKEND_PAGER || !l->map_file_len || !p->region.reserve) return;
  struct mpisw_pager_opts o = {.block = block_size(), .memory = pager_memory(p),
                               .readahead = (int)mpisw_cfg_int(MPISW_CFG_PAGER_READAHEAD),
                               .workers = (int)mpisw_cfg_int(MPISW_CFG_PAGER_WORKERS),
                               .debug = debug, .access = p->h.access};
  /* Random access still reads segments of several blocks in order; the pager
   * reads ahead only after two faults in a row, so a short read-ahead costs
   * nothing on truly random pages (measured: RND out of core +15%). */
  if (p->h.access & MPISW_ACCESS_RANDOM) o.readahead = 4;
  uint64_t zero_from = p->file.blockdev ? UINT64_MAX : p->file.old_size;
  struct mpisw_error e;
  p->pager = mpisw_pager_start(p->region.reserve + l->map_file_at, l->map_file_len, p->file.fd,
                               l->map_file_off, l->file_off, l->file_off + l->sto_len, zero_from,
                               &o, &e);
  if (!p->pager) {
    if (debug) fprintf(stderr, "mpisw: storage_backend=pager falls back to mmap: %s\n", e.msg);
    return;
  }
  p->pager_memory = o.memory;
  __atomic_add_fetch(&mpisw_pager_windows, 1, __ATOMIC_RELAXED);
}

int mpisw_pager_place_sync(struct mpisw_place *p, struct mpisw_error *e) {
  return mpisw_pager_sync(p->pager, e);
}

void mpisw_pager_detach(struct mpisw_place *p) {
  if (p->pager) __atomic_sub_fetch(&mpisw_pager_windows, 1, __ATOMIC_RELAXED);
  mpisw_pager_stop(p->pager);
  p->pager = NULL;
}

void mpisw_place_will_overwrite(struct mpisw_place *p, const void *addr, uint64_t len) {
  if (p->pager) mpisw_pager_will_overwrite(p->pager, addr, len);
}

void mpisw_pager_put_hint(MPI_Win win, int target, MPI_Aint disp, MPI_Count count,
                          MPI_Datatype dt) {
  /* A put shorter than a page covers no block whole: skip the window lookup
   * (an attribute get) for the many small puts into any window. */
  int size;
  if (count <= 0 || PMPI_Type_size(dt, &size) != MPI_SUCCESS || size <= 0 ||
      (uint64_t)count * (uint64_t)size < mpisw_page_size())
    return;
  struct mpisw_win *w = mpisw_win_lookup(win);
  if (!w || w->kind != MPISW_WIN_STORAGE || !w->p.pager || target != w->rank) return;
  /* Only a contiguous target type says which bytes are overwritten whole. */
  MPI_Aint lb, extent, tlb, textent;
  if (PMPI_Type_get_extent(dt, &lb, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(dt, &tlb, &textent) != MPI_SUCCESS ||
      lb != 0 || tlb != 0 || extent != size || textent != size)
    return;
  uint64_t off = (uint64_t)disp * (uint64_t)w->disp_unit, len = (uint64_t)count * size;
  mpisw_place_will_overwrite(&w->p, (char *)w->p.region.base + off, len);
}
