#define _GNU_SOURCE
#include "testlib.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/capability.h>
#include <linux/userfaultfd.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

int tl_rank = -1;
int tl_size = 0;
size_t tl_page = 4096;

static char tl_scratch_dir[PATH_MAX];

void tl_log(const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "[rank %d] %s\n", tl_rank, msg);
  fflush(stderr);
}

static int keep_scratch(void) {
  const char *k = getenv("MPISW_TEST_KEEP");
  return k && *k && strcmp(k, "0") != 0;
}

void tl_fail(const char *file, int line, const char *fmt, ...) {
  char msg[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const char *f = strrchr(file, '/');
  fprintf(stderr, "FAIL rank %d %s:%d: %s\n", tl_rank, f ? f + 1 : file, line, msg);
  fflush(stderr);
  if (tl_scratch_dir[0]) {
    if (keep_scratch())
      fprintf(stderr, "FAIL rank %d: scratch directory kept: %s\n", tl_rank, tl_scratch_dir);
    else
      tl_rm_rf(tl_scratch_dir);
  }
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

void tl_check_fail(const char *file, int line, const char *cond, const char *fmt, ...) {
  char msg[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  tl_fail(file, line, "%s  [check: %s]", msg, cond);
}

const char *tl_errstr(int rc) {
  static char buf[4][MPI_MAX_ERROR_STRING + 64];
  static int k;
  char *b = buf[k++ & 3];
  int len = 0;
  b[0] = 0;
  if (MPI_Error_string(rc, b, &len) != MPI_SUCCESS) snprintf(b, MPI_MAX_ERROR_STRING, "(no string for code %d)", rc);
  return b;
}

void tl_fail_mpi(const char *file, int line, const char *what, int rc) {
  int cls = -1;
  MPI_Error_class(rc, &cls);
  tl_fail(file, line, "%s returned %d (class %d): %s", what, rc, cls, tl_errstr(rc));
}

static const char *kind_names[] = {"MPISW_ERR_HINT",    "MPISW_ERR_NOFILE", "MPISW_ERR_ACCESS",
                                   "MPISW_ERR_NOSPACE", "MPISW_ERR_IO",     "MPISW_ERR_NOMEM",
                                   "MPISW_ERR_USAGE"};

const char *tl_kind_name(int kind) {
  if (kind >= 0 && kind < (int)(sizeof kind_names / sizeof kind_names[0])) return kind_names[kind];
  return "?";
}

static const char *class_name(int cls) {
  static char b[64];
  for (int k = 0; k < MPISW_ERR_KIND_COUNT; k++) {
    int c = -1;
    if (mpisw_error_class(k, &c) == MPI_SUCCESS && c == cls) return tl_kind_name(k);
  }
  snprintf(b, sizeof b, "MPI class %d", cls);
  return b;
}

void tl_expect_err(const char *file, int line, const char *what, int rc, int kind,
                   const char *sub1, const char *sub2) {
  if (rc == MPI_SUCCESS)
    tl_fail(file, line, "%s succeeded, expected an error of class %s", what, tl_kind_name(kind));
  int want = -1, cls = -1;
  int r = mpisw_error_class(kind, &want);
  if (r != MPI_SUCCESS) tl_fail(file, line, "mpisw_error_class(%s) returned %d", tl_kind_name(kind), r);
  MPI_Error_class(rc, &cls);
  const char *s = tl_errstr(rc);
  if (cls != want)
    tl_fail(file, line, "%s: error class is %s (%d), expected %s (%d); message: %s", what,
            class_name(cls), cls, tl_kind_name(kind), want, s);
  if (sub1 && !strstr(s, sub1))
    tl_fail(file, line, "%s: message does not mention '%s': %s", what, sub1, s);
  if (sub2 && !strstr(s, sub2))
    tl_fail(file, line, "%s: message does not mention '%s': %s", what, sub2, s);
  /* show the message (rank 0, or every rank with MPISW_TEST_VERBOSE=1) */
  if (tl_rank == 0 || getenv("MPISW_TEST_VERBOSE")) tl_log("ok, %s: %s", tl_kind_name(kind), s);
}

static void tl_after_init(void) {
  MPI_Comm_rank(MPI_COMM_WORLD, &tl_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &tl_size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  long p = sysconf(_SC_PAGESIZE);
  if (p > 0) tl_page = (size_t)p;
}

void tl_init(int *argc, char ***argv) {
  int rc = MPI_Init(argc, argv);
  if (rc != MPI_SUCCESS) {
    fprintf(stderr, "FAIL: MPI_Init returned %d\n", rc);
    exit(1);
  }
  tl_after_init();
}

int tl_init_thread(int *argc, char ***argv, int required) {
  int provided = -1;
  int rc = MPI_Init_thread(argc, argv, required, &provided);
  if (rc != MPI_SUCCESS) {
    fprintf(stderr, "FAIL: MPI_Init_thread(%d) returned %d\n", required, rc);
    exit(1);
  }
  tl_after_init();
  return provided;
}

int tl_finish(void) {
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (tl_scratch_dir[0] && tl_rank == 0 && !keep_scratch()) tl_rm_rf(tl_scratch_dir);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  tl_scratch_dir[0] = 0;
  MPI_Finalize();
  if (tl_rank == 0) {
    printf("PASS\n");
    fflush(stdout);
  }
  return 0;
}

void tl_skip(const char *why) {
  if (tl_rank <= 0) {
    printf("SKIP: %s\n", why);
    fflush(stdout);
  }
  if (tl_scratch_dir[0] && tl_rank == 0) tl_rm_rf(tl_scratch_dir);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  exit(TL_SKIP_CODE);
}

const char *tl_scratch(void) {
  if (tl_scratch_dir[0]) return tl_scratch_dir;
  char buf[PATH_MAX];
  memset(buf, 0, sizeof buf);
  if (tl_rank == 0) {
    const char *base = getenv("MPISW_TEST_TMPDIR");
    if (!base || !*base) base = "/tmp";
    snprintf(buf, sizeof buf, "%s/mpisw-test-XXXXXX", base);
    if (!mkdtemp(buf)) {
      fprintf(stderr, "FAIL rank 0: mkdtemp(%s): %s\n", buf, strerror(errno));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  CHECK_MPI(MPI_Bcast(buf, sizeof buf, MPI_CHAR, 0, MPI_COMM_WORLD));
  snprintf(tl_scratch_dir, sizeof tl_scratch_dir, "%s", buf);
  return tl_scratch_dir;
}

const char *tl_path(const char *fmt, ...) {
  char rel[PATH_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rel, sizeof rel, fmt, ap);
  va_end(ap);
  char *b = malloc(PATH_MAX); /* never freed: tests are short and may keep many paths */
  CHECK(b != NULL, "malloc");
  snprintf(b, PATH_MAX, "%s/%s", tl_scratch(), rel);
  return b;
}

static int rm_cb(const char *p, const struct stat *sb, int typeflag, struct FTW *ftwbuf) {
  (void)sb;
  (void)ftwbuf;
  if (typeflag == FTW_DP || typeflag == FTW_D)
    rmdir(p);
  else
    unlink(p);
  return 0;
}

void tl_rm_rf(const char *path) {
  if (!path || !*path || strcmp(path, "/") == 0) return;
  nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

MPI_Info tl_info(const char *kv, ...) {
  va_list ap;
  va_start(ap, kv);
  MPI_Info info = tl_vinfo(kv, ap);
  va_end(ap);
  return info;
}

MPI_Info tl_vinfo(const char *first, va_list ap) {
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  for (const char *s = first; s; s = va_arg(ap, const char *)) {
    const char *eq = strchr(s, '=');
    CHECK(eq != NULL, "info item '%s' has no '='", s);
    char key[MPI_MAX_INFO_KEY + 1];
    size_t n = (size_t)(eq - s);
    CHECK(n <= MPI_MAX_INFO_KEY, "key too long");
    memcpy(key, s, n);
    key[n] = 0;
    CHECK_MPI(MPI_Info_set(info, key, eq + 1));
  }
  return info;
}

MPI_Info tl_sinfo(const char *fn, ...) {
  va_list ap;
  va_start(ap, fn);
  const char *first = va_arg(ap, const char *);
  MPI_Info info = tl_vinfo(first, ap);
  va_end(ap);
  if (fn) {
    CHECK_MPI(MPI_Info_set(info, "alloc_type", "storage"));
    CHECK_MPI(MPI_Info_set(info, "storage_alloc_filename", fn));
  }
  return info;
}

void tl_walloc_(const char *file, int line, MPI_Aint size, MPI_Comm comm, void **base, MPI_Win *win,
                const char *fn, ...) {
  va_list ap;
  va_start(ap, fn);
  const char *first = va_arg(ap, const char *);
  MPI_Info info = tl_vinfo(first, ap);
  va_end(ap);
  if (fn) {
    CHECK_MPI(MPI_Info_set(info, "alloc_type", "storage"));
    CHECK_MPI(MPI_Info_set(info, "storage_alloc_filename", fn));
  }
  int rc = MPI_Win_allocate(size, 1, info, comm, base, win);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS)
    tl_fail(file, line, "MPI_Win_allocate(%lld bytes, file %s) failed: %s", (long long)size,
            fn ? fn : "(none)", tl_errstr(rc));
  rc = MPI_Win_set_errhandler(*win, MPI_ERRORS_RETURN);
  if (rc != MPI_SUCCESS) tl_fail_mpi(file, line, "MPI_Win_set_errhandler", rc);
  const char *want = getenv("MPISW_TEST_BACKEND");
  if (want && !strcmp(want, "pager")) tl_require_pager_(file, line, win);
  else if (want && *want) tl_fail(file, line, "MPISW_TEST_BACKEND='%s': only 'pager' is known", want);
}

void tl_info_setf(MPI_Info info, const char *key, const char *fmt, ...) {
  char v[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v, sizeof v, fmt, ap);
  va_end(ap);
  CHECK_MPI(MPI_Info_set(info, key, v));
}

const char *tl_win_info(MPI_Win win, const char *key) {
  static char bufs[8][4096];
  static int k;
  char *b = bufs[k++ & 7];
  MPI_Info info;
  CHECK_MPI(MPI_Win_get_info(win, &info));
  int flag = 0;
  b[0] = 0;
  CHECK_MPI(MPI_Info_get(info, key, 4095, b, &flag));
  MPI_Info_free(&info);
  return flag ? b : NULL;
}

void tl_win_errors_return(MPI_Win win) { CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN)); }

void tl_sync_(const char *file, int line, MPI_Win win) {
  int rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  if (rc != MPI_SUCCESS) tl_fail_mpi(file, line, "MPI_Win_lock_all", rc);
  rc = MPI_Win_sync(win);
  if (rc != MPI_SUCCESS) tl_fail_mpi(file, line, "MPI_Win_sync", rc);
  rc = MPI_Win_unlock_all(win);
  if (rc != MPI_SUCCESS) tl_fail_mpi(file, line, "MPI_Win_unlock_all", rc);
}

int tl_win_flavor(MPI_Win win) {
  int *fl = NULL, flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag));
  CHECK(flag && fl, "MPI_WIN_CREATE_FLAVOR attribute missing");
  return *fl;
}

off_t tl_file_size(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) return -1;
  return st.st_size;
}

int tl_exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

mode_t tl_file_mode(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) return (mode_t)-1;
  return st.st_mode & 07777;
}

