/* The PARTNER level: each rank's image is copied with RMA into the storage
 * window of its partner, the rank with the same local index on the next
 * node (a ring over nodes), and made durable there.
 *
 * The window (file <LOCAL>/<name>.partner.r<rank>, kept after the job) holds
 * the copies of this rank's clients (the ranks whose partner it is): a
 * header page, then KEEP slots per client, each a 512-byte slot header and
 * slot_size bytes of image. A slot counts once its header says complete and
 * its bytes match the header's checksum, so a copy torn by a crash (the
 * header page written back before the data) is never taken for good. */
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
#include "mpisw.h"
#include "win/internal.h"
#include "win/remote.h"

#define P_MAGIC "MPISWPT1"
#define P_HDR 4096u
#define P_SLOT_HDR 512u
#define P_MAX_CLIENTS 1000

struct phdr {
  char magic[8];
  uint32_t keep, nclients;
  uint64_t slot_size;
  int32_t clients[P_MAX_CLIENTS];
};

struct pslot {
  char magic[8];
  int32_t owner, version;
  uint32_t complete, pad;
  uint64_t length, sum;
  char rel[REDUND_REL_MAX];
};

_Static_assert(sizeof(struct phdr) <= P_HDR, "partner header fits its page");
_Static_assert(sizeof(struct pslot) <= P_SLOT_HDR, "slot header fits");

/* The rank holding c's copy: same local index (modulo its size) on the next node. */
static int partner_of(const struct mpisw_redund *r, int c) {
  int n = (r->node_of[c] + 1) % r->nnodes;
  int want = r->local_of[c] % r->node_count[n];
  for (int i = 0; i < r->size; i++)
    if (r->node_of[i] == n && r->local_of[i] == want) return i;
  return -1;
}

static uint64_t stride(uint64_t slot_size) { return P_SLOT_HDR + slot_size; }

static uint64_t slot_off(uint64_t slot_size, int keep, int ci, int s) {
  return P_HDR + ((uint64_t)ci * (uint64_t)keep + (uint64_t)s) * stride(slot_size);
}

/* This rank's place in its partner's client list. */
static int client_index(const struct mpisw_redund *r) {
  int ci = 0;
  for (int c = 0; c < r->rank; c++)
    if (partner_of(r, c) == r->partner) ci++;
  return ci;
}

static void window_path(const struct mpisw_redund *r, char *out, size_t len) {
  snprintf(out, len, "%s/%s.partner.r%d", r->dir, r->name, r->rank);
}

static int same_clients(const struct phdr *h, const struct mpisw_redund *r) {
  if ((int)h->nclients != r->nclients || (int)h->keep != r->keep) return 0;
  for (int i = 0; i < r->nclients; i++)
    if (h->clients[i] != r->clients[i]) return 0;
  return 1;
}

/* (Re)makes the window so every client's slot holds slot_need bytes,
 * keeping the copies already in the file when its clients and KEEP are
 * today's (slots moved to the wider stride); else the file starts over.
 * Collective; agreed. */
