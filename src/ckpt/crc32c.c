/* CRC32C: reflected polynomial 0x82F63B78, initial and final value ~0. The
 * hardware path (x86-64 SSE4.2 crc32 instruction, 8 bytes a step) is chosen
 * once at run time; everything else uses a byte table built on first use. */
#include "ckpt/crc32c.h"

#include <pthread.h>
#include <string.h>

#include "core/hash.h"

static uint32_t table[256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_build(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    table[i] = c;
  }
}

uint32_t mpisw_crc32c_table(uint32_t crc, const void *p, size_t n) {
  pthread_once(&table_once, table_build);
  const unsigned char *b = p;
  crc = ~crc;
  while (n--) crc = table[(crc ^ *b++) & 0xff] ^ (crc >> 8);
  return ~crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>

__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const void *p, size_t n) {
  const unsigned char *b = p;
  uint64_t c = ~crc;
  while (n && ((uintptr_t)b & 7)) {
    c = _mm_crc32_u8((uint32_t)c, *b++);
    n--;
  }
  for (; n >= 8; n -= 8, b += 8) {
    uint64_t w;
    memcpy(&w, b, 8);
    c = _mm_crc32_u64(c, w);
  }
  while (n--) c = _mm_crc32_u8((uint32_t)c, *b++);
  return ~(uint32_t)c;
}

uint32_t mpisw_crc32c(uint32_t crc, const void *p, size_t n) {
  static int hw = -1;   /* racy first use is harmless: every thread finds the same */
  if (hw < 0) {
    __builtin_cpu_init();
    hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
  }
  return hw ? crc_hw(crc, p, n) : mpisw_crc32c_table(crc, p, n);
}
#else
uint32_t mpisw_crc32c(uint32_t crc, const void *p, size_t n) {
  return mpisw_crc32c_table(crc, p, n);
}
#endif

uint64_t mpisw_chunk_sum(const void *p, size_t n) {
  return (mpisw_hash64(0, p, n) & 0xffffffff00000000ull) | mpisw_crc32c(0, p, n);
}
