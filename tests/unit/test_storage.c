/* Files behind windows: create, reuse, refuse, reserve, map, roll back. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "core/path.h"
#include "core/storage.h"

static char dir[256];

static const char *in_dir(const char *name) {
  static char p[512];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return p;
}

static off_t size_of(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? st.st_size : -1;
}

static void test_expand(void) {
  char out[256];
  struct mpisw_error e;
  CHECK(mpisw_path_expand("/d/f-%r-%h-%%", 3, "nodeb", out, sizeof out, &e) == 0);
  CHECK(strcmp(out, "/d/f-3-nodeb-%") == 0);
  CHECK(mpisw_path_expand("/d/%x", 0, "h", out, sizeof out, &e) == -1 && e.kind == MPISW_K_HINT);
  CHECK(mpisw_path_expand("/d/%r", 12345, "h", out, 6, &e) == -1);
  mpisw_path_parent("/a/b/c", out, sizeof out);
  CHECK(strcmp(out, "/a/b") == 0);
  mpisw_path_parent("c", out, sizeof out);
  CHECK(strcmp(out, ".") == 0);
}

static void test_create_and_reuse(void) {
  struct mpisw_file f;
  struct mpisw_error e;
  struct mpisw_file_opts o = {1, -1, "t", 0, 0};
  umask(022);
  CHECK(mpisw_file_open(&f, in_dir("a.win"), &o, &e) == 0 && f.created);
  struct stat st;
  CHECK(fstat(f.fd, &st) == 0 && (st.st_mode & 07777) == 0600);
  CHECK(mpisw_file_reserve(&f, 4096, 8192, &e) == 0 && size_of(in_dir("a.win")) == 12288);
  mpisw_file_close(&f, 0);

  /* Reuse: a larger file is never truncated; a smaller one grows. */
  CHECK(mpisw_file_open(&f, in_dir("a.win"), &o, &e) == 0 && !f.created);
  CHECK(mpisw_file_reserve(&f, 0, 4096, &e) == 0 && size_of(in_dir("a.win")) == 12288);
  CHECK(mpisw_file_reserve(&f, 0, 65536, &e) == 0 && size_of(in_dir("a.win")) == 65536);
  /* Rollback of a reused file shrinks it back, never removes it. */
  mpisw_file_rollback(&f);
  CHECK(size_of(in_dir("a.win")) == 12288);

  /* file_perm, umask applied like open(2). */
  struct mpisw_file_opts p = {1, 0640, "t", 0, 0};
  CHECK(mpisw_file_open(&f, in_dir("b.win"), &p, &e) == 0);
  CHECK(fstat(f.fd, &st) == 0 && (st.st_mode & 07777) == 0640);
  /* Rollback of a created file removes it. */
  mpisw_file_rollback(&f);
  CHECK(size_of(in_dir("b.win")) == -1);
}

static void test_refusals(void) {
  struct mpisw_file f;
  struct mpisw_error e;
  struct mpisw_file_opts o = {1, -1, "t", 0, 0};
  CHECK(mpisw_file_open(&f, in_dir("nodir/x.win"), &o, &e) == -1 && e.kind == MPISW_K_NOFILE);
  CHECK(strstr(e.msg, "does not exist") != NULL);
  CHECK(symlink("/etc/hostname", in_dir("link.win")) == 0);
  CHECK(mpisw_file_open(&f, in_dir("link.win"), &o, &e) == -1 && e.kind == MPISW_K_ACCESS);
  CHECK(strstr(e.msg, "symbolic link") != NULL);
  /* A peer of a shared window must not create the file. */
  struct mpisw_file_opts peer = {0, -1, NULL, 0, 0};
  CHECK(mpisw_file_open(&f, in_dir("absent.win"), &peer, &e) == -1 && e.kind == MPISW_K_NOFILE);
  CHECK(size_of(in_dir("absent.win")) == -1);
  /* A FIFO is no window. */
  CHECK(mkfifo(in_dir("fifo"), 0600) == 0);
  CHECK(mpisw_file_open(&f, in_dir("fifo"), &peer, &e) == -1 && e.kind == MPISW_K_ACCESS);
}

