/* A rank dies (SIGKILL) while the others use the pool: the survivors get
 * errors, never a hang (issue 15, "Errors and safety").
 *
 *   t_deadrank SCENARIO [local|rma]
 *
 * Every rank opens mem:/deadrank/data (64 KiB stripes over all ranks, so
 * the victim, the last rank, owns blocks of it), rank 0 fills it, and
 * mem:/deadrank/keep is made. Then the victim dies at a chosen point:
 *   flock  holding the file lock of atomic mode (mpisw_pool_lock on its
 *          handle, as MPI_File_write_at in atomic mode does, then SIGKILL)
 *   chain  holding every chain lock of the directory (as a create or a
 *          delete does between lock and unlock)
 *   alloc  holding every rank's allocation lock (as a write of a new block
 *          does)
 *   none   holding nothing
 *   unseen nobody dies: the file lock names a rank no process is (as one
 *          on another node, whose life this process cannot watch); with
 *          MPISW_POOL_TIMEOUT=2 the waits end after 2 s naming it
 * The test hook is this program: it takes the pool's own lock words through
 * the pool's internal interface (linked static), so the pool is in exactly
 * the state a rank dying inside those calls leaves, with no hook in the
 * library. The survivors wait until the victim is gone (pidfd), then do
 * the calls that need what it held, and the ones that do not; each outcome
 * is checked here. They print "deadrank: rank R: survived" and leave with
 * _exit (MPI_Finalize would wait for the dead rank). The driver
 * (tests/tools/deadrank.sh) bounds the whole job with timeout.
 *
 * local: every rank on one node (the victim's blocks stay readable: the
 * node's memfd is held by the survivors). rma: simulated nodes; a call
 * that needs the dead rank's memory on another node must fail too. */
#define _GNU_SOURCE
#include <errno.h>
#include <mpi.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pfile/internal.h"
#include "pool/internal.h"

#define UNIT 65536
static int rank, size, victim, failures;
/* MPICH 4.0 shows its own text for codes under its classes (mpisw's
 * message is lost, src/pmpi/errors.c): the messages are then checked on
 * the pool's own calls too (pool_error). */
static int strings_kept;
static char scen[16];

static void vline(const char *tag, const char *fmt, va_list ap) {
  char line[1200];
  vsnprintf(line, sizeof line, fmt, ap);
  printf("%sdeadrank: rank %d: %s\n", tag, rank, line);
  fflush(stdout);
}

static void say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vline("", fmt, ap);
  va_end(ap);
}

static void bad(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vline("FAIL ", fmt, ap);
  va_end(ap);
  failures++;
}

static const char *errtext(int rc, int *cls) {
  static char s[MPI_MAX_ERROR_STRING];
  int n = 0;
  *cls = -1;
  MPI_Error_class(rc, cls);
  MPI_Error_string(rc, s, &n);
  return s;
}

/* The call must succeed. */
static void ok(const char *what, int rc) {
  int cls;
  if (rc == MPI_SUCCESS) say("%s: ok", what);
  else bad("%s: error (class %d): %s", what, cls = 0, errtext(rc, &cls));
}

/* The call must fail with MPI_ERR_IO and a message holding each of subs. */
static void io_error(const char *what, int rc, const char *sub1, const char *sub2) {
  int cls;
  if (rc == MPI_SUCCESS) {
    bad("%s: succeeded; it should fail (the victim holds what it needs)", what);
    return;
  }
  const char *m = errtext(rc, &cls);
  if (cls != MPI_ERR_IO) bad("%s: error class %d, not MPI_ERR_IO: %s", what, cls, m);
  else if (strings_kept && ((sub1 && !strstr(m, sub1)) || (sub2 && !strstr(m, sub2))))
    bad("%s: the message lacks '%s' / '%s': %s", what, sub1 ? sub1 : "", sub2 ? sub2 : "", m);
  else say("%s: MPI_ERR_IO: %s", what, m);
}

/* The pool's own call failed with MPISW_POOL_IO and a message holding
 * "died" (or the timeout), the lock, the dead rank and the file. */