static int make_window(struct mpisw_redund *r, uint64_t slot_need, struct mpisw_error *e) {
  const char *R = "mpisw_redund(PARTNER)";
  if (r->pwin != MPI_WIN_NULL) mpisw_win_free(&r->pwin);   /* syncs; the file stays */
  r->pbase = NULL;
  char path[PATH_MAX];
  window_path(r, path, sizeof path);
  struct phdr old;
  memset(&old, 0, sizeof old);
  uint64_t fsize = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    struct stat st;
    if (fstat(fd, &st) == 0) fsize = (uint64_t)st.st_size;
    if (pread(fd, &old, sizeof old, 0) != (ssize_t)sizeof old) memset(&old, 0, sizeof old);
    close(fd);
  }
  int keep_old = !memcmp(old.magic, P_MAGIC, 8) && same_clients(&old, r);
  uint64_t slot = (slot_need + 4095) & ~(uint64_t)4095;
  if (keep_old && old.slot_size > slot) slot = old.slot_size;
  uint64_t size = slot_off(slot, r->keep, r->nclients, 0);
  if (size < fsize) size = fsize;   /* an earlier, larger layout stays mapped */

  MPI_Info info;
  PMPI_Info_create(&info);
  PMPI_Info_set(info, "alloc_type", "storage");
  PMPI_Info_set(info, "storage_alloc_filename", path);
  PMPI_Info_set(info, "storage_alloc_factor", "1");
  PMPI_Info_set(info, "storage_alloc_offset", "0");
  PMPI_Info_set(info, "storage_alloc_unlink", "false");
  PMPI_Info_set(info, "storage_alloc_discard", "false");
  /* plain displacements: our RMA goes to the MPI's window directly */
  PMPI_Info_set(info, "storage_node_shared", "false");
  int rc = mpisw_win_allocate(R, (MPI_Aint)size, 1, info, r->comm, &r->pbase, &r->pwin, 0);
  PMPI_Info_free(&info);
  if (rc != MPI_SUCCESS) {   /* every rank failed (the allocation agrees) */
    r->pwin = MPI_WIN_NULL;
    r->pbase = NULL;
    char s[MPI_MAX_ERROR_STRING];
    int n = 0, cls = -1, kind = MPISW_K_IO;
    PMPI_Error_string(rc, s, &n);
    PMPI_Error_class(rc, &cls);
    for (int k = 0; k < MPISW_K_COUNT; k++) {   /* keep its class: a full LOCAL is NOSPACE */
      int c = -2;
      if (mpisw_error_class(k, &c) == MPI_SUCCESS && c == cls) kind = k;
    }
    const char *why = s;   /* without the allocation's own "mpisw: <routine>: " */
    if (!strncmp(why, "mpisw: ", 7) && strstr(why + 7, ": ")) why = strstr(why + 7, ": ") + 2;
    return mpisw_fail(e, kind, "cannot make the partner windows (%llu bytes here, %s): %s",
                      (unsigned long long)size, keep_old ? "copies kept" : "new", why);
  }
  PMPI_Win_set_errhandler(r->pwin, MPI_ERRORS_RETURN);
  r->pwin_size = size;
  struct phdr *h = (struct phdr *)r->pbase;
  if (keep_old && slot > old.slot_size) {
    /* wider slots: move the copies, last first (they only move up) */
    for (int idx = r->nclients * r->keep - 1; idx >= 0; idx--) {
      char *from = r->pbase + P_HDR + (uint64_t)idx * stride(old.slot_size);
      char *to = r->pbase + P_HDR + (uint64_t)idx * stride(slot);
      memmove(to, from, stride(old.slot_size));
    }
  } else if (!keep_old) {
    memset(r->pbase, 0, P_HDR);
    for (int idx = 0; idx < r->nclients * r->keep; idx++)
      memset(r->pbase + P_HDR + (uint64_t)idx * stride(slot), 0, P_SLOT_HDR);
  }
  memcpy(h->magic, P_MAGIC, 8);
  h->keep = (uint32_t)r->keep;
  h->nclients = (uint32_t)r->nclients;
  h->slot_size = slot;
  for (int i = 0; i < r->nclients; i++) h->clients[i] = r->clients[i];
  int failed = mpisw_win_sync_storage(mpisw_win_lookup(r->pwin), e) != 0;
  return mpisw_agree(r->comm, failed, e, NULL);
}

int mpisw_partner_open(struct mpisw_redund *r, uint64_t image_max, struct mpisw_error *e) {
  r->partner = partner_of(r, r->rank);
  r->clients = calloc((size_t)r->size, sizeof(int));
  int failed = !r->clients;
  if (failed) mpisw_fail(e, MPISW_K_NOMEM, "no memory for the partner map");
  for (int c = 0; !failed && c < r->size; c++)
    if (partner_of(r, c) == r->rank) r->clients[r->nclients++] = c;
  if (!failed && r->nclients > P_MAX_CLIENTS)
    failed = mpisw_fail(e, MPISW_K_USAGE, "%d ranks have rank %d as PARTNER (at most %d): "
                        "nodes with very different rank counts", r->nclients, r->rank,
                        P_MAX_CLIENTS) != 0;
  uint64_t *want = failed ? NULL : calloc((size_t)r->size, sizeof *want);
  if (!failed && !want) failed = mpisw_fail(e, MPISW_K_NOMEM, "no memory") != 0;
  if (mpisw_agree(r->comm, failed, e, NULL)) {
    free(want);
    return -1;
  }
  PMPI_Allgather(&image_max, 1, MPI_UINT64_T, want, 1, MPI_UINT64_T, r->comm);
  uint64_t need = 0;
  for (int i = 0; i < r->nclients; i++)
    if (want[r->clients[i]] > need) need = want[r->clients[i]];
  free(want);
  return make_window(r, need, e);
}

