/* kv_util.c: hashing, CRC32C and the open's options; constants every part
 * of the store shares. Calls nothing else of the store. */
#ifndef MPISW_KV_UTIL_H
#define MPISW_KV_UTIL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define KV_BLOCK 4096u          /* append alignment, superblock size */
#define KV_SECTOR 512u          /* O_DIRECT read granularity */

enum { KV_BACKEND_CACHE = 1, KV_BACKEND_NAIVE = 2 };
enum { KV_READ_POLL = 0, KV_READ_DIRECT = 1, KV_READ_WINDOW = 2 };

struct kv_options {
  int backend;
  uint64_t cache_size, log_size, write_buffer, max_value;
  int read_mode;
  uint64_t slots, slot_size;
  char access_style[128];
};

uint64_t mpisw__kv_hash(const void *key, size_t len);
uint32_t mpisw__kv_crc32c(uint32_t crc, const void *data, size_t len);
int mpisw__kv_options_parse(MPI_Info info, struct kv_options *o, struct mpisw_error *e);

#endif
