/* mpisw_ckpt_take (collective) and mpisw_ckpt_take_local (decoupled): one
 * version of every protected region written into the oldest LOCAL slot,
 * incrementally (image.c skips unchanged chunks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt/internal.h"

/* The slot the next version goes into: one that holds no complete image,
 * else the oldest one — never the one holding safe_version (the newest
 * version known complete everywhere), which a crash now must leave. */
static int pick_slot(const struct mpisw_ckpt *ck) {
  int best = -1;
  for (int s = 0; s < ck->o.keep; s++) {
    const struct mpisw_ckpt_slot *sl = &ck->slots[s];
    if (sl->state != 1) return s;
    if (ck->o.keep > 1 && sl->h.version == ck->safe_version) continue;
    if (best < 0 || sl->h.version < ck->slots[best].h.version) best = s;
  }
  return best < 0 ? 0 : best;
}

int mpisw_ckpt_write_local(struct mpisw_ckpt *ck, int version, struct mpisw_error *e) {
  double t0 = mpisw_now();
  struct mpisw_ckpt_range *r = NULL;
  if (mpisw_ckpt_ranges(ck, &r, e)) return -1;
  int s = pick_slot(ck);
  struct mpisw_ckpt_slot *sl = &ck->slots[s];
  mpisw_ckpt_pfs_slot_free(ck, s);   /* its drain to PFS reads it */
  ck->last_slot = s;
  char path[PATH_MAX];
  if (mpisw_ckpt_slot_path(path, sizeof path, ck->dir, ck->name, ck->rank, s)) {
    free(r);
    return mpisw_fail(e, MPISW_K_USAGE, "checkpoint directory '%s': the path is too long", ck->dir);
  }
  struct mpisw_ckpt_header h;
  memset(&h, 0, sizeof h);
  h.version = version;
  h.rank = ck->rank;
  h.nranks = ck->nranks;
  h.chunk = (uint32_t)ck->o.chunk;
  snprintf(h.name, sizeof h.name, "%s", ck->name);
  struct mpisw_ckpt_write_stats ws;
  int rc = mpisw_ckpt_image_write(path, &h, r, ck->nregs, sl->state == 1 ? &sl->h : NULL, &ws, e);
  free(r);
  mpisw_ckpt_header_free(&sl->h);
  if (rc) {
    mpisw_ckpt_header_free(&h);
    sl->state = 0;   /* image_write removed the file */
    return -1;
  }
  sl->h = h;
  sl->state = 1;
  ck->st.last_bytes_written = ws.written;
  mpisw_ckpt_record_take(ck->rec, ws.written, ws.skipped, mpisw_now() - t0);
  return 0;
}

int mpisw_ckpt_bad_args(mpisw_ckpt *ck, int *version, const char *R) {
  struct mpisw_error e;
  if (!ck) {
    mpisw_fail(&e, MPISW_K_USAGE, "the checkpoint handle is NULL");
    return mpisw_ckpt_error(NULL, R, &e);
  }
  if (!version) {
    mpisw_fail(&e, MPISW_K_USAGE, "the version pointer is NULL");
    return mpisw_ckpt_error(ck, R, &e);
  }
  return MPI_SUCCESS;
}

MPISW_EXPORT int mpisw_ckpt_take(mpisw_ckpt *ck, int *version) {
  const char *R = "mpisw_ckpt_take";
  int rc = mpisw_ckpt_bad_args(ck, version, R);
  if (rc != MPI_SUCCESS) return rc;
  *version = -1;
  /* One number for all: take_local may have moved ranks apart. */
  int v = ck->next_version;
  PMPI_Allreduce(&ck->next_version, &v, 1, MPI_INT, MPI_MAX, ck->comm);
  struct mpisw_error e;
  int failed = mpisw_ckpt_write_local(ck, v, &e) != 0;
  ck->next_version = v + 1;
  /* Complete only when complete on every rank (a full disk anywhere is
   * everyone's MPISW_ERR_NOSPACE; the previous version stays). */
  if (mpisw_agree(ck->comm, failed, &e, NULL)) return mpisw_ckpt_error(ck, R, &e);
  ck->safe_version = v;
  ck->st.last_version = v;
  ck->st.last_levels = MPISW_CKPT_LEVEL_LOCAL;
  /* PFS: queued (staging) or written now; staging off fails the take where
   * PFS could not take it (the version stays complete on LOCAL). */
  failed = mpisw_ckpt_pfs_after_take(ck, ck->last_slot, v, &e) != 0;
  if (mpisw_agree(ck->comm, failed, &e, NULL)) return mpisw_ckpt_error(ck, R, &e);
  if (!ck->o.staging && ck->st.last_drained == v) ck->st.last_levels |= MPISW_CKPT_LEVEL_PFS;
  mpisw_ckpt_pfs_prune(ck);
  *version = v;
  /* PARTNER and XOR when it is their turn (collective); a failure there
   * leaves v complete on LOCAL and says so */
  rc = mpisw_ckpt_levels_store(ck, v, &ck->st.last_levels);
  return rc == MPI_SUCCESS ? MPI_SUCCESS : mpisw_ckpt_raise(ck, rc);
}

/* Each distinct protected window once, in protect order. */
static int first_of(const struct mpisw_ckpt *ck, int i) {
  for (int j = 0; j < i; j++)
    if (ck->regs[j].win == ck->regs[i].win) return 0;
  return 1;
}

MPISW_EXPORT int mpisw_ckpt_take_local(mpisw_ckpt *ck, int *version) {
  const char *R = "mpisw_ckpt_take_local";
  int rc = mpisw_ckpt_bad_args(ck, version, R);
  if (rc != MPI_SUCCESS) return rc;
  *version = -1;
  struct mpisw_error e;
  /* Nobody writes into this rank's windows while they are copied: an
   * exclusive lock on the own rank (source document §4), no barrier. */
  int locked = 0, failed = 0;
  for (; locked < ck->nregs; locked++) {
    struct mpisw_ckpt_region *g = &ck->regs[locked];
    if (g->win == MPI_WIN_NULL || !first_of(ck, locked)) continue;
    if (mpisw_next.Win_lock(MPI_LOCK_EXCLUSIVE, g->win_rank, 0, g->win) != MPI_SUCCESS) {
      failed = mpisw_fail(&e, MPISW_K_USAGE, "cannot lock the window of region %d exclusively "
                          "on this rank (is an access epoch open on it?)", locked) != 0;
      break;
    }
  }
  int v = ck->next_version;
  if (!failed) {
    failed = mpisw_ckpt_write_local(ck, v, &e) != 0;
    ck->next_version = v + 1;
  }
  for (int i = 0; i < locked; i++) {
    struct mpisw_ckpt_region *g = &ck->regs[i];
    if (g->win != MPI_WIN_NULL && first_of(ck, i)) mpisw_next.Win_unlock(g->win_rank, g->win);
  }
  if (failed) return mpisw_ckpt_error(ck, R, &e);
  /* Complete on this rank: its own restart point until the next one. */
  ck->safe_version = v;
  ck->st.last_version = v;
  ck->st.last_levels = MPISW_CKPT_LEVEL_LOCAL;
  if (mpisw_ckpt_pfs_after_take(ck, ck->last_slot, v, &e)) return mpisw_ckpt_error(ck, R, &e);
  if (!ck->o.staging && ck->st.last_drained == v) ck->st.last_levels |= MPISW_CKPT_LEVEL_PFS;
  *version = v;
  return MPI_SUCCESS;
}