ssize_t tl_pread(const char *path, off_t off, void *buf, size_t len) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) tl_fail(__FILE__, __LINE__, "open(%s): %s", path, strerror(errno));
  size_t got = 0;
  while (got < len) {
    ssize_t r = pread(fd, (char *)buf + got, len - got, off + (off_t)got);
    if (r < 0) {
      if (errno == EINTR) continue;
      tl_fail(__FILE__, __LINE__, "pread(%s): %s", path, strerror(errno));
    }
    if (r == 0) break;
    got += (size_t)r;
  }
  close(fd);
  return (ssize_t)got;
}

void tl_write_pattern_file(const char *path, off_t off, size_t len, unsigned seed, mode_t mode) {
  int fd = open(path, O_WRONLY | O_CREAT, mode);
  if (fd < 0) tl_fail(__FILE__, __LINE__, "open(%s): %s", path, strerror(errno));
  char *b = malloc(len ? len : 1);
  CHECK(b != NULL, "malloc");
  tl_fill(b, len, seed, (size_t)off);
  size_t put = 0;
  while (put < len) {
    ssize_t w = pwrite(fd, b + put, len - put, off + (off_t)put);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) tl_fail(__FILE__, __LINE__, "pwrite(%s): %s", path, strerror(errno));
    put += (size_t)w;
  }
  free(b);
  if (fsync(fd) != 0) tl_fail(__FILE__, __LINE__, "fsync(%s): %s", path, strerror(errno));
  close(fd);
}

