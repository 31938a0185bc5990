/* The XOR level: parity over groups of k ranks on distinct nodes, so that
 * any one lost member of a group is rebuilt byte-exact from the others.
 *
 * Layout (a generalisation of SCR's rotated chunks to images of different
 * sizes): the group shares a position space [0, T) with
 *     T = max(ceil(sum of sizes / (k-1)), largest size);
 * member j owns a range R_j of it (the ranges cut [0, T) in member order,
 * |R_j| <= T - size_j) and stores the parity of that range:
 *     P[p] = XOR of every other member's byte at position p,
 * where member i's image fills the positions outside R_i in order (zeros
 * past its end). Every position thus has its parity on a member that has no
 * data there: losing one member loses data the parity still covers, or the
 * parity of data that is still there. The parity is T bytes in all:
 * 1/(k-1) of the group's data (rounded up) unless one image is larger than
 * that share, then the largest image. Store: one
 * MPI_Reduce_scatter(MPI_BXOR) per piece of [0, T), member j receiving
 * its range. Rebuild of member m: every survivor sends its parity bytes in
 * its own range and its data elsewhere; their XOR (MPI_Reduce to m) is m's
 * data outside R_m and m's parity inside it.
 *
 * Groups: ranks in the order (local index, node), each group filled with
 * the next ranks whose nodes it does not hold yet; k is at most the number
 * of nodes. A rank left alone at the end joins an earlier group without
 * its node (that group has k+1 members). The parity file of a version is
 * <LOCAL>/<name>.xor.r<rank>.v<version>: a header (every member's rank,
 * image size, checksum, range and path under LOCAL) and the parity. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt/redund_internal.h"
#include "core/hash.h"
#include "core/path.h"
#include "core/warn.h"
#include "win/internal.h"

#define X_MAGIC "MPISWXR1"
#define X_MAX_LIST 64

struct xhdr {
  char magic[8];
  int32_t version, k, pos, group;
  uint64_t total, parity_sum, hdr_sum;   /* total: T */
  uint32_t hdr_len, pad;
};

struct xmember {
  int32_t rank, pad;
  uint64_t size, sum;
  uint64_t at, len;                      /* the member's parity range R */
  uint64_t ino, mtime_ns;                /* the image file as stored: a LOCAL slot
                                            rewritten since no longer counts */
  char rel[REDUND_REL_MAX];
};

static void stamp(const char *path, struct xmember *m) {
  struct stat st;
  m->ino = m->mtime_ns = 0;
  if (stat(path, &st) != 0) return;
  m->ino = (uint64_t)st.st_ino;
  m->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
}

static uint32_t hdr_len(int k) {
  uint64_t n = sizeof(struct xhdr) + (uint64_t)k * sizeof(struct xmember);
  return (uint32_t)((n + 4095) & ~(uint64_t)4095);
}

/* ---- groups ---- */
/* 1 when group g already has a rank on rank who's node. */
static int clash(const struct mpisw_redund *r, const int *group, int g, int who) {
  for (int i = 0; i < r->size; i++)
    if (group[i] == g && r->node_of[i] == r->node_of[who]) return 1;
  return 0;
}

/* group[rank] for every rank (same answer on every rank: the node map is
 * global). Returns the number of groups, or -1 - the rank left alone. */
static int make_groups(const struct mpisw_redund *r, int k, int *group) {
  int n = r->size, maxl = 0, m = 0, ng = 0;
  int *seq = malloc(sizeof(int) * (size_t)n);
  if (!seq) return -1 - n;
  for (int i = 0; i < n; i++) {
    group[i] = -1;
    if (r->local_of[i] + 1 > maxl) maxl = r->local_of[i] + 1;
  }
  for (int l = 0; l < maxl; l++)
    for (int nd = 0; nd < r->nnodes; nd++)
      for (int i = 0; i < n; i++)
        if (r->node_of[i] == nd && r->local_of[i] == l) seq[m++] = i;
  for (int a = 0; a < n; a++) {
    if (group[seq[a]] >= 0) continue;
    int g = ng++, have = 0;
    for (int b = a; b < n && have < k; b++)
      if (group[seq[b]] < 0 && !clash(r, group, g, seq[b])) {
        group[seq[b]] = g;
        have++;
      }
    if (have > 1) continue;
    /* alone: an earlier group without a rank on its node takes it */
    int who = seq[a], to = -1;
    group[who] = -1;
    ng--;
    for (int h = 0; h < ng && to < 0; h++)
      if (!clash(r, group, h, who)) to = h;
    if (to < 0) {
      free(seq);
      return -1 - who;
    }
    group[who] = to;
  }
  free(seq);
  return ng;
}

