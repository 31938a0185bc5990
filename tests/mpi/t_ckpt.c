/* Checkpoints (include/mpisw.h mpisw_ckpt_*, docs/CHECKPOINTS.md).
 *
 *   t_ckpt api 1|2 DIR      job 1: a memory window, a storage window, a
 *                           Win_create window over malloc and plain memory
 *                           protected; take, change, take, take_local.
 *                           job 2 (a new job): restart -> the take_local
 *                           version, byte-exact; status
 *   t_ckpt incr             1 chunk of 64 changed -> about one chunk written
 *   t_ckpt corrupt 1|2 DIR  job 1: versions 1 to 3; job 2 flips a data
 *                           byte of version 3 (rank 0) and a header byte of
 *                           version 2 (last rank) -> restart gives version
 *                           1, the rejections counted and named
 *   t_ckpt full             LOCAL on a nearly full tmpfs (MPISW_TEST_MNT):
 *                           NOSPACE on every rank, the previous version intact
 *   t_ckpt badinfo          bad ckpt_* values and names -> clear errors
 *   t_ckpt kill DIR         one trial of tests/tools/ckpt_kill.sh: restart,
 *                           check, then take checkpoints until killed
 *   t_ckpt crash N          N kill -9 trials inside one job (forked writers)
 * Sizes differ by rank. Each version's bytes are a function of (rank,
 * version), so any restored state can be checked. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

#define CHUNK 4096

/* Byte i of region reg of (rank, version): chunk c changes every 4
 * versions, staggered by c, so each version changes about 1/4 of them. */
static uint8_t val(int rank, int reg, int v, size_t i) {
  size_t c = i / CHUNK;
  unsigned epoch = (unsigned)(v + (int)c) / 4u;
  return tl_pat((unsigned)(rank * 1000 + reg * 100) + epoch * 7919u, i);
}

static void fill(void *p, size_t n, int rank, int reg, int v) {
  for (size_t i = 0; i < n; i++) ((uint8_t *)p)[i] = val(rank, reg, v, i);
}

/* Index of the first byte that is not (rank, reg, v)'s, or -1. */
static long differs(const void *p, size_t n, int rank, int reg, int v) {
  for (size_t i = 0; i < n; i++)
    if (((const uint8_t *)p)[i] != val(rank, reg, v, i)) return (long)i;
  return -1;
}

static MPI_Info ck_info(const char *dir, const char *more_key, const char *more_val) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "ckpt_local", (char *)dir);
  MPI_Info_set(info, "ckpt_chunk", "4K");
  if (more_key) MPI_Info_set(info, (char *)more_key, (char *)more_val);
  return info;
}

static mpisw_ckpt *create(const char *name, const char *dir, const char *k, const char *v) {
  MPI_Info info = ck_info(dir, k, v);
  mpisw_ckpt *ck = NULL;
  CHECK_MPI(mpisw_ckpt_create(name, MPI_COMM_WORLD, info, &ck));
  MPI_Info_free(&info);
  CHECK(ck != NULL, "create gave no handle");
  return ck;
}

/* ---- api: four kinds of regions, two jobs ---- */

struct api_regions {
  MPI_Win wmem, wsto, wcre;
  void *bmem, *bsto, *bcre, *plain;
  size_t n[4];
};

static void api_setup(struct api_regions *a, const char *dir) {
  int r = tl_rank;
  a->n[0] = 3 * CHUNK + 100 * (size_t)r + 17; /* memory window */
  a->n[1] = 5 * CHUNK + 64 * (size_t)r;       /* storage window */
  a->n[2] = 2 * CHUNK + 1 + (size_t)r;        /* Win_create over malloc */
  a->n[3] = 7 * CHUNK + 3 * (size_t)r;        /* plain memory */
  MPI_Info mi;
  MPI_Info_create(&mi);
  MPI_Info_set(mi, "alloc_type", "memory");
  CHECK_MPI(MPI_Win_allocate((MPI_Aint)a->n[0], 1, mi, MPI_COMM_WORLD, &a->bmem, &a->wmem));
  MPI_Info_free(&mi);
  char fn[4096];
  snprintf(fn, sizeof fn, "%s/win-%%r", dir);
  TL_WALLOC((MPI_Aint)a->n[1], MPI_COMM_WORLD, &a->bsto, &a->wsto, fn,
            "storage_alloc_unlink=false");
  a->bcre = malloc(a->n[2]);
  a->plain = malloc(a->n[3]);
  CHECK(a->bcre && a->plain, "malloc");
  CHECK_MPI(MPI_Win_create(a->bcre, (MPI_Aint)a->n[2], 1, MPI_INFO_NULL, MPI_COMM_WORLD, &a->wcre));
}

