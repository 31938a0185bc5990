/* Unit test of staging's drain thread and copy engine (src/ckpt/stage.c,
 * stage_copy.c), no MPI: copies byte-exact at awkward sizes on O_DIRECT and
 * buffered file systems, nothing but dst left (no dst.part), parents made,
 * tickets' states, errors kept for wait and reported once by wait_all, a
 * full file system (RLIMIT_FSIZE) refused before data moves, statistics,
 * and a stop that drains the queue and joins. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "ckpt/stage.h"

static char base[256];

static void fill(unsigned char *p, uint64_t n, unsigned seed) {
  uint64_t x = seed * 2654435761u + 1;
  for (uint64_t i = 0; i < n; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    p[i] = (unsigned char)x;
  }
}

static int write_file(const char *path, uint64_t n, unsigned seed) {
  unsigned char *b = malloc(n ? n : 1);
  fill(b, n, seed);
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(b, 1, n, f) == n;
  if (f) ok = (fclose(f) == 0) && ok;
  free(b);
  return ok ? 0 : -1;
}

/* 1 when path holds exactly the n bytes of seed. */
static int same_file(const char *path, uint64_t n, unsigned seed) {
  struct stat st;
  if (stat(path, &st) != 0 || (uint64_t)st.st_size != n) return 0;
  unsigned char *want = malloc(n ? n : 1), *got = malloc(n ? n : 1);
  fill(want, n, seed);
  FILE *f = fopen(path, "rb");
  int ok = f && fread(got, 1, n, f) == n && memcmp(want, got, n) == 0;
  if (f) fclose(f);
  free(want), free(got);
  return ok;
}

static int exists(const char *p) { return access(p, F_OK) == 0; }

/* Awkward sizes around the 4 KiB alignment and the request size; depth 1
 * writes one request at a time, more use Linux AIO (with O_DIRECT). */
static void sizes(const char *dstdir, int depth) {
  const uint64_t req = 64 << 10;
  const uint64_t n[] = {0, 1, 4095, 4096, 4097, req - 1, req, req + 1, 3 * req + 123, 40 * req + 7};
  struct mpisw_error e;
  CHECK(mpisw_stage_tune(req, depth, &e) == 0);
  for (unsigned i = 0; i < sizeof n / sizeof n[0]; i++) {
    char src[512], dst[512], part[520];
    snprintf(src, sizeof src, "%s/src%u", base, i);
    snprintf(dst, sizeof dst, "%s/sz%d/img%u", dstdir, depth, i);
    snprintf(part, sizeof part, "%s.part", dst);
    CHECK(write_file(src, n[i], i + 1) == 0);
    struct mpisw_stage_copyinfo ci = {99, 0, 0};
    int rc = mpisw_stage_copy(src, dst, &ci, &e);
    if (rc) fprintf(stderr, "copy %llu bytes: %s\n", (unsigned long long)n[i], e.msg);
    CHECK(rc == 0);
    CHECK(ci.bytes == n[i] && ci.started > 0 && ci.seconds > 0);
    CHECK(same_file(dst, n[i], i + 1));
    CHECK(!exists(part));
    struct stat st;
    CHECK(stat(dst, &st) == 0 && (st.st_mode & 0777) == 0600);
  }
  CHECK(mpisw_stage_tune(0, 0, &e) == 0);
  CHECK(mpisw_stage_tune(1000, 0, &e) == -1 && e.kind == MPISW_K_USAGE);
  CHECK(mpisw_stage_tune(0, 65, &e) == -1 && e.kind == MPISW_K_USAGE);
  CHECK(mpisw_stage_tune(MPISW_STAGE_REQUEST, MPISW_STAGE_DEPTH, &e) == 0);
}