static void test_unique_in_dir(void) {
  struct mpisw_file f1, f2;
  struct mpisw_error e;
  char sub[512];
  snprintf(sub, sizeof sub, "%s/d", dir);
  CHECK(mkdir(sub, 0700) == 0);
  struct mpisw_file_opts o = {1, -1, "r0", 0, 0};
  CHECK(mpisw_file_open(&f1, sub, &o, &e) == 0 && f1.unique && f1.created);
  CHECK(mpisw_file_open(&f2, sub, &o, &e) == 0 && strcmp(f1.path, f2.path) != 0);
  CHECK(strncmp(f1.path, sub, strlen(sub)) == 0);
  mpisw_file_close(&f1, 1);
  mpisw_file_close(&f2, 1);
  CHECK(rmdir(sub) == 0); /* both removed: the directory is empty */
}

static void test_map_and_sync(void) {
  struct mpisw_file f;
  struct mpisw_error e;
  struct mpisw_file_opts o = {1, -1, "t", 0, 0};
  uint64_t P = mpisw_page_size(), S = 8 * P;
  CHECK(mpisw_file_open(&f, in_dir("m.win"), &o, &e) == 0);
  struct mpisw_layout l;
  /* memory_first half/half at file offset 2 pages */
  CHECK(mpisw_layout_compute(S, S / 2, 0, 2 * P, P, &l, &e) == 0);
  CHECK(mpisw_file_reserve(&f, 2 * P, l.sto_len, &e) == 0);
  struct mpisw_region r;
  CHECK(mpisw_region_map(&r, &l, f.fd, -1, 0, &e) == 0);
  memset(r.base, 0xab, S);
  CHECK(mpisw_region_sync(&r, f.fd, 0, NULL, &e) == 0);
  unsigned char buf[16];
  CHECK(pread(f.fd, buf, 16, (off_t)(2 * P)) == 16 && buf[0] == 0xab && buf[15] == 0xab);
  CHECK(pread(f.fd, buf, 16, 0) == 16 && buf[0] == 0); /* before the offset: untouched */
  mpisw_region_unmap(&r);
  mpisw_file_close(&f, 1);
  CHECK(size_of(in_dir("m.win")) == -1);
}

/* A sync reports the bytes it made the kernel write (the dirty pages), not
 * the window's size. */
static void test_sync_counts_dirty(void) {
  struct mpisw_file f;
  struct mpisw_error e;
  struct mpisw_file_opts o = {1, -1, "t", 0, 0};
  uint64_t P = mpisw_page_size(), S = 4 << 20;
  CHECK(mpisw_file_open(&f, in_dir("dirty.win"), &o, &e) == 0);
  struct mpisw_layout l;
  CHECK(mpisw_layout_compute(S, 0, 0, 0, P, &l, &e) == 0);
  CHECK(mpisw_file_reserve(&f, 0, S, &e) == 0);
  struct mpisw_region r;
  CHECK(mpisw_region_map(&r, &l, f.fd, -1, 0, &e) == 0);
  uint64_t written = 1;
  CHECK(mpisw_region_sync(&r, f.fd, 0, &written, &e) == 0 && written == 0);
  memset(r.base + S / 2, 0x5a, 4096);
  CHECK(mpisw_region_sync(&r, f.fd, 0, &written, &e) == 0);
  uint64_t range[2] = {0, 0}, cs[5];
  if (syscall(451, f.fd, range, cs, 0) != 0 && errno == ENOSYS) {
    printf("cachestat(2) missing: a sync counts its whole range\n");
    CHECK(written == S);
  } else {
    printf("4 KiB written into a 4 MiB mapping: the sync wrote %llu bytes\n",
           (unsigned long long)written);
    CHECK(written >= 4096 && written <= 256 * 1024);
  }
  /* a rewrite after a failed write-back writes every resident page again */
  CHECK(mpisw_region_sync(&r, f.fd, 1, &written, &e) == 0 && written >= 4096);
  unsigned char b[4096];
  CHECK(pread(f.fd, b, 4096, (off_t)(S / 2)) == 4096 && b[0] == 0x5a && b[4095] == 0x5a);
  mpisw_region_unmap(&r);
  mpisw_file_close(&f, 1);
}

