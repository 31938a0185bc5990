/* The atomic sync's cores without MPI: the redo journal (commit, replay,
 * discard, torn and corrupt commits, range checks) and the private mapping's
 * sync (only changed pages written, nothing reaches the file before the
 * sync), then kill -9 at random instants during syncs of a forked child:
 * after recovery the file is exactly the last synced state, or the one in
 * flight when its sync had already made it durable. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "core/hash.h"
#include "core/journal.h"
#include "core/privmap.h"
#include "core/storage.h"

static char dir[256];
static uint64_t page;

static const char *in_dir(const char *name) {
  static char p[512];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return p;
}

static int make_file(const char *path, uint64_t size, int byte) {
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  char *b = malloc(size);
  memset(b, byte, size);
  if (fd >= 0 && mpisw_pwrite_all(fd, b, size, 0)) fd = -1;
  free(b);
  return fd;
}

static int bytes_are(int fd, uint64_t off, uint64_t len, int byte) {
  char *b = malloc(len);
  int ok = pread(fd, b, len, (off_t)off) == (ssize_t)len;
  for (uint64_t i = 0; ok && i < len; i++) ok = b[i] == (char)byte;
  free(b);
  return ok;
}

static void test_hash(void) {
  char a[100], b[100];
  memset(a, 7, sizeof a);
  memcpy(b, a, sizeof a);
  CHECK(mpisw_hash64(0, a, 100) == mpisw_hash64(0, b, 100));
  for (int bit = 0; bit < 800; bit += 37) {
    b[bit / 8] ^= (char)(1 << (bit % 8));
    CHECK(mpisw_hash64(0, a, 100) != mpisw_hash64(0, b, 100));
    b[bit / 8] ^= (char)(1 << (bit % 8));
  }
  CHECK(mpisw_hash64(0, a, 99) != mpisw_hash64(0, a, 100));
}

/* Commits two records (one grown by an adjacent add) without applying. */
static void commit_two(const char *jp, uint64_t roff) {
  struct mpisw_journal j;
  struct mpisw_error e;
  char x[3000], y[100];
  memset(x, 'x', sizeof x);
  memset(y, 'y', sizeof y);
  CHECK(mpisw_journal_open(&j, jp, roff, 16 * page, 0, &e) == 0);
  CHECK(mpisw_journal_add(&j, roff + 100, x, 1000, &e) != NULL);
  CHECK(mpisw_journal_add(&j, roff + 1100, x, 2000, &e) != NULL); /* grows the first */
  CHECK(j.count == 1);
  CHECK(mpisw_journal_add(&j, roff + 5 * page + 1, y, sizeof y, &e) != NULL);
  CHECK(j.count == 2);
  CHECK(mpisw_journal_add(&j, roff + 16 * page - 10, y, 20, &e) == NULL); /* past the range */
  CHECK(e.kind == MPISW_K_USAGE);
  CHECK(mpisw_journal_commit(&j, &e) == 0);
  mpisw_journal_close(&j, 0);
}

