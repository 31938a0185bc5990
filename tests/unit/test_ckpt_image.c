/* Checkpoint images without MPI (src/ckpt/image.c, crc32c.c): the checksum
 * against its published check value and its table twin, an image written,
 * rewritten incrementally, checked, restored, and each kind of damage found
 * with its own words. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ckpt/crc32c.h"
#include "ckpt/image.h"

static int failures;
#define CHECK(c, ...)                                       \
  do {                                                      \
    if (!(c)) {                                             \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #c); \
      fprintf(stderr, __VA_ARGS__);                         \
      fprintf(stderr, "\n");                                \
      failures++;                                           \
    }                                                       \
  } while (0)

static void test_crc(void) {
  const char *s = "123456789";
  CHECK(mpisw_crc32c(0, s, 9) == 0xE3069283u, "crc32c(123456789) = %08x",
        mpisw_crc32c(0, s, 9));
  CHECK(mpisw_crc32c_table(0, s, 9) == 0xE3069283u, "table: %08x", mpisw_crc32c_table(0, s, 9));
  unsigned char buf[4099];
  for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)(i * 131 + 7);
  for (size_t off = 0; off < 9; off++)
    for (size_t n = 0; n + off <= sizeof buf; n += 97) {
      uint32_t a = mpisw_crc32c(0, buf + off, n), b = mpisw_crc32c_table(0, buf + off, n);
      CHECK(a == b, "offset %zu length %zu: %08x vs table %08x", off, n, a, b);
    }
  /* continuing equals one pass */
  CHECK(mpisw_crc32c(mpisw_crc32c(0, buf, 1000), buf + 1000, 3099) == mpisw_crc32c(0, buf, 4099),
        "continued crc differs");
}

static void flip(const char *path, off_t off) {
  int fd = open(path, O_RDWR);
  unsigned char b = 0;
  if (fd < 0 || pread(fd, &b, 1, off) != 1) return;
  b ^= 0x10;
  if (pwrite(fd, &b, 1, off) != 1) perror("pwrite");
  close(fd);
}

static void copy_file(const char *from, const char *to) {
  char cmd[8400];
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
  if (system(cmd) != 0) fprintf(stderr, "cp failed\n");
}

static void expect_bad(const char *path, const char *words) {
  struct mpisw_error e;
  int v = -1;
  int rc = mpisw_ckpt_image_check(path, &v, &e);
  CHECK(rc == -1 && strstr(e.msg, words) && strstr(e.msg, path), "check of %s: rc %d '%s', want '%s'",
        path, rc, rc ? e.msg : "", words);
}

static void test_image(const char *dir) {
  enum { C = 4096 };
  size_t n0 = 10 * C + 123, n1 = 3 * C;
  unsigned char *a = malloc(n0), *b = malloc(n1), *ra = calloc(1, n0), *rb = calloc(1, n1);
  for (size_t i = 0; i < n0; i++) a[i] = (unsigned char)(i * 7 + 1);
  for (size_t i = 0; i < n1; i++) b[i] = (unsigned char)(i * 13 + 5);
  struct mpisw_ckpt_range r[2] = {{a, n0}, {b, n1}};
  char path[4096];
  CHECK(mpisw_ckpt_slot_path(path, sizeof path, dir, "set", 3, 1) == 0, "slot path");
  CHECK(strstr(path, "/set.r3.s1.ckpt") != NULL, "slot path %s", path);
  struct mpisw_ckpt_header h = {.version = 7, .rank = 3, .nranks = 4, .chunk = C};
  snprintf(h.name, sizeof h.name, "set");
  struct mpisw_ckpt_write_stats st;
  struct mpisw_error e;
  CHECK(mpisw_ckpt_image_write(path, &h, r, 2, NULL, &st, &e) == 0, "write: %s", e.msg);
  CHECK(st.written == n0 + n1 + 4096 && st.skipped == 0, "first write: %llu written",
        (unsigned long long)st.written);
  int v = -1;
  CHECK(mpisw_ckpt_image_check(path, &v, &e) == 0 && v == 7, "check: %s", e.msg);

  /* one chunk changed: one chunk and the header written */
  struct mpisw_ckpt_header old;
  CHECK(mpisw_ckpt_image_header(path, &old, &e) == 1, "header: %s", e.msg);
  a[5 * C + 9] ^= 0xff;
  struct mpisw_ckpt_header h2 = {.version = 9, .rank = 3, .nranks = 4, .chunk = C};
  snprintf(h2.name, sizeof h2.name, "set");
  CHECK(mpisw_ckpt_image_write(path, &h2, r, 2, &old, &st, &e) == 0, "rewrite: %s", e.msg);
  CHECK(st.written == C + 4096 && st.skipped == n0 + n1 - C, "incremental: %llu written, %llu skipped",
        (unsigned long long)st.written, (unsigned long long)st.skipped);
  CHECK(mpisw_ckpt_image_check(path, &v, &e) == 0 && v == 9, "check after rewrite: %s", e.msg);
  struct mpisw_ckpt_range rr[2] = {{ra, n0}, {rb, n1}};
  CHECK(mpisw_ckpt_image_restore(path, &h2, rr, 2, &e) == 0, "restore: %s", e.msg);
  CHECK(!memcmp(ra, a, n0) && !memcmp(rb, b, n1), "restored bytes differ");
  struct mpisw_ckpt_range wrong[2] = {{ra, n0 - 1}, {rb, n1}};
  CHECK(mpisw_ckpt_image_restore(path, &h2, wrong, 2, &e) == -1 && e.kind == MPISW_K_USAGE,
        "a region of another size: %s", e.msg);

  /* another layout: everything written again */
  struct mpisw_ckpt_header h3 = {.version = 10, .rank = 3, .nranks = 4, .chunk = C};
  mpisw_ckpt_header_free(&old);
  CHECK(mpisw_ckpt_image_header(path, &old, &e) == 1, "header");
  struct mpisw_ckpt_range one[1] = {{a, n0}};
  CHECK(mpisw_ckpt_image_write(path, &h3, one, 1, &old, &st, &e) == 0, "relayout: %s", e.msg);
  CHECK(st.written == n0 + 4096, "relayout wrote %llu", (unsigned long long)st.written);
  CHECK(mpisw_ckpt_image_check(path, &v, &e) == 0 && v == 10, "check after relayout: %s", e.msg);
  mpisw_ckpt_header_free(&old);

  /* damage, each found and named */
  char bad[4200];
  snprintf(bad, sizeof bad, "%s/data", dir);
  copy_file(path, bad);
  flip(bad, 4096 + 2 * C + 1);
  expect_bad(bad, "checksum mismatch in chunk 2 of region 0");
  copy_file(path, bad);
  flip(bad, 60);
  expect_bad(bad, "header checksum mismatch");
  copy_file(path, bad);
  flip(bad, 12);
  expect_bad(bad, "partial: it was being written");
  copy_file(path, bad);
  if (truncate(bad, 4096 + C) != 0) perror("truncate");
  expect_bad(bad, "partial: the file is shorter");
  copy_file(path, bad);
  flip(bad, 0);
  expect_bad(bad, "not a checkpoint image");
  snprintf(bad, sizeof bad, "%s/none", dir);
  expect_bad(bad, "no such file");
  mpisw_ckpt_header_free(&h);
  mpisw_ckpt_header_free(&h2);
  mpisw_ckpt_header_free(&h3);
  free(a);
  free(b);
  free(ra);
  free(rb);
}

