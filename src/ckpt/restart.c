/* mpisw_ckpt_restart (collective): every rank lists the versions it holds
 * complete, the ranks agree on the newest one every rank has, each checks
 * that version's every checksum, and only when all passed does any rank
 * copy it into its regions. A rejected version (partial, checksum) is
 * reported, counted and the next older common one tried. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt/internal.h"

#define NONE (-1)

/* Where one version of this rank can be read from. */
struct source {
  int version;
  int level;                  /* MPISW_CKPT_LEVEL_* */
  char path[PATH_MAX];
  struct mpisw_ckpt_header h;
};

static void reject(struct mpisw_ckpt *ck, const struct mpisw_error *e) {
  ck->st.corrupt_seen++;
  mpisw_ckpt_record_rejected(ck->rec);
  fprintf(stderr, "mpisw: mpisw_ckpt_restart: checkpoint '%s' rank %d: %s; not used\n", ck->name,
          ck->rank, e->msg);
}

/* LOCAL: the slots' complete images (headers checked; data later). */
static int list_local(struct mpisw_ckpt *ck, struct source *src, int n) {
  for (int s = 0; s < ck->o.keep; s++) {
    struct mpisw_ckpt_slot *sl = &ck->slots[s];
    mpisw_ckpt_header_free(&sl->h);
    sl->state = 0;
    char path[PATH_MAX];
    struct mpisw_error e;
    if (mpisw_ckpt_slot_path(path, sizeof path, ck->dir, ck->name, ck->rank, s)) continue;
    int rc = mpisw_ckpt_image_header(path, &sl->h, &e);
    sl->state = rc;
    if (rc < 0) reject(ck, &e);
    if (rc != 1) continue;
    if (sl->h.rank != ck->rank || sl->h.nranks != ck->nranks || strcmp(sl->h.name, ck->name)) {
      mpisw_fail(&e, MPISW_K_USAGE, "checkpoint image '%s' belongs to rank %d of %d of set '%s'",
                 path, sl->h.rank, sl->h.nranks, sl->h.name);
      reject(ck, &e);
      mpisw_ckpt_header_free(&sl->h);
      sl->state = -1;
      continue;
    }
    struct source *x = &src[n++];
    x->version = sl->h.version;
    x->level = MPISW_CKPT_LEVEL_LOCAL;
    snprintf(x->path, sizeof x->path, "%s", path);
    if (mpisw_ckpt_header_copy(&x->h, &sl->h)) n--;
  }
  return n;
}

/* PFS: this rank's complete images there (pfs.c lists them, newest
 * first) of versions LOCAL does not hold; read from PFS directly. */
static int list_pfs(struct mpisw_ckpt *ck, struct source *src, int n, int max) {
  int v[2 * MPISW_CKPT_KEEP_MAX];
  int nv = mpisw_ckpt_pfs_list(ck, v, max - n < 2 * MPISW_CKPT_KEEP_MAX ? max - n : 2 * MPISW_CKPT_KEEP_MAX);
  for (int i = 0; i < nv && n < max; i++) {
    int have = 0;
    for (int j = 0; j < n && !have; j++) have = src[j].version == v[i];
    if (have) continue;
    struct source *x = &src[n];
    struct mpisw_error e;
    if (mpisw_ckpt_version_path(x->path, sizeof x->path, ck->pfs_dir, ck->name, ck->rank, v[i]))
      continue;
    int rc = mpisw_ckpt_image_header(x->path, &x->h, &e);
    if (rc < 0) reject(ck, &e);
    if (rc != 1) continue;
    if (x->h.rank != ck->rank || x->h.nranks != ck->nranks || strcmp(x->h.name, ck->name) ||
        x->h.version != v[i]) {
      mpisw_fail(&e, MPISW_K_USAGE, "checkpoint image '%s' belongs to rank %d of %d of set '%s'",
                 x->path, x->h.rank, x->h.nranks, x->h.name);
      reject(ck, &e);
      mpisw_ckpt_header_free(&x->h);
      continue;
    }
    x->version = v[i];
    x->level = MPISW_CKPT_LEVEL_PFS;
    n++;
  }
  return n;
}

