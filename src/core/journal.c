/* The redo journal of atomic syncs (journal.h has the format and promises). */
#include "core/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/hash.h"
#include "core/path.h"
#include "core/storage.h"

static const char MAGIC[8] = {'M', 'P', 'I', 'S', 'W', 'J', 'N', '1'};
enum { H_SEQ = 1, H_COUNT, H_BODY, H_ROFF, H_RLEN, H_BSUM, H_HSUM };
#define REC_HEAD 16u
#define DIRECT_ALIGN 4096u /* O_DIRECT alignment every device here accepts */
#define BOUNCE (1u << 20)

static uint64_t pad8(uint64_t n) { return (n + 7) & ~(uint64_t)7; }

int mpisw_journal_name(const char *data_path, uint64_t range_off, char *out, size_t n,
                       struct mpisw_error *e) {
  int len = snprintf(out, n, "%s%s%llu", data_path, MPISW_JOURNAL_SUFFIX,
                     (unsigned long long)range_off);
  if (len < 0 || (size_t)len >= n)
    return mpisw_fail(e, MPISW_K_HINT,
                      "storage_sync=atomic: '%s': the journal's name (the file's name + '%s"
                      "<offset>') is too long",
                      data_path, MPISW_JOURNAL_SUFFIX);
  return 0;
}

static int io_fail(struct mpisw_error *e, int err, const char *what, const char *path) {
  return mpisw_fail(e, mpisw_errno_kind(err), "storage_sync=atomic: journal '%s': %s: %s",
                    path, what, strerror(err));
}

/* 0, 1 when the file ends early (a torn journal), -1 on a read error. */
static int read_all(int fd, void *buf, uint64_t n, uint64_t off) {
  int err = mpisw_pread_all(fd, buf, n, off);
  return err == ENODATA ? 1 : err ? -1 : 0;
}

/* Calls fn for each record of a body; -1 when a record is malformed or
 * outside [lo, hi). */
static int each_record(const char *body, uint64_t blen, uint64_t lo, uint64_t hi,
                       int (*fn)(void *, uint64_t, const char *, uint64_t), void *arg) {
  uint64_t at = 0;
  while (at < blen) {
    uint64_t off, len;
    if (blen - at < REC_HEAD) return -1;
    memcpy(&off, body + at, 8);
    memcpy(&len, body + at + 8, 8);
    at += REC_HEAD;
    if (len > blen - at || off < lo || off > hi || len > hi - off) return -1;
    if (fn && fn(arg, off, body + at, len)) return -2;
    at += pad8(len);
  }
  return 0;
}

struct put_arg {
  int fd, err;
};
static int put_record(void *a, uint64_t off, const char *data, uint64_t len) {
  struct put_arg *pa = a;
  pa->err = mpisw_pwrite_all(pa->fd, data, len, off);
  return pa->err != 0;
}

static int zero_header(int fd) {
  char zero[MPISW_JOURNAL_HEAD] = {0};
  return mpisw_pwrite_all(fd, zero, sizeof zero, 0);
}

/* A valid committed journal in fd: its body in *body (malloc'ed), else why not. */
static int read_commit(int fd, uint64_t *h, char **body, int *what) {
  *body = NULL;
  int r = read_all(fd, h, MPISW_JOURNAL_HEAD, 0);
  if (r < 0) return -1;
  static const uint64_t zero[8];
  if (r == 1 || !memcmp(h, zero, sizeof zero)) {
    struct stat st;
    if (fstat(fd, &st) != 0) return -1;
    if (st.st_size == 0) *what = MPISW_JOURNAL_NONE;
    else if (r == 1) *what = MPISW_JOURNAL_DISCARDED; /* the header itself torn short */
    else *what = MPISW_JOURNAL_APPLIED;
    return 0;
  }
  *what = MPISW_JOURNAL_DISCARDED;
  if (memcmp(h, MAGIC, 8) || mpisw_hash64(0, h, 56) != h[H_HSUM]) return 0;
  struct stat st;
  if (fstat(fd, &st) != 0) return -1;
  if (h[H_BODY] > (uint64_t)st.st_size - MPISW_JOURNAL_HEAD) return 0;
  char *b = malloc(h[H_BODY] ? h[H_BODY] : 1);
  if (!b) {
    errno = ENOMEM;
    return -1;
  }
  r = read_all(fd, b, h[H_BODY], MPISW_JOURNAL_HEAD);
  if (r < 0) {
    free(b);
    return -1;
  }
  if (r == 1 || mpisw_hash64(0, b, h[H_BODY]) != h[H_BSUM]) {
    free(b);
    return 0;
  }
  *body = b;
  *what = MPISW_JOURNAL_REPLAYED;
  return 0;
}

