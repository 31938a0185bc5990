/* mpisw_kv_*: open and close (windows, agreement), errors, and dispatch
 * through the backend's table (kv_backend.h), chosen by the file's
 * superblock (kv_super.c). The storage window holds the file (superblock +
 * log, or the naive table); the cache backend's memory window holds the
 * objects in use. */

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/path.h"
#include "kvcache/kv_lock.h"
#include "kvcache/kv_store.h"
#include "win/internal.h"

__attribute__((format(printf, 3, 4))) static int fail_code(const char *routine, int kind,
                                                            const char *fmt, ...) {
  struct mpisw_error e;
  va_list ap;
  va_start(ap, fmt);
  mpisw_vfail(&e, kind, fmt, ap);
  va_end(ap);
  return mpisw_error_code(routine, &e);
}

static int usage(const char *routine, const char *msg) {
  return fail_code(routine, MPISW_K_USAGE, "%s", msg);
}

/* The table of the backend a superblock names (mpisw__kv_super_check knows both). */
static const struct kv_backend *backend_of(uint32_t id) {
  return id == KV_BACKEND_CACHE ? &mpisw__kv_cache_backend : &mpisw__kv_naive_backend;
}

/* Opens the file for the store's own use and takes its lock (kv_lock.c):
 * 0, or -1 with *e filled. */
static int open_locked(struct mpisw_kv *kv, struct mpisw_error *e) {
  kv->fd_rw = open(kv->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (kv->fd_rw < 0) return mpisw_fail(e, mpisw_errno_kind(errno), "%s: %s", kv->path, strerror(errno));
  if (mpisw__kv_lock(kv->fd_rw, kv->path, e)) {
    close(kv->fd_rw);
    kv->fd_rw = -1;
    return -1;
  }
  return 0;
}

/* The lock of a file that exists already, before the header is read (a
 * holder that compacts and closes in between cannot leave us a stale
 * header). A missing file, a directory or a symlink is for the window to
 * refuse with its own words. */
static int lock_existing(struct mpisw_kv *kv, struct mpisw_error *e) {
  struct stat st;
  if (lstat(kv->path, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))) return 0;
  if (access(kv->path, R_OK | W_OK) != 0) return 0;   /* the window says why */
  return open_locked(kv, e);
}

static MPI_Info window_info(const struct mpisw_kv *kv, const char *path, int storage) {
  MPI_Info info;
  PMPI_Info_create(&info);
  PMPI_Info_set(info, "alloc_type", storage ? "storage" : "memory");
  if (storage) {
    PMPI_Info_set(info, "storage_alloc_filename", (char *)path);
    PMPI_Info_set(info, "storage_alloc_factor", "1");
    PMPI_Info_set(info, "storage_alloc_offset", "0");
    PMPI_Info_set(info, "storage_alloc_unlink", "false");
    PMPI_Info_set(info, "storage_alloc_discard", "false");
    /* the log's batches go to the file with O_DIRECT writes and are read
     * through the window: only the file mapping sees both (the pager would
     * hold its own copy) */
    PMPI_Info_set(info, "storage_backend", "mmap");
    if (kv->o.access_style[0]) PMPI_Info_set(info, "access_style", (char *)kv->o.access_style);
  }
  return info;
}

static void release(struct mpisw_kv *kv) {
  if (kv->ops) kv->ops->release(kv);
  if (kv->fd_direct >= 0) close(kv->fd_direct);
  if (kv->fd_rw >= 0) close(kv->fd_rw);
  if (kv->fd_dw >= 0) close(kv->fd_dw);
  if (kv->comm != MPI_COMM_NULL) PMPI_Comm_free(&kv->comm);
  free(kv);
}

