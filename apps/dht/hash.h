/* Keys and where they live.
 *
 * A key is mix(n) of a unique number n >= 1 (n = rank * inserts + i + 1), so
 * keys look random, are never 0 (0 marks an empty slot) and never repeat;
 * unmix(key) gives n back, which lets the owner of a key check that it is one
 * that was inserted. The owner and the slot come from a second, independent
 * hash of the key, reduced to a range by a 128-bit multiply: uniform, so
 * every rank's volume fills evenly. */
#ifndef DHT_HASH_H
#define DHT_HASH_H

#include <stdint.h>

/* splitmix64's finaliser: a bijection of the 64-bit integers, mix(0) = 0. */
static inline uint64_t dht_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static inline uint64_t dht_unxorshift(uint64_t y, int s) {
  uint64_t x = y;
  for (int i = 0; i < 64 / s + 1; i++) x = y ^ (x >> s);
  return x;
}

static inline uint64_t dht_mulinv(uint64_t a) { /* a odd: a * inv = 1 mod 2^64 */
  uint64_t x = a;
  for (int i = 0; i < 6; i++) x *= 2 - a * x;
  return x;
}

static inline uint64_t dht_unmix(uint64_t z) {
  z = dht_unxorshift(z, 31);
  z *= dht_mulinv(0x94d049bb133111ebULL);
  z = dht_unxorshift(z, 27);
  z *= dht_mulinv(0xbf58476d1ce4e5b9ULL);
  return dht_unxorshift(z, 30);
}

/* The placement hash: another bijection, so owner and slot do not follow
 * the bits that made the key. */
static inline uint64_t dht_place_hash(uint64_t key) {
  return dht_mix(key ^ 0x9e3779b97f4a7c15ULL);
}

static inline uint64_t dht_range(uint64_t h, uint64_t n) { /* uniform in [0, n) */
  return (uint64_t)(((unsigned __int128)h * n) >> 64);
}

/* Where a key lives: the owner is the high part of hash x nranks, the slot
 * within the owner's volume comes from the low part (the key's position
 * inside the owner's share); one hash and one product give both. */
struct dht_place {
  int owner;
  uint64_t slot;
};

static inline struct dht_place dht_place_of(uint64_t key, int nranks, uint64_t elements) {
  unsigned __int128 p = (unsigned __int128)dht_place_hash(key) * (uint64_t)nranks;
  struct dht_place at = {(int)(p >> 64), dht_range((uint64_t)p, elements)};
  return at;
}

#endif