/* A slot whose data failed its checksums is rewritten whole next time: an
 * incremental write would keep the damaged chunks. */
static void forget_slot(struct mpisw_ckpt *ck, int version) {
  for (int s = 0; s < ck->o.keep; s++)
    if (ck->slots[s].state == 1 && ck->slots[s].h.version == version) {
      mpisw_ckpt_header_free(&ck->slots[s].h);
      ck->slots[s].state = -1;
    }
}

static struct source *find(struct source *src, int n, int version) {
  for (int i = 0; i < n; i++)
    if (src[i].version == version) return &src[i];
  return NULL;
}

/* The other levels: versions this rank lacks on LOCAL but PARTNER or XOR
 * could rebuild (levels.c; collective, every rank asks), appended after
 * LOCAL's, PARTNER before XOR (a copy is cheaper to bring back than a
 * parity reduction; their path and header come with the rebuild), then
 * PFS's: the fastest level that holds a version wins. */
static int list_other_levels(struct mpisw_ckpt *ck, struct source *src, int n, int max) {
  const int level[2] = {MPISW_CKPT_LEVEL_PARTNER, MPISW_CKPT_LEVEL_XOR};
  for (int l = 0; l < 2; l++) {
    int v[MPISW_CKPT_KEEP_MAX];
    int cnt = mpisw_ckpt_levels_versions(ck, level[l], v, MPISW_CKPT_KEEP_MAX);
    for (int i = 0; i < cnt && n < max; i++) {
      if (find(src, n, v[i])) continue;
      struct source *x = &src[n++];
      memset(x, 0, sizeof *x);
      x->version = v[i];
      x->level = level[l];
    }
  }
  return list_pfs(ck, src, n, max);   /* PFS last: read straight from there */
}

/* A rebuilt image is in its LOCAL slot again: the slot's header known, so
 * later takes rewrite it incrementally and keep it while it is safe. */
static void slot_rebuilt(struct mpisw_ckpt *ck, const struct source *x) {
  for (int s = 0; s < ck->o.keep; s++) {
    char path[PATH_MAX];
    if (mpisw_ckpt_slot_path(path, sizeof path, ck->dir, ck->name, ck->rank, s) ||
        strcmp(path, x->path))
      continue;
    mpisw_ckpt_header_free(&ck->slots[s].h);
    ck->slots[s].state = mpisw_ckpt_header_copy(&ck->slots[s].h, &x->h) ? 0 : 1;
  }
}

/* Collective: every rank whose source of version is PARTNER or XOR gets
 * its image rebuilt into its LOCAL slot, then read like LOCAL's. 0, or -1
 * with *e on every rank when a level could not rebuild. */
static int rebuild(struct mpisw_ckpt *ck, struct source *x, int version, struct mpisw_error *e) {
  const int level[2] = {MPISW_CKPT_LEVEL_PARTNER, MPISW_CKPT_LEVEL_XOR};
  for (int l = 0; l < 2; l++) {
    int need = x->level == level[l];
    if (!mpisw_any(ck->comm, need)) continue;
    char path[PATH_MAX] = "";
    if (mpisw_ckpt_levels_rebuild(ck, level[l], version, need, path, sizeof path, e)) return -1;
    if (!need) continue;
    int rc = mpisw_ckpt_image_header(path, &x->h, e);
    if (rc == 0) mpisw_fail(e, MPISW_K_IO, "the rebuilt image '%s' is missing", path);
    if (rc != 1) return -1;
    snprintf(x->path, sizeof x->path, "%s", path);
    slot_rebuilt(ck, x);
  }
  return 0;
}

/* The newest version in every rank's list (all[r*max ...]) and not
 * excluded; NONE when there is none. The same on every rank. */