int tl_count_dir(const char *dir, const char *prefix) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (prefix && strncmp(e->d_name, prefix, strlen(prefix)) != 0) continue;
    n++;
  }
  closedir(d);
  return n;
}

const char *tl_only_entry(const char *dir) {
  static char b[PATH_MAX];
  DIR *d = opendir(dir);
  CHECK(d != NULL, "opendir(%s): %s", dir, strerror(errno));
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(b, sizeof b, "%s/%s", dir, e->d_name);
    n++;
  }
  closedir(d);
  CHECK(n == 1, "directory %s holds %d entries, expected exactly 1", dir, n);
  return b;
}

void tl_fill(void *buf, size_t len, unsigned seed, size_t pos0) {
  uint8_t *p = buf;
  for (size_t i = 0; i < len; i++) p[i] = tl_pat(seed, pos0 + i);
}

long tl_verify(const void *buf, size_t len, unsigned seed, size_t pos0) {
  const uint8_t *p = buf;
  for (size_t i = 0; i < len; i++)
    if (p[i] != tl_pat(seed, pos0 + i)) return (long)i;
  return -1;
}

const char *tl_describe(const void *buf, size_t len, size_t pos0) {
  static char b[4][160];
  static int k;
  char *o = b[k++ & 3];
  const uint8_t *p = buf;
  size_t n = len < 64 ? len : 64;
  if (n == 0) return "nothing";
  size_t z = 0;
  while (z < n && p[z] == 0) z++;
  if (z == n) {
    snprintf(o, 160, "zeros");
    return o;
  }
  for (unsigned s = 0; s < 5000; s++)
    if (tl_verify(p, n, s, pos0) < 0) {
      snprintf(o, 160, "pattern %u", s);
      return o;
    }
  snprintf(o, 160, "other bytes %02x %02x %02x %02x ...", p[0], n > 1 ? p[1] : 0, n > 2 ? p[2] : 0, n > 3 ? p[3] : 0);
  return o;
}

