#include "core/storage.h"
#include "core/config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/claim.h"
#include "core/lustre.h"
#include "core/path.h"
#include "core/unique.h"

uint64_t mpisw_page_size(void) {
  static uint64_t page;
  if (!page) page = (uint64_t)sysconf(_SC_PAGESIZE);
  return page;
}

int mpisw_current_umask(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  int mask = 022;
  if (!f) return mask;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "Umask: %o", (unsigned *)&mask) == 1) break;
  fclose(f);
  return mask;
}

/* Another user's file (say, pre-created in a sticky /tmp-like directory
 * before O_CREAT|O_EXCL found it) could be read by its owner: never reuse it. */
static int foreign_owner(struct mpisw_error *e, const char *path, uid_t uid) {
  char name[64] = "";
  struct passwd pw, *res = NULL;
  char buf[1024];
  if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) == 0 && res)
    snprintf(name, sizeof name, "'%s' ", res->pw_name);
  return mpisw_fail(e, MPISW_K_ACCESS,
                    "storage_alloc_filename: '%s' belongs to user %s(uid %u), not to this "
                    "process (uid %u); mpisw does not reuse another user's file (its owner "
                    "could read the window): remove it, chown it to yourself, or name a "
                    "directory or another file",
                    path, name, (unsigned)uid, (unsigned)geteuid());
}

unsigned long mpisw_dir_syncs;

/* A new file is durable only once its directory entry is: fsync the parent
 * once after creating it. A directory this process may not open for reading
 * (mode -wx) or a file system without directory fsync is left as it is. */
static int sync_parent(const char *path, struct mpisw_error *e) {
  int err = mpisw_path_sync_parent(path);
  if (!err) {
    __atomic_add_fetch(&mpisw_dir_syncs, 1, __ATOMIC_RELAXED);
    return 0;
  }
  char dir[MPISW_PATH_MAX];
  mpisw_path_parent(path, dir, sizeof dir);
  return mpisw_fail(e, mpisw_errno_kind(err),
                    "storage_alloc_filename: '%s': cannot make the new file durable in "
                    "directory '%s' (fsync: %s)",
                    path, dir, strerror(err));
}

void mpisw_file_init(struct mpisw_file *f) {
  memset(f, 0, sizeof *f);
  f->fd = -1;
}

static int open_error(struct mpisw_error *e, const char *path, int err) {
  char dir[MPISW_PATH_MAX];
  if (err == ENOENT) {
    mpisw_path_parent(path, dir, sizeof dir);
    if (!mpisw_path_is_dir(dir))
      return mpisw_fail(e, MPISW_K_NOFILE,
                        "storage_alloc_filename: '%s': directory '%s' does not exist", path,
                        dir);
    return mpisw_fail(e, MPISW_K_NOFILE, "storage_alloc_filename: '%s': no such file", path);
  }
  if (err == ELOOP)
    return mpisw_fail(e, MPISW_K_ACCESS,
                      "storage_alloc_filename: '%s' is a symbolic link; mpisw does not "
                      "follow it (name the target instead)",
                      path);
  if (err == EROFS)
    return mpisw_fail(e, MPISW_K_ACCESS,
                      "storage_alloc_filename: '%s': read-only file system", path);
  if (err == EACCES || err == EPERM)
    return mpisw_fail(e, MPISW_K_ACCESS,
                      "storage_alloc_filename: '%s': permission denied (%s)", path,
                      strerror(err));
  return mpisw_fail(e, mpisw_errno_kind(err), "storage_alloc_filename: '%s': %s", path,
                    strerror(err));
}