/* A change that keeps the CRC32C (forged: 4 bytes changed, 4 more chosen by
 * solving the CRC's linear equations over GF(2)) must still change the
 * chunk's 64-bit sum, or an incremental checkpoint would skip the chunk. */
static void test_sum_beats_crc(void) {
  enum { N = 4096, AT = 100, FIX = 200 };
  unsigned char *m = malloc(N), *x = malloc(N);
  if (!m || !x) return;
  for (int i = 0; i < N; i++) m[i] = (unsigned char)(i * 7 + 3);
  uint32_t base = mpisw_crc32c(0, m, N);
  memcpy(x, m, N);
  for (int i = 0; i < 4; i++) x[AT + i] ^= (unsigned char)(0x5a + i);
  uint32_t want = mpisw_crc32c(0, x, N) ^ base; /* the change the fix must cancel */
  /* effect of flipping each of the 32 bits at FIX; then Gaussian elimination */
  uint32_t col[32], comb[32];
  for (int b = 0; b < 32; b++) {
    m[FIX + b / 8] ^= (unsigned char)(1u << (b % 8));
    col[b] = mpisw_crc32c(0, m, N) ^ base;
    m[FIX + b / 8] ^= (unsigned char)(1u << (b % 8));
    comb[b] = 1u << b;
  }
  uint32_t pick = 0, w = want;
  for (int bit = 31, row = 0; bit >= 0; bit--) {
    int p = -1;
    for (int r = row; r < 32 && p < 0; r++)
      if (col[r] >> bit & 1) p = r;
    if (p < 0) continue;
    uint32_t t = col[p], c = comb[p];
    col[p] = col[row], comb[p] = comb[row], col[row] = t, comb[row] = c;
    for (int r = 0; r < 32; r++)
      if (r != row && (col[r] >> bit & 1)) col[r] ^= col[row], comb[r] ^= comb[row];
    if (w >> bit & 1) w ^= col[row], pick ^= comb[row];
    row++;
  }
  CHECK(w == 0, "the CRC could not be forged (rank-deficient?)");
  for (int b = 0; b < 32; b++)
    if (pick >> b & 1) x[FIX + b / 8] ^= (unsigned char)(1u << (b % 8));
  CHECK(memcmp(m, x, N) != 0, "the forged chunk equals the original");
  CHECK(mpisw_crc32c(0, x, N) == base, "forged CRC32C %08x, original %08x",
        mpisw_crc32c(0, x, N), base);
  CHECK(mpisw_chunk_sum(x, N) != mpisw_chunk_sum(m, N),
        "a change that keeps the CRC32C keeps the chunk's sum too: incremental checkpoints "
        "would skip it");
  free(m);
  free(x);
}

int main(void) {
  char dir[] = "/tmp/mpisw-ckpt-unit-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  test_crc();
  test_sum_beats_crc();
  test_image(dir);
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  if (failures) return 1;
  printf("PASS\n");
  return 0;
}
