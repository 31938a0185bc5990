#include "core/unique.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "core/path.h"

/* Replaces the last 6 characters of name with random letters and digits. */
static void new_suffix(char *name) {
  static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  unsigned char r[6];
  if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
    for (int i = 0; i < 6; i++) r[i] = (unsigned char)rand();
  char *x = name + strlen(name) - 6;
  for (int i = 0; i < 6; i++) x[i] = set[r[i] % (sizeof set - 1)];
}

int mpisw_unique_create(const char *dir, const char *tag, char *name, size_t cap) {
  char host[64];
  mpisw_path_hostname(host, sizeof host);
  size_t d = strlen(dir);
  const char *sep = d && dir[d - 1] == '/' ? "" : "/";
  int n = snprintf(name, cap, "%s%smpisw-%s-%s-%ld-XXXXXX", dir, sep, host, tag ? tag : "x",
                   (long)getpid());
  if (n <= 0 || (size_t)n >= cap) {
    errno = ENAMETOOLONG;
    return -1;
  }
  int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) {
    new_suffix(name);
    return fd;
  }
  /* EOPNOTSUPP: the file system has no O_TMPFILE (NFS); EISDIR: the kernel. */
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) return -1;
  fd = mkostemp(name, O_CLOEXEC);
  if (fd < 0) return -1;
  mpisw_path_unlink(name); /* peers open /proc/<pid>/fd/<fd>; nothing to leave behind */
  return fd;
}

int mpisw_unique_keep(int fd, char *name) {
  char self[64];
  snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
  for (int tries = 0; tries < 100; tries++) {
    if (linkat(AT_FDCWD, self, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0) return 0;
    if (errno != EEXIST) return errno;
    new_suffix(name);
  }
  return EEXIST;
}

int mpisw_unique_open_peer(int pid, int fd, char *proc, size_t cap) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
  if (proc) snprintf(proc, cap, "%s", path);
  return open(path, O_RDWR | O_CLOEXEC);
}
