/* The copy engine of staging (stage.h): one file to dst.part with large
 * aligned writes, several in flight, then fdatasync, rename and a fsync of
 * the directory, so dst is either absent or complete and durable.
 *
 * Why Linux AIO: a parallel file system (and the throttled device of
 * tests/tools/slowfs.sh) reaches its bandwidth only with several large
 * requests outstanding; O_DIRECT writes submitted with io_submit are truly
 * asynchronous, so one thread keeps MPISW_STAGE_DEPTH of them in flight
 * while it reads the next pieces of the source. File systems that refuse
 * O_DIRECT (tmpfs) get buffered writes and the final fdatasync. */
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ckpt/stage.h"
#include "core/path.h"
#include "core/storage.h"

/* O_DIRECT's alignment of buffers, offsets and lengths (any block size up
 * to 4 KiB divides it). */
#define ALIGN 4096u

static uint64_t tune_request = MPISW_STAGE_REQUEST;
static int tune_depth = MPISW_STAGE_DEPTH;

int mpisw_stage_tune(uint64_t request, int depth, struct mpisw_error *e) {
  if (request && (request % ALIGN || request < (64u << 10) || request > (1u << 30)))
    return mpisw_fail(e, MPISW_K_USAGE,
                      "stage: request size %llu must be a multiple of 4 KiB from 64 KiB to 1 GiB",
                      (unsigned long long)request);
  if (depth && (depth < 1 || depth > 64))
    return mpisw_fail(e, MPISW_K_USAGE, "stage: %d requests in flight: must be 1 to 64", depth);
  if (request) __atomic_store_n(&tune_request, request, __ATOMIC_RELAXED);
  if (depth) __atomic_store_n(&tune_depth, depth, __ATOMIC_RELAXED);
  return 0;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int sys_fail(struct mpisw_error *e, int err, const char *what, const char *path) {
  int kind = err == ENOSPC || err == EDQUOT ? MPISW_K_NOSPACE : mpisw_errno_kind(err);
  if (err == EIO) kind = MPISW_K_IO;
  return mpisw_fail(e, kind, "stage: %s '%s': %s", what, path, strerror(err));
}

/* Makes every missing directory above path (mode 0700). */
static int make_parents(const char *path, struct mpisw_error *e) {
  char dir[4096], at[4096];
  mpisw_path_parent(path, dir, sizeof dir);
  int err = mpisw_path_mkdirs(dir, at, sizeof at);
  return err ? sys_fail(e, err, "cannot make directory", at) : 0;
}

static long io_setup_(unsigned n, aio_context_t *c) { return syscall(SYS_io_setup, n, c); }
static long io_destroy_(aio_context_t c) { return syscall(SYS_io_destroy, c); }
static long io_submit_(aio_context_t c, long n, struct iocb **v) {
  return syscall(SYS_io_submit, c, n, v);
}
static long io_getevents_(aio_context_t c, long lo, long hi, struct io_event *ev) {
  return syscall(SYS_io_getevents, c, lo, hi, ev, NULL);
}

/* One copy's moving parts. */
struct copy {
  int sfd, dfd, direct;
  uint64_t size, request;
  int depth;
  char *bufs;
  const char *src, *part;
};

static int copy_sync(struct copy *c, struct mpisw_error *e);

/* Writes with `depth` requests in flight (O_DIRECT + io_submit). */
static int copy_aio(struct copy *c, struct mpisw_error *e) {
  aio_context_t ctx = 0;
  if (io_setup_((unsigned)c->depth, &ctx) != 0) return copy_sync(c, e);
  struct iocb cbs[64];
  struct io_event ev[64];
  int free_ids[64], nfree = c->depth, inflight = 0, rc = 0;
  for (int i = 0; i < c->depth; i++) free_ids[i] = i;
  uint64_t off = 0;
  while ((off < c->size && !rc) || inflight) {
    while (!rc && off < c->size && nfree) {
      int id = free_ids[--nfree];
      char *buf = c->bufs + (uint64_t)id * c->request;
      uint64_t n = c->size - off < c->request ? c->size - off : c->request;
      int err = mpisw_pread_all(c->sfd, buf, n, off);
      if (err) {
        rc = sys_fail(e, err, "cannot read", c->src);
        free_ids[nfree++] = id;
        break;
      }
      uint64_t wn = (n + ALIGN - 1) / ALIGN * ALIGN; /* the tail padded, cut by ftruncate */
      memset(buf + n, 0, wn - n);
      struct iocb *cb = &cbs[id];
      memset(cb, 0, sizeof *cb);
      cb->aio_data = (uint64_t)id;
      cb->aio_lio_opcode = IOCB_CMD_PWRITE;
      cb->aio_fildes = (uint32_t)c->dfd;
      cb->aio_buf = (uint64_t)(uintptr_t)buf;
      cb->aio_nbytes = wn;
      cb->aio_offset = (int64_t)off;
      struct iocb *one = cb;
      if (io_submit_(ctx, 1, &one) != 1) {
        rc = sys_fail(e, errno, "cannot submit a write to", c->part);
        free_ids[nfree++] = id;
        break;
      }
      inflight++, off += n;
    }
    if (!inflight) break;
    long got = io_getevents_(ctx, 1, inflight, ev);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      /* cannot reap: the buffers may still be in use, so wait by destroying */
      int err = errno;
      io_destroy_(ctx);
      return rc ? rc : sys_fail(e, err, "cannot wait for writes to", c->part);
    }
    for (long i = 0; i < got; i++) {
      int id = (int)ev[i].data;
      struct iocb *cb = &cbs[id];
      long long res = ev[i].res;
      inflight--;
      if (res < 0 && !rc) rc = sys_fail(e, (int)-res, "cannot write", c->part);
      else if (!rc && (uint64_t)res < cb->aio_nbytes) {
        /* a short direct write: finish it synchronously (still aligned) */
        int err = mpisw_pwrite_all(c->dfd, (char *)(uintptr_t)cb->aio_buf + res,
                                   cb->aio_nbytes - (uint64_t)res, (uint64_t)cb->aio_offset + (uint64_t)res);
        if (err) rc = sys_fail(e, err, "cannot write", c->part);
      }
      free_ids[nfree++] = id;
    }
  }
  io_destroy_(ctx);
  if (!rc && c->size % ALIGN && ftruncate(c->dfd, (off_t)c->size) != 0)
    rc = sys_fail(e, errno, "cannot set the size of", c->part);
  return rc;
}