static void test_replay(void) {
  const char *data = in_dir("replay.dat");
  char jp[600];
  struct mpisw_error e;
  int fd = make_file(data, 20 * page, 'o');
  uint64_t roff = 2 * page;
  CHECK(mpisw_journal_name(data, roff, jp, sizeof jp, &e) == 0);
  CHECK(strstr(jp, ".mpisw-journal-8192") || page != 4096);
  int what = -1;
  uint64_t seq = 9;
  CHECK(mpisw_journal_recover(jp, fd, roff, 16 * page, &what, &seq, &e) == 0);
  CHECK(what == MPISW_JOURNAL_NONE);
  commit_two(jp, roff);
  CHECK(bytes_are(fd, 0, 20 * page, 'o')); /* a commit does not touch the file */
  CHECK(mpisw_journal_recover(jp, fd, roff, 16 * page, &what, &seq, &e) == 0);
  CHECK(what == MPISW_JOURNAL_REPLAYED && seq == 1);
  CHECK(bytes_are(fd, roff + 100, 3000, 'x'));
  CHECK(bytes_are(fd, roff + 5 * page + 1, 100, 'y'));
  CHECK(bytes_are(fd, 0, roff + 100, 'o'));
  CHECK(bytes_are(fd, roff + 3100, 5 * page + 1 - 3100, 'o'));
  /* replayed once: the next recovery finds it applied and writes nothing */
  CHECK(pwrite(fd, "Z", 1, (off_t)(roff + 100)) == 1);
  CHECK(mpisw_journal_recover(jp, fd, roff, 16 * page, &what, &seq, &e) == 0);
  CHECK(what == MPISW_JOURNAL_APPLIED);
  CHECK(bytes_are(fd, roff + 100, 1, 'Z'));
  /* a committed journal of other bytes than the window's: a clear error */
  commit_two(jp, roff);
  CHECK(mpisw_journal_recover(jp, fd, roff, 8 * page, &what, &seq, &e) == -1);
  CHECK(e.kind == MPISW_K_USAGE && strstr(e.msg, "journal") && strstr(e.msg, "outside"));
  CHECK(mpisw_journal_recover(jp, fd, roff, 16 * page, &what, &seq, &e) == 0);
  CHECK(what == MPISW_JOURNAL_REPLAYED);
  close(fd);
  unlink(jp);
  unlink(data);
}

/* A commit whose header or body did not fully reach the disk. */
static void test_torn(void) {
  const char *data = in_dir("torn.dat");
  char jp[600];
  struct mpisw_error e;
  int fd = make_file(data, 20 * page, 'o');
  CHECK(mpisw_journal_name(data, 0, jp, sizeof jp, &e) == 0);
  int what;
  struct { const char *name; off_t at; int trunc; } cases[] = {
      {"header torn short", 40, 1},      {"body cut", MPISW_JOURNAL_HEAD + 500, 1},
      {"header byte flipped", 20, 0},    {"body byte flipped", MPISW_JOURNAL_HEAD + 700, 0},
      {"checksum flipped", 50, 0},
  };
  for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    commit_two(jp, 0);
    int jfd = open(jp, O_RDWR);
    if (cases[c].trunc) {
      CHECK(ftruncate(jfd, cases[c].at) == 0);
    } else {
      char b;
      CHECK(pread(jfd, &b, 1, cases[c].at) == 1);
      b ^= 0x10;
      CHECK(pwrite(jfd, &b, 1, cases[c].at) == 1);
    }
    close(jfd);
    what = -1;
    CHECK(mpisw_journal_recover(jp, fd, 0, 16 * page, &what, NULL, &e) == 0);
    if (what != MPISW_JOURNAL_DISCARDED) fprintf(stderr, "case %s: what %d\n", cases[c].name, what);
    CHECK(what == MPISW_JOURNAL_DISCARDED);
    CHECK(bytes_are(fd, 0, 20 * page, 'o'));
    CHECK(mpisw_journal_recover(jp, fd, 0, 16 * page, &what, NULL, &e) == 0);
    CHECK(what == MPISW_JOURNAL_APPLIED);
  }
  close(fd);
  unlink(jp);
  unlink(data);
}