static void api_protect(mpisw_ckpt *ck, struct api_regions *a) {
  CHECK_MPI(mpisw_ckpt_protect_win(ck, a->wmem));
  CHECK_MPI(mpisw_ckpt_protect_win(ck, a->wsto));
  CHECK_MPI(mpisw_ckpt_protect_win(ck, a->wcre));
  CHECK_MPI(mpisw_ckpt_protect_mem(ck, a->plain, a->n[3]));
}

static void api_fill(struct api_regions *a, int v) {
  void *b[4] = {a->bmem, a->bsto, a->bcre, a->plain};
  for (int i = 0; i < 4; i++) fill(b[i], a->n[i], tl_rank, i, v);
}

static void api_check(struct api_regions *a, int v) {
  void *b[4] = {a->bmem, a->bsto, a->bcre, a->plain};
  for (int i = 0; i < 4; i++) {
    long d = differs(b[i], a->n[i], tl_rank, i, v);
    CHECK(d < 0, "region %d differs from version %d at byte %ld of %zu", i, v, d, a->n[i]);
  }
}

static void api_free(struct api_regions *a) {
  MPI_Win_free(&a->wmem);
  MPI_Win_free(&a->wsto);
  MPI_Win_free(&a->wcre);
  free(a->bcre);
  free(a->plain);
}

static int api(int phase, const char *dir) {
  struct api_regions a;
  api_setup(&a, dir);
  mpisw_ckpt *ck = create("api", dir, NULL, NULL);
  api_protect(ck, &a);
  struct mpisw_ckpt_status st;
  if (phase == 1) {
    CHECK_MPI(mpisw_ckpt_status(ck, &st));
    CHECK(st.last_version == -1 && st.restored_version == -1 && st.corrupt_seen == 0,
          "fresh status: last %d restored %d corrupt %d", st.last_version, st.restored_version,
          st.corrupt_seen);
    int v1, v2, v3;
    api_fill(&a, 1);
    CHECK_MPI(mpisw_ckpt_take(ck, &v1));
    CHECK(v1 == 1, "first version is %d", v1);
    api_fill(&a, 2);
    CHECK_MPI(mpisw_ckpt_take(ck, &v2));
    CHECK(v2 == 2, "second version is %d", v2);
    CHECK_MPI(mpisw_ckpt_status(ck, &st));
    CHECK(st.last_version == 2 && st.last_levels == MPISW_CKPT_LEVEL_LOCAL,
          "status after take: last %d levels %d", st.last_version, st.last_levels);
    api_fill(&a, 3);
    CHECK_MPI(mpisw_ckpt_take_local(ck, &v3));
    CHECK(v3 == 3, "take_local version is %d", v3);
    /* the program's state moves on after the last checkpoint */
    api_fill(&a, 4);
    /* the files stay after free */
    CHECK_MPI(mpisw_ckpt_free(&ck));
    CHECK(ck == NULL, "free leaves the handle");
    char p[4096];
    snprintf(p, sizeof p, "%s/api.r%d.s0.ckpt", dir, tl_rank);
    CHECK(tl_exists(p), "%s is gone after free", p);
  } else {
    memset(a.bmem, 0, a.n[0]);
    memset(a.bsto, 0, a.n[1]);
    memset(a.bcre, 0, a.n[2]);
    memset(a.plain, 0, a.n[3]);
    int v = -7;
    CHECK_MPI(mpisw_ckpt_restart(ck, &v));
    CHECK(v == 3, "restart found version %d, not 3", v);
    api_check(&a, 3);
    CHECK_MPI(mpisw_ckpt_status(ck, &st));
    CHECK(st.restored_version == 3 && st.restored_level == MPISW_CKPT_LEVEL_LOCAL &&
              st.corrupt_seen == 0,
          "status after restart: version %d level %d corrupt %d", st.restored_version,
          st.restored_level, st.corrupt_seen);
    /* numbering goes on after the newest version on disk */
    int v4;
    api_fill(&a, 5);
    CHECK_MPI(mpisw_ckpt_take(ck, &v4));
    CHECK(v4 == 4, "the first version of the new job is %d, not 4", v4);
    /* restart in the same job goes back to it */
    api_fill(&a, 6);
    CHECK_MPI(mpisw_ckpt_restart(ck, &v));
    CHECK(v == 4, "second restart found %d", v);
    api_check(&a, 5);
    CHECK_MPI(mpisw_ckpt_free(&ck));
  }
  api_free(&a);
  return tl_finish();
}