MPISW_EXPORT int mpisw_kv_open(const char *path, MPI_Info info, MPI_Comm comm, mpisw_kv **out) {
  const char *R = "mpisw_kv_open";
  if (!out) return usage(R, "the handle pointer is NULL");
  *out = NULL;
  if (!path || !*path) return usage(R, "the path is empty");
  if (comm == MPI_COMM_NULL) return usage(R, "the communicator is MPI_COMM_NULL");
  mpisw_state_init();
  struct mpisw_kv *kv = calloc(1, sizeof *kv);
  if (!kv) return fail_code(R, MPISW_K_NOMEM, "no memory for the store");   /* not the caller's fault */
  kv->fd_direct = kv->fd_rw = kv->fd_dw = -1;
  kv->log_win = kv->mem_win = MPI_WIN_NULL;
  int rc = PMPI_Comm_dup(comm, &kv->comm);
  if (rc != MPI_SUCCESS) {
    kv->comm = MPI_COMM_NULL;
    release(kv);
    return rc;
  }
  PMPI_Comm_set_errhandler(kv->comm, MPI_ERRORS_RETURN);
  int size;
  PMPI_Comm_rank(kv->comm, &kv->rank);
  PMPI_Comm_size(kv->comm, &size);

  /* 1. Options and the file's header, on every rank; then agree. */
  struct mpisw_error e;
  int failed = mpisw__kv_options_parse(info, &kv->o, &e) != 0, fresh = 1;
  char host[256];
  mpisw_path_hostname(host, sizeof host);
  if (!failed && size > 1 && !strstr(path, "%r"))
    failed = mpisw_fail(&e, MPISW_K_USAGE, "'%s' has no %%r but %d processes open a store each: "
                        "they would share one file", path, size) != 0;
  if (!failed) failed = mpisw_path_expand(path, kv->rank, host, kv->path, sizeof kv->path, &e) != 0;
  /* An existing store is locked before any window maps it: a second open
   * (here or elsewhere) stops with a clear word and touches nothing. */
  if (!failed) failed = lock_existing(kv, &e) != 0;
  if (!failed) {
    int p = mpisw__kv_super_peek(kv->path, &kv->sb, &kv->sb_damaged, &e);
    failed = p < 0;
    fresh = p == 0;
  }
  if (!failed && fresh) mpisw__kv_super_new(&kv->sb, &kv->o);
  if (!failed) {
    kv->o.backend = (int)kv->sb.backend;   /* an existing file keeps its kind and geometry */
    kv->ops = backend_of(kv->sb.backend);
    kv->crc_seed = (uint32_t)(kv->sb.id ^ (kv->sb.id >> 32));
    kv->ops->layout(kv);
  }
  if (mpisw_agree(kv->comm, failed, &e, NULL)) {
    release(kv);
    return mpisw_error_code(R, &e);
  }

  /* 2. The windows (collective; they agree by themselves). */
  MPI_Info wi = window_info(kv, path, 1);
  rc = mpisw_win_allocate(R, (MPI_Aint)kv->file_size, 1, wi, kv->comm, &kv->file_base,
                          &kv->log_win, 0);
  PMPI_Info_free(&wi);
  if (rc != MPI_SUCCESS) {
    release(kv);
    return rc;
  }
  PMPI_Win_set_errhandler(kv->log_win, MPI_ERRORS_RETURN);
  if (kv->ops->memory_window) {
    wi = window_info(kv, NULL, 0);
    rc = mpisw_win_allocate(R, (MPI_Aint)kv->o.cache_size, 1, wi, kv->comm, &kv->mem_base,
                            &kv->mem_win, 0);
    PMPI_Info_free(&wi);
    if (rc != MPI_SUCCESS) {
      mpisw_win_free(&kv->log_win);
      release(kv);
      return rc;
    }
    PMPI_Win_set_errhandler(kv->mem_win, MPI_ERRORS_RETURN);
  }

  /* 3. The store's lock (a new store), the backend's state (a scan of the
   * log rebuilds the index), a damaged header copy mended. */
  struct mpisw_win *w = mpisw_win_lookup(kv->log_win);
  if (w && w->p.file.path[0]) snprintf(kv->path, sizeof kv->path, "%s", w->p.file.path);
  failed = 0;
  if (kv->fd_rw < 0) {   /* a new store: locked now, before its header is written */
    struct kv_super other;
    failed = open_locked(kv, &e) != 0;
    if (!failed && mpisw__kv_super_read(kv->file_base, &other) >= 0)
      failed = mpisw_fail(&e, MPISW_K_ACCESS, "%s was made a store by another process while this "
                          "one opened it; open it again", kv->path) != 0;
  }
  if (!failed && fresh) failed = mpisw__kv_super_write_both(kv, &e) != 0;
  if (!failed) failed = kv->ops->open(kv, fresh, &e) != 0;
  if (!failed) failed = mpisw__kv_super_mend(kv, &e) != 0;
  if (mpisw_agree(kv->comm, failed, &e, NULL)) {
    if (kv->mem_win != MPI_WIN_NULL) mpisw_win_free(&kv->mem_win);
    mpisw_win_free(&kv->log_win);
    release(kv);
    return mpisw_error_code(R, &e);
  }
  *out = kv;
  return MPI_SUCCESS;
}

#define CHECK_KV(R)                                                  \
  if (!kv) return usage(R, "the store handle is NULL");             \
  if (kv->broken) return broken(R);

/* After a failed compaction the file still holds the state before it (the
 * superblock was not switched), but the index does not match it. */