void mpisw_partner_close(struct mpisw_redund *r) {
  if (r->pwin != MPI_WIN_NULL) mpisw_win_free(&r->pwin);
  r->pwin = MPI_WIN_NULL;
  free(r->clients);
  r->clients = NULL;
}

/* RMA on the partner's window, in pieces an int count holds. */
static int rma(struct mpisw_redund *r, int put, void *buf, uint64_t len, uint64_t off,
               struct mpisw_error *e) {
  for (uint64_t done = 0; done < len;) {
    int n = len - done > (1u << 30) ? 1 << 30 : (int)(len - done);
    int rc = put ? mpisw_next.Put((char *)buf + done, n, MPI_BYTE, r->partner,
                                  (MPI_Aint)(off + done), n, MPI_BYTE, r->pwin)
                 : mpisw_next.Get((char *)buf + done, n, MPI_BYTE, r->partner,
                                  (MPI_Aint)(off + done), n, MPI_BYTE, r->pwin);
    if (rc == MPI_SUCCESS) rc = mpisw_next.Win_flush(r->partner, r->pwin);
    if (rc != MPI_SUCCESS)
      return mpisw_fail(e, MPISW_K_IO, "MPI_%s at partner rank %d failed", put ? "Put" : "Get",
                        r->partner);
    done += (uint64_t)n;
  }
  return 0;
}

/* The partner's header and this rank's slot headers (under a lock the
 * caller holds). *ci -1 when the partner holds nothing of this rank. */
static int read_slots(struct mpisw_redund *r, struct phdr *h, struct pslot *s, int *ci,
                      struct mpisw_error *e) {
  *ci = -1;
  if (rma(r, 0, h, sizeof *h, 0, e)) return -1;
  if (memcmp(h->magic, P_MAGIC, 8) || h->keep < 1 || h->keep > 64) return 0;
  for (uint32_t i = 0; i < h->nclients && i < P_MAX_CLIENTS; i++)
    if (h->clients[i] == r->rank) *ci = (int)i;
  for (int k = 0; *ci >= 0 && k < (int)h->keep; k++)
    if (rma(r, 0, &s[k], sizeof s[k], slot_off(h->slot_size, (int)h->keep, *ci, k), e)) return -1;
  return 0;
}

static int slot_good(const struct pslot *s, int owner, uint64_t slot_size) {
  return !memcmp(s->magic, P_MAGIC, 8) && s->complete == 1 && s->owner == owner &&
         s->length <= slot_size;
}

/* The copy itself: this rank's image into its slot at the partner. */
static int put_copy(struct mpisw_redund *r, int version, const char *path, uint64_t size,
                    uint64_t sum, const char *rel, struct mpisw_error *e) {
  struct phdr h;
  struct pslot s[64], mine;
  int ci;
  if (read_slots(r, &h, s, &ci, e)) return -1;
  if (ci != client_index(r) || h.slot_size < size)
    return mpisw_fail(e, MPISW_K_IO, "partner rank %d's window does not list rank %d as expected",
                      r->partner, r->rank);
  /* the same version again, else a free slot, else the oldest */
  int pick = -1;
  for (int k = 0; k < (int)h.keep && pick < 0; k++)
    if (slot_good(&s[k], r->rank, h.slot_size) && s[k].version == version) pick = k;
  for (int k = 0; k < (int)h.keep && pick < 0; k++)
    if (!slot_good(&s[k], r->rank, h.slot_size)) pick = k;
  if (pick < 0) {   /* every slot holds a good copy */
    pick = 0;
    for (int k = 1; k < (int)h.keep; k++)
      if (s[k].version < s[pick].version) pick = k;
  }
  uint64_t off = slot_off(h.slot_size, (int)h.keep, ci, pick);
  memset(&mine, 0, sizeof mine);   /* first the slot is marked not complete */
  if (rma(r, 1, &mine, sizeof mine, off, e)) return -1;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return mpisw_fail(e, MPISW_K_NOFILE, "image %s: %s", path, strerror(errno));
  char *buf = malloc(REDUND_IO_PIECE);
  int rc = buf ? 0 : mpisw_fail(e, MPISW_K_NOMEM, "no memory");
  uint64_t check = REDUND_SUM0;
  for (uint64_t done = 0; rc == 0 && done < size;) {
    size_t n = size - done < REDUND_IO_PIECE ? (size_t)(size - done) : REDUND_IO_PIECE;
    rc = mpisw_redund_pread(fd, buf, n, done, path, e);
    if (rc == 0) rc = rma(r, 1, buf, n, off + P_SLOT_HDR + done, e);
    check = mpisw_hash64(check, buf, n);
    done += n;
  }
  free(buf);
  close(fd);
  if (rc) return -1;
  if (check != sum)
    return mpisw_fail(e, MPISW_K_IO, "image %s changed while it was copied to the partner", path);
  memcpy(mine.magic, P_MAGIC, 8);
  mine.owner = r->rank;
  mine.version = version;
  mine.complete = 1;
  mine.length = size;
  mine.sum = sum;
  snprintf(mine.rel, sizeof mine.rel, "%s", rel);
  return rma(r, 1, &mine, sizeof mine, off, e);
}

