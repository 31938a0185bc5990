/* The redundancy levels' front: which ranks share a node, open/close, the
 * calls' argument checks. The levels themselves are partner.c and xor.c;
 * the file helpers both use, redund_file.c. Every collective
 * below ends in an agreement, so all ranks return the same result. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt/redund_internal.h"
#include "core/path.h"
#include "win/internal.h"

/* ---- which ranks share a node ----
 * Two ranks share a node when the MPI puts them in one shared-memory
 * communicator and they have one host name (%h). MPICH's fork launcher with
 * -hosts a,b splits by the given hosts while every rank has the machine's
 * name; Open MPI on one machine puts every rank in one shared-memory
 * communicator while ranks in their own UTS namespaces (tests) differ by
 * name. Either difference means another failure domain for the LOCAL
 * directory, which is what PARTNER and XOR protect against. */
struct node_key {
  int leader;      /* rank in comm of the shared-memory communicator's rank 0 */
  char host[252];
};

static int node_map(struct mpisw_redund *r, struct mpisw_error *e) {
  MPI_Comm shm;
  struct node_key me;
  memset(&me, 0, sizeof me);
  if (PMPI_Comm_split_type(r->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm) != MPI_SUCCESS)
    return mpisw_fail(e, MPISW_K_IO, "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) failed");
  me.leader = r->rank;
  PMPI_Bcast(&me.leader, 1, MPI_INT, 0, shm);
  PMPI_Comm_free(&shm);
  mpisw_path_hostname(me.host, sizeof me.host);
  snprintf(r->host, sizeof r->host, "%s", me.host);
  struct node_key *all = calloc((size_t)r->size, sizeof *all);
  r->node_of = calloc((size_t)r->size, sizeof(int));
  r->local_of = calloc((size_t)r->size, sizeof(int));
  r->node_count = calloc((size_t)r->size, sizeof(int));
  if (!all || !r->node_of || !r->local_of || !r->node_count) {
    free(all);
    return mpisw_fail(e, MPISW_K_NOMEM, "no memory for the node map of %d ranks", r->size);
  }
  PMPI_Allgather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, r->comm);
  r->nnodes = 0;
  for (int i = 0; i < r->size; i++) {
    int n = -1;
    for (int j = 0; j < i && n < 0; j++)
      if (all[j].leader == all[i].leader && !strcmp(all[j].host, all[i].host)) n = r->node_of[j];
    if (n < 0) n = r->nnodes++;
    r->node_of[i] = n;
    r->local_of[i] = r->node_count[n]++;
  }
  free(all);
  r->node = r->node_of[r->rank];
  r->local = r->local_of[r->rank];
  return 0;
}

static int check_name(const char *name, struct mpisw_error *e) {
  size_t n = name ? strlen(name) : 0;
  if (n == 0 || n >= REDUND_NAME_MAX)
    return mpisw_fail(e, MPISW_K_USAGE, "the checkpoint name is empty or longer than %d",
                      REDUND_NAME_MAX - 1);
  for (size_t i = 0; i < n; i++) {
    char c = name[i];
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
          c == '_' || c == '.' || c == '-'))
      return mpisw_fail(e, MPISW_K_USAGE, "checkpoint name '%s': only [A-Za-z0-9_.-] allowed",
                        name);
  }
  return 0;
}

static void release(struct mpisw_redund *r) {
  mpisw_partner_close(r);
  mpisw_xor_close(r);
  free(r->node_of);
  free(r->local_of);
  free(r->node_count);
  if (r->comm != MPI_COMM_NULL) PMPI_Comm_free(&r->comm);
  free(r);
}

int mpisw_redund_open(const char *name, MPI_Comm comm, const char *local_dir,
                      const struct mpisw_redund_opts *o, struct mpisw_redund **out) {
  const char *R = "mpisw_redund_open";
  struct mpisw_error e;
  if (!out || !o || comm == MPI_COMM_NULL || !local_dir || !*local_dir) {
    mpisw_fail(&e, MPISW_K_USAGE, "a NULL handle, options, directory or MPI_COMM_NULL");
    return mpisw_error_code(R, &e);
  }
  *out = NULL;
  struct mpisw_redund *r = calloc(1, sizeof *r);
  if (!r) {
    mpisw_fail(&e, MPISW_K_NOMEM, "no memory");
    return mpisw_error_code(R, &e);
  }
  r->pwin = MPI_WIN_NULL;
  r->xcomm = MPI_COMM_NULL;
  r->partner = -1;
  if (PMPI_Comm_dup(comm, &r->comm) != MPI_SUCCESS) {
    free(r);
    mpisw_fail(&e, MPISW_K_IO, "MPI_Comm_dup failed");
    return mpisw_error_code(R, &e);
  }
  PMPI_Comm_set_errhandler(r->comm, MPI_ERRORS_RETURN);
  PMPI_Comm_rank(r->comm, &r->rank);
  PMPI_Comm_size(r->comm, &r->size);
  r->levels = o->levels;
  r->keep = o->keep;
  r->xor_k = o->xor_size;
  int failed = check_name(name, &e) != 0;
  if (!failed && (o->levels & ~(MPISW_REDUND_PARTNER | MPISW_REDUND_XOR)))
    failed = mpisw_fail(&e, MPISW_K_USAGE, "levels 0x%x: only PARTNER (2) and XOR (4) here",
                        o->levels) != 0;
  if (!failed && (o->keep < 1 || o->keep > 64))
    failed = mpisw_fail(&e, MPISW_K_HINT, "ckpt_keep %d: 1 to 64", o->keep) != 0;
  if (!failed && (o->levels & MPISW_REDUND_XOR) && (o->xor_size < 2 || o->xor_size > 256))
    failed = mpisw_fail(&e, MPISW_K_HINT, "ckpt_xor_size %d: 2 to 256", o->xor_size) != 0;
  if (!failed) {
    snprintf(r->name, sizeof r->name, "%s", name);
    int n = snprintf(r->dir, sizeof r->dir, "%s", local_dir);
    char probe[PATH_MAX + 2];
    snprintf(probe, sizeof probe, "%s/", r->dir);
    if (n >= (int)sizeof r->dir - 64)
      failed = mpisw_fail(&e, MPISW_K_USAGE, "LOCAL directory %s: path too long", local_dir) != 0;
    else if (mpisw_redund_mkparents(probe, &e) != 0)
      failed = 1;
  }
  if (!failed) failed = node_map(r, &e) != 0;
  if (mpisw_agree(r->comm, failed, &e, NULL)) {
    release(r);
    return mpisw_error_code(R, &e);
  }
  /* One node holds every rank: a copy or parity there dies with that node's
   * LOCAL directory, so refuse rather than pretend. */
  if (r->nnodes < 2 && r->levels) {
    mpisw_fail(&e, MPISW_K_USAGE, "the %s level needs ranks on two nodes or more, but all %d "
               "ranks are on node '%s': a copy on the same node would be lost with it (set "
               "ckpt_%s_every=0, or run on more nodes)",
               (r->levels & MPISW_REDUND_PARTNER) ? "PARTNER" : "XOR", r->size, r->host,
               (r->levels & MPISW_REDUND_PARTNER) ? "partner" : "xor");
    release(r);
    return mpisw_error_code(R, &e);
  }
  if ((r->levels & MPISW_REDUND_XOR) && mpisw_xor_open(r, &e) != 0) {
    release(r);
    return mpisw_error_code(R, &e);
  }
  if ((r->levels & MPISW_REDUND_PARTNER) && mpisw_partner_open(r, o->image_max, &e) != 0) {
    release(r);
    return mpisw_error_code(R, &e);
  }
  *out = r;
  return MPI_SUCCESS;
}