/* ---- incremental ---- */

static int incr(void) {
  const char *dir = tl_path("local");
  size_t n = 64 * CHUNK;
  uint8_t *m = malloc(n);
  CHECK(m, "malloc");
  fill(m, n, tl_rank, 0, 0);
  mpisw_ckpt *ck = create("incr", dir, NULL, NULL);
  CHECK_MPI(mpisw_ckpt_protect_mem(ck, m, n));
  struct mpisw_ckpt_status st;
  int v;
  CHECK_MPI(mpisw_ckpt_take(ck, &v));
  CHECK_MPI(mpisw_ckpt_status(ck, &st));
  CHECK(st.last_bytes_written >= n, "the first checkpoint wrote %llu bytes, less than %zu",
        (unsigned long long)st.last_bytes_written, n);
  CHECK_MPI(mpisw_ckpt_take(ck, &v)); /* the second slot, written whole */
  m[10 * CHUNK + 123] ^= 0x5a;         /* one byte of one chunk */
  CHECK_MPI(mpisw_ckpt_take(ck, &v)); /* overwrites version 1's slot */
  CHECK_MPI(mpisw_ckpt_status(ck, &st));
  if (tl_rank == 0)
    tl_log("one chunk of 64 changed: %llu bytes written (chunk %d, header 4096)",
           (unsigned long long)st.last_bytes_written, CHUNK);
  CHECK(st.last_bytes_written >= CHUNK && st.last_bytes_written <= CHUNK + 4096,
        "one changed chunk wrote %llu bytes", (unsigned long long)st.last_bytes_written);
  CHECK_MPI(mpisw_ckpt_take(ck, &v)); /* version 2's slot: the same one chunk differs */
  CHECK_MPI(mpisw_ckpt_status(ck, &st));
  CHECK(st.last_bytes_written <= CHUNK + 4096, "again: %llu bytes",
        (unsigned long long)st.last_bytes_written);
  /* every chunk changed: everything written */
  fill(m, n, tl_rank, 0, 1000);
  CHECK_MPI(mpisw_ckpt_take(ck, &v));
  CHECK_MPI(mpisw_ckpt_status(ck, &st));
  CHECK(st.last_bytes_written >= n, "all changed, %llu written",
        (unsigned long long)st.last_bytes_written);
  /* and what was skipped is still right: restart gives the bytes back */
  uint8_t *want = malloc(n);
  memcpy(want, m, n);
  memset(m, 0, n);
  CHECK_MPI(mpisw_ckpt_restart(ck, &v));
  CHECK(v == 5 && !memcmp(m, want, n), "restart after incremental takes: version %d", v);
  CHECK_MPI(mpisw_ckpt_free(&ck));
  free(want);
  free(m);
  return tl_finish();
}

/* ---- corrupt ---- */

static void flip(const char *path, off_t off) {
  int fd = open(path, O_RDWR);
  CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
  uint8_t b;
  CHECK(pread(fd, &b, 1, off) == 1, "read %s", path);
  b ^= 0x01;
  CHECK(pwrite(fd, &b, 1, off) == 1, "write %s", path);
  close(fd);
}

