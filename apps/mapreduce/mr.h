/* mapreduce: word count three ways (serial reference, MR-2S with
 * MPI_Alltoallv, MR-1S with RMA into storage windows), with checkpoints
 * and restart, plus a deterministic corpus generator. docs: README.md
 * "MapReduce one-sided and two-sided, with checkpoints". */
#ifndef MR_H
#define MR_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* Exit codes (the same on every rank). */
enum {
  MR_OK = 0,
  MR_ERR_RUN = 1,      /* an MPI or I/O error while running */
  MR_ERR_USAGE = 2,    /* bad option or value */
  MR_ERR_INPUT = 3,    /* input text or word list missing, unreadable or empty */
  MR_ERR_CKPT_DIR = 4, /* checkpoint directory missing or not writable */
  MR_ERR_CKPT = 5,     /* --restart: no checkpoint, or one of another corpus/rank count/options */
  MR_ERR_FULL = 6,     /* MR-1S: a reducer's table region is full (raise --slots) */
};

/* Tokens: a word is a maximal run of ASCII letters and apostrophes, lower-
 * cased, without leading or trailing apostrophes, cut to MR_WORD_MAX bytes;
 * every other byte separates words. */
#define MR_WORD_MAX 55

/* One counted word: 72 bytes, the record of checkpoints, the shuffle and the output. */
struct mr_rec {
  uint64_t hash; /* mr_hash of the word; never 0 */
  uint64_t count;
  char word[MR_WORD_MAX + 1];
};

enum mr_mode { MR_GEN, MR_SERIAL, MR_1S, MR_2S };

struct mr_opts {
  enum mr_mode mode;
  const char *input;   /* text to count */
  const char *output;  /* counts, sorted */
  const char *path;    /* checkpoint directory (NULL: no checkpoints) */
  const char *words;   /* gen: the word list */
  uint64_t task_size;  /* bytes per map task */
  long checkpoints;    /* -1: after every map round; 0: none (NoFT); N: N of them */
  int restart;         /* resume from the last checkpoint in path */
  uint64_t slots;      /* MR-1S: entries per (mapper, reducer) region; 0: automatic */
  uint64_t size;       /* gen: bytes */
  uint64_t seed;       /* gen */
  double zipf;         /* gen: exponent */
  int force;           /* gen: write even when the cached file matches */
  unsigned task_delay_ms; /* tests: sleep after each map task (to be killed mid-run) */
  int verbose;         /* a line per checkpoint on stderr */
  const char *window;  /* MR-1S: "memory" or "storage"; NULL: storage with checkpoints */
};

/* options.c */
int mr_parse(int argc, char **argv, struct mr_opts *o); /* MR_OK or MR_ERR_USAGE (printed) */
void mr_usage(FILE *f);
int mr_ckpt_after(const struct mr_opts *o, uint64_t round, uint64_t rounds);

/* words.c: tokens, hash, a local table of words */
uint64_t mr_hash(const char *w, size_t n);
size_t mr_normalize(const char *run, size_t n, char out[MR_WORD_MAX + 1]);
extern const unsigned char mr_word_byte[256]; /* 1 for letters and apostrophes */

struct mr_table {
  struct mr_rec *slot; /* hash 0: empty */
  uint64_t cap, used;  /* cap: a power of two */
};
void mr_table_init(struct mr_table *t, uint64_t cap_hint);
void mr_table_clear(struct mr_table *t);
void mr_table_free(struct mr_table *t);
struct mr_rec *mr_table_find(const struct mr_table *t, uint64_t hash);
/* the word's entry (created with count 0 when new); word may be NULL when known to exist */
struct mr_rec *mr_table_get(struct mr_table *t, uint64_t hash, const char *word);
void mr_table_add_run(struct mr_table *t, const char *buf, size_t n);
uint64_t mr_table_pack(const struct mr_table *t, struct mr_rec *out); /* entries, any order */
void mr_sort_recs(struct mr_rec *r, uint64_t n); /* by word, bytewise */

/* input.c: the text, its map tasks */
struct mr_input {
  int fd;
  const char *path;
  uint64_t size, task_size, ntasks;
  uint64_t fingerprint; /* size, task size and sampled content */
};
int mr_input_open(struct mr_input *in, const char *path, uint64_t task_size, char *err,
                  size_t errlen);
void mr_input_close(struct mr_input *in);
/* reads task i (its bytes between word boundaries) into *buf (grown as needed) */
int mr_task_read(const struct mr_input *in, uint64_t task, char **buf, size_t *cap,
                 size_t *len);

/* output.c */
int mr_output_write(const char *path, struct mr_rec *r, uint64_t n, char *err, size_t errlen);

/* gen.c, serial.c */
int mr_gen(const struct mr_opts *o);
int mr_serial(const struct mr_opts *o);

/* util.c */
double mr_now(void);
void mr_msleep(unsigned ms);
int mr_dir_writable(const char *dir, char *err, size_t errlen);
void mr_remove_prefix(const char *dir, const char *prefix);

#endif
