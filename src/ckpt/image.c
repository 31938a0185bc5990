/* Checkpoint images (image.h): encoding, incremental writing, checking and
 * restoring. Every failure names the file and the reason; nothing here
 * knows about MPI or levels. */
#include "ckpt/image.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt/crc32c.h"
#include "core/path.h"
#include "core/storage.h"

#define MAGIC "MPISWCKP"
#define FORMAT 2u
#define STATE_COMPLETE 0x504d4f43u /* "COMP" */
#define STATE_WRITING 0u
#define FIXED 184                  /* bytes before the region sizes */
#define ALIGN 4096u
#define MAX_REGIONS (1u << 20)

/* Byte offsets of the fixed part. */
enum { O_MAGIC = 0, O_FORMAT = 8, O_STATE = 12, O_HDRLEN = 16, O_CHUNK = 20, O_VERSION = 24,
       O_RANK = 28, O_NRANKS = 32, O_NREG = 36, O_NCHUNKS = 40, O_FSIZE = 48, O_NAME = 56 };

int mpisw_ckpt_slot_path(char *out, size_t len, const char *dir, const char *name, int rank,
                         int slot) {
  int n = snprintf(out, len, "%s/%s.r%d.s%d.ckpt", dir, name, rank, slot);
  return n < 0 || (size_t)n >= len ? -1 : 0;
}

int mpisw_ckpt_version_path(char *out, size_t len, const char *dir, const char *name, int rank,
                            int version) {
  int n = snprintf(out, len, "%s/%s.r%d.v%d.ckpt", dir, name, rank, version);
  return n < 0 || (size_t)n >= len ? -1 : 0;
}

void mpisw_ckpt_header_free(struct mpisw_ckpt_header *h) {
  free(h->sizes);
  free(h->sums);
  h->sizes = NULL;
  h->sums = NULL;
}

int mpisw_ckpt_header_copy(struct mpisw_ckpt_header *dst, const struct mpisw_ckpt_header *src) {
  *dst = *src;
  dst->sizes = malloc(sizeof *dst->sizes * (src->nregions ? src->nregions : 1));
  dst->sums = malloc(sizeof *dst->sums * (src->nchunks ? src->nchunks : 1));
  if (!dst->sizes || !dst->sums) {
    mpisw_ckpt_header_free(dst);
    return -1;
  }
  memcpy(dst->sizes, src->sizes, sizeof *dst->sizes * src->nregions);
  memcpy(dst->sums, src->sums, sizeof *dst->sums * src->nchunks);
  return 0;
}

static uint64_t chunks_of(uint64_t size, uint32_t chunk) { return (size + chunk - 1) / chunk; }

static uint64_t hdr_len_of(uint32_t nregions, uint64_t nchunks) {
  uint64_t n = FIXED + 8ull * nregions + 8ull * nchunks + 4;
  return (n + ALIGN - 1) / ALIGN * ALIGN;
}

/* Fills nchunks, hdr_len, file_size from sizes and chunk. */
static void layout(struct mpisw_ckpt_header *h) {
  uint64_t n = 0, data = 0;
  for (uint32_t i = 0; i < h->nregions; i++) {
    n += chunks_of(h->sizes[i], h->chunk);
    data += chunks_of(h->sizes[i], h->chunk) * h->chunk;
  }
  h->nchunks = n;
  h->hdr_len = hdr_len_of(h->nregions, n);
  h->file_size = h->hdr_len + data;
}

static void put32(unsigned char *b, size_t off, uint32_t v) { memcpy(b + off, &v, 4); }
static void put64(unsigned char *b, size_t off, uint64_t v) { memcpy(b + off, &v, 8); }
static uint32_t get32(const unsigned char *b, size_t off) {
  uint32_t v;
  memcpy(&v, b + off, 4);
  return v;
}
static uint64_t get64(const unsigned char *b, size_t off) {
  uint64_t v;
  memcpy(&v, b + off, 8);
  return v;
}