static int check_level(const struct mpisw_redund *r, int level, struct mpisw_error *e) {
  if (!r) return mpisw_fail(e, MPISW_K_USAGE, "the handle is NULL");
  if (level != MPISW_REDUND_PARTNER && level != MPISW_REDUND_XOR)
    return mpisw_fail(e, MPISW_K_USAGE, "level %d: PARTNER (2) or XOR (4)", level);
  if (!(r->levels & level))
    return mpisw_fail(e, MPISW_K_USAGE, "level %s was not opened",
                      level == MPISW_REDUND_XOR ? "XOR" : "PARTNER");
  return 0;
}

int mpisw_redund_store(struct mpisw_redund *r, int level, int version, const char *image_path) {
  const char *R = "mpisw_redund_store";
  struct mpisw_error e;
  if (check_level(r, level, &e) != 0) return mpisw_error_code(R, &e);
  int failed = 0;
  if (version < 0 || !image_path)
    failed = mpisw_fail(&e, MPISW_K_USAGE, "version %d < 0 or no image path", version) != 0;
  if (mpisw_agree(r->comm, failed, &e, NULL)) return mpisw_error_code(R, &e);
  int rc = level == MPISW_REDUND_PARTNER ? mpisw_partner_store(r, version, image_path, &e)
                                         : mpisw_xor_store(r, version, image_path, &e);
  return rc ? mpisw_error_code(R, &e) : MPI_SUCCESS;
}

int mpisw_redund_versions(struct mpisw_redund *r, int level, int *versions, int max, int *count) {
  const char *R = "mpisw_redund_versions";
  struct mpisw_error e;
  if (check_level(r, level, &e) != 0) return mpisw_error_code(R, &e);
  if (!versions || !count || max < 0) {
    mpisw_fail(&e, MPISW_K_USAGE, "NULL versions or count");
    return mpisw_error_code(R, &e);
  }
  *count = 0;
  int rc = level == MPISW_REDUND_PARTNER ? mpisw_partner_versions(r, versions, max, count, &e)
                                         : mpisw_xor_versions(r, versions, max, count, &e);
  return rc ? mpisw_error_code(R, &e) : MPI_SUCCESS;
}

int mpisw_redund_rebuild(struct mpisw_redund *r, int level, int version, int need, char *path,
                         size_t pathlen) {
  const char *R = "mpisw_redund_rebuild";
  struct mpisw_error e;
  if (check_level(r, level, &e) != 0) return mpisw_error_code(R, &e);
  char tmp[PATH_MAX] = "";
  int rc = level == MPISW_REDUND_PARTNER
               ? mpisw_partner_rebuild(r, version, need, tmp, sizeof tmp, &e)
               : mpisw_xor_rebuild(r, version, need, tmp, sizeof tmp, &e);
  if (path && pathlen) snprintf(path, pathlen, "%s", rc ? "" : tmp);
  return rc ? mpisw_error_code(R, &e) : MPI_SUCCESS;
}

int mpisw_redund_close(struct mpisw_redund **pr) {
  if (!pr || !*pr) return MPI_SUCCESS;
  struct mpisw_redund *r = *pr;
  PMPI_Barrier(r->comm);
  release(r);
  *pr = NULL;
  return MPI_SUCCESS;
}

void mpisw_redund_layout(const struct mpisw_redund *r, int *partner, int *xor_k, int *xor_pos,
                         int *nnodes) {
  if (partner) *partner = r->partner;
  if (xor_k) *xor_k = r->xk;
  if (xor_pos) *xor_pos = r->xpos;
  if (nnodes) *nnodes = r->nnodes;
}