int mpisw_xor_open(struct mpisw_redund *r, struct mpisw_error *e) {
  int k = r->xor_k < r->nnodes ? r->xor_k : r->nnodes;
  if (k < r->xor_k)
    mpisw_warn("ckpt_xor_size %d but only %d nodes: XOR groups of %d ranks (parity 1/%d of "
               "the data)", r->xor_k, r->nnodes, k, k - 1);
  int *group = calloc((size_t)r->size, sizeof(int));
  int ng = group ? make_groups(r, k, group) : -1 - r->size, failed = 0;
  if (ng < 0 && -1 - ng >= r->size)
    failed = mpisw_fail(e, MPISW_K_NOMEM, "no memory for XOR groups") != 0;
  else if (ng < 0)
    failed = mpisw_fail(e, MPISW_K_USAGE, "rank %d cannot join an XOR group of ranks on "
                        "distinct nodes (every group already has a rank on its node)",
                        -1 - ng) != 0;
  if (!failed) {
    r->xgroup = group[r->rank];
    int cnt = 0;
    for (int i = 0; i < r->size; i++) cnt += group[i] == r->xgroup;
    r->xmembers = malloc(sizeof(int) * (size_t)cnt);
    if (!r->xmembers) failed = mpisw_fail(e, MPISW_K_NOMEM, "no memory for XOR groups") != 0;
  }
  /* places in rank order, so every member numbers the group alike */
  r->xk = 0;
  for (int i = 0; !failed && i < r->size; i++)
    if (group[i] == r->xgroup) {
      if (i == r->rank) r->xpos = r->xk;
      r->xmembers[r->xk++] = i;
    }
  free(group);
  /* every rank splits, a failed one out of every group */
  if (PMPI_Comm_split(r->comm, failed ? MPI_UNDEFINED : r->xgroup, r->xpos, &r->xcomm) !=
          MPI_SUCCESS && !failed)
    failed = mpisw_fail(e, MPISW_K_IO, "MPI_Comm_split for the XOR groups failed") != 0;
  if (r->xcomm != MPI_COMM_NULL) PMPI_Comm_set_errhandler(r->xcomm, MPI_ERRORS_RETURN);
  return mpisw_agree(r->comm, failed, e, NULL);
}

void mpisw_xor_close(struct mpisw_redund *r) {
  if (r->xcomm != MPI_COMM_NULL) PMPI_Comm_free(&r->xcomm);
  r->xcomm = MPI_COMM_NULL;
  free(r->xmembers);
  r->xmembers = NULL;
}

/* ---- the layout of one version ---- */
/* T and every member's range from the sizes (same on every member). */
static uint64_t ranges(struct xmember *mb, int k) {
  uint64_t sum = 0, max = 0;
  for (int i = 0; i < k; i++) {
    sum += mb[i].size;
    if (mb[i].size > max) max = mb[i].size;
  }
  uint64_t t = (sum + (uint64_t)(k - 2)) / (uint64_t)(k - 1);
  if (t < max) t = max;
  /* sum of (t - size) >= t, so the ranges cover [0, t) */
  uint64_t left = t;
  for (int i = 0; i < k; i++) {
    uint64_t room = t - mb[i].size, len = room < left ? room : left;
    mb[i].at = t - left;
    mb[i].len = len;
    left -= len;
  }
  return t;
}

/* Member i's bytes at positions [o, o+b): its image outside its range, in
 * its range zeros (pfd < 0) or its parity (read from pfd at off + p - at). */