/* Many copies through the thread; states; statistics. */
static void queue(void) {
  struct mpisw_error e;
  struct mpisw_stage_stats s0, s1;
  mpisw_stage_stats(&s0);
  enum { N = 12 };
  mpisw_stage_ticket t[N];
  uint64_t total = 0;
  for (int i = 0; i < N; i++) {
    char src[512], dst[512];
    uint64_t n = (uint64_t)(i + 1) * 300000 + 11;
    snprintf(src, sizeof src, "%s/q%d", base, i);
    snprintf(dst, sizeof dst, "%s/pfs/deep/er/q%d", base, i);
    CHECK(write_file(src, n, 100 + i) == 0);
    CHECK(mpisw_stage_submit(src, dst, &t[i], &e) == 0);
    CHECK(t[i] != 0 && (i == 0 || t[i] > t[i - 1]));
    total += n;
  }
  int st = -1;
  CHECK(mpisw_stage_done(t[N - 1], &st, &e) == 0);
  CHECK(st >= MPISW_STAGE_QUEUED && st <= MPISW_STAGE_DONE);
  CHECK(mpisw_stage_wait(t[3], &e) == 0);
  CHECK(mpisw_stage_done(t[3], &st, &e) == 0 && st == MPISW_STAGE_DONE);
  CHECK(mpisw_stage_done(t[0], &st, &e) == 0 && st == MPISW_STAGE_DONE); /* ticket order */
  CHECK(mpisw_stage_wait_all(&e) == 0);
  for (int i = 0; i < N; i++) {
    char dst[512];
    snprintf(dst, sizeof dst, "%s/pfs/deep/er/q%d", base, i);
    CHECK(same_file(dst, (uint64_t)(i + 1) * 300000 + 11, 100 + i));
  }
  mpisw_stage_stats(&s1);
  CHECK(s1.submitted - s0.submitted == N);
  CHECK(s1.done - s0.done == N);
  CHECK(s1.failed == s0.failed);
  CHECK(s1.pending == 0);
  CHECK(s1.bytes - s0.bytes == total);
  CHECK(s1.last_ticket == t[N - 1]);
  CHECK(s1.last_bytes == (uint64_t)N * 300000 + 11);
  CHECK(s1.seconds > 0 && s1.last_seconds > 0);
  struct mpisw_stage_copyinfo c5 = {0, 0, 0}, c6 = {0, 0, 0};
  CHECK(mpisw_stage_info(t[5], &c5, &e) == 0 && c5.bytes == 6 * 300000 + 11 && c5.seconds > 0);
  CHECK(mpisw_stage_info(t[6], &c6, &e) == 0 && c6.started >= c5.started + c5.seconds); /* one at a time */
  CHECK(mpisw_stage_done(0, &st, &e) == -1 && e.kind == MPISW_K_USAGE);
  CHECK(mpisw_stage_done(t[N - 1] + 1000, &st, &e) == -1 && e.kind == MPISW_K_USAGE);
  CHECK(mpisw_stage_wait(t[N - 1] + 1000, &e) == -1 && e.kind == MPISW_K_USAGE);
  CHECK(mpisw_stage_submit("", "x", &t[0], &e) == -1 && e.kind == MPISW_K_USAGE);
}

/* A missing source: the error stays with its ticket, wait_all says it once. */
static void errors(void) {
  struct mpisw_error e;
  char src[512], dst[512], good[512], gdst[512];
  snprintf(src, sizeof src, "%s/missing", base);
  snprintf(dst, sizeof dst, "%s/pfs/missing", base);
  snprintf(good, sizeof good, "%s/good", base);
  snprintf(gdst, sizeof gdst, "%s/pfs/good", base);
  CHECK(write_file(good, 5000, 7) == 0);
  mpisw_stage_ticket bad, ok;
  CHECK(mpisw_stage_submit(src, dst, &bad, &e) == 0);
  CHECK(mpisw_stage_submit(good, gdst, &ok, &e) == 0);
  CHECK(mpisw_stage_wait(bad, &e) == -1);
  CHECK(e.kind == MPISW_K_NOFILE && strstr(e.msg, "missing") && strstr(e.msg, "No such file"));
  CHECK(mpisw_stage_wait(bad, &e) == -1); /* kept */
  CHECK(mpisw_stage_wait(ok, &e) == 0);   /* the next copy still ran */
  CHECK(same_file(gdst, 5000, 7));
  int st;
  CHECK(mpisw_stage_done(bad, &st, &e) == 0 && st == MPISW_STAGE_FAILED);
  struct mpisw_stage_copyinfo ci;
  CHECK(mpisw_stage_info(bad, &ci, &e) == -1 && e.kind == MPISW_K_USAGE);
  e.kind = -1;
  CHECK(mpisw_stage_wait_all(&e) == -1 && e.kind == MPISW_K_NOFILE);
  CHECK(mpisw_stage_wait_all(&e) == 0); /* reported once */
  CHECK(!exists(dst));
  struct mpisw_stage_stats s;
  mpisw_stage_stats(&s);
  CHECK(s.failed == 1);
}