static void pool_error(const char *what, int prc, const struct mpisw_error *e, const char *lock,
                       const char *file) {
  char dead[40];
  snprintf(dead, sizeof dead, "held by rank %d", victim);
  if (prc != MPISW_POOL_IO) bad("pool %s: returned %d, not MPISW_POOL_IO (%s)", what, prc, e->msg);
  else if (!strstr(e->msg, lock) || !strstr(e->msg, dead) || !strstr(e->msg, file) ||
           (!strstr(e->msg, "which died") && !strstr(e->msg, "MPISW_POOL_TIMEOUT")))
    bad("pool %s: the message lacks '%s', '%s' or '%s': %s", what, lock, dead, file, e->msg);
  else say("pool %s: MPISW_POOL_IO: %s", what, e->msg);
}

/* Succeeds, or (across nodes, where the call may need the dead rank's
 * memory) fails with MPI_ERR_IO naming it. */
static void ok_or_dead(int rma, const char *what, int rc) {
  if (!rma || rc == MPI_SUCCESS) return ok(what, rc);
  char dead[32];
  snprintf(dead, sizeof dead, "rank %d", victim);
  io_error(what, rc, dead, NULL);
}

static unsigned char pat(uint64_t i) { return (unsigned char)(i * 7 + 3 + (i >> 12)); }

/* Until the victim is gone, the MPI progresses here (across nodes its
 * last RMA calls may need this rank's progress to complete). */
static int wait_dead(int pid) {
  int fd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (fd < 0) return kill(pid, 0) != 0 ? 0 : -1; /* already gone (or no pidfd) */
  struct pollfd p = {fd, POLLIN, 0};
  int n = 0, flag;
  for (int ms = 0; ms < 15000; ms++) {
    n = poll(&p, 1, 1);
    if (n == 1) break;
    if (n < 0 && errno != EINTR) break;
    MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  }
  close(fd);
  return n == 1 ? 0 : -1;
}

/* unseen (nobody dies; run with MPISW_POOL_TIMEOUT=2): the file lock
 * holds a rank this process cannot watch (as a rank on another node:
 * here one past the last, which no process is), so every rank's atomic
 * write waits MPISW_POOL_TIMEOUT seconds, then fails naming it. */
