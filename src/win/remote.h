/* Remote sync (docs/DURABILITY.md "Remote sync"): what a rank put or
 * accumulated into other ranks' storage is made durable at those targets
 * by a small agent thread in each target process, reached over TCP, while
 * the targets compute. Three files, one job each:
 *   remote_track.c  which byte ranges this rank wrote into each target
 *   remote_agent.c  the agent thread of this process (the target side)
 *   remote_sync.c   the window's address book, and the origin side of
 *                   MPI_Win_sync (storage_sync_scope=remote) and
 *                   MPIX_Win_sync_target */
#ifndef MPISW_WIN_REMOTE_H
#define MPISW_WIN_REMOTE_H

#include <stdint.h>

#include "win/internal.h"

/* ---- remote_track.c ---- */
/* Storage windows with an address book alive in this process: the RMA
 * calls look a window up only when > 0. */
extern int mpisw_remote_windows;

struct mpisw_range {
  uint64_t off, len;   /* bytes from the target's window base */
};

/* Ranges one target holds for this origin; a few merged ranges, then one
 * range covering them all. */
#define MPISW_REMOTE_RANGES 8
struct mpisw_remote_target {
  int n;
  struct mpisw_range r[MPISW_REMOTE_RANGES];
};

struct mpisw_remote_peer {   /* what each rank tells the others at creation */
  uint32_t ip;               /* its agent's IPv4 address (network order) */
  uint16_t port;             /* network order; 0: no agent (reason in why) */
  uint16_t pad;
  uint32_t win_id;           /* the window's number in its agent's table */
  int32_t pid;
  uint64_t token;            /* the agent's secret: only members may ask */
  int64_t disp_unit;
  char host[48];
  char why[96];
};

struct mpisw_remote {
  int nranks, me;
  struct mpisw_remote_peer *peers;
  pthread_mutex_t mu;                 /* the ranges below (RMA from any thread) */
  struct mpisw_remote_target *t;      /* per rank */
  int *dirty, ndirty;                 /* ranks with ranges */
};

/* The RMA layer's hook: this rank wrote count elements of dt at
 * displacement disp of rank target of win (after translation by rmax). */
void mpisw_remote_note(MPI_Win win, int target, MPI_Aint disp, MPI_Count count, MPI_Datatype dt);
/* Adds [off, off+len) to target's ranges (mutex held by the caller). */
void mpisw_remote_add(struct mpisw_remote *r, int target, uint64_t off, uint64_t len);
/* Moves target's ranges to *out (emptied in r); mutex held by the caller. */
void mpisw_remote_take(struct mpisw_remote *r, int target, struct mpisw_remote_target *out);

/* ---- remote_agent.c ---- */
/* Starts the agent thread if not running; fills *me with its address, or
 * port 0 and the reason. The window gets a number in the agent's table. */
void mpisw_agent_add(struct mpisw_win *w, struct mpisw_remote_peer *me);
/* The window leaves the agent's table (waits for a sync of it in flight);
 * the thread stops with the last window. */
void mpisw_agent_remove(struct mpisw_win *w);
/* Stops the thread (MPI_Finalize). */
void mpisw_agent_stop(void);

/* Wire format: a request, its ranges, and the answer. */
#define MPISW_AGENT_MAGIC 0x6d737273u /* "msrs" */
struct mpisw_agent_req {
  uint32_t magic, win_id;
  uint64_t token;
  uint32_t nranges, whole;   /* whole: the target's entire storage part */
};
struct mpisw_agent_rep {
  int32_t status, kind;      /* 0 or -1 and an MPISW_K_* */
  uint32_t len, pad;         /* message bytes that follow */
};

/* ---- remote_sync.c ---- */
/* After a storage window is made (collective over comm): every rank's
 * agent address, the ranges' bookkeeping. */
void mpisw_remote_window_made(struct mpisw_win *w, MPI_Comm comm, MPI_Aint disp_unit);
/* At unregister: the window leaves the agent, its bookkeeping goes. */
void mpisw_remote_window_gone(struct mpisw_win *w);
/* MPI_Win_sync's storage part on a window with storage_sync_scope=remote:
 * the targets this rank wrote into are asked, and this rank's own storage
 * synced while they work (mpisw_win_sync_storage). */
int mpisw_remote_win_sync(MPI_Win win, struct mpisw_win *w);
/* MPIX_Win_sync_target. */
int mpisw_remote_sync_target(MPI_Win win, int rank);

#endif
