/* The serial reference: reads the whole text as one stream (no tasks), so
 * it also checks that the parallel programs' task boundaries split no word. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mr.h"

int mr_serial(const struct mr_opts *o) {
  char err[4200];
  double t0 = mr_now();
  int fd = open(o->input, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    fprintf(stderr, "mapreduce: cannot read the input '%s': %s\n", o->input, strerror(errno));
    return MR_ERR_INPUT;
  }
  struct mr_table t;
  mr_table_init(&t, 1 << 16);
  size_t cap = 1 << 20, have = 0; /* have: bytes of a word cut by the read's end */
  char *buf = malloc(cap + 4096);
  uint64_t total = 0;
  for (;;) {
    ssize_t n = read(fd, buf + have, cap - have);
    if (n < 0) {
      fprintf(stderr, "mapreduce: reading '%s': %s\n", o->input, strerror(errno));
      close(fd);
      return MR_ERR_INPUT;
    }
    size_t len = have + (size_t)n;
    size_t keep = 0;
    if (n > 0)
      while (keep < len && mr_word_byte[(unsigned char)buf[len - 1 - keep]]) keep++;
    if (keep == len && n > 0 && len == cap) { /* one word filling the buffer: grow */
      cap *= 2;
      buf = realloc(buf, cap + 4096);
      have = len;
      continue;
    }
    mr_table_add_run(&t, buf, len - keep);
    memmove(buf, buf + len - keep, keep);
    have = keep;
    total += (uint64_t)n;
    if (n == 0) break;
  }
  close(fd);
  struct mr_rec *r = malloc((t.used + 1) * sizeof *r);
  uint64_t k = mr_table_pack(&t, r), words = 0;
  for (uint64_t i = 0; i < k; i++) words += r[i].count;
  int rc = mr_output_write(o->output, r, k, err, sizeof err);
  if (rc) fprintf(stderr, "mapreduce: %s\n", err);
  else
    printf("{\"bench\":\"mapreduce\",\"mode\":\"serial\",\"ranks\":1,\"input_bytes\":%llu,"
           "\"words\":%llu,\"distinct\":%llu,\"seconds\":%.6f}\n",
           (unsigned long long)total, (unsigned long long)words, (unsigned long long)k,
           mr_now() - t0);
  free(r);
  free(buf);
  mr_table_free(&t);
  return rc;
}