static void test_privmap(int how) {
  const char *data = in_dir("priv.dat");
  char jp[600];
  struct mpisw_error e;
  uint64_t n = 16 * page, off = page, start = page + 100, end = off + n - 200;
  int fd = make_file(data, n + 2 * page, 'o');
  CHECK(mpisw_journal_name(data, start, jp, sizeof jp, &e) == 0);
  char *addr = mmap(NULL, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  struct mpisw_privmap m;
  struct mpisw_journal j;
  CHECK(mpisw_privmap_start(&m, addr, n, fd, off, start, end, 0, how, &e) == 0);
  printf("privmap: written pages found by %s\n",
         m.uffd >= 0 ? "write-protect tracking (PAGEMAP_SCAN)" : "pagemap + hashes");
  if (how == MPISW_PRIVMAP_HASH) CHECK(m.uffd < 0);
  CHECK(mpisw_journal_open(&j, jp, start, end - start, 0, &e) == 0);
  mpisw_journal_direct(&j, fd); /* the aligned pages through O_DIRECT where it works */
  uint64_t w = 1;
  CHECK(mpisw_privmap_sync(&m, &j, fd, &w, &e) == 0 && w == 0); /* nothing written */
  CHECK(addr[5 * page] == 'o');
  memset(addr, 'a', page);               /* first page: only bytes from start are ours */
  memset(addr + 3 * page, 'b', 2 * page);
  memset(addr + n - page, 'c', page);    /* last page: up to end */
  CHECK(bytes_are(fd, 0, n + 2 * page, 'o')); /* nothing reaches the file before a sync */
  CHECK(mpisw_privmap_sync(&m, &j, fd, &w, &e) == 0);
  uint64_t mine = (page - 100) + 2 * page + (page - 200);
  CHECK(w == mine + mpisw_journal_bytes(&j) && w < 2 * mine + 200);
  CHECK(bytes_are(fd, off, 100, 'o') && bytes_are(fd, start, page - 100, 'a'));
  CHECK(bytes_are(fd, off + 3 * page, 2 * page, 'b'));
  CHECK(bytes_are(fd, off + n - page, page - 200, 'c') && bytes_are(fd, end, 200, 'o'));
  /* nothing written: nothing to write; the same bytes again: by hashes nothing,
   * tracked the page (it was written) */
  CHECK(mpisw_privmap_sync(&m, &j, fd, &w, &e) == 0);
  if (w) fprintf(stderr, "uffd %d: %llu bytes written by a sync after nothing changed\n", m.uffd, (unsigned long long)w);
  CHECK(w == 0);
  memset(addr + 3 * page, 'b', page);
  CHECK(mpisw_privmap_sync(&m, &j, fd, &w, &e) == 0);
  CHECK(w == (m.uffd >= 0 ? page + mpisw_journal_bytes(&j) : 0));
  addr[4 * page + 7] = 'd';
  CHECK(mpisw_privmap_sync(&m, &j, fd, &w, &e) == 0);
  CHECK(w == page + mpisw_journal_bytes(&j));
  CHECK(bytes_are(fd, off + 4 * page + 7, 1, 'd'));
  /* applied: a recovery now replays nothing */
  int what;
  CHECK(mpisw_journal_recover(jp, fd, start, end - start, &what, NULL, &e) == 0);
  CHECK(what == MPISW_JOURNAL_APPLIED);
  mpisw_journal_close(&j, 1);
  CHECK(access(jp, F_OK) != 0);
  mpisw_privmap_stop(&m);
  munmap(addr, n);
  close(fd);
  unlink(data);
}

/* ---- kill -9 during syncs ---- */
enum { KPAGES = 32, KCHANGE = 6, KSTEPS = 100000 };

/* The pages step k changes and their byte (k's low byte, never 0). */
static void step_pages(int k, int *pg) {
  unsigned s = (unsigned)k * 2654435761u;
  for (int i = 0; i < KCHANGE; i++) {
    s = s * 1103515245u + 12345u;
    pg[i] = (int)((s >> 8) % KPAGES);
  }
}
static char step_byte(int k) { return (char)(k % 255 + 1); }

/* Expected file after k syncs (zeros first). */
static void state_after(int k, char *buf) {
  memset(buf, 0, KPAGES * page);
  for (int s = 1; s <= k; s++) {
    int pg[KCHANGE];
    step_pages(s, pg);
    for (int i = 0; i < KCHANGE; i++) memset(buf + pg[i] * page, step_byte(s), page);
  }
}

/* plain: the same steps on a MAP_SHARED mapping with msync, today's plain
 * sync, where a kill between two pages' writes leaves a mix: the control
 * that shows these trials can fail. */
static void child(const char *data, const char *jp, int wfd, int plain) {
  struct mpisw_error e;
  int fd = open(data, O_RDWR);
  char *addr = mmap(NULL, KPAGES * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  struct mpisw_privmap m;
  struct mpisw_journal j;
  if (plain) {
    if (fd < 0 || mmap(addr, KPAGES * page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
                       0) == MAP_FAILED)
      _exit(3);
  } else if (fd < 0 ||
             mpisw_privmap_start(&m, addr, KPAGES * page, fd, 0, 0, KPAGES * page, 0,
                                 MPISW_PRIVMAP_AUTO, &e) ||
             mpisw_journal_open(&j, jp, 0, KPAGES * page, 0, &e)) {
    _exit(3);
  }
  if (!plain) mpisw_journal_direct(&j, fd);
  for (int k = 1; k < KSTEPS; k++) {
    int pg[KCHANGE];
    step_pages(k, pg);
    for (int i = 0; i < KCHANGE; i++) { /* computing between writes: kills land here too */
      memset(addr + pg[i] * page, step_byte(k), page);
      struct timespec d = {0, 50000};
      nanosleep(&d, NULL);
    }
    if (plain ? msync(addr, KPAGES * page, MS_SYNC) != 0 : mpisw_privmap_sync(&m, &j, fd, NULL, &e))
      _exit(4);
    if (write(wfd, &k, sizeof k) != sizeof k) _exit(5); /* after the sync returned */
  }
  _exit(0);
}

/* Returns how many trials found a file that is no synced state. */
static int test_kill(int trials, int plain) {
  const char *data = in_dir("kill.dat");
  char jp[600];
  struct mpisw_error e;
  CHECK(mpisw_journal_name(data, 0, jp, sizeof jp, &e) == 0);
  char *want = malloc(KPAGES * page), *have = malloc(KPAGES * page);
  unsigned seed = (unsigned)time(NULL);
  srand(seed);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int in_flight_seen = 0, bad = 0, max_last = 0;
  long sum_last = 0;
  for (int t = 0; t < trials && (plain || !bad); t++) {
    int fd = make_file(data, KPAGES * page, 0);
    close(fd);
    unlink(jp);
    int p[2];
    CHECK(pipe(p) == 0);
    pid_t pid = fork();
    if (pid == 0) {
      close(p[0]);
      child(data, jp, p[1], plain);
    }
    close(p[1]);
    struct timespec d = {0, (long)(rand() % 20000) * 1000L}; /* 0-20 ms */
    nanosleep(&d, NULL);
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    int last = 0, k;
    while (read(p[0], &k, sizeof k) == sizeof k) last = k;
    close(p[0]);
    sum_last += last;
    if (last > max_last) max_last = last;
    fd = open(data, O_RDWR);
    int what;
    CHECK(mpisw_journal_recover(jp, fd, 0, KPAGES * page, &what, NULL, &e) == 0);
    CHECK(pread(fd, have, KPAGES * page, 0) == (ssize_t)(KPAGES * page));
    close(fd);
    state_after(last, want);
    int ok = !memcmp(have, want, KPAGES * page);
    if (!ok) { /* the sync in flight may have become durable before the kill */
      state_after(last + 1, want);
      ok = !memcmp(have, want, KPAGES * page);
      in_flight_seen += ok;
    }
    if (!ok) bad++;
    if (!ok && !plain) {
      fprintf(stderr, "trial %d (seed %u): after %d returned syncs the file is neither "
              "state %d nor %d\n", t, seed, last, last, last + 1);
    }
    if (!plain) CHECK(ok);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("%s kill -9 trials: %d in %.2f s, %.1f syncs returned per trial (at most %d), %d ended "
         "on the sync in flight (committed, not yet returned)\n",
         plain ? "plain (control)" : "atomic", trials,
         (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
         trials ? (double)sum_last / trials : 0.0, max_last, in_flight_seen);
  free(want);
  free(have);
  unlink(jp);
  unlink(data);
  return bad;
}

int main(int argc, char **argv) {
  page = mpisw_page_size();
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/test_journal.XXXXXX", tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  test_hash();
  test_replay();
  test_torn();
  test_privmap(MPISW_PRIVMAP_AUTO);
  test_privmap(MPISW_PRIVMAP_HASH);
  test_kill(argc > 1 ? atoi(argv[1]) : 100, 0);
  /* the control: plain syncs torn by the same kills (else the trials prove nothing) */
  int torn = test_kill(20, 1);
  printf("plain (control): %d of 20 trials left a mix of two states\n", torn);
  CHECK(torn > 0);
  rmdir(dir);
  return check_summary("test_journal");
}