int mpisw_partner_store(struct mpisw_redund *r, int version, const char *path,
                        struct mpisw_error *e) {
  char rel[REDUND_REL_MAX];
  uint64_t size = 0, sum = 0;
  int failed = mpisw_redund_relpath(r, path, rel, e) != 0;
  if (!failed) failed = mpisw_redund_file_sum(path, &size, &sum, e) != 0;
  uint64_t *sizes = calloc((size_t)r->size, sizeof *sizes);
  if (!failed && !sizes) failed = mpisw_fail(e, MPISW_K_NOMEM, "no memory") != 0;
  if (mpisw_agree(r->comm, failed, e, NULL)) {
    free(sizes);
    return -1;
  }
  PMPI_Allgather(&size, 1, MPI_UINT64_T, sizes, 1, MPI_UINT64_T, r->comm);
  uint64_t need = 0;
  for (int i = 0; i < r->nclients; i++)
    if (sizes[r->clients[i]] > need) need = sizes[r->clients[i]];
  free(sizes);
  /* An image larger than its slot, or no window (a remake failed): every
   * window is made again (collective). */
  uint64_t have = r->pbase ? ((struct phdr *)r->pbase)->slot_size : 0;
  if (mpisw_any(r->comm, r->pwin == MPI_WIN_NULL || need > have) && make_window(r, need, e) != 0)
    return -1;
  failed = 0;
  if (mpisw_next.Win_lock(MPI_LOCK_EXCLUSIVE, r->partner, 0, r->pwin) != MPI_SUCCESS) {
    failed = mpisw_fail(e, MPISW_K_IO, "MPI_Win_lock of partner rank %d failed", r->partner) != 0;
  } else {
    failed = put_copy(r, version, path, size, sum, rel, e) != 0;
    if (mpisw_next.Win_unlock(r->partner, r->pwin) != MPI_SUCCESS && !failed)
      failed = mpisw_fail(e, MPISW_K_IO, "MPI_Win_unlock of partner rank %d failed",
                          r->partner) != 0;
  }
  /* The copy is made durable at the partner by this rank alone (remote
   * sync, docs/DURABILITY.md): the partner need not call anything, so the
   * decoupled form could use it too. No writes are noted on this window
   * (our puts bypass the RMA layer), so the partner's whole storage part is
   * synced: msync writes only its dirty pages. */
  int rc = failed ? MPI_SUCCESS : mpisw_remote_sync_target(r->pwin, r->partner);
  if (rc != MPI_SUCCESS) {
    char why[MPI_MAX_ERROR_STRING];
    int len = 0;
    PMPI_Error_string(rc, why, &len);
    failed = mpisw_fail(e, MPISW_K_IO, "the copy at partner rank %d is not durable: %s",
                        r->partner, why) != 0;
  }
  return mpisw_agree(r->comm, failed, e, NULL);
}