static int fill(const struct xmember *m, int img, const char *ipath, int pfd, const char *ppath,
                uint64_t off, uint64_t o, size_t b, char *dst, struct mpisw_error *e) {
  memset(dst, 0, b);
  uint64_t end = o + b;
  /* before the range: data byte d = p */
  uint64_t s0 = o, e0 = end < m->at ? end : m->at;
  if (s0 < e0 && s0 < m->size) {
    uint64_t n = (e0 < m->size ? e0 : m->size) - s0;
    if (mpisw_redund_pread(img, dst, (size_t)n, s0, ipath, e)) return -1;
  }
  /* the range: parity */
  uint64_t s1 = o > m->at ? o : m->at, e1 = end < m->at + m->len ? end : m->at + m->len;
  if (s1 < e1 && pfd >= 0 &&
      mpisw_redund_pread(pfd, dst + (s1 - o), (size_t)(e1 - s1), off + (s1 - m->at), ppath, e))
    return -1;
  /* after the range: data byte d = p - len */
  uint64_t s2 = o > m->at + m->len ? o : m->at + m->len;
  if (s2 < end) {
    uint64_t d0 = s2 - m->len, d1 = end - m->len;
    if (d1 > m->size) d1 = m->size;
    if (d0 < d1 &&
        mpisw_redund_pread(img, dst + (s2 - o), (size_t)(d1 - d0), d0, ipath, e))
      return -1;
  }
  return 0;
}

/* ---- parity files ---- */
void mpisw_redund_xor_path(const struct mpisw_redund *r, int version, char *out, size_t len) {
  snprintf(out, len, "%s/%s.xor.r%d.v%d", r->dir, r->name, r->rank, version);
}

static uint64_t header_sum(const char *hdr, uint32_t len) {
  struct xhdr h;
  memcpy(&h, hdr, sizeof h);
  h.hdr_sum = 0;
  uint64_t s = mpisw_hash64(REDUND_SUM0, &h, sizeof h);
  return mpisw_hash64(s, hdr + sizeof h, len - sizeof h);
}

/* Reads and checks the header of this rank's parity file of version: the
 * group today's (same members, this rank at its place), the header's
 * checksum right, the file as long as its range. Returns a malloc'd header
 * (hdr_len bytes) or NULL. */
static char *parity_header(const struct mpisw_redund *r, int version) {
  char path[PATH_MAX];
  mpisw_redund_xor_path(r, version, path, sizeof path);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  uint32_t len = hdr_len(r->xk);
  char *buf = malloc(len);
  struct stat st;
  int ok = buf && fstat(fd, &st) == 0 && pread(fd, buf, len, 0) == (ssize_t)len;
  close(fd);
  struct xhdr *h = (struct xhdr *)buf;
  const struct xmember *mb = (const struct xmember *)(buf + sizeof *h);
  ok = ok && !memcmp(h->magic, X_MAGIC, 8) && h->version == version && h->k == r->xk &&
       h->pos == r->xpos && h->hdr_len == len && h->hdr_sum == header_sum(buf, len) &&
       (uint64_t)st.st_size == len + mb[r->xpos].len;
  for (int i = 0; ok && i < r->xk; i++) ok = mb[i].rank == r->xmembers[i];
  if (!ok) {
    free(buf);
    return NULL;
  }
  return buf;
}

static size_t piece_of(uint64_t total, uint64_t o) {
  return total - o < REDUND_IO_PIECE ? (size_t)(total - o) : REDUND_IO_PIECE;
}

/* Versions of this rank's parity files, newest first (at most max). */
static int list_versions(const struct mpisw_redund *r, int *v, int max) {
  char prefix[REDUND_NAME_MAX + 32];
  int n = snprintf(prefix, sizeof prefix, "%s.xor.r%d.v", r->name, r->rank), cnt = 0;
  DIR *d = opendir(r->dir);
  if (!d) return 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (strncmp(de->d_name, prefix, (size_t)n)) continue;
    char *end;
    long x = strtol(de->d_name + n, &end, 10);
    if (*end || end == de->d_name + n || x < 0 || x > 0x7fffffff) continue;
    int at = cnt < max ? cnt++ : max;
    while (at > 0 && v[at - 1] < (int)x) {
      if (at < max) v[at] = v[at - 1];
      at--;
    }
    if (at < max) v[at] = (int)x;
  }
  closedir(d);
  return cnt < max ? cnt : max;
}

