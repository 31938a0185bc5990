/* The PARTNER and XOR levels inside a checkpoint set: opened at create when
 * ckpt_partner_every or ckpt_xor_every asks for them, fed the LOCAL slot
 * file of every n-th collective checkpoint, asked at restart for the
 * versions a lost image can be rebuilt for, and made to rebuild it into its
 * slot (src/ckpt/redund.h does the work). */
#include <stdio.h>
#include <string.h>

#include "ckpt/internal.h"
#include "ckpt/redund.h"
#include "mpisw.h"

/* redund's error code as the checkpoint call's: "mpisw: <routine>: <level>:
 * reason", same class. */
static int rewrap(const char *routine, const char *level, int rc, struct mpisw_error *e) {
  char s[MPI_MAX_ERROR_STRING];
  int n = 0, cls = -1, kind = MPISW_K_IO;
  PMPI_Error_string(rc, s, &n);
  PMPI_Error_class(rc, &cls);
  for (int k = 0; k < MPISW_K_COUNT; k++) {
    int c = -2;
    if (mpisw_error_class(k, &c) == MPI_SUCCESS && c == cls) kind = k;
  }
  const char *why = s;
  if (!strncmp(why, "mpisw: ", 7) && strstr(why + 7, ": ")) why = strstr(why + 7, ": ") + 2;
  mpisw_fail(e, kind, "%s: %s", level, why);
  return routine ? mpisw_error_code(routine, e) : -1;
}

int mpisw_ckpt_levels_open(struct mpisw_ckpt *ck) {
  ck->redund = NULL;
  int levels = (ck->o.partner_every ? MPISW_REDUND_PARTNER : 0) |
               (ck->o.xor_every ? MPISW_REDUND_XOR : 0);
  if (!levels) return MPI_SUCCESS;
  struct mpisw_redund_opts o = {levels, ck->o.xor_size, ck->o.keep, 0};
  int rc = mpisw_redund_open(ck->name, ck->comm, ck->dir, &o, &ck->redund);
  struct mpisw_error e;
  return rc == MPI_SUCCESS ? rc : rewrap("mpisw_ckpt_create", "levels", rc, &e);
}

void mpisw_ckpt_levels_close(struct mpisw_ckpt *ck) {
  if (ck->redund) mpisw_redund_close(&ck->redund);
}

/* The slot holding version on this rank (LOCAL just wrote it). */
static int slot_of(const struct mpisw_ckpt *ck, int version, char *path, size_t len) {
  for (int s = 0; s < ck->o.keep; s++)
    if (ck->slots[s].state == 1 && ck->slots[s].h.version == version)
      return mpisw_ckpt_slot_path(path, len, ck->dir, ck->name, ck->rank, s);
  return -1;
}

int mpisw_ckpt_levels_store(struct mpisw_ckpt *ck, int version, int *levels) {
  if (!ck->redund) return MPI_SUCCESS;
  char path[PATH_MAX] = "";
  slot_of(ck, version, path, sizeof path);   /* every rank has it: take agreed */
  const int every[2] = {ck->o.partner_every, ck->o.xor_every};
  const int level[2] = {MPISW_REDUND_PARTNER, MPISW_REDUND_XOR};
  for (int i = 0; i < 2; i++) {
    if (!every[i] || version % every[i]) continue;
    int rc = mpisw_redund_store(ck->redund, level[i], version, path);
    struct mpisw_error e;
    if (rc != MPI_SUCCESS)
      return rewrap("mpisw_ckpt_take", i ? "XOR level (the version is complete on LOCAL)"
                                         : "PARTNER level (the version is complete on LOCAL)",
                    rc, &e);
    *levels |= level[i];   /* MPISW_REDUND_* are the MPISW_CKPT_LEVEL_* bits */
  }
  return MPI_SUCCESS;
}

int mpisw_ckpt_levels_versions(struct mpisw_ckpt *ck, int level, int *v, int max) {
  int n = 0;
  if (!ck->redund || !(level == MPISW_REDUND_PARTNER ? ck->o.partner_every : ck->o.xor_every))
    return 0;
  if (mpisw_redund_versions(ck->redund, level, v, max, &n) != MPI_SUCCESS) return 0;
  return n;   /* an error is every rank's (agreed): no versions from the level */
}

int mpisw_ckpt_levels_rebuild(struct mpisw_ckpt *ck, int level, int version, int need,
                              char *path, size_t len, struct mpisw_error *e) {
  int rc = mpisw_redund_rebuild(ck->redund, level, version, need, path, len);
  if (rc == MPI_SUCCESS) return 0;
  return rewrap(NULL, level == MPISW_REDUND_XOR ? "XOR rebuild" : "PARTNER rebuild", rc, e);
}
