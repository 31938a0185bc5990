/* The file helpers of the redundancy levels (partner.c, xor.c): error
 * codes, checksums of whole files, whole reads and writes, paths relative to
 * the LOCAL directory, and a rebuilt file committed by rename. */
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

int mpisw_redund_fail_code(const char *routine, struct mpisw_error *e) {
  return mpisw_error_code(routine, e);
}

/* A word-at-a-time mix (not cryptographic): finds torn, stale and flipped
 * bytes, fast enough to run over every image at store and rebuild. */
uint64_t mpisw_redund_sum(uint64_t h, const void *buf, size_t len) {
  const unsigned char *p = buf;
  while (len >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    h ^= w * 0x9E3779B97F4A7C15ull;
    h = (h << 29 | h >> 35) * 0xBF58476D1CE4E5B9ull;
    p += 8;
    len -= 8;
  }
  while (len--) {
    h ^= *p++;
    h *= 0x100000001B3ull;
  }
  return h ^ (h >> 31);
}

int mpisw_redund_pread(int fd, void *buf, size_t len, uint64_t off, const char *path,
                       struct mpisw_error *e) {
  size_t done = 0;
  while (done < len) {
    ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return mpisw_fail(e, MPISW_K_IO, "%s: read: %s", path, strerror(errno));
    if (n == 0) return mpisw_fail(e, MPISW_K_IO, "%s: shorter than expected (%llu bytes at %llu)",
                                  path, (unsigned long long)len, (unsigned long long)off);
    done += (size_t)n;
  }
  return 0;
}

int mpisw_redund_pwrite(int fd, const void *buf, size_t len, uint64_t off, const char *path,
                        struct mpisw_error *e) {
  size_t done = 0;
  while (done < len) {
    ssize_t n = pwrite(fd, (const char *)buf + done, len - done, (off_t)(off + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return mpisw_fail(e, errno == ENOSPC || errno == EDQUOT ? MPISW_K_NOSPACE : MPISW_K_IO,
                        "%s: write: %s", path, strerror(errno));
    done += (size_t)n;
  }
  return 0;
}

int mpisw_redund_file_sum(const char *path, uint64_t *size, uint64_t *sum, struct mpisw_error *e) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return mpisw_fail(e, errno == ENOENT ? MPISW_K_NOFILE : mpisw_errno_kind(errno),
                      "image %s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return mpisw_fail(e, MPISW_K_USAGE, "image %s is not a regular file", path);
  }
  char *buf = malloc(REDUND_IO_PIECE);
  if (!buf) {
    close(fd);
    return mpisw_fail(e, MPISW_K_NOMEM, "no memory for reading %s", path);
  }
  uint64_t h = REDUND_SUM0, off = 0, len = (uint64_t)st.st_size;
  int rc = 0;
  while (off < len && rc == 0) {
    size_t n = len - off < REDUND_IO_PIECE ? (size_t)(len - off) : REDUND_IO_PIECE;
    rc = mpisw_redund_pread(fd, buf, n, off, path, e);
    h = mpisw_redund_sum(h, buf, n);
    off += n;
  }
  free(buf);
  close(fd);
  *size = len;
  *sum = h;
  return rc;
}

int mpisw_redund_relpath(const struct mpisw_redund *r, const char *path, char *rel,
                         struct mpisw_error *e) {
  size_t n = strlen(r->dir);
  while (n > 1 && r->dir[n - 1] == '/') n--;
  if (strncmp(path, r->dir, n) != 0 || path[n] != '/' || !path[n + 1])
    return mpisw_fail(e, MPISW_K_USAGE, "image %s is not under the LOCAL directory %s", path,
                      r->dir);
  const char *s = path + n + 1;
  if (strlen(s) >= REDUND_REL_MAX || strstr(s, ".."))
    return mpisw_fail(e, MPISW_K_USAGE, "image %s: its name under %s is longer than %d "
                      "characters or has '..'", path, r->dir, REDUND_REL_MAX - 1);
  snprintf(rel, REDUND_REL_MAX, "%s", s);
  return 0;
}

int mpisw_redund_mkparents(const char *path, struct mpisw_error *e) {
  char buf[PATH_MAX];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *s = buf + 1; *s; s++) {
    if (*s != '/') continue;
    *s = 0;
    if (mkdir(buf, 0700) != 0 && errno != EEXIST)
      return mpisw_fail(e, mpisw_errno_kind(errno), "cannot make directory %s: %s", buf,
                        strerror(errno));
    *s = '/';
  }
  return 0;
}

int mpisw_redund_commit(int fd, const char *tmp, const char *path, struct mpisw_error *e) {
  if (fdatasync(fd) != 0) {
    int err = errno;
    close(fd);
    mpisw_path_unlink(tmp);
    return mpisw_fail(e, err == ENOSPC ? MPISW_K_NOSPACE : MPISW_K_IO, "%s: fdatasync: %s", tmp,
                      strerror(err));
  }
  close(fd);
  if (rename(tmp, path) != 0) {
    int err = errno;
    mpisw_path_unlink(tmp);
    return mpisw_fail(e, MPISW_K_IO, "cannot rename %s to %s: %s", tmp, path, strerror(err));
  }
  char dir[PATH_MAX];
  mpisw_path_parent(path, dir, sizeof dir);
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);   /* the rename itself durable */
    close(dfd);
  }
  return 0;
}
