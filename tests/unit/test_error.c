/* Error messages keep their reason whatever the length of the paths in them:
 * long words are shortened in the middle until the message fits
 * MPISW_MSG_FIT (src/core/error.c). */
#include <string.h>

#include "check.h"
#include "core/error.h"

int main(void) {
  struct mpisw_error e;
  char path[1100], dir[1100];
  /* ~1000 characters: /tmp/ then 4 components of ~245 (each under NAME_MAX) */
  strcpy(path, "/tmp/head-of-path");
  for (int c = 0; c < 4; c++) {
    strcat(path, "/");
    size_t n = strlen(path);
    memset(path + n, 'a' + c, 245);
    path[n + 245] = 0;
  }
  strcat(path, "/tail-file-r0");
  CHECK(strlen(path) > 990);
  strcpy(dir, path);
  *strrchr(dir, '/') = 0;

  /* the message storage.c gives for a missing directory */
  mpisw_fail(&e, MPISW_K_NOFILE, "storage_alloc_filename: '%s': directory '%s' does not exist",
             path, dir);
  CHECK(e.kind == MPISW_K_NOFILE);
  CHECK(strlen(e.msg) <= MPISW_MSG_FIT);
  CHECK(strstr(e.msg, "does not exist") != NULL);
  CHECK(!strncmp(e.msg, "storage_alloc_filename: '/tmp/head-of-path/", 43));
  CHECK(strstr(e.msg, "tail-file-r0'") != NULL);   /* the file's own name survives */
  CHECK(strstr(e.msg, "...") != NULL);
  CHECK(strstr(e.msg, "directory '/tmp/head") != NULL);

  /* the reason after one long path, at several lengths */
  for (size_t len = 50; len < 1000; len += 37) {
    char p[1100];
    memset(p, 'x', len);
    p[len] = 0;
    mpisw_fail(&e, MPISW_K_ACCESS, "storage_alloc_filename: '/%s': permission denied (%s)", p,
               "Permission denied");
    CHECK(strstr(e.msg, "permission denied (Permission denied)") != NULL);
    CHECK(strlen(e.msg) <= MPISW_MSG_FIT || len + 80 <= MPISW_MSG_FIT);
  }

  /* short messages stay whole, also with a path */
  mpisw_fail(&e, MPISW_K_NOFILE, "storage_alloc_filename: '%s': no such file",
             "/tmp/mpisw-test-abcdef/no/such/dir/f-r0");
  CHECK(!strcmp(e.msg, "storage_alloc_filename: '/tmp/mpisw-test-abcdef/no/such/dir/f-r0': "
                       "no such file"));
  /* a long message of short words is left as it is (nothing to shorten) */
  char words[600] = "";
  for (int i = 0; i < 50; i++) strcat(words, "word word ");
  mpisw_fail(&e, MPISW_K_IO, "%s", words);
  CHECK(!strcmp(e.msg, words));

  /* multi-byte characters are not cut in half */
  char u[1100] = "/";
  for (int i = 0; i < 300; i++) strcat(u, "\xc3\xa9"); /* é */
  mpisw_fail(&e, MPISW_K_IO, "'%s': %s", u, "reason");
  CHECK(strstr(e.msg, "': reason") != NULL);
  const char *dots = strstr(e.msg, "...");
  CHECK(dots && ((unsigned char)dots[3] & 0xC0) != 0x80 && (unsigned char)dots[-1] != 0xC3);
  return check_summary("test_error");
}
