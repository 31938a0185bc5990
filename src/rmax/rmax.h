/* RMA extensions (issue 5, the paper "Quo Vadis MPI RMA?"): duplicated
 * windows, memory-handle windows, info keys mpi_win_scope / mpi_win_order /
 * mpi_assert_accumulate_intrinsic, intrinsic-accumulate queries and
 * remote-completing requests. Internal to libmpisw. */
#ifndef MPISW_RMAX_H
#define MPISW_RMAX_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>

#include "rmax/api.h"
#include "win/internal.h"

enum rmax_kind {
  RMAX_PLAIN = 0, /* a window the MPI made; tracked for its keys and epochs */
  RMAX_DUP,       /* MPIX_Win_dup_with_info: routed to its parent */
  RMAX_MEMH       /* MPIX_Win_from_memhandle: one target, routed to arena or parent */
};

struct rmax_keys {
  int thread_scope;   /* mpi_win_scope=thread asked */
  int order;          /* mpi_win_order=true asked */
  int acc_intrinsic;  /* mpi_assert_accumulate_intrinsic=true */
};

/* Passive-target epoch bookkeeping of one real window (a root). */
struct rmax_epoch {
  int known;          /* counted since the window was made */
  int counting;       /* counted at all: only once an ordered handle needs it */
  int lock_all;       /* MPI_Win_lock_all depth */
  int nranks;
  int *locks;         /* per target: MPI_Win_lock depth */
};

struct rmax_win {
  MPI_Win handle;          /* what the user holds */
  int kind;
  struct rmax_win *root;   /* the real window synchronization goes to (self for PLAIN) */
  MPI_Win via;             /* where RMA goes: root's handle, or the arena for MEMH */
  /* MEMH only */
  int target;              /* the only rank allowed, in the parent's group */
  int via_rank;            /* that rank in via's group */
  MPI_Aint base_disp;      /* bytes added to target_disp*disp_unit */
  MPI_Aint disp_unit, size;
  int disp_unit_int;       /* what MPI_WIN_DISP_UNIT points at */
  int from_arena;
  /* keys and ordering */
  struct rmax_keys keys;
  int nranks;              /* group size of the root */
  unsigned char *pending;  /* per target: an unflushed op of an ordered sequence */
  int arena_dirty;         /* root: memhandle ops went to the arena since the last flush */
  struct rmax_epoch ep;    /* root only */
  /* root of a storage window on the MPI's node-shared window: the MPI's
   * target_disp is shift[r] + disp * disp_unit[r] (win/node_shared.c) */
  const MPI_Aint *shift, *shift_du;
  /* root of such a window made with mpi_assert_accumulate_intrinsic=true and
   * accumulate_ordering=none: intrinsic accumulates run as processor
   * atomics here (atomic.c) on every rank's part, mapped in this process at
   * seg_addr[r] (seg_bytes[r] long). Fixed at creation; 0 once freed. */
  int atomic;
  char **seg_addr;
  MPI_Aint *seg_bytes;
  int refs;                /* root: 1 until freed + live dups / memhandle windows */
  int *keyvals;            /* DUP/MEMH: user attributes set on the handle */
  int nkeyvals;
  pthread_mutex_t mu;
};

/* ---- table.c: handle -> state; readers never block each other ---- */

struct rmax_win *mpisw_rmax_lookup(MPI_Win win);
int mpisw_rmax_insert(struct rmax_win *w);
void mpisw_rmax_remove(struct rmax_win *w);
struct rmax_win *mpisw_rmax_new(MPI_Win handle, int kind);
void mpisw_rmax_destroy(struct rmax_win *w);
/* The root entry of a real window, made when missing (epoch unknown then). */
struct rmax_win *mpisw_rmax_root_of(MPI_Win win);

/* ---- route.c: one RMA call's target after translation ---- */
struct rmax_op {
  MPI_Win win;
  int rank;
  MPI_Aint disp;
};
/* Fills op (identity for windows rmax does not know); returns an MPI error
 * (already raised on win) when the call is not allowed. */
/* The same for a window already looked up (w may be NULL). */
int mpisw_rmax_route_w(const char *routine, struct rmax_win *w, MPI_Win win, int rank, MPI_Aint disp,
                 struct rmax_op *op);

/* ---- epoch.c: synchronization through handles ---- */
/* A root tracked from its window's creation: every epoch is seen, so a
 * missing lock is certain; counting says whether epochs are counted. */
void mpisw_rmax_epoch_init(struct rmax_win *root, int counting);
/* A handle on root asks for ordering: count root's passive epochs from now
 * on (in_passive_epoch needs them; other windows skip the counting). */
void mpisw_rmax_epoch_watch(struct rmax_win *root);
int mpisw_rmax_flush_guarded(MPI_Win win, int rank);   /* unknown epoch: errors ignored */

/* ---- keys.c ---- */
void mpisw_rmax_keys_from_info(MPI_Info info, struct rmax_keys *k);
/* The same into a handle made or changed later; ordering starts epoch
 * counting on its root. */
