/* Placing one range on memory and storage: name the file, split the range,
 * reserve space, map. Shared windows use the same pieces from shared.c. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/path.h"
#include "pager/pager.h"
#include "win/internal.h"
#include "win/writebehind.h"

uint64_t mpisw_place_mem_target(const struct mpisw_hints *h, uint64_t size, int ranks) {
  if (!h->storage) return size;
  if (h->factor_auto) {
    uint64_t left = mpisw_budget_left(ranks);
    return left < size ? left : size;
  }
  return mpisw_layout_mem_target(size, h->factor, mpisw_page_size());
}

static void finish(struct mpisw_place *p) {
  const struct mpisw_layout *l = &p->region.l;
  p->factor = l->size ? (double)l->sto_len / (double)l->size : (p->h.factor_auto ? 0.0 : p->h.factor);
  p->remove_at_free = p->h.unlink == 1 || (p->h.unlink == -1 && p->file.unique);
  if (p->file.blockdev) p->remove_at_free = 0;
  p->budget_taken = l->mem_len;
  mpisw_budget_take((int64_t)p->budget_taken);
}

int mpisw_place_local(struct mpisw_place *p, const struct mpisw_hints *h, uint64_t size,
                      int rank, const char *tag, struct mpisw_error *e) {
  memset(p, 0, sizeof *p);
  p->h = *h;
  p->shm_fd = -1;
  mpisw_file_init(&p->file);
  struct mpisw_layout l;
  uint64_t mem = mpisw_place_mem_target(h, size, 1);
  if (mpisw_layout_compute(size, mem, h->storage_first, h->offset, mpisw_page_size(), &l, e))
    return -1;
  if (mpisw_budget_check(l.mem_len, 1, e)) return -1;
  if (l.sto_len) {
    char host[64], path[MPISW_PATH_MAX];
    mpisw_path_hostname(host, sizeof host);
    if (mpisw_path_expand(h->filename, rank, host, path, sizeof path, e)) return -1;
    struct mpisw_file_opts o = {1, h->file_perm, tag, h->striping_factor, h->striping_unit};
    if (mpisw_file_open(&p->file, path, &o, e)) return -1;
    if (mpisw_file_reserve(&p->file, h->offset, l.sto_len, e)) {
      mpisw_file_rollback(&p->file);
      return -1;
    }
  }
  if (mpisw_atomic_recover(&p->file, &l, e) ||
      mpisw_region_map(&p->region, &l, p->file.fd, -1, h->access, e)) {
    mpisw_file_rollback(&p->file);
    return -1;
  }
  if (mpisw_atomic_attach(p, e)) {
    mpisw_region_unmap(&p->region);
    mpisw_file_rollback(&p->file);
    return -1;
  }
  if (!p->atomic) mpisw_pager_attach(p);
  mpisw_writebehind_attach(p); /* mmap backend only */
  finish(p);
  return 0;
}

/* A file another process truncated below the window's end: mmap pages
 * there raise SIGBUS and the pager would write zeros past the cut, so no
 * write-back runs and every sync from now on fails (the bytes are gone). */
static int check_length(struct mpisw_place *p, struct mpisw_error *e) {
  const struct mpisw_layout *l = &p->region.l;
  uint64_t need = l->file_off + l->sto_len;
  struct stat st;
  if (!p->cut) {
    if (p->file.blockdev || p->file.fd < 0 || fstat(p->file.fd, &st) != 0 ||
        (uint64_t)st.st_size >= need)
      return 0;
    p->cut = 1;
    p->cut_to = (uint64_t)st.st_size;
  }
  return mpisw_fail(e, MPISW_K_IO,
                    "the file was truncated to %llu bytes by someone else while the window "
                    "needs %llu (bytes from offset %llu lost); nothing more is written",
                    (unsigned long long)p->cut_to, (unsigned long long)need,
                    (unsigned long long)p->cut_to);
}

