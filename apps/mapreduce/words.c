/* Tokens, the word hash and a local open-addressing table of words; the
 * same code in every program, so they count the same words. */
#include <stdlib.h>
#include <string.h>

#include "mr.h"

#define L(c) [c] = 1, [c - 'a' + 'A'] = 1
const unsigned char mr_word_byte[256] = {
    L('a'), L('b'), L('c'), L('d'), L('e'), L('f'), L('g'), L('h'), L('i'),
    L('j'), L('k'), L('l'), L('m'), L('n'), L('o'), L('p'), L('q'), L('r'),
    L('s'), L('t'), L('u'), L('v'), L('w'), L('x'), L('y'), L('z'), ['\''] = 1};

/* FNV-1a, then a 64-bit finalizer so that hash % P spreads well. */
uint64_t mr_hash(const char *w, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)w[i]) * 0x100000001b3ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h ? h : 1;
}

size_t mr_normalize(const char *run, size_t n, char out[MR_WORD_MAX + 1]) {
  while (n && run[0] == '\'') run++, n--;
  while (n && run[n - 1] == '\'') n--;
  if (n > MR_WORD_MAX) n = MR_WORD_MAX;
  for (size_t i = 0; i < n; i++) {
    char c = run[i];
    out[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
  }
  out[n] = 0;
  return n;
}

void mr_table_init(struct mr_table *t, uint64_t hint) {
  uint64_t cap = 1024;
  while (cap < 2 * hint) cap <<= 1;
  t->slot = calloc(cap, sizeof *t->slot);
  if (!t->slot) abort();
  t->cap = cap, t->used = 0;
}

void mr_table_clear(struct mr_table *t) {
  memset(t->slot, 0, t->cap * sizeof *t->slot);
  t->used = 0;
}

void mr_table_free(struct mr_table *t) {
  free(t->slot);
  t->slot = NULL, t->cap = t->used = 0;
}

struct mr_rec *mr_table_find(const struct mr_table *t, uint64_t hash) {
  for (uint64_t i = hash & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
    if (t->slot[i].hash == hash) return &t->slot[i];
    if (!t->slot[i].hash) return NULL;
  }
}

static void grow(struct mr_table *t) {
  struct mr_table n;
  n.cap = t->cap * 2, n.used = 0;
  n.slot = calloc(n.cap, sizeof *n.slot);
  if (!n.slot) abort();
  for (uint64_t i = 0; i < t->cap; i++) {
    if (!t->slot[i].hash) continue;
    uint64_t j = t->slot[i].hash & (n.cap - 1);
    while (n.slot[j].hash) j = (j + 1) & (n.cap - 1);
    n.slot[j] = t->slot[i];
    n.used++;
  }
  free(t->slot);
  *t = n;
}

struct mr_rec *mr_table_get(struct mr_table *t, uint64_t hash, const char *word) {
  uint64_t i = hash & (t->cap - 1);
  for (;; i = (i + 1) & (t->cap - 1)) {
    if (t->slot[i].hash == hash) return &t->slot[i];
    if (!t->slot[i].hash) break;
  }
  if (2 * (t->used + 1) > t->cap) {
    grow(t);
    return mr_table_get(t, hash, word);
  }
  struct mr_rec *r = &t->slot[i];
  r->hash = hash, r->count = 0;
  if (word) strncpy(r->word, word, MR_WORD_MAX);
  t->used++;
  return r;
}

/* Counts every word of buf[0, n) (which starts and ends on word boundaries). */
void mr_table_add_run(struct mr_table *t, const char *buf, size_t n) {
  char w[MR_WORD_MAX + 1];
  size_t i = 0;
  while (i < n) {
    while (i < n && !mr_word_byte[(unsigned char)buf[i]]) i++;
    size_t s = i;
    while (i < n && mr_word_byte[(unsigned char)buf[i]]) i++;
    if (i == s) break;
    size_t len = mr_normalize(buf + s, i - s, w);
    if (len) mr_table_get(t, mr_hash(w, len), w)->count++;
  }
}

uint64_t mr_table_pack(const struct mr_table *t, struct mr_rec *out) {
  uint64_t k = 0;
  for (uint64_t i = 0; i < t->cap; i++)
    if (t->slot[i].hash) out[k++] = t->slot[i];
  return k;
}

static int by_word(const void *a, const void *b) {
  return strcmp(((const struct mr_rec *)a)->word, ((const struct mr_rec *)b)->word);
}

void mr_sort_recs(struct mr_rec *r, uint64_t n) { qsort(r, n, sizeof *r, by_word); }
