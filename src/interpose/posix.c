/* The POSIX calls that remove files, for pooled files' paths: a program
 * that made a file through MPI-IO under a name MPISW_MEM_PATHS routes into
 * the pool, then removes it with unlink or remove (MPICH's own io tests,
 * Python's tempfile), removes the pooled file. Every other path goes to the
 * C library at once. */
#include <dlfcn.h>
#include <fcntl.h>

#include "dispatch/dispatch.h"
#include "process/process.h"

typedef int (*path_call)(const char *);
typedef int (*at_call)(int, const char *, int);

static path_call next_path(const char *symbol) {
  void *f = dlsym(RTLD_NEXT, symbol);
  path_call c;
  __builtin_memcpy(&c, &f, sizeof c); /* POSIX: function pointers from void * */
  return c;
}

MPISW_EXPORT int unlink(const char *path) {
  static path_call real;
  if (!real) real = next_path("unlink");
  return mpisw_do_remove_path(path, real(path) == 0);
}

MPISW_EXPORT int remove(const char *path) {
  static path_call real;
  if (!real) real = next_path("remove");
  return mpisw_do_remove_path(path, real(path) == 0);
}

MPISW_EXPORT int unlinkat(int dirfd, const char *path, int flags) {
  static at_call real;
  if (!real) {
    void *f = dlsym(RTLD_NEXT, "unlinkat");
    __builtin_memcpy(&real, &f, sizeof real);
  }
  int ok = real(dirfd, path, flags) == 0;
  /* a path relative to another directory is not a name MPI-IO was given */
  if (dirfd != AT_FDCWD && path && path[0] != '/') return ok ? 0 : -1;
  return mpisw_do_remove_path(path, ok);
}