static int corrupt(int phase, const char *dir) {
  size_t n = 6 * CHUNK + 11 * (size_t)tl_rank;
  uint8_t *m = malloc(n);
  CHECK(m, "malloc");
  mpisw_ckpt *ck = create("bad", dir, "ckpt_keep", "3");
  CHECK_MPI(mpisw_ckpt_protect_mem(ck, m, n));
  int v;
  if (phase == 1) {
    for (int i = 1; i <= 3; i++) {
      fill(m, n, tl_rank, 0, i);
      CHECK_MPI(mpisw_ckpt_take(ck, &v));
      CHECK(v == i, "version %d, not %d", v, i);
    }
  } else {
    /* version k is in slot k-1: rank 0 damages version 3's data (found
     * when its chunks are checked), the last rank version 2's header
     * (found when versions are listed) */
    char p3[4096], p2[4096];
    snprintf(p3, sizeof p3, "%s/bad.r%d.s2.ckpt", dir, tl_rank);
    snprintf(p2, sizeof p2, "%s/bad.r%d.s1.ckpt", dir, tl_rank);
    if (tl_rank == 0) flip(p3, 4096 + 3 * CHUNK + 5);
    if (tl_rank == tl_size - 1) flip(p2, 30);
    memset(m, 0, n);
    CHECK_MPI(mpisw_ckpt_restart(ck, &v));
    CHECK(v == 1, "restart used version %d, not 1", v);
    long d = differs(m, n, tl_rank, 0, 1);
    CHECK(d < 0, "restored bytes differ from version 1 at %ld", d);
    struct mpisw_ckpt_status st;
    CHECK_MPI(mpisw_ckpt_status(ck, &st));
    int want = (tl_rank == 0) + (tl_rank == tl_size - 1);
    CHECK(st.corrupt_seen == want, "corrupt_seen %d on rank %d, %d expected", st.corrupt_seen,
          tl_rank, want);
  }
  CHECK_MPI(mpisw_ckpt_free(&ck));
  free(m);
  return tl_finish();
}

/* ---- full ---- */

static int full(void) {
  const char *mnt = getenv("MPISW_TEST_MNT");
  CHECK(mnt, "MPISW_TEST_MNT is not set (run under tests/tools/mountdrv.sh tmpfs8m)");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/ckpt", mnt);
  size_t n = 256 * 1024;
  uint8_t *m = malloc(n);
  CHECK(m, "malloc");
  fill(m, n, tl_rank, 0, 1);
  mpisw_ckpt *ck = create("full", dir, NULL, NULL);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK_MPI(mpisw_ckpt_protect_mem(ck, m, n));
  int v;
  CHECK_MPI(mpisw_ckpt_take(ck, &v));
  CHECK(v == 1, "version %d", v);
  /* fill the file system: less room than one more image */
  char filler[4096];
  snprintf(filler, sizeof filler, "%s/filler", mnt);
  if (tl_rank == 0) {
    struct statvfs sv;
    CHECK(statvfs(mnt, &sv) == 0, "statvfs");
    uint64_t avail = (uint64_t)sv.f_bavail * sv.f_frsize;
    uint64_t keep = n / 2;
    int fd = open(filler, O_CREAT | O_WRONLY, 0600);
    CHECK(fd >= 0 && avail > keep, "filler: avail %llu", (unsigned long long)avail);
    CHECK(posix_fallocate(fd, 0, (off_t)(avail - keep)) == 0, "fallocate filler");
    close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  fill(m, n, tl_rank, 0, 2);
  int rc = mpisw_ckpt_take(ck, &v);
  EXPECT_ERR(rc, MPISW_ERR_NOSPACE, "mpisw_ckpt_take", "No space left on device");
  struct mpisw_ckpt_status st;
  CHECK_MPI(mpisw_ckpt_status(ck, &st));
  CHECK(st.last_version == 1, "last_version %d after the failed take", st.last_version);
  /* version 1 intact: restart in this job brings it back */
  memset(m, 0, n);
  CHECK_MPI(mpisw_ckpt_restart(ck, &v));
  CHECK(v == 1, "restart after NOSPACE found %d", v);
  CHECK(differs(m, n, tl_rank, 0, 1) < 0, "version 1 is not intact");
  /* room again: checkpoints go on */
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) unlink(filler);
  MPI_Barrier(MPI_COMM_WORLD);
  fill(m, n, tl_rank, 0, 3);
  CHECK_MPI(mpisw_ckpt_take(ck, &v));
  CHECK(v == 3, "after room came back: version %d", v);
  CHECK_MPI(mpisw_ckpt_free(&ck));
  free(m);
  return tl_finish();
}