static int common_newest(const int *all, int nranks, int max, const int *excl, int nexcl) {
  int best = NONE;
  for (int i = 0; i < max; i++) {
    int v = all[i];
    if (v == NONE || v <= best) continue;
    int ok = 1;
    for (int x = 0; x < nexcl && ok; x++) ok = excl[x] != v;
    for (int r = 1; r < nranks && ok; r++) {
      int has = 0;
      for (int j = 0; j < max && !has; j++) has = all[r * max + j] == v;
      ok = has;
    }
    if (ok) best = v;
  }
  return best;
}

MPISW_EXPORT int mpisw_ckpt_restart(mpisw_ckpt *ck, int *version) {
  const char *R = "mpisw_ckpt_restart";
  int bad = mpisw_ckpt_bad_args(ck, version, R);
  if (bad != MPI_SUCCESS) return bad;
  struct mpisw_error e;
  *version = NONE;
  const int max = 2 * MPISW_CKPT_KEEP_MAX;
  struct source *src = calloc((size_t)max, sizeof *src);
  int *mine = malloc(sizeof(int) * (size_t)max);
  int *all = malloc(sizeof(int) * (size_t)max * (size_t)ck->nranks);
  int *excl = malloc(sizeof(int) * (size_t)max);
  int failed = !src || !mine || !all || !excl;
  int n = 0;
  if (failed) mpisw_fail(&e, MPISW_K_NOMEM, "no memory to list checkpoint versions");
  else {
    n = list_local(ck, src, 0);
    n = list_other_levels(ck, src, n, max);
    for (int i = 0; i < max; i++) mine[i] = i < n ? src[i].version : NONE;
  }
  int rc = MPI_SUCCESS, nexcl = 0, chosen = NONE;
  if (mpisw_agree(ck->comm, failed, &e, NULL)) {
    rc = mpisw_ckpt_error(ck, R, &e);
    goto out;
  }
  PMPI_Allgather(mine, max, MPI_INT, all, max, MPI_INT, ck->comm);
  /* Later checkpoints get numbers no image carries yet (take_local may
   * have written some since create). */
  for (int i = 0; i < max * ck->nranks; i++)
    if (all[i] >= ck->next_version) ck->next_version = all[i] + 1;
  for (;;) {
    int v = common_newest(all, ck->nranks, max, excl, nexcl);
    if (v == NONE) break;
    /* Lost images of v rebuilt from PARTNER or XOR into LOCAL; then every
     * chunk of v checked on every rank before any region changes. */
    struct source *x = find(src, n, v);
    int bad = rebuild(ck, x, v, &e) != 0;
    if (!bad) bad = mpisw_ckpt_image_verify(x->path, &x->h, &e) != 0;
    if (bad) {
      reject(ck, &e);
      forget_slot(ck, v);
    }
    if (mpisw_any(ck->comm, bad)) {
      excl[nexcl++] = v;
      continue;
    }
    struct mpisw_ckpt_range *r = NULL;
    failed = mpisw_ckpt_ranges(ck, &r, &e) != 0;
    if (!failed) failed = mpisw_ckpt_image_restore(x->path, &x->h, r, ck->nregs, &e) != 0;
    free(r);
    if (mpisw_agree(ck->comm, failed, &e, NULL)) {
      rc = mpisw_ckpt_error(ck, R, &e);
      goto out;
    }
    chosen = v;
    ck->st.restored_level = x->level;
    break;
  }
  ck->st.restored_version = chosen;
  if (chosen == NONE) ck->st.restored_level = 0;
  if (chosen != NONE) ck->safe_version = chosen;   /* kept until a newer one is complete */
  *version = chosen;
out:
  if (src)
    for (int i = 0; i < n; i++) mpisw_ckpt_header_free(&src[i].h);
  free(src);
  free(mine);
  free(all);
  free(excl);
  return rc;
}
