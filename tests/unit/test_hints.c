/* Hint parsing and validation: every key, good and bad values. */
#include <string.h>

#include "check.h"
#include "core/hints.h"

static int set_ok(struct mpisw_hints *h, const char *k, const char *v) {
  struct mpisw_error e;
  return mpisw_hints_set(h, k, v, &e) == 0;
}

static int set_bad(const char *k, const char *v) {
  struct mpisw_hints h;
  struct mpisw_error e;
  mpisw_hints_init(&h);
  if (mpisw_hints_set(&h, k, v, &e) == 0) return 0;
  /* the message names the key and the value */
  return e.kind == MPISW_K_HINT && strstr(e.msg, k) && strstr(e.msg, v);
}

static int skip_factor(const char *key, void *arg) {
  (void)arg;
  return strcmp(key, "storage_alloc_factor") == 0;
}

int main(void) {
  struct mpisw_hints h;
  struct mpisw_error e;
  mpisw_hints_init(&h);
  CHECK(!h.storage && h.factor == 1.0 && h.unlink == -1 && h.file_perm == -1);

  CHECK(set_ok(&h, "alloc_type", "storage") && h.storage);
  CHECK(set_ok(&h, "alloc_type", "memory") && !h.storage);
  CHECK(set_bad("alloc_type", "disk"));
  CHECK(set_bad("alloc_type", ""));

  CHECK(set_ok(&h, "storage_alloc_filename", "/tmp/x%r") && h.has_filename);
  CHECK(set_bad("storage_alloc_filename", ""));

  CHECK(set_ok(&h, "storage_alloc_offset", "4096") && h.offset == 4096);
  CHECK(set_ok(&h, "storage_alloc_offset", "64K") && h.offset == 65536);
  CHECK(set_ok(&h, "storage_alloc_offset", "1M") && h.offset == 1048576);
  CHECK(set_ok(&h, "storage_alloc_offset", "0") && h.offset == 0);
  CHECK(set_bad("storage_alloc_offset", "-1"));
  CHECK(set_bad("storage_alloc_offset", "abc"));
  CHECK(set_bad("storage_alloc_offset", "12Q"));
  CHECK(set_bad("storage_alloc_offset", "99999999999999999999"));

  CHECK(set_ok(&h, "storage_alloc_factor", "0.5") && h.factor == 0.5 && !h.factor_auto);
  CHECK(set_ok(&h, "storage_alloc_factor", "0") && h.factor == 0.0);
  CHECK(set_ok(&h, "storage_alloc_factor", "1") && h.factor == 1.0);
  CHECK(set_ok(&h, "storage_alloc_factor", "auto") && h.factor_auto);
  CHECK(set_ok(&h, "storage_alloc_factor", ".25") && h.factor == 0.25 && !h.factor_auto);
  CHECK(set_bad("storage_alloc_factor", "1.5"));
  CHECK(set_bad("storage_alloc_factor", "-0.1"));
  CHECK(set_bad("storage_alloc_factor", "abc"));
  CHECK(set_bad("storage_alloc_factor", "nan"));
  CHECK(set_bad("storage_alloc_factor", "0.5x"));
  CHECK(set_bad("storage_alloc_factor", ""));

  CHECK(set_ok(&h, "storage_alloc_order", "storage_first") && h.storage_first);
  CHECK(set_ok(&h, "storage_alloc_order", "memory_first") && !h.storage_first);
  CHECK(set_bad("storage_alloc_order", "sideways"));

  CHECK(set_ok(&h, "storage_alloc_unlink", "true") && h.unlink == 1);
  CHECK(set_ok(&h, "storage_alloc_unlink", "FALSE") && h.unlink == 0);
  CHECK(set_bad("storage_alloc_unlink", "maybe"));
  CHECK(set_ok(&h, "storage_alloc_discard", "1") && h.discard == 1);
  CHECK(set_bad("storage_alloc_discard", "2x"));

  CHECK(set_ok(&h, "access_style", "sequential,random") &&
        h.access == (MPISW_ACCESS_SEQUENTIAL | MPISW_ACCESS_RANDOM));
  CHECK(set_ok(&h, "access_style", "read_once") && h.access == MPISW_ACCESS_READ_ONCE);
  CHECK(set_bad("access_style", "fast"));
  CHECK(set_bad("access_style", "sequential,fast"));
  char buf[128];
  mpisw_access_format(MPISW_ACCESS_SEQUENTIAL | MPISW_ACCESS_WRITE_MOSTLY, buf, sizeof buf);
  CHECK(strcmp(buf, "write_mostly,sequential") == 0);

  CHECK(set_ok(&h, "file_perm", "0644") && h.file_perm == 0644);
  CHECK(set_ok(&h, "file_perm", "600") && h.file_perm == 0600);
  CHECK(set_bad("file_perm", "999"));
  CHECK(set_bad("file_perm", "abc"));
  CHECK(set_bad("file_perm", "0999"));
  CHECK(set_bad("file_perm", "-1"));
  CHECK(set_bad("file_perm", "077777"));

  CHECK(set_ok(&h, "striping_factor", "4") && h.striping_factor == 4);
  CHECK(set_bad("striping_factor", "0"));
  CHECK(set_bad("striping_factor", "-3"));
  CHECK(set_bad("striping_factor", "x"));
  CHECK(set_ok(&h, "striping_unit", "1048576") && h.striping_unit == 1048576);
  CHECK(set_bad("striping_unit", "0"));

  /* Unknown keys are ignored, as MPI requires. */
  CHECK(set_ok(&h, "no_locks", "whatever"));
  CHECK(mpisw_hints_known("storage_alloc_factor") && !mpisw_hints_known("no_locks"));

  /* alloc_type=storage needs a file. */
  mpisw_hints_init(&h);
  set_ok(&h, "alloc_type", "storage");
  CHECK(mpisw_hints_check(&h, &e) == -1 && strstr(e.msg, "storage_alloc_filename"));
  set_ok(&h, "storage_alloc_filename", "/tmp/f");
  CHECK(mpisw_hints_check(&h, &e) == 0);

  /* MPISW_HINTS syntax, and keys set by MPI_Info stay theirs. */
  mpisw_hints_init(&h);
  CHECK(mpisw_hints_parse_env(&h, " alloc_type = storage ; storage_alloc_filename=/d/f%r;;"
                              "access_style=sequential,random;storage_alloc_factor=0.5",
                              skip_factor, NULL, &e) == 0);
  CHECK(h.storage && !strcmp(h.filename, "/d/f%r") && h.factor == 1.0 &&
        h.access == (MPISW_ACCESS_SEQUENTIAL | MPISW_ACCESS_RANDOM));
  CHECK(mpisw_hints_parse_env(&h, "alloc_type", NULL, NULL, &e) == -1 &&
        strstr(e.msg, "MPISW_HINTS"));
  CHECK(mpisw_hints_parse_env(&h, "storage_alloc_factor=2", NULL, NULL, &e) == -1 &&
        strstr(e.msg, "MPISW_HINTS") && strstr(e.msg, "storage_alloc_factor"));

  /* The one size form: digits, at most one suffix K/M/G/T (either case). */
  uint64_t v;
  CHECK(mpisw_parse_size("2G", &v) == 0 && v == (2ULL << 30));
  CHECK(mpisw_parse_size("0", &v) == 0 && v == 0);
  CHECK(mpisw_parse_size("4096", &v) == 0 && v == 4096);
  CHECK(mpisw_parse_size("64k", &v) == 0 && v == 65536);
  CHECK(mpisw_parse_size("64K", &v) == 0 && v == 65536);
  CHECK(mpisw_parse_size("3m", &v) == 0 && v == (3ULL << 20));
  CHECK(mpisw_parse_size("1T", &v) == 0 && v == (1ULL << 40));
  CHECK(mpisw_parse_size("007", &v) == 0 && v == 7);
  CHECK(mpisw_parse_size("18446744073709551615", &v) == 0 && v == UINT64_MAX);
  CHECK(mpisw_parse_size("16777215T", &v) == 0 && v == (16777215ULL << 40));
  /* and nothing else */
  const char *bad_sizes[] = {"", "K", "3KiB", "3KB", "3kb", "3 K", " 3", "3 ", "-1", "+1",
                             "0x10", "0x0.8", "1.5G", "1e3", "3KK", "3P", "3Ki",
                             "18446744073709551616", "16777216T", "99999999999999999999G",
                             "inf", "nan", "4\n", NULL};
  for (int i = 0; bad_sizes[i]; i++) {
    v = 12345;
    int bad = mpisw_parse_size(bad_sizes[i], &v) == -1 && v == 12345;
    if (!bad) fprintf(stderr, "  size '%s' accepted\n", bad_sizes[i]);
    CHECK(bad);
  }
  CHECK(set_bad("storage_alloc_offset", "4KiB"));
  CHECK(set_bad("storage_alloc_offset", " 4K"));
  CHECK(set_bad("storage_pager_memory", "1MB"));
  CHECK(set_ok(&h, "storage_pager_memory", "64m") && h.pager_memory == (64u << 20));

  /* The one boolean form: 1, 0, true, false in any case. */
  int b = -1;
  CHECK(mpisw_parse_bool("True", &b) == 0 && b == 1);
  CHECK(mpisw_parse_bool("0", &b) == 0 && b == 0);
  CHECK(mpisw_parse_bool("yes", &b) == -1 && mpisw_parse_bool("", &b) == -1 &&
        mpisw_parse_bool("01", &b) == -1 && mpisw_parse_bool(" true", &b) == -1);

  /* storage_alloc_factor: decimal fractions only (no hex floats, exponents). */
  CHECK(set_bad("storage_alloc_factor", "0x0.8"));
  CHECK(set_bad("storage_alloc_factor", "1e-1"));
  CHECK(set_bad("storage_alloc_factor", "."));
  CHECK(set_bad("storage_alloc_factor", "0..5"));
  CHECK(set_bad("storage_alloc_factor", " 0.5"));
  CHECK(set_bad("storage_alloc_factor", "inf"));
  CHECK(set_bad("storage_alloc_factor", "1.0000001"));
  CHECK(set_ok(&h, "storage_alloc_factor", "1.") && h.factor == 1.0);
  CHECK(set_ok(&h, "storage_alloc_factor", "0.125") && h.factor == 0.125);

  /* file_perm: permission bits only, never set-uid, set-gid or sticky. */
  CHECK(set_bad("file_perm", "06777"));
  CHECK(set_bad("file_perm", "04755"));
  CHECK(set_bad("file_perm", "02700"));
  CHECK(set_bad("file_perm", "01777"));
  CHECK(set_bad("file_perm", "1000"));
  CHECK(set_ok(&h, "file_perm", "0777") && h.file_perm == 0777);
  CHECK(set_ok(&h, "file_perm", "0") && h.file_perm == 0);
  mpisw_hints_init(&h);
  CHECK(mpisw_hints_set(&h, "file_perm", "06777", &e) == -1 && strstr(e.msg, "0777") &&
        h.file_perm == -1);

  /* The nearest known key of a typo (MPISW_HINTS warnings). */
  CHECK(!strcmp(mpisw_hints_nearest("alloc-type"), "alloc_type"));
  CHECK(!strcmp(mpisw_hints_nearest("storage_alloc_filname"), "storage_alloc_filename"));
  CHECK(!strcmp(mpisw_hints_nearest("storage_alloc_unlnk"), "storage_alloc_unlink"));
  CHECK(mpisw_hints_known(mpisw_hints_nearest("zzz")));
  return check_summary("test_hints");
}