void tl_check_file_pattern_(const char *file, int line, const char *path, off_t off, size_t len,
                            unsigned seed, size_t pos0) {
  if (!tl_exists(path)) tl_fail(file, line, "file %s does not exist", path);
  uint8_t *b = malloc(len ? len : 1);
  if (!b) tl_fail(file, line, "malloc");
  ssize_t got = tl_pread(path, off, b, len);
  if (got != (ssize_t)len)
    tl_fail(file, line, "file %s: read %zd bytes at offset %lld, expected %zu (file size %lld)", path,
            got, (long long)off, len, (long long)tl_file_size(path));
  long bad = tl_verify(b, len, seed, pos0);
  if (bad >= 0)
    tl_fail(file, line,
            "file %s: byte at offset %lld is 0x%02x, expected 0x%02x (pattern %u, %zu bytes checked from offset %lld; "
            "the file there holds %s)",
            path, (long long)off + bad, b[bad], tl_pat(seed, pos0 + (size_t)bad), seed, len, (long long)off,
            tl_describe(b + bad, len - (size_t)bad, pos0 + (size_t)bad));
  free(b);
}

/* ---- /proc/self/maps ---- */

struct tl_map {
  uintptr_t start, end;
  char perms[5];
  unsigned long long off;
  unsigned maj, min;
  unsigned long ino;
  char path[PATH_MAX];
};

static struct tl_map *maps;
static size_t nmaps, capmaps;