/* A destination that cannot hold the file (RLIMIT_FSIZE, as a full file
 * system would): NOSPACE, no dst, no dst.part left behind. */
static void nospace(void) {
  struct mpisw_error e;
  char src[512], dst[512], part[520];
  snprintf(src, sizeof src, "%s/big", base);
  snprintf(dst, sizeof dst, "%s/pfs/big", base);
  snprintf(part, sizeof part, "%s.part", dst);
  CHECK(write_file(src, 3 << 20, 9) == 0);
  struct rlimit old, lim;
  getrlimit(RLIMIT_FSIZE, &old);
  lim = old;
  lim.rlim_cur = 1 << 20;
  signal(SIGXFSZ, SIG_IGN);
  CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
  int rc = mpisw_stage_copy(src, dst, NULL, &e);
  setrlimit(RLIMIT_FSIZE, &old);
  CHECK(rc == -1 && e.kind == MPISW_K_NOSPACE);
  CHECK(strstr(e.msg, "big.part") != NULL);
  CHECK(!exists(dst) && !exists(part));
}

/* Stop drains what is queued, joins, and refuses later submits. */
static void stop(void) {
  struct mpisw_error e;
  mpisw_stage_ticket t[4];
  for (int i = 0; i < 4; i++) {
    char src[512], dst[512];
    snprintf(src, sizeof src, "%s/s%d", base, i);
    snprintf(dst, sizeof dst, "%s/pfs/s%d", base, i);
    CHECK(write_file(src, 2 << 20, 50 + i) == 0);
    CHECK(mpisw_stage_submit(src, dst, &t[i], &e) == 0);
  }
  CHECK(mpisw_stage_stop(&e) == 0);
  for (int i = 0; i < 4; i++) {
    char dst[512];
    int st;
    snprintf(dst, sizeof dst, "%s/pfs/s%d", base, i);
    CHECK(same_file(dst, 2 << 20, 50 + i));
    CHECK(mpisw_stage_done(t[i], &st, &e) == 0 && st == MPISW_STAGE_DONE);
  }
  CHECK(mpisw_stage_submit(base, base, &t[0], &e) == -1 && e.kind == MPISW_K_USAGE);
  CHECK(strstr(e.msg, "stopped") != NULL);
  CHECK(mpisw_stage_stop(&e) == 0); /* twice is harmless */
}

int main(void) {
  snprintf(base, sizeof base, "/tmp/mpisw-test-stage-%d", (int)getpid());
  if (mkdir(base, 0700) != 0) return perror(base), 1;
  sizes(base, 3); /* /tmp: O_DIRECT where the file system takes it */
  sizes(base, 1);
  char shm[256];
  snprintf(shm, sizeof shm, "/dev/shm/mpisw-test-stage-%d", (int)getpid());
  if (mkdir(shm, 0700) == 0) sizes(shm, 3); /* tmpfs: buffered writes */
  queue();
  errors();
  nospace();
  stop();
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", base, shm);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", base);
  return check_summary("test_stage");
}