/* Keeps the newest KEEP parity files of this rank. */
static void prune(const struct mpisw_redund *r) {
  int v[X_MAX_LIST * 2];
  int n = list_versions(r, v, X_MAX_LIST * 2);
  for (int i = r->keep; i < n; i++) {
    char path[PATH_MAX];
    mpisw_redund_xor_path(r, v[i], path, sizeof path);
    mpisw_path_unlink(path);
  }
}

/* Writes the header into the temporary parity file and commits it. */
static int write_parity(const struct mpisw_redund *r, int version, const struct xmember *mb,
                        uint64_t total, int fd_tmp, const char *tmp, uint64_t psum,
                        struct mpisw_error *e) {
  uint32_t len = hdr_len(r->xk);
  char *hdr = calloc(1, len);
  if (!hdr) return mpisw_fail(e, MPISW_K_NOMEM, "no memory");
  struct xhdr *h = (struct xhdr *)hdr;
  memcpy(h->magic, X_MAGIC, 8);
  h->version = version;
  h->k = r->xk;
  h->pos = r->xpos;
  h->group = r->xgroup;
  h->total = total;
  h->parity_sum = psum;
  h->hdr_len = len;
  memcpy(hdr + sizeof *h, mb, sizeof *mb * (size_t)r->xk);
  h->hdr_sum = header_sum(hdr, len);
  int rc = mpisw_redund_pwrite(fd_tmp, hdr, len, 0, tmp, e);
  free(hdr);
  if (rc) {
    close(fd_tmp);
    mpisw_path_unlink(tmp);
    return -1;
  }
  char path[PATH_MAX];
  mpisw_redund_xor_path(r, version, path, sizeof path);
  return mpisw_redund_commit(fd_tmp, tmp, path, e);
}

int mpisw_xor_store(struct mpisw_redund *r, int version, const char *path,
                    struct mpisw_error *e) {
  struct xmember me;
  memset(&me, 0, sizeof me);
  me.rank = r->rank;
  int failed = mpisw_redund_relpath(r, path, me.rel, e) != 0;
  if (!failed) failed = mpisw_redund_file_sum(path, &me.size, &me.sum, e) != 0;
  stamp(path, &me);
  int k = r->xk;
  struct xmember *mb = calloc((size_t)k, sizeof *mb);
  char *contrib = malloc(REDUND_IO_PIECE), *out = malloc(REDUND_IO_PIECE);
  int *counts = malloc(sizeof(int) * (size_t)k);
  if (!failed && (!mb || !contrib || !out || !counts))
    failed = mpisw_fail(e, MPISW_K_NOMEM, "no memory for XOR parity") != 0;
  if (mpisw_agree(r->comm, failed, e, NULL)) {
    free(mb), free(contrib), free(out), free(counts);
    return -1;
  }
  PMPI_Allgather(&me, (int)sizeof me, MPI_BYTE, mb, (int)sizeof me, MPI_BYTE, r->xcomm);
  uint64_t total = ranges(mb, k);
  const struct xmember *my = &mb[r->xpos];
  char tmp[PATH_MAX + 16], ppath[PATH_MAX];
  mpisw_redund_xor_path(r, version, ppath, sizeof ppath);
  snprintf(tmp, sizeof tmp, "%s.redund-tmp", ppath);
  int img = open(path, O_RDONLY | O_CLOEXEC);
  int fd = img < 0 ? -1 : open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (img < 0 || fd < 0)
    failed = mpisw_fail(e, mpisw_errno_kind(errno), "%s: %s", img < 0 ? path : tmp,
                        strerror(errno)) != 0;
  uint32_t len = hdr_len(k);
  uint64_t psum = REDUND_SUM0;
  /* every member goes through every piece, a failed one with zeros, so the
   * reductions stay matched; the agreement below tells */
  for (uint64_t o = 0; o < total;) {
    size_t b = piece_of(total, o);
    if (failed)
      memset(contrib, 0, b);
    else if (fill(my, img, path, -1, NULL, 0, o, b, contrib, e))
      failed = 1;
    uint64_t mine = 0;
    for (int j = 0; j < k; j++) {   /* member j receives its range's part */
      uint64_t s = o > mb[j].at ? o : mb[j].at, t = o + b;
      if (t > mb[j].at + mb[j].len) t = mb[j].at + mb[j].len;
      counts[j] = s < t ? (int)(t - s) : 0;
      if (j == r->xpos) mine = s - mb[j].at;
    }
    if (PMPI_Reduce_scatter(contrib, out, counts, MPI_BYTE, MPI_BXOR, r->xcomm) != MPI_SUCCESS &&
        !failed)
      failed = mpisw_fail(e, MPISW_K_IO, "MPI_Reduce_scatter of the XOR group failed") != 0;
    size_t got = (size_t)counts[r->xpos];
    if (!failed && got) failed = mpisw_redund_pwrite(fd, out, got, len + mine, tmp, e) != 0;
    psum = mpisw_hash64(psum, out, got);
    o += b;
  }
  if (img >= 0) close(img);
  if (!failed) {
    failed = write_parity(r, version, mb, total, fd, tmp, psum, e) != 0;
    fd = -1;   /* closed by write_parity */
  }
  if (fd >= 0) {
    close(fd);
    mpisw_path_unlink(tmp);
  }
  free(mb), free(contrib), free(out), free(counts);
  if (mpisw_agree(r->comm, failed, e, NULL)) return -1;
  prune(r);
  return 0;
}