static void load_maps(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  CHECK(f != NULL, "fopen(/proc/self/maps): %s", strerror(errno));
  nmaps = 0;
  char line[PATH_MAX + 256];
  while (fgets(line, sizeof line, f)) {
    if (nmaps == capmaps) {
      capmaps = capmaps ? capmaps * 2 : 256;
      maps = realloc(maps, capmaps * sizeof *maps);
      CHECK(maps != NULL, "realloc");
    }
    struct tl_map *m = &maps[nmaps];
    unsigned long s, e;
    int pos = 0;
    m->path[0] = 0;
    if (sscanf(line, "%lx-%lx %4s %llx %x:%x %lu %n", &s, &e, m->perms, &m->off, &m->maj, &m->min,
               &m->ino, &pos) < 7)
      continue;
    m->start = s;
    m->end = e;
    char *p = line + pos;
    size_t l = strlen(p);
    while (l && (p[l - 1] == '\n' || p[l - 1] == ' ')) p[--l] = 0;
    snprintf(m->path, sizeof m->path, "%s", p);
    nmaps++;
  }
  fclose(f);
}

static int classify(const struct tl_map *m, const struct stat *st, int have_st, uintptr_t a,
                    off_t *file_off) {
  if (have_st && m->ino == (unsigned long)st->st_ino && m->ino != 0 &&
      m->maj == major(st->st_dev) && m->min == minor(st->st_dev)) {
    if (file_off) *file_off = (off_t)(m->off + (a - m->start));
    return TL_FILE;
  }
  /* Block devices: the mapping names the device node itself. */
  if (have_st && S_ISBLK(st->st_mode) && m->ino != 0) {
    struct stat ms;
    if (m->path[0] == '/' && stat(m->path, &ms) == 0 && S_ISBLK(ms.st_mode) &&
        ms.st_rdev == st->st_rdev) {
      if (file_off) *file_off = (off_t)(m->off + (a - m->start));
      return TL_FILE;
    }
  }
  if (m->ino == 0 && m->maj == 0 && m->min == 0) return TL_ANON;
  /* a window's memory part on the node-shared route (src/win/place.c): still
   * memory, only shared with the node's other processes */
  if (!strncmp(m->path, "/memfd:mpisw-window-memory", 26)) return TL_ANON;
  return TL_OTHER;
}

int tl_backing(const void *addr, const char *path, off_t *file_off, char perms[5]) {
  load_maps();
  struct stat st;
  int have = path && stat(path, &st) == 0;
  uintptr_t a = (uintptr_t)addr;
  for (size_t i = 0; i < nmaps; i++) {
    if (a >= maps[i].start && a < maps[i].end) {
      if (perms) memcpy(perms, maps[i].perms, 5);
      return classify(&maps[i], &st, have, a, file_off);
    }
  }
  if (perms) strcpy(perms, "----");
  return TL_UNMAPPED;
}

void tl_scan_range(const void *base, size_t len, const char *path, struct tl_scan *s) {
  load_maps();
  struct stat st;
  int have = path && stat(path, &st) == 0;
  memset(s, 0, sizeof *s);
  s->first_file = s->last_file = s->first_anon = s->last_anon = -1;
  uintptr_t b = (uintptr_t)base;
  size_t np = (len + tl_page - 1) / tl_page;
  s->pages = np;
  size_t j = 0;
  for (size_t i = 0; i < np; i++) {
    uintptr_t a = b + i * tl_page;
    if (i == np - 1 && len) a = b + len - 1; /* last byte of the window */
    while (j < nmaps && maps[j].end <= a) j++;
    int k = TL_UNMAPPED;
    if (j < nmaps && a >= maps[j].start) k = classify(&maps[j], &st, have, a, NULL);
    if (k == TL_FILE) {
      s->file++;
      if (s->first_file < 0) s->first_file = (long)i;
      s->last_file = (long)i;
    } else if (k == TL_ANON) {
      s->anon++;
      if (s->first_anon < 0) s->first_anon = (long)i;
      s->last_anon = (long)i;
    } else {
      s->other++;
    }
  }
}

const char *tl_vmflags(const void *addr) {
  static char flags[512];
  flags[0] = 0;
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return flags;
  char line[PATH_MAX + 256];
  int inside = 0;
  uintptr_t a = (uintptr_t)addr;
  while (fgets(line, sizeof line, f)) {
    unsigned long s, e;
    char c1;
    if (sscanf(line, "%lx-%lx %c", &s, &e, &c1) == 3 && strchr(line, ' ') && line[0] != 'V') {
      inside = (a >= s && a < e);
      continue;
    }
    if (inside && !strncmp(line, "VmFlags:", 8)) {
      snprintf(flags, sizeof flags, "%s", line + 8);
      size_t l = strlen(flags);
      while (l && (flags[l - 1] == '\n' || flags[l - 1] == ' ')) flags[--l] = 0;
      break;
    }
  }
  fclose(f);
  return flags;
}