/* Root must not reuse a file another user made in a sticky world-writable
 * directory (that user could read the window); its own files are reused. */
static void test_foreign_owner(void) {
  if (geteuid() != 0) {
    printf("SKIP foreign-owner part: needs root to chown a file to another user\n");
    return;
  }
  char sticky[512], path[600];
  snprintf(sticky, sizeof sticky, "%s/sticky", dir);
  CHECK(mkdir(sticky, 0700) == 0 && chmod(sticky, 01777) == 0);
  snprintf(path, sizeof path, "%s/w.win", sticky);
  int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0666);
  CHECK(fd >= 0 && fchown(fd, 65534, 65534) == 0 && fchmod(fd, 0666) == 0);
  close(fd);
  struct mpisw_file f;
  struct mpisw_error e;
  struct mpisw_file_opts o = {1, -1, "t", 0, 0};
  CHECK(mpisw_file_open(&f, path, &o, &e) == -1 && e.kind == MPISW_K_ACCESS);
  CHECK(strstr(e.msg, path) && strstr(e.msg, "uid 65534") && strstr(e.msg, "chown"));
  CHECK(f.fd == -1 && size_of(path) == 0); /* left as it was */
  struct mpisw_file_opts peer = {0, -1, NULL, 0, 0};
  CHECK(mpisw_file_open(&f, path, &peer, &e) == -1 && e.kind == MPISW_K_ACCESS);
  CHECK(chown(path, 0, 0) == 0);
  CHECK(mpisw_file_open(&f, path, &o, &e) == 0 && !f.created);
  mpisw_file_close(&f, 1);
}

/* A created file's directory is synced once; a reused file's is not, nor a
 * unique file's (it has no directory entry). */
static void test_dir_sync(void) {
  struct mpisw_file f;
  struct mpisw_error e;
  struct mpisw_file_opts o = {1, -1, "t", 0, 0};
  unsigned long before = mpisw_dir_syncs;
  CHECK(mpisw_file_open(&f, in_dir("durable.win"), &o, &e) == 0 && f.created);
  CHECK(mpisw_dir_syncs == before + 1);
  mpisw_file_close(&f, 0);
  CHECK(mpisw_file_open(&f, in_dir("durable.win"), &o, &e) == 0 && !f.created);
  CHECK(mpisw_dir_syncs == before + 1);
  mpisw_file_close(&f, 1);
  CHECK(mpisw_file_open(&f, dir, &o, &e) == 0 && f.unique);
  CHECK(mpisw_dir_syncs == before + 1);
  mpisw_file_close(&f, 1);
}

static void test_full_disk(void) {
  char small[512];
  snprintf(small, sizeof small, "%s/small", dir);
  mkdir(small, 0700);
  if (geteuid() != 0 || mount("tmpfs", small, "tmpfs", 0, "size=1m") != 0) {
    printf("SKIP full-disk part: needs root to mount a small tmpfs\n");
    rmdir(small);
    return;
  }
  struct mpisw_file f;
  struct mpisw_error e;
  struct mpisw_file_opts o = {1, -1, "t", 0, 0};
  char path[600];
  snprintf(path, sizeof path, "%s/big.win", small);
  CHECK(mpisw_file_open(&f, path, &o, &e) == 0);
  CHECK(mpisw_file_reserve(&f, 0, 8 << 20, &e) == -1 && e.kind == MPISW_K_NOSPACE);
  CHECK(strstr(e.msg, "no space") != NULL);
  mpisw_file_rollback(&f);
  CHECK(size_of(path) == -1); /* nothing half-created */
  umount2(small, MNT_DETACH);
  rmdir(small);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/mpisw-unit-XXXXXX");
  if (!mkdtemp(dir)) return 2;
  test_expand();
  test_create_and_reuse();
  test_refusals();
  test_unique_in_dir();
  test_map_and_sync();
  test_sync_counts_dirty();
  test_foreign_owner();
  test_dir_sync();
  test_full_disk();
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return check_summary("test_storage");
}
