/* The library's 64-bit hash (hash.h). */
#include "core/hash.h"

#include <string.h>

static uint64_t mix(uint64_t h) {
  h = (h ^ (h >> 33)) * 0xff51afd7ed558ccdull;
  h = (h ^ (h >> 33)) * 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

uint64_t mpisw_hash64(uint64_t seed, const void *p, uint64_t n) {
  const unsigned char *s = p;
  uint64_t l[4] = {0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull,
                   0x2545f4914f6cdd1dull};
  uint64_t i = 0, w;
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 4; k++) {
      memcpy(&w, s + i + 8 * k, 8);
      l[k] = (l[k] ^ w) * 0x100000001b3ull;
      l[k] = (l[k] << 29) | (l[k] >> 35);
    }
  uint64_t h = n * 0x9e3779b97f4a7c15ull ^ seed;
  for (int k = 0; k < 4; k++) h = mix(h ^ l[k]);
  for (; i < n; i++) h = (h ^ s[i]) * 0x100000001b3ull;
  return mix(h);
}