void mpisw_rmax_keys_apply(struct rmax_win *w, MPI_Info info);
int mpisw_rmax_has_keys(MPI_Info info);
/* Effective values written into info. */
void mpisw_rmax_keys_put(const struct rmax_win *w, MPI_Info info);
int mpisw_rmax_thread_scope_supported(void);
/* counting: count passive epochs from the start (ordered windows, and
 * dynamic ones, whose memory-handle windows may ask for ordering later). */
struct rmax_win *mpisw_rmax_track_new(MPI_Win win, MPI_Info info, int counting);

/* ---- atomic.c: intrinsic accumulates as processor atomics ----
 * Each returns 1 when it did the call itself (*rc is then the MPI result,
 * already raised on the window if an error), 0 when the call must go on to
 * the MPI (w not such a window, or an operation, datatype or target it does
 * not take). w is the looked-up state of the user's window (not NULL).
 * Counts are MPI_Count so that the MPI-4 _c forms call the same functions. */
int mpisw_rmax_atomic_accumulate(struct rmax_win *w, const void *oa, MPI_Count oc, MPI_Datatype odt,
                           int tr, MPI_Aint td, MPI_Count tc, MPI_Datatype tdt, MPI_Op op,
                           int *rc);
int mpisw_rmax_atomic_get_accumulate(struct rmax_win *w, const void *oa, MPI_Count oc,
                               MPI_Datatype odt, void *ra, MPI_Count rcount, MPI_Datatype rdt,
                               int tr, MPI_Aint td, MPI_Count tc, MPI_Datatype tdt, MPI_Op op,
                               int *rc);
int mpisw_rmax_atomic_fetch_and_op(struct rmax_win *w, const void *oa, void *ra, MPI_Datatype dt,
                             int tr, MPI_Aint td, MPI_Op op, int *rc);
int mpisw_rmax_atomic_compare_and_swap(struct rmax_win *w, const void *oa, const void *ca, void *ra,
                                 MPI_Datatype dt, int tr, MPI_Aint td, int *rc);
/* The request forms: done here, *req is an already completed request. */
int mpisw_rmax_atomic_raccumulate(struct rmax_win *w, const void *oa, MPI_Count oc, MPI_Datatype odt,
                            int tr, MPI_Aint td, MPI_Count tc, MPI_Datatype tdt, MPI_Op op,
                            MPI_Request *req, int *rc);
int mpisw_rmax_atomic_rget_accumulate(struct rmax_win *w, const void *oa, MPI_Count oc,
                                MPI_Datatype odt, void *ra, MPI_Count rcount, MPI_Datatype rdt,
                                int tr, MPI_Aint td, MPI_Count tc, MPI_Datatype tdt, MPI_Op op,
                                MPI_Request *req, int *rc);
/* At creation (mpisw_rmax_track_new): switches the path on when the window and
 * its info qualify; 1 when on. */
int mpisw_rmax_atomic_setup(struct rmax_win *root, MPI_Info info);
/* MPIX_Win_op_intrinsic's answer for win, datatype and the operations
 * (all of them in sum, replace, no_op, cas: ops_atomic). */
int mpisw_rmax_atomic_intrinsic(MPI_Win win, int ops_atomic, MPI_Datatype datatype);
/* route.c: 1 in a passive epoch at rank, 0 not, -1 cannot tell. */
int mpisw_rmax_in_passive_epoch(struct rmax_win *root, int rank);
/* rreq.c: a request that is already complete. */
int mpisw_rmax_request_done(MPI_Request *request);

/* ---- arena.c: MPI_Alloc_mem served from one allocated window ---- */
int mpisw_rmax_arena_init(void);            /* collective, at MPI_Init */
void mpisw_rmax_arena_finalize(void);
MPI_Win mpisw_rmax_arena_win(void);         /* MPI_WIN_NULL when disabled */
void *mpisw_rmax_arena_alloc(size_t size);  /* NULL: not from the arena */
int mpisw_rmax_arena_free(void *p);         /* 1 when p was arena memory */
/* Offset of [p, p+size) inside this process's arena, or -1. */
MPI_Aint mpisw_rmax_arena_offset(const void *p, MPI_Aint size);
/* Handle slots (validity generations) at the start of the arena. */
int mpisw_rmax_slot_take(uint32_t *slot, uint64_t *gen);
void mpisw_rmax_slot_release(uint32_t slot);
/* Generation of slot at world rank owner (remote read); 0 when released. */
int mpisw_rmax_slot_read(int owner, uint32_t slot, uint64_t *gen);

/* ---- handle.c: recycled local handles ---- */
/* Gives the handle back: user attributes deleted (their delete callbacks
 * run), name and error handler reset, kept for the next duplicate or
 * memory-handle window (at most a few dozen), else freed. */
int mpisw_rmax_handle_release(struct rmax_win *w, MPI_Win *win);
void mpisw_rmax_handle_pool_free(void);
void mpisw_rmax_attr_note(struct rmax_win *w, int keyval, int set);

/* ---- errors ---- */
int mpisw_rmax_error(const char *routine, MPI_Win win, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
