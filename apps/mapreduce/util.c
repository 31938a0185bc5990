/* Small helpers: clocks, sleeps, the checkpoint directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mr.h"

double mr_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void mr_msleep(unsigned ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) && errno == EINTR) {
  }
}

/* A directory we can create files in: tried, since root passes access(2). */
int mr_dir_writable(const char *dir, char *err, size_t errlen) {
  struct stat st;
  if (stat(dir, &st) < 0) {
    snprintf(err, errlen, "checkpoint directory '%s': %s", dir, strerror(errno));
    return MR_ERR_CKPT_DIR;
  }
  if (!S_ISDIR(st.st_mode)) {
    snprintf(err, errlen, "checkpoint directory '%s' is not a directory", dir);
    return MR_ERR_CKPT_DIR;
  }
  char probe[4096];
  snprintf(probe, sizeof probe, "%s/.mapreduce-probe-XXXXXX", dir);
  int fd = mkstemp(probe);
  if (fd < 0) {
    snprintf(err, errlen, "cannot write in the checkpoint directory '%s': %s", dir,
             strerror(errno));
    return MR_ERR_CKPT_DIR;
  }
  close(fd);
  unlink(probe);
  return MR_OK;
}

/* Removes dir's files whose name starts with prefix (a fresh run's old checkpoint). */
void mr_remove_prefix(const char *dir, const char *prefix) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  size_t n = strlen(prefix);
  while ((e = readdir(d))) {
    if (strncmp(e->d_name, prefix, n)) continue;
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    unlink(p);
  }
  closedir(d);
}
