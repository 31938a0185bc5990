/* mpisw_ckpt_create / protect_* / status / wait / free: a checkpoint set,
 * its settings (MPISW_CKPT_* then ckpt_* info keys), its regions, its LOCAL
 * slots, and the errors raised on the program's communicator. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt/internal.h"
#include "core/config.h"
#include "core/path.h"

struct mpisw_ckpt *mpisw_ckpt_live;
pthread_mutex_t mpisw_ckpt_mu = PTHREAD_MUTEX_INITIALIZER;

int mpisw_ckpt_raise(const struct mpisw_ckpt *ck, int code) {
  MPI_Comm c = ck && ck->user_comm != MPI_COMM_NULL ? ck->user_comm : MPI_COMM_WORLD;
  return mpisw_raise_comm(c, code);
}

int mpisw_ckpt_error(const struct mpisw_ckpt *ck, const char *routine,
                     const struct mpisw_error *e) {
  return mpisw_ckpt_raise(ck, mpisw_error_code(routine, e));
}

__attribute__((format(printf, 4, 5))) static int fail_raise(const struct mpisw_ckpt *ck,
                                                             const char *routine, int kind,
                                                             const char *fmt, ...) {
  struct mpisw_error e;
  va_list ap;
  va_start(ap, fmt);
  mpisw_vfail(&e, kind, fmt, ap);
  va_end(ap);
  return mpisw_ckpt_error(ck, routine, &e);
}

/* ---- settings ---- */

/* The ckpt_* info keys and the variables behind them. */
static const struct {
  const char *key;
  int id;
} keys[] = {
    {"ckpt_local", MPISW_CFG_CKPT_LOCAL},
    {"ckpt_pfs", MPISW_CFG_CKPT_PFS},
    {"ckpt_partner_every", MPISW_CFG_CKPT_PARTNER_EVERY},
    {"ckpt_xor_every", MPISW_CFG_CKPT_XOR_EVERY},
    {"ckpt_pfs_every", MPISW_CFG_CKPT_PFS_EVERY},
    {"ckpt_xor_size", MPISW_CFG_CKPT_XOR_SIZE},
    {"ckpt_keep", MPISW_CFG_CKPT_KEEP},
    {"ckpt_staging", MPISW_CFG_CKPT_STAGING},
    {"ckpt_chunk", MPISW_CFG_CKPT_CHUNK},
};
#define NKEYS ((int)(sizeof keys / sizeof keys[0]))

static void opt_set(struct mpisw_ckpt_opts *o, int id, const char *text, int64_t v) {
  switch (id) {
  case MPISW_CFG_CKPT_LOCAL: snprintf(o->local, sizeof o->local, "%s", text); break;
  case MPISW_CFG_CKPT_PFS: snprintf(o->pfs, sizeof o->pfs, "%s", text ? text : ""); break;
  case MPISW_CFG_CKPT_PARTNER_EVERY: o->partner_every = (int)v; break;
  case MPISW_CFG_CKPT_XOR_EVERY: o->xor_every = (int)v; break;
  case MPISW_CFG_CKPT_PFS_EVERY: o->pfs_every = (int)v; break;
  case MPISW_CFG_CKPT_XOR_SIZE: o->xor_size = (int)v; break;
  case MPISW_CFG_CKPT_KEEP: o->keep = (int)v; break;
  case MPISW_CFG_CKPT_STAGING: o->staging = (int)v; break;
  case MPISW_CFG_CKPT_CHUNK: o->chunk = (uint64_t)v; break;
  }
}

static int opts_read(MPI_Info info, struct mpisw_ckpt_opts *o, struct mpisw_error *e) {
  memset(o, 0, sizeof *o);
  for (int i = 0; i < NKEYS; i++) {
    int id = keys[i].id;
    const char *text = mpisw_cfg_text(id);
    if (mpisw_cfg_vars[id].type == MPISW_CFG_PATH) {
      if (!text && id == MPISW_CFG_CKPT_LOCAL) text = mpisw_cfg_vars[id].def;
      opt_set(o, id, text, 0);
    } else {
      opt_set(o, id, NULL, mpisw_cfg_vars[id].type == MPISW_CFG_SIZE ? (int64_t)mpisw_cfg_size(id)
                                                                     : mpisw_cfg_int(id));
    }
  }
  if (info == MPI_INFO_NULL) return 0;
  int n = 0;
  PMPI_Info_get_nkeys(info, &n);
  for (int k = 0; k < n; k++) {
    char key[MPI_MAX_INFO_KEY + 1], val[PATH_MAX];
    if (PMPI_Info_get_nthkey(info, k, key) != MPI_SUCCESS || strncmp(key, "ckpt_", 5)) continue;
    int i = 0;
    while (i < NKEYS && strcmp(keys[i].key, key)) i++;
    if (i == NKEYS)
      return mpisw_fail(e, MPISW_K_HINT, "'%s' is not a checkpoint info key (docs/CHECKPOINTS.md "
                        "\"Configuration\" lists them)", key);
    if (!mpisw_info_get(info, key, val, sizeof val)) continue;
    int64_t v = 0;
    if (mpisw_cfg_parse(keys[i].id, val, &v)) {
      char forms[160];
      mpisw_cfg_forms(keys[i].id, forms, sizeof forms);
      return mpisw_fail(e, MPISW_K_HINT, "%s='%s' is not valid: %s", key, val, forms);
    }
    opt_set(o, keys[i].id, val, v);
  }
  return 0;
}

