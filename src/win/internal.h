/* The window module: MPI-aware logic behind the interposed MPI_* calls.
 * Nothing here defines an MPI_* symbol (that is src/interpose/). It builds
 * on the process's state (src/process/), the MPI call shims and error codes
 * (src/pmpi/) and the MPI-free cores (src/core/, src/pager/). */
#ifndef MPISW_WIN_INTERNAL_H
#define MPISW_WIN_INTERNAL_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>

#include "core/error.h"
#include "core/hints.h"
#include "core/layout.h"
#include "core/storage.h"
#include "pmpi/pmpi.h"
#include "process/module.h"
#include "process/process.h"

/* ---- hints_mpi.c: env defaults + MPI_Info -> struct mpisw_hints ---- */
int mpisw_hints_from_info(MPI_Info info, struct mpisw_hints *h, struct mpisw_error *e);
/* Value of an info key (any key), 1 if present. */
int mpisw_info_get(MPI_Info info, const char *key, char *value, int len);

/* ---- agree.c: collectives agree before they act ---- */
/* All ranks of comm call it. Returns 0 when no rank failed; otherwise every
 * rank gets the lowest failing rank's error in *e ("rank N: ...") and -1.
 * *flag (may be NULL) is MAX-reduced along the way. */
int mpisw_agree(MPI_Comm comm, int failed, struct mpisw_error *e, int *flag);
/* The same carrying an MPI error class too: *cls (may be NULL) of the
 * lowest failing rank on every rank (pooled files' agreements). */
int mpisw_agree_class(MPI_Comm comm, int failed, struct mpisw_error *e, int *cls, int *flag);
/* 1 when any rank of comm passes failed != 0 (all ranks call it). */
int mpisw_any(MPI_Comm comm, int failed);
/* 1 when every rank of comm is on one shared-memory node, as the MPI sees it
 * (all ranks call it). */
int mpisw_one_node(MPI_Comm comm);

/* ---- place.c: one placed range (a window's or an MPI_Alloc_mem's) ---- */
struct mpisw_place {
  struct mpisw_hints h;          /* effective hints */
  struct mpisw_file file;
  struct mpisw_region region;
  int remove_at_free;
  int shm_fd;                    /* shared windows: the memory part's fd, else -1 */
  uint64_t budget_taken;
  double factor;                 /* storage share actually used */
  struct mpisw_pager *pager;     /* storage_backend=pager running, else NULL */
  uint64_t pager_memory;         /* bytes the pager may hold */
  char backend_why[200];         /* why the storage part is not on the pager ("" if it is) */
  /* Durability (place.c): a failed mmap write-back is remembered until a
   * sync writes every page again; a file cut short by another process
   * fails every later sync. */
  int sync_failed;
  uint64_t cut_to;               /* the file's size when found too short, else 0 */
  int cut;
  uint64_t pager_written;        /* the pager's bytes_written at the last sync */
  struct mpisw_atomic *atomic;   /* storage_sync=atomic in effect (atomic.c), else NULL */
};

/* Places size bytes for one process: file named by the hints (expanded with
 * rank), memory/storage split by factor or auto, mapped. Undoes everything
 * on failure. */
int mpisw_place_local(struct mpisw_place *p, const struct mpisw_hints *h, uint64_t size,
                      int rank, const char *tag, struct mpisw_error *e);
/* Durable storage part; counts bytes written and time. Fails while an
 * earlier write-back failure is not written again, and for good once the
 * file is shorter than the window needs (truncated by someone else). */
int mpisw_place_sync(struct mpisw_place *p, struct mpisw_error *e);
/* Unmaps and closes; syncs first unless discard (or sync==0). Returns the
 * sync's result. */
int mpisw_place_release(struct mpisw_place *p, int sync, struct mpisw_error *e);
/* Undoes a successful mpisw_place_local after another rank failed: no sync,
 * a created file removed, a grown file shrunk back. */