static int backend_sync(struct mpisw_place *p, uint64_t *written, struct mpisw_error *e) {
  if (p->atomic && !mpisw_atomic_on_pager(p)) return mpisw_atomic_sync(p, written, e);
  if (!p->pager) {
    int rc = mpisw_region_sync(&p->region, p->file.fd, p->sync_failed, written, e);
    p->sync_failed = rc != 0; /* only a whole successful pass clears it */
    return rc;
  }
  int rc = mpisw_pager_place_sync(p, e);
  mpisw_atomic_sync_done(p, rc);
  uint64_t total = mpisw_pager_bytes_written(p->pager);
  *written = total - p->pager_written;
  p->pager_written = total;
  return rc;
}

int mpisw_place_sync(struct mpisw_place *p, struct mpisw_error *e) {
  if (!p->region.l.sto_len) return 0;
  double t0 = mpisw_now();
  uint64_t written = 0;
  /* The sync agent (remote_agent.c) syncs placements from its own thread,
   * maybe while this process syncs the same one: one sync at a time (an
   * atomic sync's journal and the failure flags are not for two). */
  static pthread_mutex_t one_sync = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&one_sync);
  int rc = check_length(p, e) ? -1 : backend_sync(p, &written, e);
  pthread_mutex_unlock(&one_sync);
  double dt = mpisw_now() - t0;
  pthread_mutex_lock(&mpisw_lock);
  mpisw_stats.sync_seconds += dt;
  mpisw_stats.bytes_synced += (double)written;
  mpisw_stats.syncs++;
  pthread_mutex_unlock(&mpisw_lock);
  if (rc) {
    char inner[MPISW_MSG_MAX];
    snprintf(inner, sizeof inner, "%s", e->msg);
    mpisw_fail(e, e->kind, "'%s': %s", p->file.path, inner);
  }
  return rc;
}

int mpisw_place_release(struct mpisw_place *p, int sync, struct mpisw_error *e) {
  int rc = 0;
  if (sync && !p->h.discard) rc = mpisw_place_sync(p, e);
  mpisw_writebehind_detach(p);
  if (p->pager) mpisw_pager_detach(p);
  mpisw_atomic_detach(p);
  mpisw_region_unmap(&p->region);
  mpisw_file_close(&p->file, p->remove_at_free);
  if (p->shm_fd >= 0) close(p->shm_fd);
  p->shm_fd = -1;
  mpisw_budget_take(-(int64_t)p->budget_taken);
  p->budget_taken = 0;
  return rc;
}

void mpisw_place_count(const struct mpisw_place *p, int shared) {
  const struct mpisw_layout *l = &p->region.l;
  pthread_mutex_lock(&mpisw_lock);
  if (shared) mpisw_stats.windows_shared++;
  else if (l->sto_len && l->mem_len) mpisw_stats.windows_combined++;
  else if (l->sto_len) mpisw_stats.windows_storage++;
  else mpisw_stats.windows_memory++;
  mpisw_stats.bytes_memory += (double)l->mem_len;
  mpisw_stats.bytes_storage += (double)l->sto_len;
  pthread_mutex_unlock(&mpisw_lock);
}

void mpisw_place_undo(struct mpisw_place *p) {
  mpisw_writebehind_detach(p);
  if (p->pager) mpisw_pager_detach(p);
  mpisw_atomic_detach(p);
  mpisw_region_unmap(&p->region);
  mpisw_file_rollback(&p->file);
  if (p->shm_fd >= 0) close(p->shm_fd);
  p->shm_fd = -1;
  mpisw_budget_take(-(int64_t)p->budget_taken);
  p->budget_taken = 0;
}

int mpisw_place_share_memory(struct mpisw_place *p, int keep) {
  const struct mpisw_layout *l = &p->region.l;
  if (!l->map_mem_len || p->shm_fd >= 0) return 0;
  if (!p->region.reserve) return -1;
  char *at = p->region.reserve + l->map_mem_at;
  int fd = memfd_create("mpisw-window-memory", MFD_CLOEXEC);
  if (fd < 0) return -1;
  /* Sparse like the private memory it replaces; the copy keeps what the
   * program wrote before making the window (MPI_Alloc_mem memory). */
  if (ftruncate(fd, (off_t)l->map_mem_len) != 0 ||
      (keep && mpisw_pwrite_all(fd, at, l->map_mem_len, 0) != 0) ||
      mmap(at, l->map_mem_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
          MAP_FAILED) {
    close(fd);
    return -1;
  }
  p->shm_fd = fd;
  return 0;
}