int mpisw_partner_versions(struct mpisw_redund *r, int *v, int max, int *n,
                           struct mpisw_error *e) {
  struct phdr h;
  struct pslot s[64];
  int ci = -1, failed = 0;
  *n = 0;
  if (r->pwin == MPI_WIN_NULL) {
    failed = mpisw_fail(e, MPISW_K_USAGE, "no partner window (a store failed to make it): "
                        "free the checkpoint and create it again") != 0;
  } else if (mpisw_next.Win_lock(MPI_LOCK_SHARED, r->partner, 0, r->pwin) != MPI_SUCCESS) {
    failed = mpisw_fail(e, MPISW_K_IO, "MPI_Win_lock of partner rank %d failed", r->partner) != 0;
  } else {
    failed = read_slots(r, &h, s, &ci, e) != 0;
    mpisw_next.Win_unlock(r->partner, r->pwin);
  }
  for (int k = 0; !failed && ci >= 0 && k < (int)h.keep; k++) {
    if (!slot_good(&s[k], r->rank, h.slot_size)) continue;
    int at = *n < max ? (*n)++ : max;   /* insertion, newest first */
    while (at > 0 && v[at - 1] < s[k].version) {
      if (at < max) v[at] = v[at - 1];
      at--;
    }
    if (at < max) v[at] = s[k].version;
  }
  return mpisw_agree(r->comm, failed, e, NULL);
}

/* Copies the slot back into a temporary file next to its place, checks it
 * against the slot's checksum, then renames it into place. */
static int get_copy(struct mpisw_redund *r, int version, char *out, size_t outlen,
                    struct mpisw_error *e) {
  struct phdr h;
  struct pslot s[64];
  int ci, k;
  if (read_slots(r, &h, s, &ci, e)) return -1;
  for (k = 0; ci >= 0 && k < (int)h.keep; k++)
    if (slot_good(&s[k], r->rank, h.slot_size) && s[k].version == version) break;
  if (ci < 0 || k >= (int)h.keep)
    return mpisw_fail(e, MPISW_K_NOFILE, "partner rank %d holds no copy of version %d of "
                      "rank %d (its node's LOCAL directory was lost too?)", r->partner, version,
                      r->rank);
  char path[PATH_MAX], tmp[PATH_MAX + 16];
  snprintf(path, sizeof path, "%s/%s", r->dir, s[k].rel);
  snprintf(tmp, sizeof tmp, "%s.redund-tmp", path);
  if (mpisw_redund_mkparents(path, e)) return -1;
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return mpisw_fail(e, mpisw_errno_kind(errno), "%s: %s", tmp, strerror(errno));
  char *buf = malloc(REDUND_IO_PIECE);
  int rc = buf ? 0 : mpisw_fail(e, MPISW_K_NOMEM, "no memory");
  uint64_t off = slot_off(h.slot_size, (int)h.keep, ci, k) + P_SLOT_HDR, sum = REDUND_SUM0;
  for (uint64_t done = 0; rc == 0 && done < s[k].length;) {
    size_t n = s[k].length - done < REDUND_IO_PIECE ? (size_t)(s[k].length - done)
                                                     : REDUND_IO_PIECE;
    rc = rma(r, 0, buf, n, off + done, e);
    if (rc == 0) rc = mpisw_redund_pwrite(fd, buf, n, done, tmp, e);
    sum = mpisw_hash64(sum, buf, n);
    done += n;
  }
  free(buf);
  if (rc == 0 && sum != s[k].sum)
    rc = mpisw_fail(e, MPISW_K_IO, "the PARTNER copy of version %d at rank %d does not match its "
                    "checksum (torn by a crash?); not restored", version, r->partner);
  if (rc) {
    close(fd);
    mpisw_path_unlink(tmp);
    return -1;
  }
  if (mpisw_redund_commit(fd, tmp, path, e)) return -1;
  snprintf(out, outlen, "%s", path);
  return 0;
}

int mpisw_partner_rebuild(struct mpisw_redund *r, int version, int need, char *path,
                          size_t len, struct mpisw_error *e) {
  int failed = 0;
  if (r->pwin == MPI_WIN_NULL) {
    failed = mpisw_fail(e, MPISW_K_USAGE, "no partner window (a store failed to make it): "
                        "free the checkpoint and create it again") != 0;
  } else if (need) {
    if (mpisw_next.Win_lock(MPI_LOCK_SHARED, r->partner, 0, r->pwin) != MPI_SUCCESS) {
      failed = mpisw_fail(e, MPISW_K_IO, "MPI_Win_lock of partner rank %d failed",
                          r->partner) != 0;
    } else {
      failed = get_copy(r, version, path, len, e) != 0;
      mpisw_next.Win_unlock(r->partner, r->pwin);
    }
  }
  return mpisw_agree(r->comm, failed, e, NULL);
}