static int name_ok(const char *name) {
  size_t n = strlen(name);
  if (!n || n >= MPISW_CKPT_NAME_MAX) return 0;
  return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

/* ---- slots ---- */

int mpisw_ckpt_scan_slots(struct mpisw_ckpt *ck) {
  int newest = 0;
  for (int s = 0; s < ck->o.keep; s++) {
    struct mpisw_ckpt_slot *sl = &ck->slots[s];
    mpisw_ckpt_header_free(&sl->h);
    char path[PATH_MAX];
    struct mpisw_error e;
    sl->state = -1;
    if (mpisw_ckpt_slot_path(path, sizeof path, ck->dir, ck->name, ck->rank, s)) continue;
    int rc = mpisw_ckpt_image_header(path, &sl->h, &e);
    sl->state = rc;
    /* Another set's, rank's or job size's file under this name is not ours. */
    if (rc == 1 && (sl->h.rank != ck->rank || sl->h.nranks != ck->nranks ||
                    strcmp(sl->h.name, ck->name))) {
      mpisw_ckpt_header_free(&sl->h);
      sl->state = -1;
    }
    if (sl->state == 1 && sl->h.version > newest) newest = sl->h.version;
  }
  return newest;
}

/* ---- regions ---- */

static int win_range(MPI_Win win, void **base, uint64_t *len) {
  int flag = 0, flavor = 0, *fl = NULL;
  if (mpisw_win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag) == MPI_SUCCESS && flag && fl)
    flavor = *fl;
  if (flavor == MPI_WIN_FLAVOR_DYNAMIC) return 1;
  MPI_Aint *size = NULL;
  void *b = NULL;
  if (mpisw_win_get_attr(win, MPI_WIN_BASE, &b, &flag) != MPI_SUCCESS || !flag) return -1;
  if (mpisw_win_get_attr(win, MPI_WIN_SIZE, &size, &flag) != MPI_SUCCESS || !flag || !size)
    return -1;
  *base = b;
  *len = (uint64_t)*size;
  return 0;
}

int mpisw_ckpt_ranges(struct mpisw_ckpt *ck, struct mpisw_ckpt_range **out,
                      struct mpisw_error *e) {
  struct mpisw_ckpt_range *r = calloc(ck->nregs ? (size_t)ck->nregs : 1, sizeof *r);
  if (!r) return mpisw_fail(e, MPISW_K_NOMEM, "no memory for %d regions", ck->nregs);
  for (int i = 0; i < ck->nregs; i++) {
    struct mpisw_ckpt_region *g = &ck->regs[i];
    if (g->win == MPI_WIN_NULL && !g->base && g->len) {
      free(r);
      return mpisw_fail(e, MPISW_K_USAGE, "region %d of checkpoint '%s' is a window that was "
                        "freed; protect windows that live as long as the set", i, ck->name);
    }
    r[i].base = g->base;
    r[i].len = g->len;
  }
  *out = r;
  return 0;
}

/* ---- the calls ---- */

static void release(struct mpisw_ckpt *ck);

