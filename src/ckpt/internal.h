/* The checkpoint module (include/mpisw.h mpisw_ckpt_*): a named set of
 * protected regions, its versions on the levels, restart. Above win/ (it
 * reads windows' memory, locks them) and below dispatch/ (the module table
 * at MPI_Finalize). docs/CHECKPOINTS.md. */
#ifndef MPISW_CKPT_INTERNAL_H
#define MPISW_CKPT_INTERNAL_H

#include <limits.h>
#include <mpi.h>
#include <stdint.h>

#include "ckpt/image.h"
#include "mpisw.h"
#include "win/internal.h"

#define MPISW_CKPT_KEEP_MAX 64

/* The effective ckpt_* settings: MPISW_CKPT_* first, the info keys win. */
struct mpisw_ckpt_opts {
  char local[PATH_MAX];          /* pattern (%h %r) */
  char pfs[PATH_MAX];            /* "" when no PFS level */
  int partner_every, xor_every, pfs_every, xor_size, keep, staging;
  uint64_t chunk;
};

/* One protected region: a window's local part (base and size read at each
 * checkpoint) or plain memory. */
struct mpisw_ckpt_region {
  MPI_Win win;                   /* MPI_WIN_NULL for memory */
  void *base;
  uint64_t len;
  int win_rank;                  /* this process in the window's group */
};

/* A LOCAL slot file and what it holds. */
struct mpisw_ckpt_slot {
  int state;                     /* 1 complete (h valid), 0 empty, -1 not an image */
  struct mpisw_ckpt_header h;
};

/* A LOCAL slot's drain to PFS (pfs.c): ticket 0 when none is pending. */
struct mpisw_ckpt_drain {
  uint64_t ticket;               /* mpisw_stage_ticket */
  int version;
};

struct mpisw_ckpt {
  char name[MPISW_CKPT_NAME_MAX];
  MPI_Comm comm;                 /* a duplicate, errors returned */
  MPI_Comm user_comm;            /* errors are raised on it */
  int rank, nranks;
  struct mpisw_ckpt_opts o;
  char dir[PATH_MAX];            /* the expanded LOCAL directory */
  struct mpisw_ckpt_region *regs;
  int nregs, cap;
  struct mpisw_ckpt_slot slots[MPISW_CKPT_KEEP_MAX];
  int next_version;              /* the number the next checkpoint gets */
  int safe_version;              /* a slot never overwritten: newest known complete, -1 */
  struct mpisw_ckpt_status st;
  int rec;                       /* its MPISW_REPORT record (record.c), -1 none */
  struct mpisw_redund *redund;   /* PARTNER and XOR (levels.c), NULL when off */
  char pfs_dir[PATH_MAX];        /* the expanded PFS directory, "" for no PFS level */
  struct mpisw_ckpt_drain drain[MPISW_CKPT_KEEP_MAX];   /* per LOCAL slot */
  int drain_failed;              /* a drain failed since the last wait: drain_err */
  struct mpisw_error drain_err;
  int last_slot;                 /* the slot the last write_local used */
  struct mpisw_ckpt *next;       /* live sets (finalize) */
};

/* ckpt.c */
/* Raises code on the set's user communicator (or MPI_COMM_WORLD). */
int mpisw_ckpt_raise(const struct mpisw_ckpt *ck, int code);
/* Error code of *e for routine, raised. */
int mpisw_ckpt_error(const struct mpisw_ckpt *ck, const char *routine, const struct mpisw_error *e);
/* The regions' current addresses (windows asked now): 0 or -1 with *e. The
 * array is malloc'd. */
int mpisw_ckpt_ranges(struct mpisw_ckpt *ck, struct mpisw_ckpt_range **r, struct mpisw_error *e);
/* Reads the LOCAL slots' headers (state, versions): the newest complete one. */
int mpisw_ckpt_scan_slots(struct mpisw_ckpt *ck);
/* Frees every live set (MPI_Finalize). */
void mpisw_ckpt_free_all(void);
extern struct mpisw_ckpt *mpisw_ckpt_live;
extern pthread_mutex_t mpisw_ckpt_mu;

/* take.c: MPISW_ERR_USAGE raised for a NULL handle or version pointer, else
 * MPI_SUCCESS (take, take_local, restart). */
int mpisw_ckpt_bad_args(mpisw_ckpt *ck, int *version, const char *routine);
/* take.c: writes one version of this rank into a LOCAL slot; *e on failure. */
int mpisw_ckpt_write_local(struct mpisw_ckpt *ck, int version, struct mpisw_error *e);

/* levels.c: PARTNER and XOR (redund.h) inside a set. MPI codes; collective
 * but for close at finalize, which every rank reaches too. */
int mpisw_ckpt_levels_open(struct mpisw_ckpt *ck);
void mpisw_ckpt_levels_close(struct mpisw_ckpt *ck);
/* After a collective take of version: the levels whose turn it is; their
 * bits added to *levels. */
int mpisw_ckpt_levels_store(struct mpisw_ckpt *ck, int version, int *levels);
/* Versions (newest first, at most max) level could rebuild this rank's image for. */
int mpisw_ckpt_levels_versions(struct mpisw_ckpt *ck, int level, int *v, int max);
/* Collective: rebuilds the image of version where need; *path its file. */
int mpisw_ckpt_levels_rebuild(struct mpisw_ckpt *ck, int level, int version, int need,
                              char *path, size_t len, struct mpisw_error *e);
/* pfs.c: the PFS level and its drains. open: expand and make the PFS
 * directory (create); after_take: queue (or, staging off, copy now) the
 * version's image of slot to PFS when it is a PFS version; slot_free: wait
 * for slot's drain before the slot is rewritten; poll: status figures
 * without waiting; wait: every drain of the set, then the first failure
 * since the last wait (-1, *e); list: this rank's complete PFS versions,
 * newest first; prune (collective): PFS versions beyond ckpt_keep among
 * those complete on every rank removed. */
int mpisw_ckpt_pfs_open(struct mpisw_ckpt *ck, struct mpisw_error *e);
int mpisw_ckpt_pfs_after_take(struct mpisw_ckpt *ck, int slot, int version, struct mpisw_error *e);
void mpisw_ckpt_pfs_slot_free(struct mpisw_ckpt *ck, int slot);
void mpisw_ckpt_pfs_poll(struct mpisw_ckpt *ck);
int mpisw_ckpt_pfs_wait(struct mpisw_ckpt *ck, struct mpisw_error *e);
int mpisw_ckpt_pfs_list(struct mpisw_ckpt *ck, int *versions, int max);
void mpisw_ckpt_pfs_prune(struct mpisw_ckpt *ck);

/* A protected window was freed (module hook): its region is gone. */
void mpisw_ckpt_win_freed(MPI_Win was);

/* record.c: MPISW_REPORT's records, kept after the set is freed, and the
 * report's lines (collective over MPI_COMM_WORLD, the module's hook). */
int mpisw_ckpt_record_new(const char *name);   /* its index, -1 without memory */
void mpisw_ckpt_record_take(int rec, uint64_t written, uint64_t skipped, double seconds);
void mpisw_ckpt_record_rejected(int rec);
void mpisw_ckpt_report(void);

extern const struct mpisw_module mpisw_ckpt_module;

#endif