/* ---- bad input ---- */

static void bad_create(const char *name, const char *key, const char *val, int kind,
                       const char *sub) {
  MPI_Info info = ck_info(tl_path("local"), key, val);
  mpisw_ckpt *ck = (mpisw_ckpt *)&info; /* anything not NULL */
  int rc = mpisw_ckpt_create(name, MPI_COMM_WORLD, info, &ck);
  MPI_Info_free(&info);
  EXPECT_ERR(rc, kind, "mpisw_ckpt_create", sub);
  CHECK(ck == NULL, "a failed create left a handle");
}

static int badinfo(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  bad_create("x", "ckpt_keep", "0", MPISW_ERR_HINT, "ckpt_keep='0' is not valid");
  bad_create("x", "ckpt_keep", "two", MPISW_ERR_HINT, "ckpt_keep='two'");
  bad_create("x", "ckpt_chunk", "12345", MPISW_ERR_HINT, "ckpt_chunk='12345'");
  bad_create("x", "ckpt_staging", "maybe", MPISW_ERR_HINT, "ckpt_staging='maybe'");
  bad_create("x", "ckpt_kep", "2", MPISW_ERR_HINT, "'ckpt_kep' is not a checkpoint info key");
  bad_create("a/b", NULL, NULL, MPISW_ERR_USAGE, "the name 'a/b' is not");
  bad_create("", NULL, NULL, MPISW_ERR_USAGE, "the name");
  /* a LOCAL directory that cannot be made */
  char f[4096];
  snprintf(f, sizeof f, "%s/file", tl_scratch());
  if (tl_rank == 0) tl_write_pattern_file(f, 0, 10, 1, 0600);
  MPI_Barrier(MPI_COMM_WORLD);
  char d[4200];
  snprintf(d, sizeof d, "%s/sub", f);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "ckpt_local", d);
  mpisw_ckpt *ck = NULL;
  int rc = mpisw_ckpt_create("x", MPI_COMM_WORLD, info, &ck);
  MPI_Info_free(&info);
  EXPECT_ERR(rc, MPISW_ERR_NOFILE, "checkpoint directory", "Not a directory");
  /* bad handles and a dynamic window */
  ck = create("ok", tl_path("local"), NULL, NULL);
  int v;
  EXPECT_ERR(mpisw_ckpt_take(ck, NULL), MPISW_ERR_USAGE, "the version pointer is NULL", NULL);
  EXPECT_ERR(mpisw_ckpt_protect_mem(ck, NULL, 5), MPISW_ERR_USAGE, "base is NULL", NULL);
  EXPECT_ERR(mpisw_ckpt_protect_win(ck, MPI_WIN_NULL), MPISW_ERR_USAGE, "MPI_WIN_NULL", NULL);
  MPI_Win dyn;
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn));
  EXPECT_ERR(mpisw_ckpt_protect_win(ck, dyn), MPISW_ERR_USAGE, "dynamic window", NULL);
  MPI_Win_free(&dyn);
  /* a protected window freed before the checkpoint */
  void *b;
  MPI_Win w;
  CHECK_MPI(MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &b, &w));
  CHECK_MPI(mpisw_ckpt_protect_win(ck, w));
  MPI_Win_free(&w);
  EXPECT_ERR(mpisw_ckpt_take(ck, &v), MPISW_ERR_USAGE, "was freed", NULL);
  CHECK_MPI(mpisw_ckpt_free(&ck));
  /* regions that do not match the version's */
  ck = create("shape", tl_path("local"), NULL, NULL);
  char small[100], big[200];
  CHECK_MPI(mpisw_ckpt_protect_mem(ck, small, sizeof small));
  CHECK_MPI(mpisw_ckpt_take(ck, &v));
  CHECK_MPI(mpisw_ckpt_free(&ck));
  ck = create("shape", tl_path("local"), NULL, NULL);
  CHECK_MPI(mpisw_ckpt_protect_mem(ck, big, sizeof big));
  EXPECT_ERR(mpisw_ckpt_restart(ck, &v), MPISW_ERR_USAGE, "region 0 is 100 bytes there, 200",
             NULL);
  CHECK_MPI(mpisw_ckpt_free(&ck));
  return tl_finish();
}

