/* The pager backend of a placed range (docs/PAGER.md): it takes over the
 * storage part that place.c mapped from the file, with storage_backend=pager
 * and by default (auto) where it pays off: out of core. Whenever the pager
 * cannot run (no userfaultfd privilege, an older kernel, a file system
 * without O_DIRECT) the file mapping stays and the window reports
 * storage_backend=mmap: a fallback never fails a call; MPISW_REPORT (and
 * MPISW_PAGER_DEBUG) say why. */
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

/* Says why the window is not on the pager: MPI_Win_get_info's
 * storage_backend_reason, and, for a real fallback (the pager was wanted and
 * cannot run), a line on stderr with MPISW_REPORT or MPISW_PAGER_DEBUG. The
 * choices of auto (a small part, the node-shared route) are no fallback:
 * every small window would print one. */
static void fell_back(struct mpisw_place *p, const char *why, int cannot_run) {
  snprintf(p->backend_why, sizeof p->backend_why, "%s", why);
  if (!cannot_run) return;
  if (!mpisw_report_enabled() && !mpisw_cfg_bool(MPISW_CFG_PAGER_DEBUG)) return;
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "mpisw: rank %d: storage_backend=%s: the window on '%s' uses mmap: %s\n",
          rank, p->h.backend == MPISW_BACKEND_AUTO ? "auto" : "pager",
          p->file.path[0] ? p->file.path : "(no name)", why);
}

/* Windows whose ranks share one node where the node-shared route
 * (node_shared.c) is on: auto keeps the file mapping, which the route maps
 * into every process; an explicit pager pages a memfd the route maps
 * (mpisw_pager_attach). Private pager memory would send RMA down the MPI's
 * MPI_Win_create path: on Open MPI osc/ucx, which with the tests' and
 * benchmarks' UCX_TLS=^sysv,posix emulates every put and get with TCP
 * messages the target answers (0.006x a memory window's speed, suite kinds).
 * An atomic window has a private mapping and never takes the route. */
static int node_route_applies(const struct mpisw_place *p) {
  return p->h.node_route && !p->h.sync_atomic;
}

/* A window said to be read (read_once, read_mostly) and not written: the
 * page cache reads a cold file 2.5-3x faster than the pager's faults here
 * (bench/sstream cold read 3.0-3.2 against 1.1-1.3 GiB/s; HACC-IO restart
 * 0.25 against 0.63 s), so auto leaves it to mmap. */
static int read_mostly(unsigned access) {
  unsigned rd = MPISW_ACCESS_READ_ONCE | MPISW_ACCESS_READ_MOSTLY;
  unsigned wr = MPISW_ACCESS_WRITE_ONCE | MPISW_ACCESS_WRITE_MOSTLY;
  return (access & rd) && !(access & wr);
}

void mpisw_pager_attach(struct mpisw_place *p) {
  const struct mpisw_layout *l = &p->region.l;
  int debug = mpisw_cfg_bool(MPISW_CFG_PAGER_DEBUG);
  p->pager = NULL;
  p->backend_why[0] = 0;
  if (!l->map_file_len || !p->region.reserve) return; /* no storage part of ours to page */
  if (p->h.backend == MPISW_BACKEND_MMAP) return fell_back(p, "storage_backend=mmap asked for", 0);
  if (p->h.backend == MPISW_BACKEND_AUTO) {
    if (node_route_applies(p))
      return fell_back(p, "the node-shared route (RMA at shared-memory speed between the "
                          "ranks of one node) maps the file into every process", 0);
    if (read_mostly(p->h.access))
      return fell_back(p, "access_style says read, not written: the page cache reads faster", 0);
    /* In memory the page cache is the faster path (suite backends, 1 GiB:
     * mstream SEQ and RND 0.55 and 0.53 of mmap's speed on the pager, a warm
     * rewrite + sync 0.68 against 1.03 of the best fio write, a cold read
     * 0.46 against 1.31 of the best fio read); out of core the pager is
     * (2.2x mmap SEQ, 3.6x RND in a 384 MiB cgroup). */
    if (l->map_file_len <= pager_memory(p))
      return fell_back(p, "the storage part fits in memory (storage_pager_memory, or 3/4 of the "
                          "memory budget left), where the page cache is faster", 0);
  }
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
  /* An explicit pager window on the node-shared route asks for shared
   * pages: a memfd every rank maps, loaded whole at the start
   * (pager/pager_shared.c). The pager refuses them for a storage part it
   * cannot hold whole (evictions move pages, which only private memory
   * allows) or a kernel without write-protection of shared memory: then
   * private pages, and the MPI's MPI_Win_create path. */
  o.shared = node_route_applies(p);
  for (;;) {
    p->pager = mpisw_pager_start(p->region.reserve + l->map_file_at, l->map_file_len,
                                 p->file.fd, l->map_file_off, l->file_off,
                                 l->file_off + l->sto_len, zero_from, &o, &e);
    if (p->pager || !o.shared) break;
    if (debug) fprintf(stderr, "mpisw pager: no shared pages (%s): private ones\n", e.msg);
    o.shared = 0;
  }
  if (!p->pager) {
    char why[sizeof p->backend_why];
    snprintf(why, sizeof why, "the pager cannot run: %s", e.msg);
    return fell_back(p, why, 1);
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

void mpisw_pager_put_hint(MPI_Count ocount, MPI_Datatype odt, MPI_Win win, int target,
                          MPI_Aint disp, MPI_Count count, MPI_Datatype dt) {
  /* A put shorter than a page covers no block whole: skip the window lookup
   * (an attribute get) for the many small puts into any window. A put whose
   * sides differ in size is one the MPI refuses: no hint (its blocks would
   * be zero-filled, not read, and the file's bytes there lost). */
  int size, osize;
  if (count <= 0 || PMPI_Type_size(dt, &size) != MPI_SUCCESS || size <= 0 ||
      (uint64_t)count * (uint64_t)size < mpisw_page_size() ||
      PMPI_Type_size(odt, &osize) != MPI_SUCCESS ||
      (uint64_t)ocount * (uint64_t)osize != (uint64_t)count * (uint64_t)size)
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