void mpisw_place_undo(struct mpisw_place *p);
/* Memory the place should hold for its hints: size - storage share. */
uint64_t mpisw_place_mem_target(const struct mpisw_hints *h, uint64_t size, int ranks);
void mpisw_place_count(const struct mpisw_place *p, int shared);
/* The memory part as a shared memfd mapping (p->shm_fd) at the same
 * address, so that peers can map it too; keep copies what it holds. 0 when
 * done or nothing to do, -1 (nothing changed) otherwise. */
int mpisw_place_share_memory(struct mpisw_place *p, int keep);

/* ---- atomic.c: storage_sync=atomic (docs/DURABILITY.md) ---- */
/* Before a named file's range is mapped (any window): replays a journal a
 * crash left with a complete commit, drops one without. */
int mpisw_atomic_recover(const struct mpisw_file *f, const struct mpisw_layout *l,
                         struct mpisw_error *e);
/* After the range is mapped: with storage_sync=atomic, maps the storage part
 * privately and opens its journal (p->atomic); block devices stay plain. */
int mpisw_atomic_attach(struct mpisw_place *p, struct mpisw_error *e);
/* 1 when the pager runs the atomic window (its sync goes through the pager). */
int mpisw_atomic_on_pager(const struct mpisw_place *p);
/* After a pager sync of an atomic window: rc != 0 keeps the journal at free. */
void mpisw_atomic_sync_done(struct mpisw_place *p, int rc);
/* One all-or-nothing sync of p->atomic's storage part (mmap backend). */
int mpisw_atomic_sync(struct mpisw_place *p, uint64_t *written, struct mpisw_error *e);
/* Frees p->atomic; its journal file goes unless a commit is unapplied. */
void mpisw_atomic_detach(struct mpisw_place *p);
/* The MPISW_REPORT line of a window that asked for atomic and syncs plain. */
void mpisw_atomic_not_honoured(const struct mpisw_hints *h, const char *path, const char *why);

/* ---- registry.c: per-window and per-allocation state ---- */
enum mpisw_win_kind {
  MPISW_WIN_MEMORY = 0,   /* Win_allocate(_shared) left to the MPI: tracked for info */
  MPISW_WIN_STORAGE,      /* Win_allocate placed by mpisw */
  MPISW_WIN_SHARED,       /* Win_allocate_shared placed by mpisw */
  MPISW_WIN_USER          /* Win_create / dynamic over MPI_Alloc_mem storage */
};

struct mpisw_alloc {
  struct mpisw_place p;
  struct mpisw_alloc *next;
};

struct mpisw_win {
  MPI_Win win;
  int kind;
  int flavor;                    /* what MPI_WIN_CREATE_FLAVOR reports */
  struct mpisw_place p;          /* STORAGE and SHARED */
  /* SHARED: every rank's segment inside the node mapping */
  int nranks;
  int noncontig;
  MPI_Aint *seg_off, *seg_size, *seg_disp;
  /* STORAGE: this rank in the window's group and its displacement unit
   * (the pager's put hint turns a displacement into an address) */
  int rank;
  MPI_Aint disp_unit;
  /* STORAGE on the MPI's node-shared window (node_shared.c): seg_off holds
   * each rank's shift (segment start to its page-aligned file mapping),
   * seg_size and seg_disp the sizes and displacement units the ranks asked
   * for; the MPI window itself has displacement unit 1. */
  int node_shared;
  /* Any kind on the MPI's node-shared window (node_shared.c): ns_shift[r]
   * is rank r's first byte from the start of its MPI segment (seg_size and
   * seg_disp: the sizes and units the ranks asked for). */
  int ns_route;
  MPI_Aint *ns_shift;
  void *user_base;               /* this rank's base as the user sees it */
  int user_disp_int;             /* what MPI_WIN_DISP_UNIT points at */
  /* USER: storage allocations this window exposes */
  struct mpisw_alloc **allocs;
  int nallocs, cap;
  struct mpisw_remote *remote;   /* remote sync's address book (win/remote.h), or NULL */
  struct mpisw_win *next;
};