/* ---- kill: one trial ---- */

static void note(const char *dir, const char *what, int v) {
  char p[4096];
  snprintf(p, sizeof p, "%s/%s.%d", dir, what, tl_rank);
  FILE *f = fopen(p, "w");
  CHECK(f, "open %s", p);
  fprintf(f, "%d\n", v);
  fclose(f);
}

static int noted(const char *dir, const char *what) {
  char p[4096];
  snprintf(p, sizeof p, "%s/%s.%d", dir, what, tl_rank);
  FILE *f = fopen(p, "r");
  int v = 0;
  if (f) {
    if (fscanf(f, "%d", &v) != 1) v = 0;
    fclose(f);
  }
  return v;
}

static int kill_trial(const char *dir, int check_only) {
  char local[4096];
  snprintf(local, sizeof local, "%s/local", dir);
  size_t n0 = 16 * CHUNK + 5 * (size_t)tl_rank, n1 = 8 * CHUNK;
  void *wb;
  MPI_Win w;
  CHECK_MPI(MPI_Win_allocate((MPI_Aint)n0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wb, &w));
  uint8_t *m = malloc(n1);
  CHECK(m, "malloc");
  mpisw_ckpt *ck = create("kill", local, NULL, NULL);
  CHECK_MPI(mpisw_ckpt_protect_win(ck, w));
  CHECK_MPI(mpisw_ckpt_protect_mem(ck, m, n1));
  /* the newest version whose take returned (on this rank), or 0 */
  int committed = noted(dir, "committed"), v = -1;
  CHECK_MPI(mpisw_ckpt_restart(ck, &v));
  int want_min = committed > 0 ? committed : -1;
  CHECK(v >= want_min, "restart found version %d, but version %d had completed", v, committed);
  if (v > 0) {
    long d0 = differs(wb, n0, tl_rank, 0, v), d1 = differs(m, n1, tl_rank, 1, v);
    CHECK(d0 < 0 && d1 < 0, "version %d restored wrong: window at %ld, memory at %ld", v, d0, d1);
  }
  note(dir, "restored", v);
  if (check_only) {
    if (tl_rank == 0) tl_log("final check: version %d restored byte-exact", v);
    CHECK_MPI(mpisw_ckpt_free(&ck));
    MPI_Win_free(&w);
    free(m);
    return tl_finish();
  }
  /* The next take's number: one past the newest complete image any rank
   * holds (the state word "COMP" at offset 12, the version at 24: a kill
   * cannot leave a complete state over a torn header). */
  int mine = 0, all = 0;
  for (int s = 0; s < 2; s++) {
    char p[4096];
    snprintf(p, sizeof p, "%s/kill.r%d.s%d.ckpt", local, tl_rank, s);
    uint8_t h[32];
    if (tl_exists(p) && tl_pread(p, 0, h, sizeof h) == (ssize_t)sizeof h &&
        !memcmp(h + 12, "COMP", 4)) {
      int32_t ver;
      memcpy(&ver, h + 24, 4);
      if (ver > mine) mine = ver;
    }
  }
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  int expect = all + 1;
  note(dir, "ready", (int)getpid());
  for (;; expect++) {
    int next = -1;
    fill(wb, n0, tl_rank, 0, expect);
    fill(m, n1, tl_rank, 1, expect);
    CHECK_MPI(mpisw_ckpt_take(ck, &next));
    CHECK(next == expect, "the take gave version %d, %d expected", next, expect);
    note(dir, "committed", next);
  }
  return tl_finish();
}

