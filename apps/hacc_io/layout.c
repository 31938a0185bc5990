/* The shared file's layout: where each rank's section and each array is, and
 * the header that lets a restart trust the file.
 *
 *   [0, 4096)             header (struct hacc_header, zero padded)
 *   section of rank r     at 4096 + sum over q < r of roundup(38 n_q, 4096)
 *     xx yy zz vx vy vz phi   n_r floats each
 *     pid                     n_r int64
 *     mask                    n_r uint16
 *
 * n_r = total / p, plus one for the first total % p ranks: the counts and
 * offsets follow from (total, p), so the header needs no table and a reader
 * with any number of ranks finds every particle. */
#include <stdio.h>
#include <string.h>

#include "core/hash.h"
#include "hacc_io.h"

const char *const hacc_array_names[HACC_ARRAYS] = {"xx", "yy", "zz",  "vx",  "vy",
                                                   "vz", "phi", "pid", "mask"};
const unsigned hacc_array_size[HACC_ARRAYS] = {4, 4, 4, 4, 4, 4, 4, 8, 2};

void hacc_share(uint64_t total, int p, int r, uint64_t *first, uint64_t *n) {
  uint64_t base = total / (uint64_t)p, extra = total % (uint64_t)p, ur = (uint64_t)r;
  *n = base + (ur < extra);
  *first = ur * base + (ur < extra ? ur : extra);
}

uint64_t hacc_section_bytes(uint64_t n) { return n * HACC_PARTICLE_BYTES; }

static uint64_t roundup(uint64_t x) { return (x + HACC_ALIGN - 1) / HACC_ALIGN * HACC_ALIGN; }

uint64_t hacc_section_offset(uint64_t total, int p, int r) {
  /* Sections of the first `extra` ranks hold one particle more: two sizes. */
  uint64_t first, n0, nl;
  hacc_share(total, p, 0, &first, &n0);
  hacc_share(total, p, p - 1, &first, &nl);
  uint64_t extra = total % (uint64_t)p, ur = (uint64_t)r;
  uint64_t big = ur < extra ? ur : extra, small = ur - big;
  return HACC_HEADER_BYTES + big * roundup(hacc_section_bytes(n0)) +
         small * roundup(hacc_section_bytes(nl));
}

uint64_t hacc_file_bytes(uint64_t total, int p) {
  uint64_t first, n;
  hacc_share(total, p, p - 1, &first, &n);
  return hacc_section_offset(total, p, p - 1) + hacc_section_bytes(n);
}

uint64_t hacc_array_offset(uint64_t n, int a) {
  uint64_t off = 0;
  for (int i = 0; i < a; i++) off += n * hacc_array_size[i];
  return off;
}

static uint64_t header_sum(const struct hacc_header *h) {
  return mpisw_hash64(0, h, offsetof(struct hacc_header, checksum));
}

void hacc_header_make(struct hacc_header *h, uint64_t total, int p, int step, int complete) {
  memset(h, 0, sizeof *h);
  memcpy(h->magic, HACC_MAGIC, 8);
  h->format = HACC_FORMAT;
  h->header_bytes = HACC_HEADER_BYTES;
  h->total = total;
  h->ranks = (uint32_t)p;
  h->step = (uint32_t)step;
  h->align = HACC_ALIGN;
  h->state = complete ? HACC_COMPLETE : 0;
  h->file_bytes = hacc_file_bytes(total, p);
  h->checksum = header_sum(h);
}

int hacc_header_check(const struct hacc_header *h, uint64_t file_size, char *why, size_t n) {
  if (file_size < sizeof *h) {
    snprintf(why, n, "too short for a header (%llu bytes): not a hacc_io checkpoint",
             (unsigned long long)file_size);
    return HACC_BAD_FILE;
  }
  if (memcmp(h->magic, HACC_MAGIC, 8)) {
    snprintf(why, n, "no hacc_io magic: not a hacc_io checkpoint");
    return HACC_BAD_FILE;
  }
  if (h->format != HACC_FORMAT || h->header_bytes != HACC_HEADER_BYTES ||
      h->align != HACC_ALIGN) {
    snprintf(why, n, "format %u (header %u, align %u): this program reads format %u",
             h->format, h->header_bytes, h->align, HACC_FORMAT);
    return HACC_BAD_FILE;
  }
  if (h->checksum != header_sum(h)) {
    snprintf(why, n, "the header's checksum does not match: the header is corrupt");
    return HACC_BAD_FILE;
  }
  if (h->state != HACC_COMPLETE) {
    snprintf(why, n, "the checkpoint is incomplete (a checkpoint was started and did not "
             "finish): not restartable");
    return HACC_BAD_FILE;
  }
  if (h->ranks == 0 || h->total < h->ranks ||
      h->file_bytes != hacc_file_bytes(h->total, (int)h->ranks)) {
    snprintf(why, n, "the header's sizes do not agree (%llu particles, %u ranks, %llu bytes)",
             (unsigned long long)h->total, h->ranks, (unsigned long long)h->file_bytes);
    return HACC_BAD_FILE;
  }
  if (file_size < h->file_bytes) {
    snprintf(why, n, "the file is short: %llu bytes, its header says %llu (%llu particles "
             "from %u ranks)", (unsigned long long)file_size,
             (unsigned long long)h->file_bytes, (unsigned long long)h->total, h->ranks);
    return HACC_BAD_FILE;
  }
  return 0;
}