/* The header's bytes (hdr_len, zero padded), state complete, own CRC last. */
static unsigned char *encode(const struct mpisw_ckpt_header *h) {
  unsigned char *b = calloc(1, h->hdr_len);
  if (!b) return NULL;
  memcpy(b + O_MAGIC, MAGIC, 8);
  put32(b, O_FORMAT, FORMAT);
  put32(b, O_STATE, STATE_COMPLETE);
  put32(b, O_HDRLEN, (uint32_t)h->hdr_len);
  put32(b, O_CHUNK, h->chunk);
  put32(b, O_VERSION, (uint32_t)h->version);
  put32(b, O_RANK, (uint32_t)h->rank);
  put32(b, O_NRANKS, (uint32_t)h->nranks);
  put32(b, O_NREG, h->nregions);
  put64(b, O_NCHUNKS, h->nchunks);
  put64(b, O_FSIZE, h->file_size);
  memcpy(b + O_NAME, h->name, MPISW_CKPT_NAME_MAX);
  size_t off = FIXED;
  for (uint32_t i = 0; i < h->nregions; i++, off += 8) put64(b, off, h->sizes[i]);
  memcpy(b + off, h->sums, 8 * h->nchunks);
  off += 8 * h->nchunks;
  put32(b, off, mpisw_crc32c(0, b, off));
  return b;
}

static int io_fail(struct mpisw_error *e, const char *path, const char *what, int err) {
  int kind = err == ENOSPC || err == EDQUOT ? MPISW_K_NOSPACE : MPISW_K_IO;
  if (err == EACCES || err == EPERM || err == EROFS || err == ELOOP) kind = MPISW_K_ACCESS;
  return mpisw_fail(e, kind, "checkpoint image '%s': %s: %s", path, what, strerror(err));
}

static int reject(struct mpisw_error *e, const char *path, const char *why) {
  return mpisw_fail(e, MPISW_K_IO, "checkpoint image '%s': %s", path, why);
}

/* Parses a header read from fd; 1, or -1 with *e. */
static int decode(int fd, const char *path, struct mpisw_ckpt_header *h, struct mpisw_error *e) {
  memset(h, 0, sizeof *h);
  struct stat st;
  if (fstat(fd, &st) != 0) return io_fail(e, path, "stat", errno);
  unsigned char fixed[FIXED];
  if ((uint64_t)st.st_size < ALIGN || mpisw_pread_all(fd, fixed, FIXED, 0))
    return reject(e, path, "partial: the file is shorter than a header");
  if (memcmp(fixed + O_MAGIC, MAGIC, 8) != 0) return reject(e, path, "not a checkpoint image");
  if (get32(fixed, O_FORMAT) != FORMAT) return reject(e, path, "written by another format version");
  if (get32(fixed, O_STATE) != STATE_COMPLETE)
    return reject(e, path, "partial: it was being written when its job stopped");
  h->chunk = get32(fixed, O_CHUNK);
  h->nregions = get32(fixed, O_NREG);
  h->nchunks = get64(fixed, O_NCHUNKS);
  h->hdr_len = get32(fixed, O_HDRLEN);
  h->file_size = get64(fixed, O_FSIZE);
  if (h->chunk < 512 || h->nregions > MAX_REGIONS || h->nchunks > (1ull << 36) ||
      h->hdr_len != hdr_len_of(h->nregions, h->nchunks) || h->hdr_len > (uint64_t)st.st_size)
    return reject(e, path, "header checksum mismatch (its sizes are not consistent)");
  unsigned char *b = malloc(h->hdr_len);
  if (!b) return mpisw_fail(e, MPISW_K_NOMEM, "checkpoint image '%s': no memory for its header", path);
  int err = mpisw_pread_all(fd, b, h->hdr_len, 0);
  if (err) {
    free(b);
    return io_fail(e, path, "reading the header", err);
  }
  size_t end = FIXED + 8 * h->nregions + 8 * h->nchunks;
  if (mpisw_crc32c(0, b, end) != get32(b, end)) {
    free(b);
    return reject(e, path, "header checksum mismatch");
  }
  h->version = (int)get32(b, O_VERSION);
  h->rank = (int)get32(b, O_RANK);
  h->nranks = (int)get32(b, O_NRANKS);
  memcpy(h->name, b + O_NAME, MPISW_CKPT_NAME_MAX);
  h->name[MPISW_CKPT_NAME_MAX - 1] = 0;
  h->sizes = malloc(8 * (h->nregions ? h->nregions : 1));
  h->sums = malloc(8 * (h->nchunks ? h->nchunks : 1));
  if (!h->sizes || !h->sums) {
    free(b);
    mpisw_ckpt_header_free(h);
    return mpisw_fail(e, MPISW_K_NOMEM, "checkpoint image '%s': no memory for its header", path);
  }
  for (uint32_t i = 0; i < h->nregions; i++) h->sizes[i] = get64(b, FIXED + 8 * i);
  memcpy(h->sums, b + FIXED + 8 * h->nregions, 8 * h->nchunks);
  free(b);
  struct mpisw_ckpt_header l = *h;
  layout(&l);
  if (l.nchunks != h->nchunks || l.file_size != h->file_size) {
    mpisw_ckpt_header_free(h);
    return reject(e, path, "header does not match its region sizes");
  }
  if ((uint64_t)st.st_size < h->file_size) {
    mpisw_ckpt_header_free(h);
    return reject(e, path, "partial: the file is shorter than its header says");
  }
  return 1;
}