/* ---- crash: many kill -9 trials inside one job ----
 * Each rank forks a child per trial that takes checkpoints with the
 * library's own code (mpisw_ckpt_take_local on plain memory makes no MPI
 * call, so a forked child may run it) and agrees with the other ranks'
 * children as mpisw_ckpt_take does, through shared memory: a version counts
 * as taken ("committed") on a rank only once every child has written it.
 * The parents kill -9 one child (the others a little later, as a launcher
 * does) or all at once at a random instant, then restart with the real
 * collective mpisw_ckpt_restart: it must find at least the newest version
 * any child committed, byte-exact. */
struct crash_shared {
  volatile int done[64];       /* newest version each rank's child wrote */
  volatile int committed[64];  /* newest version each child saw written everywhere */
};

static void child_loop(mpisw_ckpt *ck, struct crash_shared *sh, uint8_t *m0, size_t n0,
                       uint8_t *m1, size_t n1, int first) {
  for (int v = first;; v++) {
    fill(m0, n0, tl_rank, 0, v);
    fill(m1, n1, tl_rank, 1, v);
    int got = -1;
    if (mpisw_ckpt_take_local(ck, &got) != MPI_SUCCESS || got != v) {
      fprintf(stderr, "FAIL rank %d child: take_local gave %d for %d\n", tl_rank, got, v);
      _exit(3);
    }
    __atomic_store_n(&sh->done[tl_rank], v, __ATOMIC_SEQ_CST);
    for (int r = 0; r < tl_size; r++)
      while (__atomic_load_n(&sh->done[r], __ATOMIC_SEQ_CST) < v) sched_yield();
    __atomic_store_n(&sh->committed[tl_rank], v, __ATOMIC_SEQ_CST);
  }
}