struct mpisw_win *mpisw_win_new(int kind, int flavor);
int mpisw_win_register(struct mpisw_win *w, MPI_Win win);   /* attribute + list */
struct mpisw_win *mpisw_win_lookup(MPI_Win win);
void mpisw_win_unregister(struct mpisw_win *w);             /* list only */
void mpisw_win_destroy(struct mpisw_win *w);
/* A window the MPI allocated in memory: tracked for info, report, budget. */
void mpisw_win_track_memory(MPI_Win win, int flavor, MPI_Aint size);
void mpisw_win_add_alloc(struct mpisw_win *w, struct mpisw_alloc *a);
void mpisw_win_drop_alloc(struct mpisw_win *w, struct mpisw_alloc *a);

void mpisw_alloc_register(struct mpisw_alloc *a);
struct mpisw_alloc *mpisw_alloc_find(const void *addr);     /* containing addr */
struct mpisw_alloc *mpisw_alloc_take(void *base);           /* exact base, removed */
/* Each storage allocation overlapping [base, base+size). */
void mpisw_alloc_each_overlap(const void *base, uint64_t size,
                              void (*fn)(struct mpisw_alloc *, void *), void *arg);
/* Calls fn for every live window and allocation (finalize, report). */
void mpisw_each_place(void (*fn)(struct mpisw_place *, void *), void *arg);

/* ---- allocate.c / shared.c / dynamic.c / sync.c / info.c / finalize.c ---- */
int mpisw_win_allocate(const char *routine, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                       MPI_Comm comm, void *baseptr, MPI_Win *win, int large);
int mpisw_win_allocate_shared(const char *routine, MPI_Aint size, MPI_Aint disp_unit,
                              MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win,
                              int large);
int mpisw_win_shared_query(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                           void *baseptr, int *handled);
/* MPI_Alloc_mem / MPI_Free_mem of storage ranges; *handled 0 when the range
 * is not mpisw's (no storage hint, or not a storage range): the caller asks
 * the next module. */
int mpisw_alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr, int *handled);
int mpisw_free_mem(void *base, int *handled);
/* MPI_Win_create over memory that may hold storage ranges: remembered, so
 * that MPI_Win_sync of the window makes them durable. */
void mpisw_win_created(MPI_Win win, void *base, MPI_Aint size);
/* The MPI's attach / detach, then the same bookkeeping for dynamic windows. */
int mpisw_win_attach(MPI_Win win, void *base, MPI_Aint size);
int mpisw_win_detach(MPI_Win win, const void *base);
int mpisw_win_sync(MPI_Win win);
/* Syncs everything of w that lives on storage (no MPI call); first error
 * wins, with its kind. */
int mpisw_win_sync_storage(struct mpisw_win *w, struct mpisw_error *e);
int mpisw_win_free(MPI_Win *win);
int mpisw_win_get_info(MPI_Win win, MPI_Info *info_used);
/* MPI_Win_get_attr as the user made the window: a node-shared storage
 * window's base, size and displacement unit, the flavor asked for; else
 * the MPI's answer. */
int mpisw_win_get_attr(MPI_Win win, int keyval, void *value, int *flag);
/* module.c: the window module's table (process/module.h); at MPI_Finalize it
 * syncs storage still mapped, so a program that never frees its windows
 * loses nothing. */
extern const struct mpisw_module mpisw_win_module;

/* ---- node_shared.c: storage windows of one node on the MPI's shared-memory
 * path. Collective; 1 when *win and *base are made, 0 when the caller must
 * use MPI_Win_create (nothing is left behind). ---- */
int mpisw_node_shared_create(struct mpisw_win *w, MPI_Aint size, MPI_Aint disp_unit,
                             MPI_Info info, MPI_Comm comm, MPI_Win *win, void **base,
                             int large);
