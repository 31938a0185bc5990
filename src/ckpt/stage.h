/* Staging: a per-process drain thread that copies complete checkpoint
 * images from a fast level (LOCAL) to the parallel file system while the
 * application computes, and the same copy engine run at once for stage-in
 * at restart (PFS back to LOCAL) and for PFS without staging.
 *
 * MPI-free (plain C + POSIX + Linux AIO). Images are opaque bytes here. A
 * copy writes dst.part with large aligned writes (O_DIRECT where the file
 * system takes it, MPISW_STAGE_REQUEST bytes per request, MPISW_STAGE_DEPTH
 * requests in flight), fdatasyncs it, renames it to dst and fsyncs dst's
 * directory: dst exists only complete and durable. The source must stay
 * unchanged until its ticket is done (the core waits for a slot's ticket
 * before it overwrites that slot). */
#ifndef MPISW_CKPT_STAGE_H
#define MPISW_CKPT_STAGE_H

#include <stdint.h>

#include "core/error.h"

/* Defaults of the copy engine (see mpisw_stage_tune). */
#define MPISW_STAGE_REQUEST (8u << 20)
#define MPISW_STAGE_DEPTH 4

/* A queued copy; 0 is never a ticket. */
typedef uint64_t mpisw_stage_ticket;

enum {
  MPISW_STAGE_QUEUED = 0, /* waiting for the thread */
  MPISW_STAGE_RUNNING,    /* being copied */
  MPISW_STAGE_DONE,       /* dst complete and durable */
  MPISW_STAGE_FAILED      /* not copied; the error is kept for wait() */
};

/* Queues a copy of src to dst (parent directories made, mode 0700) and
 * returns at once; starts the drain thread on first use. MPISW_K_USAGE for
 * an empty or too long path or after mpisw_stage_stop; MPISW_K_NOMEM. */
int mpisw_stage_submit(const char *src, const char *dst, mpisw_stage_ticket *ticket,
                       struct mpisw_error *e);

/* The state of a ticket (MPISW_STAGE_*) without waiting. -1 (MPISW_K_USAGE)
 * for a ticket never given out. */
int mpisw_stage_done(mpisw_stage_ticket ticket, int *state, struct mpisw_error *e);

/* Waits until the ticket's copy is done: 0, or -1 with the copy's error
 * (its kind: MPISW_K_NOSPACE for a full file system, MPISW_K_IO, ...). */
int mpisw_stage_wait(mpisw_stage_ticket ticket, struct mpisw_error *e);

/* Waits until the queue is empty: 0, or -1 with the first error of a copy
 * that failed since the last mpisw_stage_wait_all (reported once). */
int mpisw_stage_wait_all(struct mpisw_error *e);

/* What a copy that is done took. */
struct mpisw_stage_copyinfo {
  uint64_t bytes;
  double started; /* CLOCK_MONOTONIC seconds when the copy began */
  double seconds; /* open of dst.part to the directory's fsync */
};

/* The copy of a ticket that is done. -1 (MPISW_K_USAGE) when it is not
 * done, failed, or was done so long ago (over 1024 copies since) that it is
 * forgotten. */
int mpisw_stage_info(mpisw_stage_ticket ticket, struct mpisw_stage_copyinfo *ci,
                     struct mpisw_error *e);

struct mpisw_stage_stats {
  uint64_t submitted, done, failed; /* copies since the process started */
  uint64_t pending;                 /* queued or running now */
  uint64_t bytes;                   /* bytes of all copies done */
  double seconds;                   /* time spent on them */
  mpisw_stage_ticket last_ticket;   /* newest copy done (0: none) */
  uint64_t last_bytes;              /* its bytes */
  double last_seconds;              /* its time, open to directory fsync */
};
void mpisw_stage_stats(struct mpisw_stage_stats *s);

/* The same copy, done by the caller now (stage-in at restart; PFS level
 * with staging off). 0, or -1 with the error; ci (may be NULL) filled. */
int mpisw_stage_copy(const char *src, const char *dst, struct mpisw_stage_copyinfo *ci,
                     struct mpisw_error *e);

/* Request size (a multiple of 4 KiB, >= 64 KiB) and requests in flight
 * (1..64) of later copies; 0 keeps a value. For tests and measurements. */
int mpisw_stage_tune(uint64_t request, int depth, struct mpisw_error *e);

/* Drains the queue, then joins the thread (MPI_Finalize). Later submits
 * fail; mpisw_stage_copy still works. 0, or -1 as mpisw_stage_wait_all. */
int mpisw_stage_stop(struct mpisw_error *e);

#endif