/* A file without a name in dir (core/unique.c): it goes with its last user. */
static int open_unique(struct mpisw_file *f, const char *dir, const struct mpisw_file_opts *o,
                       struct mpisw_error *e) {
  int fd = mpisw_unique_create(dir, o->tag, f->path, sizeof f->path);
  if (fd < 0) {
    int err = errno;
    snprintf(f->path, sizeof f->path, "%s", dir);
    if (err == ENAMETOOLONG)
      return mpisw_fail(e, MPISW_K_HINT, "storage_alloc_filename: '%s' is too long", dir);
    return open_error(e, dir, err);
  }
  if (o->perm >= 0 && fchmod(fd, (mode_t)(o->perm & ~mpisw_current_umask())) != 0) {
    int err = errno;
    close(fd);
    return open_error(e, f->path, err);
  }
  f->fd = fd;
  f->created = 1;
  f->unique = 1;
  return 0;
}

int mpisw_file_open(struct mpisw_file *f, const char *path, const struct mpisw_file_opts *o,
                    struct mpisw_error *e) {
  mpisw_file_init(f);
  size_t n = strlen(path);
  if (n > 1 && path[n - 1] == '/' && !mpisw_path_is_dir(path))
    return mpisw_fail(e, MPISW_K_NOFILE,
                      "storage_alloc_filename: '%s': directory does not exist", path);
  if (o->may_create && mpisw_path_is_dir(path)) {
    if (open_unique(f, path, o, e)) return -1;
  } else {
    snprintf(f->path, sizeof f->path, "%s", path);
    int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW;
    mode_t mode = o->perm >= 0 ? (mode_t)o->perm : 0600;
    int fd = -1;
    if (o->may_create) {
      fd = open(path, flags | O_CREAT | O_EXCL | (o->striping_factor || o->striping_unit ?
                                                  mpisw_lustre_open_flags(path) : 0),
                mode);
      if (fd >= 0) f->created = 1;
    }
    if (fd < 0 && (!o->may_create || errno == EEXIST)) fd = open(path, flags);
    if (fd < 0) return open_error(e, path, errno);
    f->fd = fd;
  }
  struct stat st;
  if (fstat(f->fd, &st) != 0) {
    int err = errno;
    mpisw_file_rollback(f);
    return open_error(e, path, err);
  }
  if (S_ISBLK(st.st_mode)) {
    f->blockdev = 1;
  } else if (!S_ISREG(st.st_mode)) {
    mpisw_file_rollback(f);
    return mpisw_fail(e, MPISW_K_ACCESS,
                      "storage_alloc_filename: '%s' is neither a regular file, a block "
                      "device nor a directory",
                      path);
  }
  if (!f->created && !f->blockdev && st.st_uid != geteuid()) {
    mpisw_file_rollback(f);
    return foreign_owner(e, path, st.st_uid);
  }
  f->old_size = (uint64_t)st.st_size;
  if (f->created && (o->striping_factor || o->striping_unit) &&
      mpisw_lustre_set_striping(f->fd, f->path, o->striping_factor, o->striping_unit, e)) {
    mpisw_file_rollback(f);
    return -1;
  }
  /* a unique file has no directory entry to make durable */
  if (f->created && !f->unique && sync_parent(f->path, e)) {
    mpisw_file_rollback(f);
    return -1;
  }
  return 0;
}

/* The window's bytes of the file are its own (core/claim.h). */
static int claim(struct mpisw_file *f, uint64_t off, uint64_t len, struct mpisw_error *e) {
  if (f->unique || !mpisw_claim_range(f->fd, f->path, off, len, e)) return 0;
  f->claim_lost = 1;
  return -1;
}

