/* Checkpoint images: one self-validating file per (name, rank, version)
 * (docs/CHECKPOINTS.md "Versions, checksums and restart"). MPI-free: the
 * levels above (LOCAL slots here, PFS, PARTNER, XOR elsewhere) treat an
 * image as opaque bytes and ask this file whether one is complete.
 *
 * Layout (native byte order): a header of hdr_len bytes (a multiple of
 * 4096) — magic, format, state, chunk size, version, rank, ranks, region
 * sizes, one CRC32C per chunk, the header's own CRC32C — then each region
 * from a chunk boundary. The header is written last, after the data is
 * durable; the state word is cleared (and made durable) before a file is
 * rewritten, so a file is either complete and checked or visibly not. */
#ifndef MPISW_CKPT_IMAGE_H
#define MPISW_CKPT_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define MPISW_CKPT_NAME_MAX 128   /* a checkpoint set's name, with its NUL */

struct mpisw_ckpt_header {
  int version, rank, nranks;
  uint32_t chunk;           /* bytes per chunk (the unit of checksums and rewrites) */
  uint32_t nregions;
  uint64_t nchunks;
  uint64_t hdr_len;         /* bytes before the first region */
  uint64_t file_size;       /* the complete file's length */
  char name[MPISW_CKPT_NAME_MAX];
  uint64_t *sizes;          /* nregions (malloc'd) */
  uint64_t *sums;           /* nchunks (malloc'd), region after region: mpisw_chunk_sum */
};

/* One contiguous range of the program's memory an image holds. */
struct mpisw_ckpt_range {
  void *base;
  uint64_t len;
};

struct mpisw_ckpt_write_stats {
  uint64_t written;         /* bytes written (changed chunks and the header) */
  uint64_t skipped;         /* bytes of chunks found unchanged, not written */
};

/* The image of a LOCAL slot: DIR/NAME.r<rank>.s<slot>.ckpt. */
int mpisw_ckpt_slot_path(char *out, size_t len, const char *dir, const char *name, int rank,
                         int slot);
/* The image of one version on the other levels: DIR/NAME.r<rank>.v<version>.ckpt. */
int mpisw_ckpt_version_path(char *out, size_t len, const char *dir, const char *name, int rank,
                            int version);

/* Frees a header's arrays (the struct itself is the caller's); safe twice. */
void mpisw_ckpt_header_free(struct mpisw_ckpt_header *h);
/* Copies src into dst (arrays duplicated): 0, or -1 (no memory). */
int mpisw_ckpt_header_copy(struct mpisw_ckpt_header *dst, const struct mpisw_ckpt_header *src);

/* Reads and checks path's header (not the data): 1 when it is a complete
 * image (*h filled; free it), 0 when there is no file, -1 when the file is
 * not a complete image (*e says why, naming the file: partial, checksum,
 * not an image). */
int mpisw_ckpt_image_header(const char *path, struct mpisw_ckpt_header *h,
                            struct mpisw_error *e);

/* Writes the ranges as an image into path. h carries version, rank,
 * nranks, chunk and name; the rest is filled. old, when not NULL, is the
 * complete header of what path holds now: a chunk whose checksum equals
 * old's for the same chunk is not written (the layout must be the same,
 * else everything is). Order: space reserved (ENOSPC before anything
 * changes), state cleared and durable, changed chunks, fdatasync, header,
 * fdatasync. On failure path is not a complete image (or, when the space
 * could not be reserved, unchanged) and -1 with *e (MPISW_K_NOSPACE for a
 * full file system). */
int mpisw_ckpt_image_write(const char *path, struct mpisw_ckpt_header *h,
                           const struct mpisw_ckpt_range *r, int nr,
                           const struct mpisw_ckpt_header *old,
                           struct mpisw_ckpt_write_stats *st, struct mpisw_error *e);

/* Verifies every chunk of the image path described by h (from
 * mpisw_ckpt_image_header): 0, or -1 with *e naming the file and chunk. */
int mpisw_ckpt_image_verify(const char *path, const struct mpisw_ckpt_header *h,
                            struct mpisw_error *e);

/* Copies the image's regions into r (same count and sizes as h, else
 * MPISW_K_USAGE), checking every chunk's checksum on the way: 0 or -1. */
int mpisw_ckpt_image_restore(const char *path, const struct mpisw_ckpt_header *h,
                             const struct mpisw_ckpt_range *r, int nr, struct mpisw_error *e);

/* 0 when path is a complete image whose every checksum matches (*version,
 * may be NULL, its version); -1 with *e saying why. */
int mpisw_ckpt_image_check(const char *path, int *version, struct mpisw_error *e);

/* Makes dir and its missing parents (0700): 0 or -1 with *e. */
int mpisw_ckpt_mkdirs(const char *dir, struct mpisw_error *e);

#endif