int mpisw_ckpt_image_header(const char *path, struct mpisw_ckpt_header *h,
                            struct mpisw_error *e) {
  memset(h, 0, sizeof *h);
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT) return 0;
    return io_fail(e, path, "open", errno);
  }
  int rc = decode(fd, path, h, e);
  close(fd);
  return rc;
}

/* Walks every chunk of h in file order: fn(region, chunk index in the
 * image, offset in the region, length, file offset). */
#define EACH_CHUNK(h, body)                                                           \
  do {                                                                                \
    uint64_t k_ = 0, foff_ = (h)->hdr_len;                                           \
    for (uint32_t reg = 0; reg < (h)->nregions; reg++) {                             \
      for (uint64_t roff = 0; roff < (h)->sizes[reg]; roff += (h)->chunk, k_++) {    \
        uint64_t k = k_, foff = foff_ + roff;                                        \
        uint64_t clen = (h)->sizes[reg] - roff < (h)->chunk ? (h)->sizes[reg] - roff \
                                                             : (h)->chunk;           \
        body                                                                         \
      }                                                                              \
      foff_ += chunks_of((h)->sizes[reg], (h)->chunk) * (h)->chunk;                  \
    }                                                                                \
  } while (0)

static int same_layout(const struct mpisw_ckpt_header *a, const struct mpisw_ckpt_header *b) {
  if (a->chunk != b->chunk || a->nregions != b->nregions) return 0;
  for (uint32_t i = 0; i < a->nregions; i++)
    if (a->sizes[i] != b->sizes[i]) return 0;
  return 1;
}

int mpisw_ckpt_image_write(const char *path, struct mpisw_ckpt_header *h,
                           const struct mpisw_ckpt_range *r, int nr,
                           const struct mpisw_ckpt_header *old,
                           struct mpisw_ckpt_write_stats *st, struct mpisw_error *e) {
  st->written = st->skipped = 0;
  mpisw_ckpt_header_free(h);
  h->nregions = (uint32_t)nr;
  h->sizes = malloc(8 * (nr ? (size_t)nr : 1));
  if (!h->sizes) return mpisw_fail(e, MPISW_K_NOMEM, "checkpoint image '%s': no memory", path);
  for (int i = 0; i < nr; i++) h->sizes[i] = r[i].len;
  layout(h);
  h->sums = calloc(h->nchunks ? h->nchunks : 1, 8);
  if (!h->sums) return mpisw_fail(e, MPISW_K_NOMEM, "checkpoint image '%s': no memory", path);
  if (old && !same_layout(old, h)) old = NULL;

  int created = 0;
  int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0) created = 1;
  else if (errno == EEXIST) fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return io_fail(e, path, "open", errno);
  int err;
  /* 1. Room for all of it, before anything of the old version changes. */
  if ((err = posix_fallocate(fd, 0, (off_t)h->file_size)) != 0 && err != EOPNOTSUPP &&
      err != EINVAL) {
    if (created) mpisw_path_unlink(path);
    close(fd);
    return io_fail(e, path, "reserving space", err);
  }
  /* 2. No longer a complete image: cleared and durable before any chunk. */
  if (!created) {
    uint32_t state = STATE_WRITING;
    if ((err = mpisw_pwrite_all(fd, &state, 4, O_STATE)) || (fdatasync(fd) && (err = errno)))
      goto fail;
    struct stat sb;
    if (fstat(fd, &sb) == 0 && (uint64_t)sb.st_size > h->file_size &&
        ftruncate(fd, (off_t)h->file_size) != 0) {
      err = errno;
      goto fail;
    }
  }
  /* 3. The chunks whose checksum changed. */
  EACH_CHUNK(h, {
    const unsigned char *src = (const unsigned char *)r[reg].base + roff;
    uint64_t c = mpisw_chunk_sum(src, clen);
    h->sums[k] = c;
    if (old && old->sums[k] == c) {
      st->skipped += clen;
    } else {
      if ((err = mpisw_pwrite_all(fd, src, clen, foff)) != 0) goto fail;
      st->written += clen;
    }
  });
  /* 4. The data durable, then the header that vouches for it. */
  if (fdatasync(fd)) {
    err = errno;
    goto fail;
  }
  unsigned char *b = encode(h);
  if (!b) {
    err = ENOMEM;
    goto fail;
  }
  err = mpisw_pwrite_all(fd, b, h->hdr_len, 0);
  free(b);
  if (err || (fdatasync(fd) && (err = errno))) goto fail;
  st->written += h->hdr_len;
  close(fd);
  if (created && (err = mpisw_path_sync_parent(path)) != 0) return io_fail(e, path, "syncing its directory", err);
  return 0;