int tl_count_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n - 1; /* the directory stream itself */
}

int tl_count_maps(const char *prefix) {
  load_maps();
  int n = 0;
  for (size_t i = 0; i < nmaps; i++)
    if (!strncmp(maps[i].path, prefix, strlen(prefix))) n++;
  return n;
}

const char *tl_file_of(const void *addr) {
  static char out[4][64];
  static int next;
  load_maps();
  unsigned long ino = 0;
  for (size_t i = 0; i < nmaps; i++)
    if ((uintptr_t)addr >= maps[i].start && (uintptr_t)addr < maps[i].end) ino = maps[i].ino;
  if (!ino) return NULL;
  DIR *d = opendir("/proc/self/fd");
  struct dirent *de;
  char *r = NULL;
  while (d && !r && (de = readdir(d))) {
    char p[64];
    struct stat st;
    snprintf(p, sizeof p, "/proc/self/fd/%s", de->d_name);
    if (de->d_name[0] != '.' && stat(p, &st) == 0 && S_ISREG(st.st_mode) && st.st_ino == ino) {
      r = out[next++ % 4];
      snprintf(r, sizeof out[0], "%s", p);
    }
  }
  if (d) closedir(d);
  return r;
}

/* ---- privileges ---- */

int tl_is_root(void) { return geteuid() == 0; }

int tl_drop_dac_caps(int drop) {
  struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct d[2];
  if (syscall(SYS_capget, &h, d) != 0) return -1;
  unsigned mask = (1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH) | (1u << CAP_FOWNER);
  if (drop)
    d[0].effective &= ~mask;
  else
    d[0].effective |= (mask & d[0].permitted);
  return (int)syscall(SYS_capset, &h, d);
}

int tl_kill_loop_files(const char *dir) {
  char buf[4200];
  snprintf(buf, sizeof buf, "%s/returned-r%d", dir, tl_rank);
  int rfd = open(buf, O_WRONLY | O_CREAT | O_APPEND, 0600);
  snprintf(buf, sizeof buf, "%s/pid-r%d", dir, tl_rank);
  FILE *f = fopen(buf, "w");
  CHECK(rfd >= 0 && f, "cannot write into %s", dir);
  fprintf(f, "%d\n", (int)getpid());
  fclose(f);
  return rfd;
}

int tl_allsum(int v) {
  int r = 0;
  CHECK_MPI(MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  return r;
}

int tl_allmin(int v) {
  int r = 0;
  CHECK_MPI(MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  return r;
}

double tl_win_info_number(MPI_Win win, const char *key) {
  const char *v = tl_win_info(win, key);
  CHECK(v != NULL, "MPI_Win_get_info has no '%s'", key);
  char *end;
  double x = strtod(v, &end);
  CHECK(*v && *end == 0, "MPI_Win_get_info '%s' is '%s', not a number", key, v);
  return x;
}

/* ---- storage_backend=pager ---- */

/* Older kernel headers lack these (values from Linux 6.8's uapi headers). */
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif
#ifndef UFFD_FEATURE_MOVE
#define UFFD_FEATURE_MOVE (1 << 16)
#endif
/* struct pm_scan_arg of linux/fs.h (Linux 6.7): twelve 64-bit fields. */
struct tl_pm_scan_arg {
  uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
  uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define TL_PAGEMAP_SCAN _IOWR('f', 16, struct tl_pm_scan_arg)

static const char *kernel_release(void) {
  static struct utsname u;
  return uname(&u) == 0 ? u.release : "?";
}

/* O_DIRECT where the window's file lives: the file itself (or block
 * device), else a scratch file in its directory. 0 when it works or cannot
 * be tried (the library then decides alone). */
static int odirect_refused(const char *path, char *why, size_t n) {
  struct stat st;
  char dir[PATH_MAX];
  int fd;
  if (stat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))) {
    fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
  } else {
    snprintf(dir, sizeof dir, "%s", path);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
      char *slash = strrchr(dir, '/');
      if (!slash) return 0;
      *slash = 0;
    }
    char tmpl[PATH_MAX + 32];
    snprintf(tmpl, sizeof tmpl, "%s/.tl-odirect-XXXXXX", dir);
    int t = mkstemp(tmpl);
    if (t < 0) return 0;
    unlink(tmpl);
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", t);
    fd = open(self, O_RDWR | O_DIRECT | O_CLOEXEC);
    close(t);
    path = dir;
  }
  if (fd >= 0) {
    close(fd);
    return 0;
  }
  snprintf(why, n, "the file system of %s refuses O_DIRECT (%s)", path, strerror(errno));
  return 1;
}