/* The same route for a storage shared window (shared.c: each rank's
 * segment of the node mapping over its MPI segment) and for MPI_Win_create
 * over MPI_Alloc_mem storage (dynamic.c). Collective; 1 when *win is made,
 * 0 when the caller makes the window as before. */
int mpisw_node_shared_shared(struct mpisw_win *w, MPI_Info info, MPI_Comm comm, MPI_Win *win,
                             int large);
int mpisw_node_shared_over(struct mpisw_win *w, int usable, struct mpisw_place *p, void *base,
                           MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                           MPI_Win *win, int large);
/* MPI_Win_create over MPI_Alloc_mem storage on that route (dynamic.c);
 * 1 when *win is made. */
int mpisw_win_create_node_shared(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                 MPI_Comm comm, MPI_Win *win, int large);
/* A target displacement the RMA layer translated back to bytes from the
 * start of target's part (remote_track.c); -1 when w is not on the route. */
int64_t mpisw_node_shared_bytes(const struct mpisw_win *w, int target, MPI_Aint disp);
/* For the RMA layer: a node-shared window's per-rank shift and displacement
 * unit (target_disp becomes shift[r] + disp * disp_unit[r]); 0 for others. */
int mpisw_win_disp_map(MPI_Win win, int *nranks, const MPI_Aint **shift,
                       const MPI_Aint **disp_unit);
/* For the RMA layer's processor atomics (src/rmax/atomic.c): where rank's
 * part of a node-shared window is mapped in this process (every process
 * maps every rank's file) and its size in bytes; 0 for other windows. */
int mpisw_win_node_segment(MPI_Win win, int rank, void **addr, MPI_Aint *size);
/* How a window with storage carries RMA, for MPI_Win_get_info's key
 * mpisw_storage_route: "node_shared" (the route above) or "win_create" (the
 * MPI's MPI_Win_create path); NULL for windows without storage. */
const char *mpisw_win_route(MPI_Win win);
/* MPI_WIN_BASE, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT as the user made them; 1 when
 * answered. */
int mpisw_node_shared_attr(MPI_Win win, int keyval, void *value, int *flag);
/* Before placing a window of comm (collective): sets h->node_route when
 * every rank is on one node and the hints ask for the route (or the MPI's
 * default does), so storage_backend=auto keeps the file mapping it needs. */
void mpisw_node_route_expect(struct mpisw_hints *h, MPI_Comm comm);
/* The same for memory placed alone (MPI_Alloc_mem), whose communicator is
 * not known yet: the hints' wish alone. */
void mpisw_node_route_alone(struct mpisw_hints *h);
int mpisw_node_shared_query(struct mpisw_win *w, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                            void *baseptr);

/* ---- pager_glue.c: the user-level pager backend (docs/PAGER.md) ---- */
struct mpisw_pager;
/* After mapping: starts the pager if the hints ask for it; on any obstacle
 * the window stays on the mmap backend (p->pager NULL, which
 * MPI_Win_get_info reports). */
void mpisw_pager_attach(struct mpisw_place *p);
int mpisw_pager_place_sync(struct mpisw_place *p, struct mpisw_error *e);
void mpisw_pager_detach(struct mpisw_place *p);   /* before unmapping */
/* Pager windows alive in this process: RMA calls look further only when > 0. */
extern int mpisw_pager_windows;
/* MPI_Put/MPI_Rput into this process's own pager window: blocks the put covers
 * whole (contiguous datatypes only) are zero-filled instead of read. */
void mpisw_pager_put_hint(MPI_Count ocount, MPI_Datatype odt, MPI_Win win, int target,
                          MPI_Aint disp, MPI_Count count, MPI_Datatype dt);
/* Hint for an RMA layer: [addr, addr+len) is about to be overwritten whole. */
void mpisw_place_will_overwrite(struct mpisw_place *p, const void *addr, uint64_t len);

#endif