static int crash(int trials) {
  const char *dir = tl_path("local");
  size_t n0 = 12 * CHUNK + 7 * (size_t)tl_rank, n1 = 4 * CHUNK + 1;
  uint8_t *m0 = malloc(n0), *m1 = malloc(n1);
  CHECK(m0 && m1, "malloc");
  struct crash_shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE,
                                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  CHECK(sh != MAP_FAILED, "mmap");
  /* every rank's children see one page: rank 0's, through a file */
  char shf[4096];
  snprintf(shf, sizeof shf, "%s/crash.shm", tl_scratch());
  if (tl_rank == 0) {
    int fd = open(shf, O_CREAT | O_RDWR, 0600);
    CHECK(fd >= 0 && ftruncate(fd, sizeof *sh) == 0, "shared file");
    close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int fd = open(shf, O_RDWR);
  CHECK(fd >= 0, "open %s", shf);
  munmap(sh, sizeof *sh);
  sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  CHECK(sh != MAP_FAILED, "mmap shared file");
  mpisw_ckpt *ck = create("crash", dir, NULL, NULL);
  CHECK_MPI(mpisw_ckpt_protect_mem(ck, m0, n0));
  CHECK_MPI(mpisw_ckpt_protect_mem(ck, m1, n1));
  /* a new draw each run, printed so a failure can be replayed */
  unsigned seed = getenv("MPISW_TEST_SEED") ? (unsigned)atoi(getenv("MPISW_TEST_SEED"))
                                            : (unsigned)time(NULL);
  MPI_Bcast(&seed, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
  if (tl_rank == 0) tl_log("seed %u (MPISW_TEST_SEED)", seed);
  srand(seed);
  int newest = -1, restored_sum = 0, expect_next = 1;
  double t0 = MPI_Wtime();
  for (int t = 1; t <= trials; t++) {
    int v = -1;
    CHECK_MPI(mpisw_ckpt_restart(ck, &v));
    int floor = -1;
    for (int r = 0; r < tl_size; r++)
      if (sh->committed[r] > floor) floor = sh->committed[r];
    CHECK(v >= floor || (floor <= 0 && v == -1),
          "trial %d: restart found version %d, but version %d had been taken", t, v, floor);
    if (v > 0) {
      long d0 = differs(m0, n0, tl_rank, 0, v), d1 = differs(m1, n1, tl_rank, 1, v);
      CHECK(d0 < 0 && d1 < 0, "trial %d: version %d restored wrong (at %ld, %ld)", t, v, d0, d1);
      restored_sum++;
    }
    if (v > newest) newest = v;
    /* the next version's number: restart moved past every image */
    int first = -1, all = 0;
    {
      int mine = v;
      for (int s = 0; s < 2; s++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/crash.r%d.s%d.ckpt", dir, tl_rank, s);
        uint8_t h[32];
        if (tl_exists(p) && tl_pread(p, 0, h, sizeof h) == (ssize_t)sizeof h &&
            !memcmp(h + 12, "COMP", 4)) {
          int32_t ver;
          memcpy(&ver, h + 24, 4);
          if (ver > mine) mine = ver;
        }
      }
      MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      /* as the library numbers: never below a number it handed out or
       * listed before (the parent's set only learns them at restart) */
      if (all + 1 > expect_next) expect_next = all + 1;
      first = expect_next;
    }
    /* committed: the restored version is taken everywhere already (a
     * child may only overwrite it once a newer one is) */
    if (tl_rank == 0)
      for (int r = 0; r < tl_size; r++) {
        sh->done[r] = first - 1;
        sh->committed[r] = v;
      }
    /* rank 0 draws: one rank killed (odd trials) or all; the instant */
    int plan[3] = {t % 2, rand() % tl_size, rand() % 15000};
    MPI_Bcast(plan, 3, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) child_loop(ck, sh, m0, n0, m1, n1, first);
    int delay = plan[2];
    if (plan[0] == 1 && tl_rank != plan[1]) delay += 2000 + plan[2] % 5000; /* survivors later */
    usleep((useconds_t)delay);
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
          "trial %d: the child ended by itself (status %d)", t, status);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  int v = -1;
  CHECK_MPI(mpisw_ckpt_restart(ck, &v));
  int floor = -1;
  for (int r = 0; r < tl_size; r++)
    if (sh->committed[r] > floor) floor = sh->committed[r];
  CHECK(v >= floor && v > 0, "final restart found %d, %d had been taken", v, floor);
  CHECK(differs(m0, n0, tl_rank, 0, v) < 0 && differs(m1, n1, tl_rank, 1, v) < 0,
        "final version %d restored wrong", v);
  struct mpisw_ckpt_status st;
  CHECK_MPI(mpisw_ckpt_status(ck, &st));
  if (tl_rank == 0)
    tl_log("%d kill -9 trials in %.2f s: newest version %d, %d restarts restored a version, "
           "%d partial images rejected on rank 0",
           trials, MPI_Wtime() - t0, v > newest ? v : newest, restored_sum, st.corrupt_seen);
  CHECK_MPI(mpisw_ckpt_free(&ck));
  free(m0);
  free(m1);
  return tl_finish();
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "api") && argc > 3) return api(atoi(argv[2]), argv[3]);
  if (!strcmp(mode, "incr")) return incr();
  if (!strcmp(mode, "corrupt") && argc > 3) return corrupt(atoi(argv[2]), argv[3]);
  if (!strcmp(mode, "full")) return full();
  if (!strcmp(mode, "badinfo")) return badinfo();
  if (!strcmp(mode, "kill") && argc > 2) return kill_trial(argv[2], 0);
  if (!strcmp(mode, "killcheck") && argc > 2) return kill_trial(argv[2], 1);
  if (!strcmp(mode, "crash") && argc > 2) return crash(atoi(argv[2]));
  tl_fail(__FILE__, __LINE__, "usage: t_ckpt api|corrupt 1|2 DIR | incr | full | badinfo | "
                              "kill|killcheck DIR");
}