/* 1 when this rank holds version whole: its parity file and its image as
 * the parity's header recorded it (the image's checksum read when full). */
static int holds(const struct mpisw_redund *r, int version, int full) {
  char *hdr = parity_header(r, version);
  if (!hdr) return 0;
  const struct xmember *mb = (const struct xmember *)(hdr + sizeof(struct xhdr));
  char path[PATH_MAX + REDUND_REL_MAX];
  snprintf(path, sizeof path, "%s/%s", r->dir, mb[r->xpos].rel);
  struct xmember now;
  stamp(path, &now);
  struct stat st;
  int ok = stat(path, &st) == 0 && (uint64_t)st.st_size == mb[r->xpos].size &&
           now.ino == mb[r->xpos].ino && now.mtime_ns == mb[r->xpos].mtime_ns;
  if (ok && full) {
    struct mpisw_error e;
    uint64_t size, sum;
    ok = mpisw_redund_file_sum(path, &size, &sum, &e) == 0 && sum == mb[r->xpos].sum;
  }
  free(hdr);
  return ok;
}

int mpisw_xor_versions(struct mpisw_redund *r, int *v, int max, int *n, struct mpisw_error *e) {
  int mine[X_MAX_LIST], cnt = list_versions(r, mine, X_MAX_LIST), ok[X_MAX_LIST];
  for (int i = 0; i < X_MAX_LIST; i++) ok[i] = -1;
  for (int i = 0, j = 0; i < cnt; i++)
    if (holds(r, mine[i], 0)) ok[j++] = mine[i];
  int *all = malloc(sizeof(int) * X_MAX_LIST * (size_t)r->xk);
  int failed = !all;
  if (failed) mpisw_fail(e, MPISW_K_NOMEM, "no memory");
  if (mpisw_agree(r->comm, failed, e, NULL)) {
    free(all);
    return -1;
  }
  PMPI_Allgather(ok, X_MAX_LIST, MPI_INT, all, X_MAX_LIST, MPI_INT, r->xcomm);
  /* candidates: what the next member holds (this rank's own files may be
   * gone); kept when every other member holds it too */
  int other = (r->xpos + 1) % r->xk;
  *n = 0;
  for (int i = 0; i < X_MAX_LIST && *n < max; i++) {
    int ver = all[other * X_MAX_LIST + i], everywhere = ver >= 0;
    for (int m = 0; everywhere && m < r->xk; m++) {
      if (m == r->xpos) continue;
      int found = 0;
      for (int j = 0; j < X_MAX_LIST && !found; j++) found = all[m * X_MAX_LIST + j] == ver;
      everywhere = found;
    }
    if (everywhere) v[(*n)++] = ver;
  }
  free(all);
  return 0;
}

