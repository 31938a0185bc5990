/* The particles: their arrays, and their values, which depend only on the
 * particle's global index and the step, so a restart at any rank count can
 * check every byte. One hash per particle gives all nine values; pid is the
 * global index itself, as in HACC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hacc_io.h"

static inline uint64_t mix(uint64_t x) { /* splitmix64's finaliser */
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* 24 bits of h as a float in [0, lim): exact, so bytes compare. */
static inline float f24(uint64_t h, int shift, float lim) {
  return (float)((h >> shift) & 0xffffff) * (lim / 16777216.0f);
}

/* The values of particle g at step s. */
struct one {
  float f[7];
  int64_t pid;
  uint16_t mask;
};
static inline void particle(uint64_t g, int s, struct one *p) {
  uint64_t h1 = mix(g ^ ((uint64_t)(unsigned)s << 40)), h2 = mix(h1);
  p->f[0] = f24(h1, 0, 256.0f);   /* positions in a 256 Mpc box */
  p->f[1] = f24(h1, 24, 256.0f);
  p->f[2] = f24(h2, 0, 256.0f);
  p->f[3] = f24(h2, 24, 2000.0f) - 1000.0f; /* velocities */
  p->f[4] = f24(h1 ^ h2, 0, 2000.0f) - 1000.0f;
  p->f[5] = f24(h1 ^ h2, 24, 2000.0f) - 1000.0f;
  p->f[6] = -f24(h1 + h2, 8, 1.0e4f); /* potential */
  p->pid = (int64_t)g;
  p->mask = (uint16_t)((h2 >> 48) ^ (unsigned)s);
}

int hacc_particles_alloc(struct hacc_particles *pt, uint64_t total, int p, int r) {
  memset(pt, 0, sizeof *pt);
  hacc_share(total, p, r, &pt->first, &pt->n);
  /* Each array 64-byte aligned inside one block. */
  size_t off[HACC_ARRAYS], sz = 0;
  for (int a = 0; a < HACC_ARRAYS; a++) {
    off[a] = sz;
    sz += (pt->n * hacc_array_size[a] + 63) / 64 * 64;
  }
  if (posix_memalign(&pt->block, 4096, sz ? sz : 64)) return -1;
  for (int a = 0; a < HACC_ARRAYS; a++) pt->array[a] = (char *)pt->block + off[a];
  return 0;
}

void hacc_particles_free(struct hacc_particles *pt) {
  free(pt->block);
  pt->block = NULL;
}

void hacc_particles_fill(struct hacc_particles *pt, int step) {
  float *f[7];
  for (int a = 0; a < 7; a++) f[a] = pt->array[a];
  int64_t *pid = pt->array[7];
  uint16_t *mask = pt->array[8];
  for (uint64_t i = 0; i < pt->n; i++) {
    struct one v;
    particle(pt->first + i, step, &v);
    for (int a = 0; a < 7; a++) f[a][i] = v.f[a];
    pid[i] = v.pid;
    mask[i] = v.mask;
  }
}

void hacc_particles_clear(struct hacc_particles *pt) {
  for (int a = 0; a < HACC_ARRAYS; a++) memset(pt->array[a], 0, pt->n * hacc_array_size[a]);
}

int hacc_particles_verify(const struct hacc_particles *pt, int step, char *why, size_t n) {
  for (uint64_t i = 0; i < pt->n; i++) {
    struct one v;
    particle(pt->first + i, step, &v);
    const void *want[HACC_ARRAYS] = {&v.f[0], &v.f[1], &v.f[2], &v.f[3], &v.f[4],
                                     &v.f[5], &v.f[6], &v.pid,  &v.mask};
    for (int a = 0; a < HACC_ARRAYS; a++) {
      unsigned sz = hacc_array_size[a];
      if (memcmp((const char *)pt->array[a] + i * sz, want[a], sz)) {
        snprintf(why, n, "particle %llu (global index), array %s differs from what step %d "
                 "wrote", (unsigned long long)(pt->first + i), hacc_array_names[a], step);
        return 1;
      }
    }
  }
  return 0;
}