static int unseen(MPI_File fh, unsigned char *buf) {
  struct mpisw_pool_file *pf = pfile_of(fh)->pf;
  if (rank == 0) mpisw_pool_rm_store(pf->home_rank, pf->rec + R_FLOCK, (uint64_t)size + 1);
  mpisw_pool_rm_publish();
  MPI_Barrier(MPI_COMM_WORLD);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = MPI_File_write_at(fh, 0, buf, UNIT, MPI_BYTE, MPI_STATUS_IGNORE);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  char who[40];
  snprintf(who, sizeof who, "held by rank %d", size);
  io_error("atomic write", rc, "MPISW_POOL_TIMEOUT=2 s", who);
  struct mpisw_error e = {0, ""};
  int prc = mpisw_pool_lock(pf, &e);
  if (prc != MPISW_POOL_IO || !strstr(e.msg, "did not let go within MPISW_POOL_TIMEOUT=2 s") ||
      !strstr(e.msg, who) || !strstr(e.msg, "file lock"))
    bad("pool lock: returned %d: %s", prc, e.msg);
  else say("pool lock: MPISW_POOL_IO: %s", e.msg);
  if (secs < 1.9 || secs > 10) bad("the wait took %.2f s; MPISW_POOL_TIMEOUT=2", secs);
  else say("the wait took %.2f s (MPISW_POOL_TIMEOUT=2)", secs);
  MPI_Barrier(MPI_COMM_WORLD); /* every wait is over: the word is freed */
  if (rank == 0) mpisw_pool_rm_store(pf->home_rank, pf->rec + R_FLOCK, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_File_close(&fh);
  MPI_Finalize();
  if (rank == 0) printf(all ? "FAIL deadrank unseen\n" : "PASS deadrank unseen\n");
  return all ? 1 : 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  snprintf(scen, sizeof scen, "%s", argc > 1 ? argv[1] : "none");
  int rma = argc > 2 && !strcmp(argv[2], "rma");
  victim = size - 1;
  if (size < 2) {
    if (rank == 0) printf("SKIP: t_deadrank needs 2 ranks or more\n");
    MPI_Finalize();
    return 77;
  }
  if (!mpisw_pool_ready()) {
    if (rank == 0) printf("FAIL deadrank: no pool: %s\n", P->why_not);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (P->rma != rma) {
    if (rank == 0)
      printf("FAIL deadrank: the pool takes the %s path; the test asked for %s\n",
             P->rma ? "rma" : "local", rma ? "rma" : "local");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int code, slen = 0;
  char probe[MPI_MAX_ERROR_STRING] = "";
  strings_kept = MPI_Add_error_code(MPI_ERR_IO, &code) == MPI_SUCCESS &&
                 MPI_Add_error_string(code, "t_deadrank probe") == MPI_SUCCESS &&
                 MPI_Error_string(code, probe, &slen) == MPI_SUCCESS &&
                 !strcmp(probe, "t_deadrank probe");
  int *pids = malloc(sizeof *pids * (size_t)size), me = getpid();
  MPI_Allgather(&me, 1, MPI_INT, pids, 1, MPI_INT, MPI_COMM_WORLD);

  /* the files, before anyone dies */
  const uint64_t len = (uint64_t)size * 4 * UNIT;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "striping_unit", "65536");
  MPI_File fh, keep;
  int rc = MPI_File_open(MPI_COMM_WORLD, "mem:/deadrank/data", MPI_MODE_CREATE | MPI_MODE_RDWR,
                         info, &fh);
  if (rc != MPI_SUCCESS) {
    int cls;
    printf("FAIL deadrank: rank %d: open: %s\n", rank, errtext(rc, &cls));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  unsigned char *buf = malloc(len), *back = malloc(len);
  for (uint64_t i = 0; i < len; i++) buf[i] = pat(i);
  if (rank == 0) MPI_File_write_at(fh, 0, buf, (int)len, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_open(MPI_COMM_WORLD, "mem:/deadrank/keep", MPI_MODE_CREATE | MPI_MODE_RDWR, info,
                &keep);
  MPI_File_close(&keep);
  if (!strcmp(scen, "flock") || !strcmp(scen, "unseen")) MPI_File_set_atomicity(fh, 1);
  MPI_Barrier(MPI_COMM_WORLD);
  if (!strcmp(scen, "unseen")) return unseen(fh, buf);

  if (rank == victim) {
    struct mpisw_error e;
    if (!strcmp(scen, "flock")) {
      if (mpisw_pool_lock(pfile_of(fh)->pf, &e) != MPISW_POOL_OK) bad("lock: %s", e.msg);
    } else if (!strcmp(scen, "chain")) {
      for (int r = 0; r < size; r++)
        for (uint64_t s = 0; s < P->nslots; s++)
          if (!mpisw_pool_rm_trylock(r, P->dir_off + s * REC_SIZE + R_CHAIN))
            bad("chain lock %d/%llu is taken", r, (unsigned long long)s);
    } else if (!strcmp(scen, "alloc")) {
      for (int r = 0; r < size; r++)
        if (!mpisw_pool_rm_trylock(r, H_ALOCK)) bad("allocation lock of %d is taken", r);
    }
    mpisw_pool_rm_publish();
    say("dies now (%s)", scen);
    raise(SIGKILL);
  }
  if (wait_dead(pids[victim])) {
    bad("the victim (pid %d) is still alive after 15 s", pids[victim]);
    _exit(1);
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  char dead[32], fname[64], mine[64];
  snprintf(dead, sizeof dead, "rank %d", victim);
  snprintf(fname, sizeof fname, "/deadrank/data");
  snprintf(mine, sizeof mine, "mem:/deadrank/new-%d", rank);
  uint64_t past = len + (uint64_t)rank * (uint64_t)size * UNIT; /* new blocks, every owner */
  MPI_File self;

  if (!strcmp(scen, "flock")) {
    io_error("atomic write", MPI_File_write_at(fh, 0, buf, UNIT, MPI_BYTE, MPI_STATUS_IGNORE),
             "file lock", dead);
    io_error("atomic read", MPI_File_read_at(fh, 0, back, UNIT, MPI_BYTE, MPI_STATUS_IGNORE),
             fname, dead);
    struct mpisw_error e = {0, ""};
    pool_error("lock", mpisw_pool_lock(pfile_of(fh)->pf, &e), &e, "file lock", fname);
  }
  if (!strcmp(scen, "chain")) {
    struct mpisw_error e = {0, ""};
    struct mpisw_pool_file *pf = NULL;
    pool_error("create", mpisw_pool_open("/deadrank/pool-new", 1, 0, NULL, &pf, &e), &e,
               "chain lock", "/deadrank/pool-new");
    pool_error("delete", mpisw_pool_delete("/deadrank/keep", &e), &e, "chain lock",
               "/deadrank/keep");
  }
  if (!strcmp(scen, "alloc")) {
    struct mpisw_error e = {0, ""};
    pool_error("write of a new block",
               mpisw_pool_write(pfile_of(fh)->pf, 2 * len, buf, UNIT, &e), &e,
               "allocation lock", fname);
  }
  /* a handle of its own, not atomic: data and the directory */
  rc = MPI_File_open(MPI_COMM_SELF, "mem:/deadrank/data", MPI_MODE_RDWR, MPI_INFO_NULL, &self);
  ok_or_dead(rma, "open (an existing file, no lock)", rc);
  if (rc == MPI_SUCCESS) {
    memset(back, 0, len);
    rc = MPI_File_read_at(self, 0, back, (int)len, MPI_BYTE, MPI_STATUS_IGNORE);
    ok_or_dead(rma, "read of every block (the victim's too)", rc);
    if (rc == MPI_SUCCESS && memcmp(back, buf, len)) bad("the data read back differs");
    ok_or_dead(rma, "write of existing blocks",
               MPI_File_write_at(self, 0, buf, (int)len, MPI_BYTE, MPI_STATUS_IGNORE));
    rc = MPI_File_write_at(self, (MPI_Offset)past, buf, size * UNIT, MPI_BYTE, MPI_STATUS_IGNORE);
    if (!strcmp(scen, "alloc")) io_error("write of new blocks", rc, "allocation lock", dead);
    else ok_or_dead(rma, "write of new blocks (one on every rank)", rc);
    ok_or_dead(rma, "close", MPI_File_close(&self));
  }
  rc = MPI_File_open(MPI_COMM_SELF, mine, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &self);
  if (!strcmp(scen, "chain")) {
    io_error("create", rc, "chain lock", dead);
    io_error("delete", MPI_File_delete("mem:/deadrank/keep", MPI_INFO_NULL), "chain lock", dead);
  } else {
    ok_or_dead(rma, "create", rc);
    if (rc == MPI_SUCCESS) {
      ok_or_dead(rma, "close of the new file", MPI_File_close(&self));
      ok_or_dead(rma, "delete of the new file", MPI_File_delete(mine, MPI_INFO_NULL));
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  say("%s after the death: %.3f s", failures ? "FAILED" : "survived",
      (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
  /* The first survivor to leave closes its PMI connection, and hydra then
   * kills the others: each waits until every survivor has spoken (a file
   * named after the victim's pid, one byte each). */
  char path[4200];
  const char *dir = getenv("MPISW_DEADRANK_DIR"); /* the driver's, removed by it */
  snprintf(path, sizeof path, "%s/done-%d", dir ? dir : "/tmp", pids[victim]);
  int fd = open(path, O_CREAT | O_WRONLY | O_APPEND, 0600);
  if (fd >= 0 && write(fd, "x", 1) == 1) {
    struct stat st;
    int flag; /* across nodes another survivor's RMA may need this rank's progress */
    for (int ms = 0; ms < 10000 && stat(path, &st) == 0 && st.st_size < size - 1; ms++) {
      usleep(1000);
      MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
  }
  if (fd >= 0) close(fd);
  _exit(failures ? 1 : 0);
}
