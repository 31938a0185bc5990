/* The corpus generator: words of a real English word list (Debian's
 * wamerican by default) drawn with a Zipf law, in sentences, exactly --size
 * bytes, the same bytes for the same seed, exponent, size and list.
 * A file that already matches (its FILE.params) is kept: a benchmark makes
 * its corpus once. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mr.h"

static uint64_t next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

struct vocab {
  char (*w)[MR_WORD_MAX + 1];
  unsigned char *len;
  size_t n;
};

/* The list's words that are tokens as they stand (letters and apostrophes),
 * lower-cased, each once, in the list's order. */
static int read_vocab(const char *path, struct vocab *v) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "mapreduce: cannot read the word list '%s': %s (Debian package wamerican, "
                    "or give --words FILE)\n", path, strerror(errno));
    return MR_ERR_INPUT;
  }
  struct mr_table seen;
  mr_table_init(&seen, 1 << 17);
  size_t cap = 1 << 17;
  v->w = malloc(cap * sizeof *v->w);
  v->len = malloc(cap);
  v->n = 0;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    size_t n = strcspn(line, "\r\n"), i;
    for (i = 0; i < n && mr_word_byte[(unsigned char)line[i]]; i++) {
    }
    if (i != n || n == 0) continue;
    char w[MR_WORD_MAX + 1];
    size_t len = mr_normalize(line, n, w);
    if (!len) continue;
    struct mr_rec *r = mr_table_get(&seen, mr_hash(w, len), w);
    if (r->count++) continue;
    if (v->n == cap) {
      cap *= 2;
      v->w = realloc(v->w, cap * sizeof *v->w);
      v->len = realloc(v->len, cap);
    }
    memcpy(v->w[v->n], w, len + 1);
    v->len[v->n++] = (unsigned char)len;
  }
  fclose(f);
  mr_table_free(&seen);
  if (v->n == 0) {
    fprintf(stderr, "mapreduce: the word list '%s' has no usable word\n", path);
    return MR_ERR_INPUT;
  }
  return MR_OK;
}

static int params_match(const char *ppath, const char *want, const char *out, uint64_t size) {
  char have[512] = "";
  FILE *f = fopen(ppath, "r");
  if (!f) return 0;
  size_t n = fread(have, 1, sizeof have - 1, f);
  fclose(f);
  have[n] = 0;
  FILE *g = fopen(out, "r");
  if (!g) return 0;
  fseeko(g, 0, SEEK_END);
  uint64_t got = (uint64_t)ftello(g);
  fclose(g);
  return got == size && !strcmp(have, want);
}

int mr_gen(const struct mr_opts *o) {
  double t0 = mr_now();
  char ppath[4200], tmp[4200], want[512];
  snprintf(ppath, sizeof ppath, "%s.params", o->output);
  snprintf(want, sizeof want, "size=%llu seed=%llu zipf=%.6g words=%s\n",
           (unsigned long long)o->size, (unsigned long long)o->seed, o->zipf, o->words);
  if (!o->force && params_match(ppath, want, o->output, o->size)) {
    printf("{\"bench\":\"mapreduce\",\"mode\":\"gen\",\"bytes\":%llu,\"cached\":true,"
           "\"seconds\":%.6f}\n", (unsigned long long)o->size, mr_now() - t0);
    return MR_OK;
  }
  struct vocab v;
  int rc = read_vocab(o->words, &v);
  if (rc) return rc;
  uint64_t s = o->seed;
  for (size_t i = v.n - 1; i > 0; i--) { /* which word gets which Zipf rank */
    size_t j = (size_t)(next(&s) % (i + 1));
    char t[MR_WORD_MAX + 1];
    unsigned char l = v.len[i];
    memcpy(t, v.w[i], sizeof t), memcpy(v.w[i], v.w[j], sizeof t), memcpy(v.w[j], t, sizeof t);
    v.len[i] = v.len[j], v.len[j] = l;
  }
  double *cdf = malloc(v.n * sizeof *cdf), sum = 0;
  for (size_t k = 0; k < v.n; k++) cdf[k] = (sum += pow((double)(k + 1), -o->zipf));
  for (size_t k = 0; k < v.n; k++) cdf[k] /= sum;
  unlink(ppath);
  snprintf(tmp, sizeof tmp, "%s.tmp-%d", o->output, (int)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) {
    fprintf(stderr, "mapreduce: cannot write '%s': %s\n", tmp, strerror(errno));
    return MR_ERR_RUN;
  }
  size_t cap = 1 << 20, used = 0;
  char *buf = malloc(cap + 256);
  uint64_t left = o->size, words = 0;
  int in_sentence = 0, sentence_len = 0;
  while (left) {
    double u = (double)(next(&s) >> 11) * 0x1.0p-53;
    size_t lo = 0, hi = v.n - 1;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    if (!in_sentence) sentence_len = 6 + (int)(next(&s) % 12);
    char *p = buf + used;
    memcpy(p, v.w[lo], v.len[lo]);
    if (!in_sentence && p[0] >= 'a' && p[0] <= 'z') p[0] = (char)(p[0] - 'a' + 'A');
    used += v.len[lo];
    words++;
    if (++in_sentence == sentence_len) {
      buf[used++] = '.', buf[used++] = '\n';
      in_sentence = 0;
    } else {
      buf[used++] = (next(&s) % 16) ? ' ' : ',';
      if (buf[used - 1] == ',') buf[used++] = ' ';
    }
    if (used >= cap || used >= left) {
      size_t n = used < left ? used : (size_t)left;
      if (fwrite(buf, 1, n, f) != n) break;
      left -= n;
      used = 0;
    }
  }
  int bad = ferror(f);
  if (fclose(f) || bad || rename(tmp, o->output)) {
    fprintf(stderr, "mapreduce: cannot write '%s': %s\n", o->output, strerror(errno));
    unlink(tmp);
    return MR_ERR_RUN;
  }
  FILE *pf = fopen(ppath, "w");
  if (pf) fputs(want, pf), fclose(pf);
  printf("{\"bench\":\"mapreduce\",\"mode\":\"gen\",\"bytes\":%llu,\"cached\":false,"
         "\"vocabulary\":%zu,\"words\":%llu,\"zipf\":%g,\"seed\":%llu,\"seconds\":%.6f}\n",
         (unsigned long long)o->size, v.n, (unsigned long long)words, o->zipf,
         (unsigned long long)o->seed, mr_now() - t0);
  free(buf), free(cdf), free(v.w), free(v.len);
  return MR_OK;
}
