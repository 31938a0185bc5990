/* The counts file: one "word count" line per word, sorted bytewise by word,
 * written to a temporary name and renamed, so it is whole or absent. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mr.h"

int mr_output_write(const char *path, struct mr_rec *r, uint64_t n, char *err, size_t errlen) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp-%d", path, (int)getpid());
  mr_sort_recs(r, n);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    snprintf(err, errlen, "cannot write the output '%s': %s", tmp, strerror(errno));
    return MR_ERR_RUN;
  }
  static char buf[1 << 20];
  setvbuf(f, buf, _IOFBF, sizeof buf);
  for (uint64_t i = 0; i < n; i++) fprintf(f, "%s %llu\n", r[i].word, (unsigned long long)r[i].count);
  int bad = ferror(f);
  if (fclose(f) || bad || rename(tmp, path)) {
    snprintf(err, errlen, "cannot write the output '%s': %s", path, strerror(errno));
    unlink(tmp);
    return MR_ERR_RUN;
  }
  return MR_OK;
}