/* Who of the group lost version: every rank gets the group's verdict, an
 * error when more than one member is gone. *lost -1 when none. */
static int find_lost(struct mpisw_redund *r, int version, int ok, int *lost, int *root,
                     struct mpisw_error *e) {
  int k = r->xk, nlost = 0;
  int *oks = malloc(sizeof(int) * (size_t)k);
  int failed = !oks;
  if (failed) mpisw_fail(e, MPISW_K_NOMEM, "no memory");
  if (mpisw_agree(r->comm, failed, e, NULL)) {
    free(oks);
    return -1;
  }
  PMPI_Allgather(&ok, 1, MPI_INT, oks, 1, MPI_INT, r->xcomm);
  char who[256] = "", all[256] = "";
  *lost = *root = -1;
  for (int i = 0; i < k; i++) {
    size_t l = strlen(all);
    snprintf(all + l, sizeof all - l, "%s%d", l ? ", " : "", r->xmembers[i]);
    if (oks[i]) {
      if (*root < 0) *root = i;
      continue;
    }
    nlost++;
    *lost = i;
    l = strlen(who);
    snprintf(who + l, sizeof who - l, "%s%d", l ? " and " : "", r->xmembers[i]);
  }
  free(oks);
  if (nlost > 1)
    failed = mpisw_fail(e, MPISW_K_IO, "version %d cannot be rebuilt: XOR group {%s} lost ranks "
                        "%s (image or parity gone or damaged), and XOR rebuilds one lost member "
                        "per group; nothing was written", version, all, who) != 0;
  return mpisw_agree(r->comm, failed, e, NULL);
}