MPISW_EXPORT int mpisw_ckpt_create(const char *name, MPI_Comm comm, MPI_Info info,
                                   mpisw_ckpt **out) {
  const char *R = "mpisw_ckpt_create";
  if (comm == MPI_COMM_NULL) return fail_raise(NULL, R, MPISW_K_USAGE, "the communicator is MPI_COMM_NULL");
  struct mpisw_ckpt tmp = {.user_comm = comm};
  if (!out) return fail_raise(&tmp, R, MPISW_K_USAGE, "the handle pointer is NULL");
  *out = NULL;
  mpisw_state_init();
  struct mpisw_ckpt *ck = calloc(1, sizeof *ck);
  if (!ck) return fail_raise(&tmp, R, MPISW_K_NOMEM, "no memory for the checkpoint set");
  snprintf(ck->name, sizeof ck->name, "%s", name ? name : "");
  ck->user_comm = comm;
  int rc = PMPI_Comm_dup(comm, &ck->comm);
  if (rc != MPI_SUCCESS) {
    free(ck);
    return mpisw_ckpt_raise(&tmp, rc);
  }
  PMPI_Comm_set_errhandler(ck->comm, MPI_ERRORS_RETURN);
  PMPI_Comm_rank(ck->comm, &ck->rank);
  PMPI_Comm_size(ck->comm, &ck->nranks);

  /* Every check agreed, so a rank with a bad argument fails with the
   * others instead of leaving them in a collective. */
  struct mpisw_error e;
  int failed = 0;
  if (!name || !name_ok(name))
    failed = mpisw_fail(&e, MPISW_K_USAGE, "the name '%s' is not 1 to %d characters of "
                        "[A-Za-z0-9_.-]", name ? name : "(null)", MPISW_CKPT_NAME_MAX - 1) != 0;
  if (!failed) failed = opts_read(info, &ck->o, &e) != 0;
  if (!failed) {
    char host[256];
    mpisw_path_hostname(host, sizeof host);
    failed = mpisw_path_expand(ck->o.local, ck->rank, host, ck->dir, sizeof ck->dir, &e) != 0;
  }
  if (!failed) failed = mpisw_ckpt_mkdirs(ck->dir, &e) != 0;
  if (!failed) failed = mpisw_ckpt_pfs_open(ck, &e) != 0;
  if (mpisw_agree(ck->comm, failed, &e, NULL)) {
    PMPI_Comm_free(&ck->comm);
    free(ck);
    return mpisw_ckpt_error(&tmp, R, &e);
  }
  /* Versions go on from the newest any rank holds, so a new job never
   * reuses a number an older image carries. */
  int newest = mpisw_ckpt_scan_slots(ck), all = newest, on_pfs = -1;
  if (mpisw_ckpt_pfs_list(ck, &on_pfs, 1) == 1 && on_pfs > newest) newest = on_pfs;
  all = newest;
  PMPI_Allreduce(&newest, &all, 1, MPI_INT, MPI_MAX, ck->comm);
  ck->next_version = all + 1;
  ck->safe_version = -1;
  ck->st.last_version = ck->st.last_drained = ck->st.restored_version = -1;
  rc = mpisw_ckpt_levels_open(ck);   /* PARTNER, XOR: collective, agreed */
  if (rc != MPI_SUCCESS) {
    release(ck);
    return mpisw_ckpt_raise(&tmp, rc);
  }
  ck->rec = mpisw_ckpt_record_new(ck->name);
  pthread_mutex_lock(&mpisw_ckpt_mu);
  ck->next = mpisw_ckpt_live;
  mpisw_ckpt_live = ck;
  pthread_mutex_unlock(&mpisw_ckpt_mu);
  *out = ck;
  return MPI_SUCCESS;
}

static int add_region(mpisw_ckpt *ck, const char *R, MPI_Win win, void *base, uint64_t len) {
  if (ck->nregs == ck->cap) {
    int cap = ck->cap ? 2 * ck->cap : 8;
    void *p = realloc(ck->regs, sizeof *ck->regs * (size_t)cap);
    if (!p) return fail_raise(ck, R, MPISW_K_NOMEM, "no memory for region %d", ck->nregs);
    ck->regs = p;
    ck->cap = cap;
  }
  int wrank = -1;
  if (win != MPI_WIN_NULL) {   /* take_local locks the window on this rank */
    MPI_Group g;
    if (mpisw_next.Win_get_group(win, &g) == MPI_SUCCESS) {
      PMPI_Group_rank(g, &wrank);
      PMPI_Group_free(&g);
    }
  }
  ck->regs[ck->nregs++] = (struct mpisw_ckpt_region){win, base, len, wrank};
  return MPI_SUCCESS;
}

MPISW_EXPORT int mpisw_ckpt_protect_win(mpisw_ckpt *ck, MPI_Win win) {
  const char *R = "mpisw_ckpt_protect_win";
  if (!ck) return fail_raise(NULL, R, MPISW_K_USAGE, "the checkpoint handle is NULL");
  if (win == MPI_WIN_NULL) return fail_raise(ck, R, MPISW_K_USAGE, "the window is MPI_WIN_NULL");
  void *base = NULL;
  uint64_t len = 0;
  int rc = win_range(win, &base, &len);
  if (rc > 0)
    return fail_raise(ck, R, MPISW_K_USAGE, "a dynamic window has no memory of its own: protect "
                      "the memory attached to it with mpisw_ckpt_protect_mem");
  if (rc < 0) return fail_raise(ck, R, MPISW_K_USAGE, "the window's base and size are unknown");
  return add_region(ck, R, win, base, len);
}

