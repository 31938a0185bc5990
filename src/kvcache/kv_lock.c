/* One open store per file. Two stores on one file (another process, or a
 * second open in this one) would each append to the log from their own
 * idea of its end and overwrite each other's records. The open takes an
 * exclusive flock(2) on its own descriptor of the file and holds it until
 * close; the kernel drops it with the descriptor, so a crashed holder
 * (kill -9) never blocks a later open. flock rather than fcntl locks: the
 * window module may lock ranges of its files with fcntl, which would mix
 * with ours, and /proc/locks names the process holding a flock. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kvcache/kv_lock.h"

/* The process holding the flock of the file (dev, ino), or 0 if unknown. */
static long lock_holder(dev_t dev, ino_t ino) {
  FILE *f = fopen("/proc/locks", "re");
  if (!f) return 0;
  char line[256];
  long pid = 0;
  while (!pid && fgets(line, sizeof line, f)) {
    char type[16], mode[16], rw[16];
    long p;
    unsigned maj, min;
    unsigned long long i;
    /* "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; waiters have "->". */
    if (strstr(line, "->")) continue;
    if (sscanf(line, "%*d: %15s %15s %15s %ld %x:%x:%llu", type, mode, rw, &p, &maj, &min, &i) != 7)
      continue;
    if (!strcmp(type, "FLOCK") && maj == major(dev) && min == minor(dev) && i == (unsigned long long)ino)
      pid = p;
  }
  fclose(f);
  return pid;
}

int mpisw__kv_lock(int fd, const char *path, struct mpisw_error *e) {
  int rc;
  do rc = flock(fd, LOCK_EX | LOCK_NB);
  while (rc != 0 && errno == EINTR);
  if (rc == 0) return 0;
  if (errno != EWOULDBLOCK)
    return mpisw_fail(e, mpisw_errno_kind(errno), "%s: cannot lock the store: %s", path,
                      strerror(errno));
  struct stat st;
  long pid = fstat(fd, &st) == 0 ? lock_holder(st.st_dev, st.st_ino) : 0;
  if (pid == (long)getpid())
    return mpisw_fail(e, MPISW_K_ACCESS, "%s is in use: this process (pid %ld) has the store "
                      "open already (or a child forked from it keeps its descriptor); one open "
                      "store per file (close it first)", path, pid);
  if (pid > 0)
    return mpisw_fail(e, MPISW_K_ACCESS, "%s is in use: process %ld has the store open; one "
                      "open store per file (close it there first)", path, pid);
  return mpisw_fail(e, MPISW_K_ACCESS, "%s is in use: another process has the store open; "
                    "one open store per file (close it there first)", path);
}