int mpisw_xor_rebuild(struct mpisw_redund *r, int version, int need, char *outpath,
                      size_t outlen, struct mpisw_error *e) {
  int k = r->xk, ok = !need && holds(r, version, 1), lost, root;
  if (find_lost(r, version, ok, &lost, &root, e)) return -1;
  int failed = 0;
  if (lost < 0) return mpisw_agree(r->comm, failed, e, NULL);   /* other groups may work */
  /* One member lost in this group: the first survivor's header tells sizes,
   * checksums, ranges and paths; then one reduction per piece to it. */
  uint32_t len = hdr_len(k);
  char *hdr = calloc(1, len), *mine = ok ? parity_header(r, version) : NULL;
  if (hdr && mine) memcpy(hdr, mine, len);
  free(mine);
  char *contrib = malloc(REDUND_IO_PIECE), *sum = malloc(REDUND_IO_PIECE);
  if (!hdr || !contrib || !sum) {   /* out of memory: the group cannot go on */
    free(hdr), free(contrib), free(sum);
    mpisw_fail(e, MPISW_K_NOMEM, "no memory for the XOR rebuild");
    return mpisw_agree(r->comm, 1, e, NULL);
  }
  PMPI_Bcast(hdr, (int)len, MPI_BYTE, root, r->xcomm);
  struct xhdr *h = (struct xhdr *)hdr;
  struct xmember *mb = (struct xmember *)(hdr + sizeof *h), *my = &mb[r->xpos];
  uint64_t total = h->total;
  char ipath[PATH_MAX + REDUND_REL_MAX], itmp[PATH_MAX + REDUND_REL_MAX + 16];
  char ppath[PATH_MAX], ptmp[PATH_MAX + 16];
  snprintf(ipath, sizeof ipath, "%s/%s", r->dir, my->rel);
  snprintf(itmp, sizeof itmp, "%s.redund-tmp", ipath);
  mpisw_redund_xor_path(r, version, ppath, sizeof ppath);
  snprintf(ptmp, sizeof ptmp, "%s.redund-tmp", ppath);
  int img = -1, pfd = -1, ifd = -1;
  if (ok) {   /* a survivor reads its image and its parity */
    img = open(ipath, O_RDONLY | O_CLOEXEC);
    pfd = open(ppath, O_RDONLY | O_CLOEXEC);
    if (img < 0 || pfd < 0)
      failed = mpisw_fail(e, MPISW_K_IO, "%s: %s", img < 0 ? ipath : ppath, strerror(errno)) != 0;
  } else {   /* the lost one writes both */
    failed = mpisw_redund_mkparents(ipath, e) != 0;
    if (!failed) {
      ifd = open(itmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      pfd = open(ptmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      if (ifd < 0 || pfd < 0)
        failed = mpisw_fail(e, mpisw_errno_kind(errno), "%s: %s", ifd < 0 ? itmp : ptmp,
                            strerror(errno)) != 0;
    }
  }
  uint64_t psum = REDUND_SUM0;
  for (uint64_t o = 0; o < total;) {
    size_t b = piece_of(total, o);
    if (!ok || failed)
      memset(contrib, 0, b);
    else if (fill(my, img, ipath, pfd, ppath, len, o, b, contrib, e))
      failed = 1;
    if (PMPI_Reduce(contrib, sum, (int)b, MPI_BYTE, MPI_BXOR, lost, r->xcomm) != MPI_SUCCESS &&
        !failed)
      failed = mpisw_fail(e, MPISW_K_IO, "MPI_Reduce of the XOR group failed") != 0;
    if (!ok && !failed) {
      /* positions before, in and after this member's range */
      uint64_t end = o + b, a = my->at, z = my->at + my->len;
      uint64_t s0 = o, e0 = end < a ? end : a;
      if (s0 < e0 && s0 < my->size)
        failed = mpisw_redund_pwrite(ifd, sum, (size_t)((e0 < my->size ? e0 : my->size) - s0),
                                     s0, itmp, e) != 0;
      uint64_t s1 = o > a ? o : a, e1 = end < z ? end : z;
      if (!failed && s1 < e1) {
        failed = mpisw_redund_pwrite(pfd, sum + (s1 - o), (size_t)(e1 - s1), len + (s1 - a),
                                     ptmp, e) != 0;
        psum = mpisw_hash64(psum, sum + (s1 - o), (size_t)(e1 - s1));
      }
      uint64_t s2 = o > z ? o : z;
      if (!failed && s2 < end) {
        uint64_t d0 = s2 - my->len, d1 = end - my->len;
        if (d1 > my->size) d1 = my->size;
        if (d0 < d1)
          failed = mpisw_redund_pwrite(ifd, sum + (s2 - o), (size_t)(d1 - d0), d0, itmp, e) != 0;
      }
    }
    o += b;
  }
  free(contrib), free(sum);
  if (img >= 0) close(img);
  if (ok && pfd >= 0) close(pfd);
  if (!ok) {
    /* the image whole again only if it matches the checksum it was stored with */
    uint64_t size = 0, check = 0;
    if (!failed && ftruncate(ifd, (off_t)my->size) != 0)
      failed = mpisw_fail(e, MPISW_K_IO, "%s: %s", itmp, strerror(errno)) != 0;
    if (!failed && mpisw_redund_file_sum(itmp, &size, &check, e) != 0) failed = 1;
    if (!failed && (size != my->size || check != my->sum))
      failed = mpisw_fail(e, MPISW_K_IO, "the image of version %d rebuilt from XOR does not "
                          "match its checksum (a survivor's data changed after the parity was "
                          "made); not written", version) != 0;
    if (!failed) {
      failed = mpisw_redund_commit(ifd, itmp, ipath, e) != 0;
      ifd = -1;
      stamp(ipath, my);   /* the rebuilt file is the one its parity now vouches for */
    }
    if (!failed) {
      failed = write_parity(r, version, mb, total, pfd, ptmp, psum, e) != 0;
      pfd = -1;
    }
    if (ifd >= 0) close(ifd), mpisw_path_unlink(itmp);
    if (pfd >= 0) close(pfd), mpisw_path_unlink(ptmp);
    if (!failed && outpath) snprintf(outpath, outlen, "%s", ipath);
  }
  free(hdr);
  return mpisw_agree(r->comm, failed, e, NULL);
}
