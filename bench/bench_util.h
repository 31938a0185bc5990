/* Small helpers shared by the benchmark programs. */
#ifndef MPISW_BENCH_UTIL_H
#define MPISW_BENCH_UTIL_H

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

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

/* Bytes read and written, as a process or a block device counted them
 * (-1: not known here). */
struct io_sample {
  long long read, write;
};

/* The sysfs stat file of the block device holding path ("" when there is
 * none, e.g. tmpfs, overlay or btrfs, whose st_dev is anonymous). */
static inline void dev_stat_path(const char *path, char *out, size_t len)
{
  struct stat st;
  out[0] = '\0';
  if (stat(path, &st) != 0)
    return;
  snprintf(out, len, "/sys/dev/block/%u:%u/stat", major(st.st_dev), minor(st.st_dev));
  if (access(out, R_OK) != 0)
    out[0] = '\0';
}

/* Fields 3 and 7 of the device's stat file: sectors read and written,
 * always in units of 512 bytes. */
static inline struct io_sample read_dev_io(const char *statpath)
{
  struct io_sample s = {-1, -1};
  FILE *f = *statpath ? fopen(statpath, "r") : NULL;
  if (!f)
    return s;
  unsigned long long rd, wr;
  if (fscanf(f, "%*u %*u %llu %*u %*u %*u %llu", &rd, &wr) == 2)
    s = (struct io_sample){(long long)(rd * 512), (long long)(wr * 512)};
  fclose(f);
  return s;
}

/* read_bytes and write_bytes of this process: what it made the storage layer
 * fetch, and the pages it dirtied (write-back happens later, maybe by
 * another thread, so these are what the process caused, not what the device
 * did). */
static inline struct io_sample read_proc_io(void)
{
  struct io_sample s = {-1, -1};
  FILE *f = fopen("/proc/self/io", "r");
  if (!f)
    return s;
  char key[64];
  long long v;
  while (fscanf(f, "%63[^:]: %lld\n", key, &v) == 2) {
    if (strcmp(key, "read_bytes") == 0)
      s.read = v;
    else if (strcmp(key, "write_bytes") == 0)
      s.write = v;
  }
  fclose(f);
  return s;
}

static inline struct io_sample io_delta(struct io_sample before, struct io_sample after)
{
  if (before.read < 0 || after.read < 0 || before.write < 0 || after.write < 0)
    return (struct io_sample){-1, -1};
  return (struct io_sample){after.read - before.read, after.write - before.write};
}

/* Seconds on the monotonic clock. */
static inline double bench_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* qsort order of doubles. */
/* The 1-minute load average (-1 when unknown): on a shared machine it says
 * how much the figures were competing for the cores. */
static inline double bench_load1(void)
{
  double v = -1;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf", &v) != 1) v = -1;
    fclose(f);
  }
  return v;
}

static inline int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

#endif