int mpisw_journal_recover(const char *jpath, int data_fd, uint64_t range_off,
                          uint64_t range_len, int *what, uint64_t *seq, struct mpisw_error *e) {
  int dummy;
  if (!what) what = &dummy;
  *what = MPISW_JOURNAL_NONE;
  if (seq) *seq = 0;
  int fd = open(jpath, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT) return 0;
    return io_fail(e, errno, "cannot open it for recovery", jpath);
  }
  uint64_t h[8];
  char *body = NULL;
  if (read_commit(fd, h, &body, what)) {
    int err = errno;
    close(fd);
    return io_fail(e, err, "cannot read it for recovery", jpath);
  }
  if (*what == MPISW_JOURNAL_REPLAYED) {
    uint64_t lo = h[H_ROFF], hi = h[H_ROFF] + h[H_RLEN];
    if (lo < range_off || hi > range_off + range_len || hi < lo) {
      free(body);
      close(fd);
      return mpisw_fail(e, MPISW_K_USAGE,
                        "storage_sync=atomic: journal '%s' holds a committed sync of file bytes "
                        "[%llu, %llu) not yet written, outside this window's [%llu, %llu): "
                        "create the window with that offset and size once to recover them, or "
                        "remove the journal to give them up",
                        jpath, (unsigned long long)lo, (unsigned long long)hi,
                        (unsigned long long)range_off,
                        (unsigned long long)(range_off + range_len));
    }
    struct put_arg pa = {data_fd, 0};
    int rc = each_record(body, h[H_BODY], lo, hi, put_record, &pa);
    free(body);
    if (rc == -1) { /* checksummed but malformed: not ours to trust */
      *what = MPISW_JOURNAL_DISCARDED;
    } else if (rc == -2 || fdatasync(data_fd) != 0) {
      int err = rc == -2 ? pa.err : errno;
      close(fd);
      return mpisw_fail(e, mpisw_errno_kind(err),
                        "storage_sync=atomic: replaying journal '%s' into the file failed: %s "
                        "(the journal is kept: the next window made on the file tries again)",
                        jpath, strerror(err));
    }
    if (seq) *seq = h[H_SEQ];
  }
  /* replayed and synced, or never committed: nothing left to do */
  if (*what == MPISW_JOURNAL_REPLAYED || *what == MPISW_JOURNAL_DISCARDED) {
    int err = zero_header(fd);
    if (!err && fdatasync(fd) != 0) err = errno;
    if (err) {
      close(fd);
      return io_fail(e, err, "cannot mark it done after recovery", jpath);
    }
  }
  close(fd);
  return 0;
}

int mpisw_journal_open(struct mpisw_journal *j, const char *jpath, uint64_t range_off,
                       uint64_t range_len, uint64_t seq, struct mpisw_error *e) {
  memset(j, 0, sizeof *j);
  j->fd = j->direct_fd = -1;
  snprintf(j->path, sizeof j->path, "%s", jpath);
  j->range_off = range_off;
  j->range_len = range_len;
  j->seq = seq;
  if (!jpath) { /* in memory only: a file without a name has nothing to recover */
    mpisw_journal_begin(j);
    return 0;
  }
  int created = 1;
  int fd = open(jpath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0 && errno == EEXIST) {
    created = 0;
    fd = open(jpath, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  }
  if (fd < 0) return io_fail(e, errno, "cannot create it", jpath);
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return mpisw_fail(e, MPISW_K_ACCESS, "storage_sync=atomic: journal '%s' is not a regular "
                      "file", jpath);
  }
  if (created) mpisw_path_sync_parent(jpath); /* the new journal durable with its entry */
  j->fd = fd;
  mpisw_journal_begin(j);
  return 0;
}

void mpisw_journal_begin(struct mpisw_journal *j) {
  j->len = MPISW_JOURNAL_HEAD;
  j->count = 0;
  j->last_len = 0;
  j->last_off = 0;
}

static int grow(struct mpisw_journal *j, uint64_t need, struct mpisw_error *e) {
  if (need <= j->cap) return 0;
  uint64_t cap = j->cap ? j->cap : 1u << 16;
  while (cap < need) cap *= 2;
  char *b = realloc(j->buf, cap);
  if (!b)
    return mpisw_fail(e, MPISW_K_NOMEM, "storage_sync=atomic: out of memory for a journal of "
                      "%llu bytes", (unsigned long long)need);
  j->buf = b;
  j->cap = cap;
  return 0;
}

const void *mpisw_journal_add(struct mpisw_journal *j, uint64_t off, const void *src,
                              uint64_t len, struct mpisw_error *e) {
  if (off < j->range_off || len > j->range_off + j->range_len - off) {
    mpisw_fail(e, MPISW_K_USAGE, "storage_sync=atomic: bytes [%llu, %llu) are outside the "
               "journal's range", (unsigned long long)off, (unsigned long long)(off + len));
    return NULL;
  }
  if (j->count && j->last_off + j->last_len == off) { /* the last record grows */
    if (grow(j, j->len + len, e)) return NULL;
    char *dst = j->buf + j->len;
    memcpy(dst, src, len);
    j->len += len;
    j->last_len += len;
    memcpy(j->buf + j->last_at + 8, &j->last_len, 8);
    return dst;
  }
  uint64_t at = pad8(j->len);
  if (grow(j, at + REC_HEAD + len, e)) return NULL;
  memset(j->buf + j->len, 0, at - j->len);
  memcpy(j->buf + at, &off, 8);
  memcpy(j->buf + at + 8, &len, 8);
  char *dst = j->buf + at + REC_HEAD;
  memcpy(dst, src, len);
  j->last_at = at;
  j->last_off = off;
  j->last_len = len;
  j->len = at + REC_HEAD + len;
  j->count++;
  return dst;
}