fail:
  /* Not an image any more: gone, so that its space comes back and no
   * restart meets it. */
  close(fd);
  mpisw_path_unlink(path);
  return io_fail(e, path, "writing", err);
}

/* Reads each chunk (into dst when given, else a buffer) and compares. */
static int read_checked(const char *path, const struct mpisw_ckpt_header *h,
                        const struct mpisw_ckpt_range *dst, struct mpisw_error *e) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return io_fail(e, path, "open", errno);
  unsigned char *buf = dst ? NULL : malloc(h->chunk);
  if (!dst && !buf) {
    close(fd);
    return mpisw_fail(e, MPISW_K_NOMEM, "checkpoint image '%s': no memory", path);
  }
  int rc = 0;
  EACH_CHUNK(h, {
    unsigned char *p = dst ? (unsigned char *)dst[reg].base + roff : buf;
    int err = mpisw_pread_all(fd, p, clen, foff);
    if (err) {
      rc = err == ENODATA ? reject(e, path, "partial: the file ends inside its data")
                          : io_fail(e, path, "reading", err);
      goto out;
    }
    uint64_t c = mpisw_chunk_sum(p, clen);
    if (c != h->sums[k]) {
      char why[160];
      snprintf(why, sizeof why,
               "checksum mismatch in chunk %llu of region %u (stored %016llx, read %016llx)",
               (unsigned long long)k, reg, (unsigned long long)h->sums[k],
               (unsigned long long)c);
      rc = reject(e, path, why);
      goto out;
    }
  });
out:
  free(buf);
  close(fd);
  return rc;
}

int mpisw_ckpt_image_verify(const char *path, const struct mpisw_ckpt_header *h,
                            struct mpisw_error *e) {
  return read_checked(path, h, NULL, e);
}

int mpisw_ckpt_image_restore(const char *path, const struct mpisw_ckpt_header *h,
                             const struct mpisw_ckpt_range *r, int nr, struct mpisw_error *e) {
  if ((uint32_t)nr != h->nregions)
    return mpisw_fail(e, MPISW_K_USAGE, "checkpoint image '%s' holds %u regions, %d are protected",
                      path, h->nregions, nr);
  for (int i = 0; i < nr; i++)
    if (r[i].len != h->sizes[i])
      return mpisw_fail(e, MPISW_K_USAGE,
                        "checkpoint image '%s': region %d is %llu bytes there, %llu protected",
                        path, i, (unsigned long long)h->sizes[i], (unsigned long long)r[i].len);
  return read_checked(path, h, r, e);
}

int mpisw_ckpt_image_check(const char *path, int *version, struct mpisw_error *e) {
  struct mpisw_ckpt_header h;
  int rc = mpisw_ckpt_image_header(path, &h, e);
  if (rc == 0) return mpisw_fail(e, MPISW_K_NOFILE, "checkpoint image '%s': no such file", path);
  if (rc < 0) return -1;
  rc = mpisw_ckpt_image_verify(path, &h, e);
  if (rc == 0 && version) *version = h.version;
  mpisw_ckpt_header_free(&h);
  return rc;
}

int mpisw_ckpt_mkdirs(const char *dir, struct mpisw_error *e) {
  char at[4096];
  int err = mpisw_path_mkdirs(dir, at, sizeof at);
  if (err == ENAMETOOLONG)
    return mpisw_fail(e, MPISW_K_USAGE, "checkpoint directory '%s': the path is too long", dir);
  if (err)
    return mpisw_fail(e, mpisw_errno_kind(err), "checkpoint directory '%s': cannot make '%s': %s",
                      dir, at, strerror(err));
  if (!mpisw_path_is_dir(dir))
    return mpisw_fail(e, MPISW_K_NOFILE, "checkpoint directory '%s' is not a directory", dir);
  return 0;
}
