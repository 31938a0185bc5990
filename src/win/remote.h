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
/* Storage windows with storage_sync_scope=remote alive in this process:
 * the RMA calls look a window up only when > 0. */
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
  /* same node, mmap backend: what a peer needs to write the pages back
   * itself (remote_direct.c); direct 0 when the window cannot be */
  int32_t direct, fd;
  uint64_t kernel, dev, ino;   /* kernel: boot id + pid namespace */
  uint64_t map_off, map_len;   /* the file-mapped part: file offset, length */
  int64_t map_at;              /* its start from the window's base, bytes */
};

struct mpisw_remote {
  int nranks, me;
  struct mpisw_remote_peer *peers;
  pthread_mutex_t mu;                 /* the ranges below (RMA from any thread) */
  struct mpisw_remote_target *t;      /* per rank */
  int *dirty, ndirty;                 /* ranks with ranges */
  struct mpisw_direct *direct;        /* per rank: its file mapped here, or NULL */
};

struct mpisw_direct {
  int state;                          /* 0 not tried, 1 mapped, -1 not possible */
  char *addr;                         /* PROT_READ, MAP_SHARED of its file range */
};

/* The RMA layer's hook: this rank wrote count elements of dt at
 * displacement disp of rank target of win (after translation by rmax). */
void mpisw_remote_note(MPI_Win win, int target, MPI_Aint disp, MPI_Count count, MPI_Datatype dt);
/* Adds [off, off+len) to target's ranges (mutex held by the caller). */
void mpisw_remote_add(struct mpisw_remote *r, int target, uint64_t off, uint64_t len);
/* Moves target's ranges to *out (emptied in r); mutex held by the caller. */
void mpisw_remote_take(struct mpisw_remote *r, int target, struct mpisw_remote_target *out);

/* ---- remote_direct.c: a target on this node whose pages sit in the page
 * cache is written back by the origin itself ---- */
/* This rank's entries of *me (direct, fd, kernel, dev, ino, map_*). */
void mpisw_direct_describe(const struct mpisw_win *w, struct mpisw_remote_peer *me);
/* 1 when target's ranges can be synced from here (its file mapped). */
int mpisw_direct_ready(struct mpisw_remote *r, int target);
/* msync of the ranges through the mapping; -1 with *e naming the file. */
int mpisw_direct_sync(struct mpisw_remote *r, int target, const struct mpisw_remote_target *t,
                      int whole, struct mpisw_error *e);
/* Unmaps every peer's file (window gone). */
void mpisw_direct_drop(struct mpisw_remote *r);

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
/* The agent's socket: all n bytes sent (out) or received, or -1. */
int mpisw_remote_io_all(int fd, void *buf, size_t n, int out);

#endif