const char *tl_pager_unavailable(const char *path) {
  static char why[PATH_MAX + 256];
  int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    int err = errno;
    snprintf(why, sizeof why, "userfaultfd is refused to this process: %s%s", strerror(err),
             err == EPERM ? " (it needs root/CAP_SYS_PTRACE or sysctl vm.unprivileged_userfaultfd=1)"
             : err == ENOSYS ? " (kernel built without CONFIG_USERFAULTFD)" : "");
    return why;
  }
  struct uffdio_api api = {.api = UFFD_API, .features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_MOVE};
  int api_ok = ioctl(fd, UFFDIO_API, &api) == 0 &&
               (api.features & (UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_MOVE)) ==
                   (UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_MOVE);
  close(fd);
  if (!api_ok) {
    snprintf(why, sizeof why,
             "userfaultfd of Linux %s lacks asynchronous write-protect or UFFDIO_MOVE "
             "(Linux >= 6.8 needed)", kernel_release());
    return why;
  }
  int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  struct tl_pm_scan_arg a = {.size = sizeof a};
  int scan_ok = pm >= 0 && ioctl(pm, TL_PAGEMAP_SCAN, &a) >= 0;
  if (pm >= 0) close(pm);
  if (!scan_ok) {
    snprintf(why, sizeof why, "PAGEMAP_SCAN is missing in Linux %s (Linux >= 6.7 needed)",
             kernel_release());
    return why;
  }
  if (path && *path && odirect_refused(path, why, sizeof why)) return why;
  return NULL;
}

void tl_require_pager_(const char *file, int line, MPI_Win *win) {
  const char *kind = tl_win_info(*win, "alloc_type");
  const char *b = tl_win_info(*win, "storage_backend");
  int on_storage = kind && !strcmp(kind, "storage");
  int ok = !on_storage || (b && !strcmp(b, "pager"));
  if (tl_allmin(ok)) return;
  const char *fn = on_storage ? tl_win_info(*win, "storage_alloc_filename") : NULL;
  char why[PATH_MAX + 256] = "";
  /* (not tl_scratch(): it is collective, and only some ranks are here) */
  const char *w = ok ? NULL : tl_pager_unavailable(fn ? fn : tl_scratch_dir[0] ? tl_scratch_dir : NULL);
  if (w) snprintf(why, sizeof why, "%s", w);
  /* skip only when every rank that fell back had a reason to */
  if (tl_allmin(ok || w != NULL)) {
    char msg[PATH_MAX + 400];
    int rc = MPI_Win_free(win);
    if (rc != MPI_SUCCESS) tl_fail_mpi(file, line, "MPI_Win_free", rc);
    /* rank 0 prints the skip: give it a reason even when its own window ran the pager */
    int who = tl_allmin(ok ? tl_size : tl_rank);
    if (who != 0 && tl_rank == who) CHECK_MPI(MPI_Send(why, sizeof why, MPI_CHAR, 0, 0, MPI_COMM_WORLD));
    if (who != 0 && tl_rank == 0)
      CHECK_MPI(MPI_Recv(why, sizeof why, MPI_CHAR, who, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    snprintf(msg, sizeof msg, "storage_backend=pager cannot run here (%s): the window fell back to mmap", why);
    tl_skip(msg);
  }
  if (!ok && !w)
    tl_fail(file, line,
            "storage_backend is '%s', expected 'pager': the pager fell back to mmap although this "
            "machine has what it needs (userfaultfd with write-protect and UFFDIO_MOVE, PAGEMAP_SCAN, "
            "O_DIRECT); run with MPISW_PAGER_DEBUG=1 to see why", b ? b : "(none)");
  /* the others wait for the failing rank's abort */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  tl_fail(file, line, "another rank's window fell back to mmap although the pager can run there");
}