uint64_t mpisw_journal_bytes(const struct mpisw_journal *j) {
  return j->fd < 0 ? 0 : pad8(j->len);
}

int mpisw_journal_commit(struct mpisw_journal *j, struct mpisw_error *e) {
  uint64_t total = pad8(j->len);
  if (grow(j, total, e)) return -1;
  memset(j->buf + j->len, 0, total - j->len);
  j->len = total;
  uint64_t h[8];
  memcpy(h, MAGIC, 8);
  h[H_SEQ] = ++j->seq;
  h[H_COUNT] = j->count;
  h[H_BODY] = total - MPISW_JOURNAL_HEAD;
  h[H_ROFF] = j->range_off;
  h[H_RLEN] = j->range_len;
  h[H_BSUM] = mpisw_hash64(0, j->buf + MPISW_JOURNAL_HEAD, h[H_BODY]);
  h[H_HSUM] = mpisw_hash64(0, h, 56);
  memcpy(j->buf, h, sizeof h);
  if (j->fd < 0) return 0;
  int err = mpisw_pwrite_all(j->fd, j->buf, total, 0);
  if (!err && fdatasync(j->fd) != 0) err = errno;
  if (err) return io_fail(e, err, "writing the sync's pages failed", j->path);
  return 0;
}

int mpisw_journal_direct(struct mpisw_journal *j, int data_fd) {
  char fdpath[64];
  snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", data_fd);
  j->direct_fd = open(fdpath, O_RDWR | O_DIRECT | O_CLOEXEC);
  if (j->direct_fd >= 0 && posix_memalign((void **)&j->bounce, DIRECT_ALIGN, BOUNCE)) {
    close(j->direct_fd);
    j->direct_fd = -1;
    j->bounce = NULL;
  }
  return j->direct_fd >= 0 ? 0 : -1;
}

/* A record in place: aligned ones through O_DIRECT (a bounce buffer at a
 * time), the rest, or all after the file system refused, buffered. */
static int put_direct(void *a, uint64_t off, const char *data, uint64_t len) {
  struct mpisw_journal *j = a;
  if (j->direct_fd >= 0 && off % DIRECT_ALIGN == 0 && len % DIRECT_ALIGN == 0) {
    uint64_t done = 0;
    while (done < len) {
      uint64_t n = len - done < BOUNCE ? len - done : BOUNCE;
      memcpy(j->bounce, data + done, n);
      if (mpisw_pwrite_all(j->direct_fd, j->bounce, n, off + done)) break;
      done += n;
    }
    if (done == len) return 0;
    close(j->direct_fd); /* refused (EINVAL on some file systems): buffered from now on */
    j->direct_fd = -1;
    data += done;
    off += done;
    len -= done;
  }
  j->apply_err = mpisw_pwrite_all(j->data_fd, data, len, off);
  return j->apply_err != 0;
}

int mpisw_journal_apply(struct mpisw_journal *j, int data_fd, struct mpisw_error *e) {
  j->data_fd = data_fd;
  j->apply_err = 0;
  int rc = each_record(j->buf + MPISW_JOURNAL_HEAD, j->len - MPISW_JOURNAL_HEAD, j->range_off,
                       j->range_off + j->range_len, put_direct, j);
  int err = rc == -2 ? j->apply_err : rc ? EINVAL : 0;
  if (!err && fdatasync(data_fd) != 0) err = errno;
  if (err)
    return mpisw_fail(e, mpisw_errno_kind(err),
                      "storage_sync=atomic: writing the journaled pages into the file failed: "
                      "%s (journal '%s' keeps them for recovery)",
                      strerror(err), j->path);
  return 0;
}

int mpisw_journal_mark_applied(struct mpisw_journal *j, struct mpisw_error *e) {
  if (j->fd < 0) return 0;
  /* Its cached pages go first (clean after the commit's fdatasync), so the
   * next commit's write makes new ones of its own size: a small write into
   * a large folio left by a big commit would dirty (and write) all of it.
   * Truncating would do the same at the price of a metadata commit. */
  posix_fadvise(j->fd, 0, 0, POSIX_FADV_DONTNEED);
  int err = zero_header(j->fd);
  if (err) return io_fail(e, err, "cannot mark it applied", j->path);
  return 0;
}

void mpisw_journal_close(struct mpisw_journal *j, int remove) {
  if (j->direct_fd >= 0) close(j->direct_fd);
  j->direct_fd = -1;
  free(j->bounce);
  j->bounce = NULL;
  if (j->fd >= 0) {
    close(j->fd);
    if (remove) mpisw_path_unlink(j->path);
  }
  j->fd = -1;
  free(j->buf);
  j->buf = NULL;
  j->cap = j->len = 0;
}
