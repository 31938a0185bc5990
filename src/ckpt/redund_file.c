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
#include "core/hash.h"
#include "core/path.h"
#include "core/storage.h"
#include "win/internal.h"

int mpisw_redund_fail_code(const char *routine, struct mpisw_error *e) {
  return mpisw_error_code(routine, e);
}

int mpisw_redund_pread(int fd, void *buf, size_t len, uint64_t off, const char *path,
                       struct mpisw_error *e) {
  int err = mpisw_pread_all(fd, buf, len, off);
  if (err == ENODATA)
    return mpisw_fail(e, MPISW_K_IO, "%s: shorter than expected (%llu bytes at %llu)", path,
                      (unsigned long long)len, (unsigned long long)off);
  return err ? mpisw_fail(e, MPISW_K_IO, "%s: read: %s", path, strerror(err)) : 0;
}

int mpisw_redund_pwrite(int fd, const void *buf, size_t len, uint64_t off, const char *path,
                        struct mpisw_error *e) {
  int err = mpisw_pwrite_all(fd, buf, len, off);
  if (!err) return 0;
  return mpisw_fail(e, err == ENOSPC || err == EDQUOT ? MPISW_K_NOSPACE : MPISW_K_IO,
                    "%s: write: %s", path, strerror(err));
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
    h = mpisw_hash64(h, buf, n);
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
  char dir[PATH_MAX], at[PATH_MAX];
  mpisw_path_parent(path, dir, sizeof dir);
  int err = mpisw_path_mkdirs(dir, at, sizeof at);
  return err ? mpisw_fail(e, mpisw_errno_kind(err), "cannot make directory %s: %s", at,
                          strerror(err))
             : 0;
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
  mpisw_path_sync_parent(path);   /* the rename itself durable */
  return 0;
}
