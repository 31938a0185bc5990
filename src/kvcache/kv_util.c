/* Hash of keys, CRC32C of records, the store's options. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "kvcache/kv_log.h"    /* record header size */
#include "kvcache/kv_slab.h"   /* page size */
#include "kvcache/kv_util.h"
#include "mpisw_kv.h"
#include "win/internal.h"

static inline uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

uint64_t mpisw__kv_hash(const void *key, size_t len) {
  const unsigned char *p = key;
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (len * 0x100000001b3ull);
  while (len >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    h = mix(h ^ w) + 0x9e3779b97f4a7c15ull;
    p += 8;
    len -= 8;
  }
  uint64_t w = 0;
  memcpy(&w, p, len);
  return mix(h ^ w ^ ((uint64_t)len << 56));
}

/* CRC32C (Castagnoli): the SSE4.2 instruction where the CPU has it, a table
 * otherwise. */
static uint32_t table[256];
static int have_hw = -1;

static void make_table(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    table[i] = c;
  }
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t c, const unsigned char *p,
                                                         size_t n) {
  uint64_t c64 = c;
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    c64 = __builtin_ia32_crc32di(c64, w);
    p += 8;
    n -= 8;
  }
  c = (uint32_t)c64;
  while (n--) c = __builtin_ia32_crc32qi(c, *p++);
  return c;
}
#endif

uint32_t mpisw__kv_crc32c(uint32_t crc, const void *data, size_t len) {
  const unsigned char *p = data;
  uint32_t c = ~crc;
  if (have_hw < 0) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    have_hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
#else
    have_hw = 0;
#endif
    make_table();
  }
#if defined(__x86_64__)
  if (have_hw) return ~crc_hw(c, p, len);
#endif
  while (len--) c = table[(c ^ *p++) & 0xff] ^ (c >> 8);
  return ~c;
}

/* ---- options ---- */

static int get(MPI_Info info, const char *key, char *v, int len) {
  return mpisw_info_get(info, key, v, len);
}

static int size_opt(MPI_Info info, const char *key, uint64_t *out, uint64_t min, uint64_t max,
                    struct mpisw_error *e) {
  char v[128];
  if (!get(info, key, v, sizeof v)) return 0;
  uint64_t x;
  if (mpisw_parse_size(v, &x) != 0 || x < min || x > max)
    return mpisw_fail(e, MPISW_K_HINT, "%s: '%s' is not a size in [%llu, %llu] bytes", key, v,
                      (unsigned long long)min, (unsigned long long)max);
  *out = x;
  return 0;
}

int mpisw__kv_options_parse(MPI_Info info, struct kv_options *o, struct mpisw_error *e) {
  char v[128];
  memset(o, 0, sizeof *o);
  o->backend = KV_BACKEND_CACHE;
  o->cache_size = 16ull << 20;
  o->log_size = 256ull << 20;
  o->write_buffer = 4ull << 20;
  o->max_value = 1ull << 20;
  o->read_mode = KV_READ_POLL;
  o->slots = 131072;
  o->slot_size = 1152;
  if (get(info, MPISW_KV_BACKEND, v, sizeof v)) {
    if (!strcasecmp(v, "cache")) o->backend = KV_BACKEND_CACHE;
    else if (!strcasecmp(v, "naive")) o->backend = KV_BACKEND_NAIVE;
    else return mpisw_fail(e, MPISW_K_HINT, "%s: '%s' is not 'cache' or 'naive'", MPISW_KV_BACKEND, v);
  }
  if (get(info, MPISW_KV_READ, v, sizeof v)) {
    if (!strcasecmp(v, "poll")) o->read_mode = KV_READ_POLL;
    else if (!strcasecmp(v, "direct")) o->read_mode = KV_READ_DIRECT;
    else if (!strcasecmp(v, "window")) o->read_mode = KV_READ_WINDOW;
    else return mpisw_fail(e, MPISW_K_HINT, "%s: '%s' is not 'poll', 'direct' or 'window'", MPISW_KV_READ, v);
  }
  const uint64_t T = 1ull << 40;
  if (size_opt(info, MPISW_KV_CACHE_SIZE, &o->cache_size, KV_SLAB_PAGE, T, e) ||
      size_opt(info, MPISW_KV_LOG_SIZE, &o->log_size, 64 * 1024, T, e) ||
      size_opt(info, MPISW_KV_WRITE_BUFFER, &o->write_buffer, 64 * 1024, 1ull << 30, e) ||
      size_opt(info, MPISW_KV_MAX_VALUE, &o->max_value, 1, 1ull << 30, e) ||
      size_opt(info, MPISW_KV_SLOTS, &o->slots, 1, 1ull << 32, e) ||
      size_opt(info, MPISW_KV_SLOT_SIZE, &o->slot_size, 64, 1ull << 24, e))
    return -1;
  o->write_buffer = (o->write_buffer + KV_BLOCK - 1) & ~(uint64_t)(KV_BLOCK - 1);
  uint64_t room = o->write_buffer - MPISW_KV_MAX_KEY - sizeof(struct kv_rec) - 8;
  if (!get(info, MPISW_KV_MAX_VALUE, v, sizeof v) && o->max_value > room) o->max_value = room;
  o->log_size = (o->log_size + KV_BLOCK - 1) & ~(uint64_t)(KV_BLOCK - 1);
  o->slot_size = (o->slot_size + 7) & ~(uint64_t)7;
  if (o->max_value + MPISW_KV_MAX_KEY + sizeof(struct kv_rec) + 8 > o->write_buffer)
    return mpisw_fail(e, MPISW_K_HINT, "%s: %llu bytes do not fit the write buffer (%s %llu "
                      "bytes; it must hold one record of key, value and header)",
                      MPISW_KV_MAX_VALUE, (unsigned long long)o->max_value,
                      MPISW_KV_WRITE_BUFFER, (unsigned long long)o->write_buffer);
  if (o->write_buffer > o->log_size)
    return mpisw_fail(e, MPISW_K_HINT, "%s: %llu bytes exceed the log region (%s %llu bytes)",
                      MPISW_KV_WRITE_BUFFER, (unsigned long long)o->write_buffer,
                      MPISW_KV_LOG_SIZE, (unsigned long long)o->log_size);
  if (get(info, "access_style", o->access_style, sizeof o->access_style) == 0)
    o->access_style[0] = 0;
  return 0;
}
