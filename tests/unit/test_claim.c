/* Files of unique windows have no name; windows claim their bytes of a file. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "core/claim.h"
#include "core/storage.h"
#include "core/unique.h"

static char dir[256];

static int entries(const char *d) {
  DIR *dd = opendir(d);
  int n = 0;
  struct dirent *de;
  while (dd && (de = readdir(dd)))
    if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) n++;
  if (dd) closedir(dd);
  return n;
}

static void test_unique(void) {
  char name[512];
  int fd = mpisw_unique_create(dir, "r3", name, sizeof name);
  CHECK(fd >= 0);
  CHECK(entries(dir) == 0); /* no name while it lives */
  CHECK(strncmp(name, dir, strlen(dir)) == 0 && strstr(name, "/mpisw-") && strstr(name, "-r3-"));
  CHECK(strchr(name, 'X') == NULL || strstr(name, "XXXXXX") == NULL);
  CHECK(write(fd, "abc", 3) == 3);
  /* another open of it, as peers do */
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  int fd2 = open(proc, O_RDWR);
  CHECK(fd2 >= 0);
  char buf[4] = "";
  CHECK(pread(fd2, buf, 3, 0) == 3 && !memcmp(buf, "abc", 3));
  close(fd2);
  close(fd);
  CHECK(entries(dir) == 0);
  /* kept: it gets its name */
  fd = mpisw_unique_create(dir, "r0", name, sizeof name);
  CHECK(fd >= 0 && mpisw_unique_keep(fd, name) == 0);
  CHECK(entries(dir) == 1 && access(name, F_OK) == 0);
  close(fd);
  CHECK(unlink(name) == 0);
  /* a name too long for the buffer */
  char small[16];
  errno = 0;
  CHECK(mpisw_unique_create(dir, "r0", small, sizeof small) < 0 && errno == ENAMETOOLONG);
  /* through mpisw_file_open: close without remove keeps, rollback never names it */
  struct mpisw_file f;
  struct mpisw_error e;
  struct mpisw_file_opts o = {1, -1, "r1", 0, 0};
  CHECK(mpisw_file_open(&f, dir, &o, &e) == 0 && f.unique);
  CHECK(entries(dir) == 0);
  mpisw_file_rollback(&f);
  CHECK(entries(dir) == 0);
}

static void test_claim(void) {
  char path[512];
  snprintf(path, sizeof path, "%s/named", dir);
  int a = open(path, O_RDWR | O_CREAT, 0600), b = open(path, O_RDWR);
  struct mpisw_error e;
  CHECK(a >= 0 && b >= 0);
  CHECK(mpisw_claim_range(a, path, 0, 1000, &e) == 0);
  CHECK(mpisw_claim_range(a, path, 0, 4096, &e) == 0); /* its own claim again: fine */
  CHECK(mpisw_claim_range(b, path, 4096, 1000, &e) == 0); /* adjacent */
  CHECK(mpisw_claim_range(b, path, 4095, 1, &e) == -1 && e.kind == MPISW_K_USAGE);
  CHECK(strstr(e.msg, path) && strstr(e.msg, "%r") && strstr(e.msg, "4095-4096"));
  CHECK(mpisw_claim_range(b, path, 100, 0, &e) == 0); /* nothing to claim */
  close(a); /* its claims go with its descriptor */
  CHECK(mpisw_claim_range(b, path, 0, 4096, &e) == 0);
  close(b);
  /* a file made here, kept because another claim came first, goes once
   * nobody claims it */
  struct mpisw_file f;
  mpisw_file_init(&f);
  snprintf(f.path, sizeof f.path, "%s", path);
  f.created = 1;
  f.claim_lost = 1;
  int c = open(path, O_RDWR);
  CHECK(mpisw_claim_range(c, path, 0, 10, &e) == 0);
  mpisw_claim_drop_orphan(&f);
  CHECK(access(path, F_OK) == 0); /* still claimed */
  close(c);
  f.claim_lost = 1;
  mpisw_claim_drop_orphan(&f);
  CHECK(access(path, F_OK) != 0);
  /* reserve claims first: a refused reserve neither grows nor removes */
  struct mpisw_file g, h;
  struct mpisw_file_opts o = {1, -1, NULL, 0, 0};
  CHECK(mpisw_file_open(&g, path, &o, &e) == 0 && g.created);
  CHECK(mpisw_file_reserve(&g, 0, 8192, &e) == 0);
  CHECK(mpisw_file_open(&h, path, &o, &e) == 0 && !h.created);
  CHECK(mpisw_file_reserve(&h, 4096, 65536, &e) == -1 && e.kind == MPISW_K_USAGE && h.claim_lost);
  struct stat st;
  CHECK(stat(path, &st) == 0 && st.st_size == 8192);
  mpisw_file_rollback(&h);
  CHECK(access(path, F_OK) == 0);
  mpisw_file_close(&g, 1);
  CHECK(access(path, F_OK) != 0);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/mpisw-unit-claim-XXXXXX");
  if (!mkdtemp(dir)) return 1;
  test_unique();
  test_claim();
  rmdir(dir);
  return check_summary("test_claim");
}