/* One request at a time: file systems without O_DIRECT (buffered), or
 * when Linux AIO is not available (io_setup refused: aio-max-nr reached). */
static int copy_sync(struct copy *c, struct mpisw_error *e) {
  for (uint64_t off = 0; off < c->size;) {
    uint64_t n = c->size - off < c->request ? c->size - off : c->request;
    int err = mpisw_pread_all(c->sfd, c->bufs, n, off);
    if (err) return sys_fail(e, err, "cannot read", c->src);
    uint64_t wn = c->direct ? (n + ALIGN - 1) / ALIGN * ALIGN : n;
    memset(c->bufs + n, 0, wn - n);
    if ((err = mpisw_pwrite_all(c->dfd, c->bufs, wn, off))) return sys_fail(e, err, "cannot write", c->part);
    off += n;
  }
  if (c->direct && c->size % ALIGN && ftruncate(c->dfd, (off_t)c->size) != 0)
    return sys_fail(e, errno, "cannot set the size of", c->part);
  return 0;
}

int mpisw_stage_copy(const char *src, const char *dst, struct mpisw_stage_copyinfo *ci,
                     struct mpisw_error *e) {
  double t0 = now();
  char part[4096], dir[4096];
  if (!src || !*src || !dst || !*dst)
    return mpisw_fail(e, MPISW_K_USAGE, "stage: empty source or destination path");
  if (snprintf(part, sizeof part, "%s.part", dst) >= (int)sizeof part)
    return mpisw_fail(e, MPISW_K_USAGE, "stage: path '%s' is too long", dst);
  struct copy c = {.sfd = -1, .dfd = -1, .src = src, .part = part};
  c.request = __atomic_load_n(&tune_request, __ATOMIC_RELAXED);
  c.depth = __atomic_load_n(&tune_depth, __ATOMIC_RELAXED);
  int rc = -1;
  struct stat st;
  c.sfd = open(src, O_RDONLY | O_CLOEXEC);
  if (c.sfd < 0) return sys_fail(e, errno, "cannot open", src);
  if (fstat(c.sfd, &st) != 0) {
    sys_fail(e, errno, "cannot stat", src);
    goto out;
  }
  if (!S_ISREG(st.st_mode)) {
    mpisw_fail(e, MPISW_K_USAGE, "stage: '%s' is not a regular file", src);
    goto out;
  }
  c.size = (uint64_t)st.st_size;
  if (make_parents(dst, e)) goto out;
  c.direct = 1;
  c.dfd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_DIRECT, 0600);
  if (c.dfd < 0 && errno == EINVAL) {
    c.direct = 0;
    c.dfd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  }
  if (c.dfd < 0) {
    sys_fail(e, errno, "cannot create", part);
    goto out;
  }
  /* Space first: a full file system fails here, before any data moves. */
  if (c.size && fallocate(c.dfd, 0, 0, (off_t)c.size) != 0 && errno != EOPNOTSUPP) {
    sys_fail(e, errno, "cannot reserve space for", part);
    goto undo;
  }
  /* Buffers no larger than the file needs (small images stay cheap). */
  uint64_t need = (c.size + ALIGN - 1) / ALIGN * ALIGN;
  if (need < c.request) c.request = need ? need : ALIGN;
  if (!c.direct) c.depth = 1;
  c.bufs = aligned_alloc(ALIGN, c.request * (uint64_t)c.depth);
  if (!c.bufs) {
    mpisw_fail(e, MPISW_K_NOMEM, "stage: no memory for %d buffers of %llu bytes", c.depth,
               (unsigned long long)c.request);
    goto undo;
  }
  if (c.direct && c.depth > 1 ? copy_aio(&c, e) : copy_sync(&c, e)) goto undo;
  if (fdatasync(c.dfd) != 0) {
    sys_fail(e, errno, "cannot make durable", part);
    goto undo;
  }
  if (close(c.dfd) != 0) {
    c.dfd = -1;
    sys_fail(e, errno, "cannot close", part);
    goto undo;
  }
  c.dfd = -1;
  if (rename(part, dst) != 0) {
    sys_fail(e, errno, "cannot rename to", dst);
    goto undo;
  }
  int err = mpisw_path_sync_parent(dst);
  if (err) {
    mpisw_path_parent(dst, dir, sizeof dir);
    sys_fail(e, err, "cannot make the new name durable in", dir);
    goto out; /* dst is complete; only its name may not survive a crash */
  }
  if (ci) *ci = (struct mpisw_stage_copyinfo){c.size, t0, now() - t0};
  rc = 0;
  goto out;
undo:
  mpisw_path_unlink(part);
out:
  if (c.dfd >= 0) close(c.dfd);
  close(c.sfd);
  free(c.bufs);
  return rc;
}
