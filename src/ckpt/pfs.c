/* The PFS level of a checkpoint set (docs/CHECKPOINTS.md "Staging and the
 * PFS level"): every MPISW_CKPT_PFS_EVERY-th version's LOCAL image copied to
 * DIR/NAME.r<rank>.v<version>.ckpt, in the background by staging's drain
 * thread (stage.h) or, with staging off, before the take returns; a LOCAL
 * slot is rewritten only after its drain is done; status, wait and free see
 * the drains; restart lists the PFS versions; old PFS versions pruned. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt/internal.h"
#include "ckpt/stage.h"
#include "core/path.h"

int mpisw_ckpt_pfs_open(struct mpisw_ckpt *ck, struct mpisw_error *e) {
  ck->pfs_dir[0] = 0;
  for (int s = 0; s < MPISW_CKPT_KEEP_MAX; s++) ck->drain[s].ticket = 0;
  if (!ck->o.pfs[0] || ck->o.pfs_every == 0) return 0;
  char host[256];
  mpisw_path_hostname(host, sizeof host);
  if (mpisw_path_expand(ck->o.pfs, ck->rank, host, ck->pfs_dir, sizeof ck->pfs_dir, e)) return -1;
  if (mpisw_ckpt_mkdirs(ck->pfs_dir, e)) {
    ck->pfs_dir[0] = 0;
    return -1;
  }
  return 0;
}

/* A drain that is done: its figures into the status (newest wins). */
static void finished(struct mpisw_ckpt *ck, int s) {
  struct mpisw_ckpt_drain *d = &ck->drain[s];
  struct mpisw_stage_copyinfo ci;
  struct mpisw_error e;
  if (mpisw_stage_info(d->ticket, &ci, &e) == 0 && d->version > ck->st.last_drained) {
    ck->st.last_drained = d->version;
    ck->st.drain_seconds = ci.seconds;
    ck->st.drain_bytes = ci.bytes;
  }
  if (ck->st.last_drained == ck->st.last_version) ck->st.last_levels |= MPISW_CKPT_LEVEL_PFS;
  d->ticket = 0;
}

/* Slot s's drain, waited for or only looked at; a failure is kept for the
 * next wait (the first one only). */
static void settle(struct mpisw_ckpt *ck, int s, int block) {
  struct mpisw_ckpt_drain *d = &ck->drain[s];
  if (!d->ticket) return;
  struct mpisw_error e;
  int state = MPISW_STAGE_DONE;
  if (block) state = mpisw_stage_wait(d->ticket, &e) ? MPISW_STAGE_FAILED : MPISW_STAGE_DONE;
  else if (mpisw_stage_done(d->ticket, &state, &e)) state = MPISW_STAGE_FAILED;
  if (state == MPISW_STAGE_DONE) finished(ck, s);
  else if (state == MPISW_STAGE_FAILED) {
    if (block || mpisw_stage_wait(d->ticket, &e)) {
      if (!ck->drain_failed) ck->drain_err = e;
      ck->drain_failed = 1;
    }
    d->ticket = 0;
  }
}

void mpisw_ckpt_pfs_poll(struct mpisw_ckpt *ck) {
  int pending = 0;
  for (int s = 0; s < ck->o.keep; s++) {
    settle(ck, s, 0);
    pending += ck->drain[s].ticket != 0;
  }
  ck->st.drains_pending = pending;
}

void mpisw_ckpt_pfs_slot_free(struct mpisw_ckpt *ck, int slot) { settle(ck, slot, 1); }

int mpisw_ckpt_pfs_wait(struct mpisw_ckpt *ck, struct mpisw_error *e) {
  for (int s = 0; s < ck->o.keep; s++) settle(ck, s, 1);
  ck->st.drains_pending = 0;
  if (!ck->drain_failed) return 0;
  *e = ck->drain_err;
  ck->drain_failed = 0;
  return -1;
}

int mpisw_ckpt_pfs_after_take(struct mpisw_ckpt *ck, int slot, int version, struct mpisw_error *e) {
  if (!ck->pfs_dir[0] || version % ck->o.pfs_every) return 0;
  char src[PATH_MAX], dst[PATH_MAX];
  if (mpisw_ckpt_slot_path(src, sizeof src, ck->dir, ck->name, ck->rank, slot) ||
      mpisw_ckpt_version_path(dst, sizeof dst, ck->pfs_dir, ck->name, ck->rank, version))
    return mpisw_fail(e, MPISW_K_USAGE, "checkpoint PFS directory '%s': the path is too long",
                      ck->pfs_dir);
  struct mpisw_ckpt_drain *d = &ck->drain[slot];
  d->version = version;
  if (ck->o.staging) return mpisw_stage_submit(src, dst, &d->ticket, e);
  /* Staging off: PFS holds the version when the take returns. */
  struct mpisw_stage_copyinfo ci;
  if (mpisw_stage_copy(src, dst, &ci, e)) return -1;
  ck->st.last_drained = version;
  ck->st.drain_seconds = ci.seconds;
  ck->st.drain_bytes = ci.bytes;
  return 0;
}

static int by_newest(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x < y) - (x > y);
}

int mpisw_ckpt_pfs_list(struct mpisw_ckpt *ck, int *versions, int max) {
  if (!ck->pfs_dir[0]) return 0;
  DIR *dir = opendir(ck->pfs_dir);
  if (!dir) return 0;
  char want[MPISW_CKPT_NAME_MAX + 32];
  int wn = snprintf(want, sizeof want, "%s.r%d.v", ck->name, ck->rank), n = 0, cap = 64;
  int *all = malloc(sizeof(int) * (size_t)cap);
  for (struct dirent *de; all && (de = readdir(dir));) {
    int v, end = 0;
    if (strncmp(de->d_name, want, (size_t)wn) ||
        sscanf(de->d_name + wn, "%d.ckpt%n", &v, &end) != 1 || de->d_name[wn + end] || v < 0)
      continue; /* not ours, or a .part file */
    if (n == cap) {
      int *p = realloc(all, sizeof(int) * (size_t)(cap *= 2));
      if (!p) break;
      all = p;
    }
    all[n++] = v;
  }
  closedir(dir);
  if (!all) return 0;
  qsort(all, (size_t)n, sizeof(int), by_newest);
  if (n > max) n = max;
  memcpy(versions, all, sizeof(int) * (size_t)n);
  free(all);
  return n;
}

void mpisw_ckpt_pfs_prune(struct mpisw_ckpt *ck) {
  if (!ck->pfs_dir[0]) return;
  /* Only versions complete on PFS for every rank count (collective). */
  int mine = ck->st.last_drained, common = mine;
  PMPI_Allreduce(&mine, &common, 1, MPI_INT, MPI_MIN, ck->comm);
  if (common < 0) return;
  int v[4 * MPISW_CKPT_KEEP_MAX], n = mpisw_ckpt_pfs_list(ck, v, 4 * MPISW_CKPT_KEEP_MAX), kept = 0;
  for (int i = 0; i < n; i++) {   /* newest first */
    if (v[i] > common || kept++ < ck->o.keep) continue;
    char p[PATH_MAX];
    if (!mpisw_ckpt_version_path(p, sizeof p, ck->pfs_dir, ck->name, ck->rank, v[i]))
      mpisw_path_unlink(p);
  }
}