int mpisw_file_reserve(struct mpisw_file *f, uint64_t off, uint64_t len, struct mpisw_error *e) {
  if (len == 0) return 0;
  if (f->blockdev) {
    uint64_t devsize = 0;
    if (ioctl(f->fd, BLKGETSIZE64, &devsize) != 0)
      return mpisw_fail(e, MPISW_K_IO, "storage_alloc_filename: '%s': cannot read the "
                        "device size: %s", f->path, strerror(errno));
    if (off + len > devsize)
      return mpisw_fail(e, MPISW_K_NOSPACE,
                        "storage_alloc_filename: '%s': the device holds %llu bytes, the "
                        "window needs %llu from offset %llu",
                        f->path, (unsigned long long)devsize, (unsigned long long)len,
                        (unsigned long long)off);
    return claim(f, off, len, e); /* a range the device cannot hold is that error first */
  }
  if (claim(f, off, len, e)) return -1; /* before growing the file */
  int err = posix_fallocate(f->fd, (off_t)off, (off_t)len);
  if (err == EINTR) err = posix_fallocate(f->fd, (off_t)off, (off_t)len);
  if (off + len > f->old_size) f->grown = 1; /* even a failed call may have grown it */
  if (err == ENOSPC || err == EDQUOT || err == EFBIG)
    return mpisw_fail(e, MPISW_K_NOSPACE,
                      "storage_alloc_filename: '%s': no space for %llu bytes at offset %llu "
                      "(%s)",
                      f->path, (unsigned long long)len, (unsigned long long)off,
                      strerror(err));
  if (err)
    return mpisw_fail(e, mpisw_errno_kind(err),
                      "storage_alloc_filename: '%s': cannot reserve %llu bytes: %s", f->path,
                      (unsigned long long)len, strerror(err));
  return 0;
}

void mpisw_file_rollback(struct mpisw_file *f) {
  if (f->fd < 0) return;
  if (f->created) {
    /* a unique file has no name; one another window claimed is in use */
    if (!f->unique && !f->claim_lost) mpisw_path_unlink(f->path);
  } else if (f->grown && !f->blockdev) {
    if (ftruncate(f->fd, (off_t)f->old_size) != 0) { /* best effort */
    }
  }
  close(f->fd);
  f->fd = -1;
}

void mpisw_file_close(struct mpisw_file *f, int remove) {
  if (f->fd < 0) return;
  if (remove && !f->blockdev && !f->unique) mpisw_path_unlink(f->path);
  int err = !remove && f->unique ? mpisw_unique_keep(f->fd, f->path) : 0;
  if (err) /* storage_alloc_unlink=false on a unique file: its data is lost */
    fprintf(stderr, "mpisw: storage_alloc_unlink=false: cannot keep the window's file as '%s': %s\n",
            f->path, strerror(err));
  close(f->fd);
  f->fd = -1;
}

/* MPISW_MMAP_ADVICE=hint: access_style straight to madvise, as before
 * (random: MADV_RANDOM; sequential, read_once, write_once: MADV_SEQUENTIAL).
 * auto (default): the advice that measured steady out of core
 * (docs/DURABILITY.md "Write-behind"). MADV_SEQUENTIAL makes reclaim ignore
 * the accesses through the mapping, so under a memory cgroup's limit pages
 * still in use (read ahead, or being copied) are evicted and faulted back
 * one by one: SEQ out of core ran at 50 or 1,100 MiB/s from run to run.
 * MADV_RANDOM turns read-around off: a 16 MiB RMA segment then faults in
 * 4 KiB at a time (RND out of core 30-90 MiB/s), while the kernel already
 * stops reading around on its own after repeated misses. So auto advises
 * MADV_SEQUENTIAL for read_once alone (pages read once, never written) and
 * leaves the rest to the kernel's default, except for a range the
 * write-behind serves (served, src/win/writebehind.c): its dirty pages are
 * written back early instead of piling up at the limit, and there
 * MADV_SEQUENTIAL for sequential or write_once (not random) measured steady
 * and 2-3x faster. */
static int advice_as_hinted(void) {
  const char *s = mpisw_cfg_text(MPISW_CFG_MMAP_ADVICE); /* checked by the table */
  return s && !strcmp(s, "hint");
}

