/* The pager core without MPI: round trips through a small memory limit
 * (eviction and re-read), durability after sync, fresh space read as zeros
 * without I/O (zero pages until written), a partial last page, concurrent
 * writers (also over fresh space), the overwrite hint (also over blocks in
 * memory), blocks that cannot be moved out, write-backs that fail under
 * eviction, requests of several blocks (sync, read-ahead). */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "pager/pager.h"

#define BLOCK (64u << 10)
#define LEN (4u << 20)   /* 64 blocks through 4 blocks of memory */

static char path[256];

static unsigned char pattern(uint64_t i, unsigned seed) {
  return (unsigned char)((i * 2654435761u) >> 13) ^ (unsigned char)seed;
}

static int make_file(uint64_t size, unsigned seed) {
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  unsigned char *buf = malloc(size);
  for (uint64_t i = 0; i < size; i++) buf[i] = pattern(i, seed);
  CHECK(pwrite(fd, buf, size, 0) == (ssize_t)size);
  free(buf);
  fsync(fd);
  return fd;
}

static char *reserve(uint64_t len) {
  void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

static struct mpisw_pager *start(char *a, uint64_t len, int fd, uint64_t data_end,
                                 uint64_t zero_from, uint64_t memory) {
  struct mpisw_pager_opts o = {.block = BLOCK, .memory = memory, .workers = 3, .readahead = -1, .debug = getenv("PGDBG") ? 2 : 0};
  struct mpisw_error e;
  struct mpisw_pager *pg = mpisw_pager_start(a, len, fd, 0, 0, data_end, zero_from, &o, &e);
  if (!pg) fprintf(stderr, "pager_start: %s\n", e.msg);
  return pg;
}

/* Reads through a small memory limit, writes, syncs, checks the file. */
static void test_round_trip(void) {
  int fd = make_file(LEN, 1);
  char *a = reserve(LEN);
  struct mpisw_pager *pg = start(a, LEN, fd, LEN, LEN, 4 * BLOCK);
  CHECK(pg != NULL);
  if (!pg) return;
  int bad = 0;
  for (uint64_t i = 0; i < LEN; i++) bad += (unsigned char)a[i] != pattern(i, 1);
  CHECK(bad == 0);
  for (uint64_t i = 0; i < LEN; i += 4096 + 7) a[i] = (char)0xA5;   /* sparse */
  memset(a + LEN / 2, 0x3C, BLOCK * 3 + 100);                       /* a run */
  struct mpisw_error e;
  CHECK(mpisw_pager_sync(pg, &e) == 0);
  struct mpisw_pager_stats s;
  mpisw_pager_get_stats(pg, &s);
  CHECK(s.evictions > 0 && s.writebacks > 0 && s.bytes_read >= LEN);
  CHECK(s.max_blocks == 4);
  /* the file, read through another descriptor */
  unsigned char *f = malloc(LEN);
  int fd2 = open(path, O_RDONLY);
  CHECK(pread(fd2, f, LEN, 0) == LEN);
  close(fd2);
  bad = 0;
  for (uint64_t i = 0; i < LEN; i++) {
    unsigned char want = pattern(i, 1);
    if (i >= LEN / 2 && i < LEN / 2 + BLOCK * 3 + 100) want = 0x3C;
    else if (i % (4096 + 7) == 0) want = 0xA5;
    if ((f[i] != want || (unsigned char)a[i] != want) && bad < 6)
      fprintf(stderr, "round trip: at %llu (block %llu) file %x window %x want %x\n",
              (unsigned long long)i, (unsigned long long)(i / BLOCK), f[i], (unsigned char)a[i], want);
    bad += f[i] != want;
    bad += (unsigned char)a[i] != want; /* and the window, re-read */
  }
  CHECK(bad == 0);
  mpisw_pager_stop(pg);
  munmap(a, LEN);
  /* a new pager over the same file sees the data */
  a = reserve(LEN);
  pg = start(a, LEN, fd, LEN, LEN, 8 * BLOCK);
  CHECK(pg != NULL);
  if (pg) {
    CHECK(memcmp(a, f, LEN) == 0);
    mpisw_pager_stop(pg);
  }
  munmap(a, LEN);
  free(f);
  close(fd);
}

/* Space past zero_from reads as zeros without I/O; bytes past data_end of a
 * partial last page are never written. */
static void test_fresh_and_tail(void) {
  int fd = make_file(LEN + 4096, 2);
  char *a = reserve(LEN);
  uint64_t data_end = LEN - 100;
  struct mpisw_pager *pg = start(a, LEN, fd, data_end, LEN / 2, 4 * BLOCK);
  CHECK(pg != NULL);
  if (!pg) return;
  int bad = 0;
  for (uint64_t i = LEN / 2; i < LEN; i++) bad += a[i] != 0;
  CHECK(bad == 0);
  struct mpisw_pager_stats s;
  mpisw_pager_get_stats(pg, &s);
  CHECK(s.zero_loads >= (LEN / 2) / BLOCK);
  CHECK(s.writebacks == 0 && s.bytes_written == 0); /* read, not written: nothing to save */
  memset(a + LEN - 2 * BLOCK, 0x11, 2 * BLOCK);
  struct mpisw_error e;
  CHECK(mpisw_pager_sync(pg, &e) == 0);
  mpisw_pager_stop(pg);
  munmap(a, LEN);
  unsigned char tail[8192];
  CHECK(pread(fd, tail, sizeof tail, LEN - 4096) == (ssize_t)sizeof tail);
  bad = 0;
  for (uint64_t k = 0; k < sizeof tail; k++) {
    uint64_t i = LEN - 4096 + k;
    unsigned char want = i < data_end ? 0x11 : pattern(i, 2);
    if (tail[k] != want && bad < 3) fprintf(stderr, "tail: at %llu: %x want %x\n", (unsigned long long)i, tail[k], want);
    bad += tail[k] != want;
  }
  CHECK(bad == 0);
  close(fd);
}

/* The hint over blocks already in memory (read first): written whole after
 * it, they reach the file; announced but left alone, the file keeps its
 * bytes (the hint marks pages written, which only writes them again). */
static void test_hint_present(void) {
  int fd = make_file(LEN, 8);
  char *a = reserve(LEN);
  struct mpisw_pager *pg = start(a, LEN, fd, LEN, LEN, 16 * BLOCK);
  CHECK(pg != NULL);
  if (!pg) return;
  unsigned long sum = 0;
  for (uint64_t i = 0; i < 8 * BLOCK; i += 4096) sum += (unsigned char)a[i]; /* in memory */
  mpisw_pager_will_overwrite(pg, a, 8 * BLOCK);
  memset(a, 0x66, 4 * BLOCK); /* the first four written whole, the rest not */
  struct mpisw_error e;
  CHECK(mpisw_pager_sync(pg, &e) == 0);
  unsigned char *f = malloc(LEN);
  CHECK(pread(fd, f, LEN, 0) == LEN);
  int bad = 0;
  for (uint64_t i = 0; i < LEN; i++) {
    unsigned char want = i < 4 * BLOCK ? 0x66 : pattern(i, 8);
    if (f[i] != want && bad++ < 3)
      fprintf(stderr, "hint present: file at %llu: %x, want %x (sum %lu)\n", (unsigned long long)i,
              f[i], want, sum);
  }
  CHECK(bad == 0);
  free(f);
  mpisw_pager_stop(pg);
  munmap(a, LEN);
  close(fd);
}

struct streamer {
  const volatile char *a;
  uint64_t from, to;
  int stop; /* atomic: set by the main thread */
  unsigned long sum;
  int once; /* one pass, not until stop */
};

static void *stream_read(void *arg) {
  struct streamer *s = arg;
  for (int pass = 0; !__atomic_load_n(&s->stop, __ATOMIC_RELAXED) && !(s->once && pass); pass++)
    for (uint64_t i = s->from; i < s->to && !__atomic_load_n(&s->stop, __ATOMIC_RELAXED); i += 4096)
      s->sum += (unsigned char)__atomic_load_n(&s->a[i], __ATOMIC_RELAXED); /* writers may be there */
  return NULL;
}

struct writer {
  char *a;
  uint64_t from, to;
  unsigned seed;
  int writes; /* random ones, before the regular ones */
};

static void *write_random(void *arg) {
  struct writer *w = arg;
  unsigned x = w->seed;
  for (int k = 0; k < w->writes; k++) {
    x = x * 1103515245u + 12345u;
    uint64_t i = w->from + (x >> 4) % (w->to - w->from);
    __atomic_store_n(&w->a[i], (char)pattern(i, 9), __ATOMIC_RELAXED); /* a reader may be there */
  }
  for (uint64_t i = w->from; i < w->to; i += 512)
    __atomic_store_n(&w->a[i], (char)pattern(i, 9), __ATOMIC_RELAXED);
  return NULL;
}

/* Two threads write while blocks come and go; every write must survive.
 * fresh: the range is new space (zero_from 0), so blocks come in as zero
 * pages on read faults and take pages of their own on the writes. */
static void concurrent(int fresh) {
  int fd = make_file(LEN, 3);
  char *a = reserve(LEN);
  struct mpisw_pager *pg = start(a, LEN, fd, LEN, fresh ? 0 : LEN, 6 * BLOCK);
  CHECK(pg != NULL);
  if (!pg) return;
  int writes = fresh ? 2000 : 20000; /* fresh: the race at the zero pages' arrival */
  struct writer w[2] = {{a, 0, LEN / 2, 1, writes}, {a, LEN / 2, LEN, 2, writes}};
  /* a reader beside the writers: read faults, so zero pages when fresh */
  struct streamer st = {a, 0, LEN, 0, 0, 1};
  pthread_t t[2], r;
  pthread_create(&r, NULL, stream_read, &st);
  for (int k = 0; k < 2; k++) pthread_create(&t[k], NULL, write_random, &w[k]);
  for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
  __atomic_store_n(&st.stop, 1, __ATOMIC_RELAXED);
  pthread_join(r, NULL);
  struct mpisw_error e;
  CHECK(mpisw_pager_sync(pg, &e) == 0);
  mpisw_pager_stop(pg);
  munmap(a, LEN);
  unsigned char *f = malloc(LEN);
  CHECK(pread(fd, f, LEN, 0) == LEN);
  int bad = 0;
  for (uint64_t i = 0; i < LEN; i += 512) {
    if (f[i] != pattern(i, 9) && bad < 5) fprintf(stderr, "bad at %llu (block %llu)\n", (unsigned long long)i, (unsigned long long)(i / BLOCK));
    bad += f[i] != pattern(i, 9);
  }
  CHECK(bad == 0);
  free(f);
  close(fd);
}

static void test_concurrent(void) {
  concurrent(0);
  concurrent(1);
}

/* Blocks announced as overwritten are not read from the file. */
static void test_overwrite_hint(void) {
  int fd = make_file(LEN, 4);
  char *a = reserve(LEN);
  struct mpisw_pager *pg = start(a, LEN, fd, LEN, LEN, 4 * BLOCK);
  CHECK(pg != NULL);
  if (!pg) return;
  mpisw_pager_will_overwrite(pg, a, LEN);
  memset(a, 0x77, LEN);
  /* The sync waits for the last block's load, which may still be settling
   * after the memset returned. */
  struct mpisw_error e;
  CHECK(mpisw_pager_sync(pg, &e) == 0);
  struct mpisw_pager_stats s;
  mpisw_pager_get_stats(pg, &s);
  /* Every block's first load skipped the file. A block evicted while the
   * memset was still writing it (the writer descheduled on a busy machine)
   * is read back once more, whole (maybe by read-ahead); no other read. */
  CHECK(s.zero_loads == LEN / BLOCK);
  CHECK(s.bytes_read == (s.loads - s.zero_loads) * BLOCK);
  mpisw_pager_stop(pg);
  munmap(a, LEN);
  unsigned char *f = malloc(LEN);
  CHECK(pread(fd, f, LEN, 0) == LEN);
  int bad = 0;
  for (uint64_t i = 0; i < LEN; i++) {
    if (f[i] != 0x77 && (i == 0 || f[i - 1] == 0x77)) fprintf(stderr, "overwrite: bad from %llu (block %llu) %x\n", (unsigned long long)i, (unsigned long long)(i / BLOCK), f[i]);
    bad += f[i] != 0x77;
  }
  CHECK(bad == 0);
  free(f);
  close(fd);
}

/* Pages shared with a forked child cannot be moved (UFFDIO_MOVE refuses them
 * as it refuses pinned pages), so every block in memory at the fork fails to
 * evict while a reader streams through the rest of the range. No fault may
 * wait for those blocks, and each sync must still write every block written
 * before it, whatever its eviction was doing at the time. */
static void test_move_failures(void) {
  int fd = make_file(LEN, 5);
  char *a = reserve(LEN);
  struct mpisw_pager *pg = start(a, LEN, fd, LEN, LEN, 8 * BLOCK);
  CHECK(pg != NULL);
  if (!pg) return;
  struct streamer st = {a, 8 * BLOCK, LEN, 0, 0, 0};
  pthread_t t;
  pthread_create(&t, NULL, stream_read, &st);
  unsigned char *f = malloc(8 * BLOCK);
  int bad = 0;
  for (int r = 0; r < 40 && !bad; r++) {
    memset(a, 0x40 + r, 8 * BLOCK);
    int p[2];
    CHECK(pipe(p) == 0);
    pid_t child = fork();
    if (child == 0) { /* holds the parent's pages until the pipe closes */
      char c;
      close(p[1]);
      while (read(p[0], &c, 1) < 0) {
      }
      _exit(0);
    }
    close(p[0]);
    struct mpisw_error e;
    CHECK(mpisw_pager_sync(pg, &e) == 0);
    CHECK(pread(fd, f, 8 * BLOCK, 0) == 8 * BLOCK);
    for (uint64_t i = 0; i < 8 * BLOCK; i++) bad += f[i] != (unsigned char)(0x40 + r);
    if (bad) fprintf(stderr, "move failures: round %d: %d bytes not written\n", r, bad);
    close(p[1]);
    waitpid(child, NULL, 0);
  }
  CHECK(bad == 0);
  __atomic_store_n(&st.stop, 1, __ATOMIC_RELAXED);
  pthread_join(t, NULL);
  struct mpisw_pager_stats s;
  mpisw_pager_get_stats(pg, &s);
  fprintf(stderr, "move failures: %llu failed moves, %llu evictions\n",
          (unsigned long long)s.move_failures, (unsigned long long)s.evictions);
  CHECK(s.move_failures > 0);
  mpisw_pager_stop(pg);
  munmap(a, LEN);
  free(f);
  close(fd);
}

/* Writes past RLIMIT_FSIZE fail (EFBIG; SIGXFSZ ignored), so evictions of
 * the upper half cannot write: those blocks must stay in memory beyond the
 * budget (no fault waits for room, no hang), keep their data, and make
 * every sync fail until the limit goes and a sync writes them. */
static void test_write_failures(void) {
  int fd = make_file(LEN, 6);
  char *a = reserve(LEN);
  struct mpisw_pager *pg = start(a, LEN, fd, LEN, LEN, 4 * BLOCK);
  CHECK(pg != NULL);
  if (!pg) return;
  struct rlimit old, lim;
  getrlimit(RLIMIT_FSIZE, &old);
  lim = old;
  lim.rlim_cur = LEN / 2;
  void (*oldsig)(int) = signal(SIGXFSZ, SIG_IGN);
  CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
  for (uint64_t i = 0; i < LEN; i++) a[i] = (char)pattern(i, 7);
  int bad = 0;
  for (uint64_t i = 0; i < LEN; i++) bad += (unsigned char)a[i] != pattern(i, 7);
  CHECK(bad == 0);
  struct mpisw_error e;
  for (int k = 0; k < 2; k++) {
    CHECK(mpisw_pager_sync(pg, &e) != 0);
    CHECK(strstr(e.msg, "write-back") != NULL);
  }
  CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
  signal(SIGXFSZ, oldsig);
  CHECK(mpisw_pager_sync(pg, &e) == 0);
  unsigned char *f = malloc(LEN);
  CHECK(pread(fd, f, LEN, 0) == LEN);
  bad = 0;
  for (uint64_t i = 0; i < LEN; i++) bad += f[i] != pattern(i, 7) || (unsigned char)a[i] != pattern(i, 7);
  CHECK(bad == 0);
  /* written at last: evictable again, back under the budget */
  for (uint64_t i = 0; i < LEN; i += 4096) bad += (unsigned char)a[i] != pattern(i, 7);
  struct mpisw_pager_stats s;
  mpisw_pager_get_stats(pg, &s);
  CHECK(bad == 0 && s.evictions > 0);
  mpisw_pager_stop(pg);
  munmap(a, LEN);
  free(f);
  close(fd);
}

/* A window that fits in memory, rewritten whole and synced, then partly
 * rewritten: the next sync writes runs of blocks and the file holds both
 * writes; then a new pager reads the file back with read-ahead (runs of
 * blocks) and sees it all. */
static void test_runs(void) {
  int fd = make_file(LEN, 5);
  char *a = reserve(LEN);
  /* twice the window: far from the limit (near it, evictions write instead) */
  struct mpisw_pager *pg = start(a, LEN, fd, LEN, LEN, 2 * LEN);
  CHECK(pg != NULL);
  if (!pg) return;
  struct mpisw_error e;
  for (uint64_t i = 0; i < LEN; i++) a[i] = (char)pattern(i, 6); /* loaded for writes */
  CHECK(mpisw_pager_sync(pg, &e) == 0); /* written back: write-protected now */
  for (uint64_t i = 0; i < LEN; i++) a[i] = (char)pattern(i, 7); /* written whole */
  CHECK(mpisw_pager_sync(pg, &e) == 0);
  memset(a + BLOCK + 10, 0x5A, 3 * BLOCK); /* after that sync */
  CHECK(mpisw_pager_sync(pg, &e) == 0);
  int fd2 = open(path, O_RDONLY);
  /* bytes before BLOCK+10 and after the memset are pattern 7 */
  unsigned char *f = malloc(LEN);
  CHECK(pread(fd2, f, LEN, 0) == LEN);
  int bad = 0;
  for (uint64_t i = 0; i < LEN; i++) {
    unsigned char want = i >= BLOCK + 10 && i < 4 * BLOCK + 10 ? 0x5A : pattern(i, 7);
    if (f[i] != want && bad++ < 3)
      fprintf(stderr, "runs: file at %llu: %x, want %x\n", (unsigned long long)i, f[i], want);
  }
  CHECK(bad == 0);
  free(f);
  close(fd2);
  mpisw_pager_stop(pg);
  munmap(a, LEN);

  /* read back cold through a new pager: read-ahead in runs */
  int fd3 = open(path, O_RDWR);
  posix_fadvise(fd3, 0, 0, POSIX_FADV_DONTNEED);
  a = reserve(LEN);
  pg = start(a, LEN, fd3, LEN, LEN, LEN);
  CHECK(pg != NULL);
  if (pg) {
    bad = 0;
    for (uint64_t i = 0; i < LEN; i++) {
      unsigned char want = i >= BLOCK + 10 && i < 4 * BLOCK + 10 ? 0x5A : pattern(i, 7);
      bad += (unsigned char)a[i] != want;
    }
    CHECK(bad == 0);
    struct mpisw_pager_stats s = {0};
    mpisw_pager_get_stats(pg, &s);
    CHECK(s.readaheads > 0 && s.bytes_read == LEN);
    mpisw_pager_stop(pg);
  }
  munmap(a, LEN);
  close(fd3);
  close(fd);
}

int main(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(path, sizeof path, "%s/mpisw-test-pager-%ld", tmp ? tmp : "/tmp", (long)getpid());
  struct mpisw_error e;
  if (mpisw_pager_probe(&e)) { /* no userfaultfd for this user, or Linux < 6.8 */
    printf("SKIP: the pager cannot run here: %s\n", e.msg);
    return 77;
  } else {
    test_round_trip();
    test_fresh_and_tail();
    test_concurrent();
    test_overwrite_hint();
    test_hint_present();
    test_move_failures();
    test_write_failures();
    test_runs();
  }
  unlink(path);
  return check_summary("test_pager");
}
