#include "core/path.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

int mpisw_path_expand(const char *pattern, int rank, const char *host, char *out,
                      size_t outlen, struct mpisw_error *e) {
  size_t o = 0;
  for (const char *p = pattern; *p; p++) {
    char num[24];
    const char *ins = NULL;
    char one[2] = {*p, 0};
    if (*p == '%') {
      p++;
      if (*p == 'r') {
        snprintf(num, sizeof num, "%d", rank);
        ins = num;
      } else if (*p == 'h') {
        ins = host;
      } else if (*p == '%') {
        ins = "%";
      } else {
        return mpisw_fail(e, MPISW_K_HINT,
                          "storage_alloc_filename: '%s' has '%%%c'; only %%r, %%h and %%%% "
                          "are expanded",
                          pattern, *p ? *p : ' ');
      }
    } else {
      ins = one;
    }
    size_t n = strlen(ins);
    if (o + n >= outlen)
      return mpisw_fail(e, MPISW_K_HINT, "storage_alloc_filename: '%s' expands too long",
                        pattern);
    memcpy(out + o, ins, n);
    o += n;
  }
  out[o] = 0;
  return 0;
}

void mpisw_path_hostname(char *out, size_t len) {
  if (gethostname(out, len) != 0) snprintf(out, len, "unknown");
  out[len - 1] = 0;
  char *dot = strchr(out, '.');
  if (dot) *dot = 0;
}

int mpisw_path_is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

void mpisw_path_parent(const char *path, char *out, size_t len) {
  const char *slash = strrchr(path, '/');
  if (!slash) {
    snprintf(out, len, ".");
  } else if (slash == path) {
    snprintf(out, len, "/");
  } else {
    snprintf(out, len, "%.*s", (int)(slash - path), path);
  }
}

int mpisw_path_unlink(const char *path) {
  return (int)syscall(SYS_unlinkat, AT_FDCWD, path, 0);
}

uint64_t mpisw_kernel_id(void) {
  char boot[64] = "";
  FILE *b = fopen("/proc/sys/kernel/random/boot_id", "r");
  if (b) {
    if (!fgets(boot, sizeof boot, b)) boot[0] = 0;
    fclose(b);
  }
  struct stat ns;
  uint64_t h = stat("/proc/self/ns/pid", &ns) == 0 ? (uint64_t)ns.st_ino : 0;
  for (const char *c = boot; *c; c++) h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
  return h;
}

int mpisw_path_sync_parent(const char *path) {
  char dir[4096];
  mpisw_path_parent(path, dir, sizeof dir);
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return 0;
  int rc = fsync(fd) ? errno : 0;
  close(fd);
  if (rc == EINVAL || rc == EROFS || rc == ENOTSUP || rc == EBADF) return 0;
  return rc;
}

int mpisw_path_mkdirs(const char *dir, char *failed, size_t len) {
  char p[4096];
  if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p) return ENAMETOOLONG;
  for (char *s = p + 1;; s++) {
    if (*s != '/' && *s) continue;
    char c = *s;
    *s = 0;
    if (mkdir(p, 0700) != 0 && errno != EEXIST) {
      int err = errno;
      snprintf(failed, len, "%s", p);
      return err;
    }
    *s = c;
    if (!c) return 0;
  }
}