static int advice_for(unsigned access, int served) {
  if (advice_as_hinted()) {
    if (access & MPISW_ACCESS_RANDOM) return MADV_RANDOM;
    if (access & (MPISW_ACCESS_SEQUENTIAL | MPISW_ACCESS_READ_ONCE | MPISW_ACCESS_WRITE_ONCE))
      return MADV_SEQUENTIAL;
    return MADV_NORMAL;
  }
  unsigned writes = MPISW_ACCESS_WRITE_ONCE | MPISW_ACCESS_WRITE_MOSTLY;
  if ((access & MPISW_ACCESS_READ_ONCE) && !(access & writes)) return MADV_SEQUENTIAL;
  if (served && (access & (MPISW_ACCESS_SEQUENTIAL | MPISW_ACCESS_WRITE_ONCE)) &&
      !(access & MPISW_ACCESS_RANDOM))
    return MADV_SEQUENTIAL;
  return MADV_NORMAL;
}

static void advise(char *addr, uint64_t len, unsigned access) {
  int advice = advice_for(access, 0);
  if (advice != MADV_NORMAL && len) madvise(addr, len, advice);
}

void mpisw_region_advise_served(char *addr, uint64_t len, unsigned access) {
  int advice = advice_for(access, 1);
  if (advice != advice_for(access, 0) && len) madvise(addr, len, advice);
}