static int broken(const char *routine) {
  return fail_code(routine, MPISW_K_IO, "a compaction failed; the store takes no more calls: "
                   "close and reopen it (the file holds its state before the compaction)");
}

/* Arguments every backend needs checked the same way: MPI_SUCCESS or the
 * error code to return. */
static int check_args(const char *routine, const void *key, size_t klen, const void *value,
                      size_t vlen) {
  if (!key || klen == 0 || klen > MPISW_KV_MAX_KEY)
    return fail_code(routine, MPISW_K_USAGE, "key of %zu bytes: a key has 1 to %d bytes", klen,
                     MPISW_KV_MAX_KEY);
  if (vlen && !value) return usage(routine, "value is NULL");
  return MPI_SUCCESS;
}

MPISW_EXPORT int mpisw_kv_put(mpisw_kv *kv, const void *key, size_t klen, const void *value,
                              size_t vlen) {
  CHECK_KV("mpisw_kv_put");
  int bad = check_args("mpisw_kv_put", key, klen, value, vlen);
  if (bad) return bad;
  struct mpisw_error e;
  int rc = kv->ops->put(kv, key, klen, value, vlen, &e);
  return rc < 0 ? mpisw_error_code("mpisw_kv_put", &e) : MPI_SUCCESS;
}

MPISW_EXPORT int mpisw_kv_get(mpisw_kv *kv, const void *key, size_t klen, void *buf, size_t cap,
                              size_t *vlen) {
  CHECK_KV("mpisw_kv_get");
  int bad = check_args("mpisw_kv_get", key, klen, NULL, 0);
  if (bad) return bad;
  size_t dummy;
  if (!vlen) vlen = &dummy;
  struct mpisw_error e;
  int rc = kv->ops->get(kv, key, klen, buf, cap, vlen, &e);
  if (rc < 0) return mpisw_error_code("mpisw_kv_get", &e);
  return rc ? MPISW_KV_NOTFOUND : MPI_SUCCESS;
}

MPISW_EXPORT int mpisw_kv_delete(mpisw_kv *kv, const void *key, size_t klen) {
  CHECK_KV("mpisw_kv_delete");
  int bad = check_args("mpisw_kv_delete", key, klen, NULL, 0);
  if (bad) return bad;
  struct mpisw_error e;
  int rc = kv->ops->del(kv, key, klen, &e);
  if (rc < 0) return mpisw_error_code("mpisw_kv_delete", &e);
  return rc ? MPISW_KV_NOTFOUND : MPI_SUCCESS;
}

MPISW_EXPORT int mpisw_kv_compact(mpisw_kv *kv) {
  CHECK_KV("mpisw_kv_compact");
  if (!kv->ops->compact) return MPI_SUCCESS;
  struct mpisw_error e;
  return kv->ops->compact(kv, &e) ? mpisw_error_code("mpisw_kv_compact", &e) : MPI_SUCCESS;
}

MPISW_EXPORT int mpisw_kv_sync(mpisw_kv *kv) {
  CHECK_KV("mpisw_kv_sync");
  struct mpisw_error e;
  int rc = kv->ops->sync(kv, &e);
  return rc ? mpisw_error_code("mpisw_kv_sync", &e) : MPI_SUCCESS;
}

MPISW_EXPORT int mpisw_kv_close(mpisw_kv **pkv) {
  if (!pkv || !*pkv) return usage("mpisw_kv_close", "the store handle is NULL");
  mpisw_kv *kv = *pkv;
  *pkv = NULL;
  int out = kv->broken ? broken("mpisw_kv_close") : mpisw_kv_sync(kv);
  if (out == MPI_SUCCESS && kv->ops->finish) {
    struct mpisw_error e;
    if (kv->ops->finish(kv, &e)) out = mpisw_error_code("mpisw_kv_close", &e);
  }
  if (kv->mem_win != MPI_WIN_NULL) {
    int rc = mpisw_win_free(&kv->mem_win);
    if (out == MPI_SUCCESS) out = rc;
  }
  int rc = mpisw_win_free(&kv->log_win);
  if (out == MPI_SUCCESS) out = rc;
  release(kv);
  return out;
}

MPISW_EXPORT int mpisw_kv_stats(mpisw_kv *kv, struct mpisw_kv_stats *st) {
  CHECK_KV("mpisw_kv_stats");
  if (!st) return usage("mpisw_kv_stats", "the stats pointer is NULL");
  *st = kv->st;
  if (kv->ops->stats) kv->ops->stats(kv, st);
  return MPI_SUCCESS;
}
