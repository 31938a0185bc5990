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

  uint64_t v;
  CHECK(mpisw_parse_size("2G", &v) == 0 && v == (2ULL << 30));
  CHECK(mpisw_parse_size("3KiB", &v) == 0 && v == 3072);
  CHECK(mpisw_parse_size("", &v) == -1);
  CHECK(mpisw_parse_size("1.5G", &v) == -1);
  return check_summary("test_hints");
}