int mpisw_region_map(struct mpisw_region *r, const struct mpisw_layout *l, int file_fd,
                     int mem_fd, unsigned access, struct mpisw_error *e) {
  memset(r, 0, sizeof *r);
  r->l = *l;
  if (l->reserve_len == 0) return 0;
  /* Reserve first and map over the reservation: no gap another thread could take. */
  void *res = mmap(NULL, l->reserve_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
  if (res == MAP_FAILED)
    return mpisw_fail(e, MPISW_K_NOMEM, "cannot reserve %llu bytes of address space: %s",
                      (unsigned long long)l->reserve_len, strerror(errno));
  r->reserve = res;
  r->base = r->reserve + l->lead;
  if (l->map_file_len && mpisw_map_file_fixed(r->reserve + l->map_file_at, l->map_file_len,
                                               file_fd, l->map_file_off, access)) {
    int err = errno;
    mpisw_region_unmap(r);
    return mpisw_fail(e, mpisw_errno_kind(err), "cannot map %llu bytes of the file: %s",
                      (unsigned long long)l->map_file_len, strerror(err));
  }
  if (l->map_mem_len) {
    void *want = r->reserve + l->map_mem_at;
    void *p = mem_fd < 0
                  ? mmap(want, l->map_mem_len, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0)
                  : mmap(want, l->map_mem_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                         mem_fd, 0);
    if (p == MAP_FAILED) {
      int err = errno;
      mpisw_region_unmap(r);
      return mpisw_fail(e, MPISW_K_NOMEM, "cannot map %llu bytes of memory: %s",
                        (unsigned long long)l->map_mem_len, strerror(err));
    }
  }
  return 0;
}

int mpisw_map_file_fixed(void *addr, uint64_t len, int fd, uint64_t off, unsigned access) {
  void *p = mmap(addr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, (off_t)off);
  if (p == MAP_FAILED) return -1;
  advise(p, len, access);
  return 0;
}

/* cachestat(2), Linux 6.5: page-cache state of a file range. */
#ifndef SYS_cachestat
#define SYS_cachestat 451
#endif
struct cachestat_range_ {
  uint64_t off, len;
};
struct cachestat_ {
  uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};

/* Bytes of [off, off+len) of fd the kernel still has to write (dirty or
 * under write-back); len itself when the kernel cannot tell. */
static uint64_t pending_bytes(int fd, uint64_t off, uint64_t len) {
  struct cachestat_range_ range = {off, len};
  struct cachestat_ cs;
  if (fd < 0 || syscall(SYS_cachestat, fd, &range, &cs, 0) != 0) return len;
  uint64_t n = (cs.nr_dirty + cs.nr_writeback) * mpisw_page_size();
  return n < len ? n : len;
}

/* After a failed write-back the kernel marks the pages clean (and reports
 * the error once), so a second msync would write nothing and succeed. Mark
 * every page still in memory dirty again: an atomic add of 0 to one byte of
 * each is a write fault that keeps concurrent writers' bytes. Pages the
 * kernel already dropped are lost; nothing can bring them back. */
static void redirty(char *addr, uint64_t len) {
  enum { CHUNK_PAGES = 65536 };
  uint64_t page = mpisw_page_size(), chunk = CHUNK_PAGES * page;
  unsigned char *vec = malloc(CHUNK_PAGES); /* not on the stack: any thread may sync */
  for (uint64_t at = 0; at < len; at += chunk) {
    uint64_t n = len - at < chunk ? len - at : chunk;
    uint64_t pages = (n + page - 1) / page;
    int all = !vec || mincore(addr + at, n, vec) != 0; /* cannot tell: touch every page */
    for (uint64_t i = 0; i < pages; i++)
      if (all || (vec[i] & 1))
        __atomic_fetch_add((unsigned char *)addr + at + i * page, 0, __ATOMIC_RELAXED);
  }
  free(vec);
}

int mpisw_region_sync(const struct mpisw_region *r, int fd, int rewrite, uint64_t *written,
                      struct mpisw_error *e) {
  if (written) *written = 0;
  if (!r->reserve || !r->l.map_file_len) return 0;
  char *addr = r->reserve + r->l.map_file_at;
  if (rewrite) redirty(addr, r->l.map_file_len);
  uint64_t pending = written ? pending_bytes(fd, r->l.map_file_off, r->l.map_file_len) : 0;
  if (msync(addr, r->l.map_file_len, MS_SYNC) != 0) {
    int err = errno;
    return mpisw_fail(e, mpisw_errno_kind(err), "msync of %llu bytes failed: %s%s",
                      (unsigned long long)r->l.map_file_len, strerror(err),
                      rewrite ? " (an earlier write-back had failed already: the window's "
                                "pages were written again and failed again)"
                              : "");
  }
  if (written) *written = pending;
  return 0;
}

void mpisw_region_unmap(struct mpisw_region *r) {
  if (r->reserve) munmap(r->reserve, r->l.reserve_len);
  r->reserve = NULL;
  r->base = NULL;
}

int mpisw_pread_upto(int fd, void *buf, uint64_t n, uint64_t off, uint64_t *got) {
  uint64_t done = 0;
  int err = 0;
  while (done < n) {
    uint64_t want = n - done > (1u << 30) ? (1u << 30) : n - done;
    ssize_t r = pread(fd, (char *)buf + done, want, (off_t)(off + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) err = errno;
    if (r <= 0) break;
    done += (uint64_t)r;
  }
  *got = done;
  return err;
}

int mpisw_pread_all(int fd, void *buf, uint64_t n, uint64_t off) {
  uint64_t got;
  int err = mpisw_pread_upto(fd, buf, n, off, &got);
  return err ? err : got < n ? ENODATA : 0;
}

int mpisw_pwrite_all(int fd, const void *buf, uint64_t n, uint64_t off) {
  struct iovec one = {(void *)buf, (size_t)n};
  return mpisw_pwritev_all(fd, &one, n ? 1 : 0, off);
}

int mpisw_pwritev_all(int fd, struct iovec *iov, int n, uint64_t off) {
  while (n > 0) {
    ssize_t w = pwritev(fd, iov, n, (off_t)off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return w < 0 ? errno : EIO;
    off += (uint64_t)w;
    for (; n > 0 && (size_t)w >= iov->iov_len; iov++, n--) w -= (ssize_t)iov->iov_len;
    if (n > 0) { /* a short write: the rest of this buffer first */
      iov->iov_base = (char *)iov->iov_base + w;
      iov->iov_len -= (size_t)w;
    }
  }
  return 0;
}