MPISW_EXPORT int mpisw_ckpt_protect_mem(mpisw_ckpt *ck, void *base, size_t len) {
  const char *R = "mpisw_ckpt_protect_mem";
  if (!ck) return fail_raise(NULL, R, MPISW_K_USAGE, "the checkpoint handle is NULL");
  if (!base && len) return fail_raise(ck, R, MPISW_K_USAGE, "base is NULL for %zu bytes", len);
  return add_region(ck, R, MPI_WIN_NULL, base, len);
}

MPISW_EXPORT int mpisw_ckpt_status(mpisw_ckpt *ck, struct mpisw_ckpt_status *st) {
  const char *R = "mpisw_ckpt_status";
  if (!ck) return fail_raise(NULL, R, MPISW_K_USAGE, "the checkpoint handle is NULL");
  if (!st) return fail_raise(ck, R, MPISW_K_USAGE, "the status pointer is NULL");
  mpisw_ckpt_pfs_poll(ck);
  *st = ck->st;
  return MPI_SUCCESS;
}

/* This rank's drains to PFS (pfs.c); a failed one is raised here. */
MPISW_EXPORT int mpisw_ckpt_wait(mpisw_ckpt *ck) {
  if (!ck) return fail_raise(NULL, "mpisw_ckpt_wait", MPISW_K_USAGE, "the checkpoint handle is NULL");
  struct mpisw_error e;
  if (mpisw_ckpt_pfs_wait(ck, &e)) return mpisw_ckpt_error(ck, "mpisw_ckpt_wait", &e);
  return MPI_SUCCESS;
}

static void release(struct mpisw_ckpt *ck) {
  mpisw_ckpt_levels_close(ck);
  for (int s = 0; s < MPISW_CKPT_KEEP_MAX; s++) mpisw_ckpt_header_free(&ck->slots[s].h);
  free(ck->regs);
  if (ck->comm != MPI_COMM_NULL) PMPI_Comm_free(&ck->comm);
  free(ck);
}

static void unlink_live(struct mpisw_ckpt *ck) {
  pthread_mutex_lock(&mpisw_ckpt_mu);
  for (struct mpisw_ckpt **p = &mpisw_ckpt_live; *p; p = &(*p)->next)
    if (*p == ck) {
      *p = ck->next;
      break;
    }
  pthread_mutex_unlock(&mpisw_ckpt_mu);
}

MPISW_EXPORT int mpisw_ckpt_free(mpisw_ckpt **ckp) {
  const char *R = "mpisw_ckpt_free";
  if (!ckp || !*ckp) return fail_raise(NULL, R, MPISW_K_USAGE, "the checkpoint handle is NULL");
  struct mpisw_ckpt *ck = *ckp;
  struct mpisw_error e;
  int drain_failed = mpisw_ckpt_pfs_wait(ck, &e) != 0;   /* the files are kept */
  mpisw_ckpt_pfs_prune(ck);                                /* beyond ckpt_keep on PFS */
  int rc = PMPI_Barrier(ck->comm);   /* collective: every rank is done with the set */
  if (drain_failed) rc = mpisw_ckpt_error(ck, R, &e);
  unlink_live(ck);
  release(ck);
  *ckp = NULL;
  return rc;
}

void mpisw_ckpt_free_all(void) {
  for (;;) {
    pthread_mutex_lock(&mpisw_ckpt_mu);
    struct mpisw_ckpt *ck = mpisw_ckpt_live;
    if (ck) mpisw_ckpt_live = ck->next;
    pthread_mutex_unlock(&mpisw_ckpt_mu);
    if (!ck) return;
    release(ck);
  }
}

/* A protected window went away: its region can no longer be read. */
void mpisw_ckpt_win_freed(MPI_Win was) {
  pthread_mutex_lock(&mpisw_ckpt_mu);
  for (struct mpisw_ckpt *ck = mpisw_ckpt_live; ck; ck = ck->next)
    for (int i = 0; i < ck->nregs; i++)
      if (ck->regs[i].win == was) {
        ck->regs[i].win = MPI_WIN_NULL;
        ck->regs[i].base = NULL;
      }
  pthread_mutex_unlock(&mpisw_ckpt_mu);
}
