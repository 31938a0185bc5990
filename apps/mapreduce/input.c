/* The input text and its map tasks: task i covers the bytes from the first
 * word boundary at or after i * task_size to the first one at or after
 * (i + 1) * task_size, so no word is split between two tasks. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mr.h"

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

/* Size, task size and 64 KiB from the start, middle and end: a checkpoint of
 * another corpus (or the same one split differently) does not match. */
static int fingerprint(struct mr_input *in) {
  static char buf[65536];
  uint64_t h = mix(mix(0, in->size), in->task_size);
  uint64_t at[3] = {0, in->size / 2, in->size > sizeof buf ? in->size - sizeof buf : 0};
  for (int k = 0; k < 3; k++) {
    ssize_t n = pread(in->fd, buf, sizeof buf, (off_t)at[k]);
    if (n < 0) return -1;
    h = mix(h, mr_hash(buf, (size_t)n));
  }
  in->fingerprint = h ? h : 1;
  return 0;
}

int mr_input_open(struct mr_input *in, const char *path, uint64_t task_size, char *err,
                  size_t errlen) {
  struct stat st;
  memset(in, 0, sizeof *in);
  in->fd = -1;
  if (!path) {
    snprintf(err, errlen, "no input: give --input FILE");
    return MR_ERR_USAGE;
  }
  in->path = path;
  in->fd = open(path, O_RDONLY | O_CLOEXEC);
  if (in->fd < 0 || fstat(in->fd, &st) < 0) {
    snprintf(err, errlen, "cannot read the input '%s': %s", path, strerror(errno));
    return MR_ERR_INPUT;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(err, errlen, "the input '%s' is not a regular file", path);
    return MR_ERR_INPUT;
  }
  in->size = (uint64_t)st.st_size;
  in->task_size = task_size;
  in->ntasks = (in->size + task_size - 1) / task_size;
  if (fingerprint(in) < 0) {
    snprintf(err, errlen, "cannot read the input '%s': %s", path, strerror(errno));
    return MR_ERR_INPUT;
  }
  return MR_OK;
}

void mr_input_close(struct mr_input *in) {
  if (in->fd >= 0) close(in->fd);
  in->fd = -1;
}

/* The first word boundary at or after pos: a position whose left or right
 * byte is not part of a word. */
static int boundary(const struct mr_input *in, uint64_t pos, uint64_t *out) {
  char buf[4096];
  if (pos == 0 || pos >= in->size) {
    *out = pos >= in->size ? in->size : 0;
    return 0;
  }
  uint64_t at = pos - 1; /* look at the byte left of pos too */
  while (at < in->size) {
    ssize_t n = pread(in->fd, buf, sizeof buf, (off_t)at);
    if (n <= 0) return -1;
    for (ssize_t i = 0; i + 1 < n; i++) {
      if (!mr_word_byte[(unsigned char)buf[i]] || !mr_word_byte[(unsigned char)buf[i + 1]]) {
        *out = at + (uint64_t)i + 1;
        return 0;
      }
    }
    if (at + (uint64_t)n >= in->size) break;
    at += (uint64_t)n - 1;
  }
  *out = in->size;
  return 0;
}

int mr_task_read(const struct mr_input *in, uint64_t task, char **buf, size_t *cap,
                 size_t *len) {
  uint64_t s, e;
  if (boundary(in, task * in->task_size, &s) < 0 ||
      boundary(in, (task + 1) * in->task_size, &e) < 0)
    return -1;
  if (e < s) e = s; /* a word longer than a task: the earlier task has it */
  size_t n = (size_t)(e - s);
  if (n > *cap) {
    char *b = realloc(*buf, n);
    if (!b) return -1;
    *buf = b, *cap = n;
  }
  size_t got = 0;
  while (got < n) {
    ssize_t r = pread(in->fd, *buf + got, n - got, (off_t)(s + got));
    if (r <= 0) return -1;
    got += (size_t)r;
  }
  *len = n;
  return 0;
}
