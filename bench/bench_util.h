/* Small helpers shared by the benchmark programs. */
#ifndef MPISW_BENCH_UTIL_H
#define MPISW_BENCH_UTIL_H

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* A positive byte count with an optional binary suffix K, M or G
 * ("512M" -> 536870912). Returns 0, or -1 on a malformed, zero or
 * overflowing value (MPI_Aint bounds every size here). */
static inline int bench_parse_bytes(const char *s, size_t *out)
{
  if (!isdigit((unsigned char)*s))
    return -1;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno)
    return -1;
  unsigned shift = 0;
  switch (toupper((unsigned char)*end)) {
  case 'K': shift = 10; end++; break;
  case 'M': shift = 20; end++; break;
  case 'G': shift = 30; end++; break;
  }
  if (*end || v == 0 || v > ((unsigned long long)INTPTR_MAX >> shift))
    return -1;
  *out = (size_t)(v << shift);
  return 0;
}

#endif
