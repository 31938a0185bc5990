/* The PFS level and staging of checkpoints (src/ckpt/pfs.c, stage*.c;
 * docs/CHECKPOINTS.md "Staging and the PFS level"). Linked with libmpisw.a
 * for mpisw_ckpt_image_check (every PFS image checked whole).
 *
 *   t_ckpt_pfs drain     staging on, ckpt_pfs_every=2, keep 2: versions 1-6;
 *                        the take returns with LOCAL only, wait drains, the
 *                        status shows it (pending 0, last drained 6, bytes,
 *                        seconds, levels LOCAL|PFS); PFS holds complete
 *                        images of even versions only, old ones pruned, no
 *                        .part; then LOCAL deleted: a new set restarts from
 *                        PFS (version 6, level PFS, byte-exact) and goes on
 *                        numbering after it
 *   t_ckpt_pfs sync      staging off: PFS complete when the take returns
 *   t_ckpt_pfs fail      a PFS name blocked by a directory: staging on, the
 *                        take succeeds and the drain's error comes from
 *                        mpisw_ckpt_wait (once); staging off, from the take
 *   t_ckpt_pfs finalize  8 MiB per rank, 3 versions, MPI_Finalize without
 *                        wait or free: the images are complete on PFS after */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt/image.h"
#include "testlib.h"

static void fill(unsigned char *p, size_t n, int v) {
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(i * 31 + (size_t)v * 7 + (size_t)tl_rank * 13 + (i >> 13));
}

static int same(const unsigned char *p, size_t n, int v) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != (unsigned char)(i * 31 + (size_t)v * 7 + (size_t)tl_rank * 13 + (i >> 13))) return 0;
  return 1;
}

static mpisw_ckpt *create(const char *name, const char *staging, const char *every) {
  MPI_Info info = tl_info("ckpt_chunk=64K", "ckpt_keep=2", NULL);
  MPI_Info_set(info, "ckpt_local", (char *)tl_path("local"));
  MPI_Info_set(info, "ckpt_pfs", (char *)tl_path("pfs"));
  MPI_Info_set(info, "ckpt_staging", (char *)staging);
  MPI_Info_set(info, "ckpt_pfs_every", (char *)every);
  mpisw_ckpt *ck = NULL;
  CHECK_MPI(mpisw_ckpt_create(name, MPI_COMM_WORLD, info, &ck));
  MPI_Info_free(&info);
  return ck;
}

static const char *pfs_image(const char *name, int v) {
  return tl_path("pfs/%s.r%d.v%d.ckpt", name, tl_rank, v);
}

static int exists(const char *p) { return access(p, F_OK) == 0; }

static void image_ok(const char *path, int v) {
  struct mpisw_error e;
  int got = -1;
  CHECK(mpisw_ckpt_image_check(path, &got, &e) == 0, "%s: %s", path, e.msg);
  CHECK(got == v, "%s holds version %d, not %d", path, got, v);
}

static void drain(void) {
  size_t n = (1u << 20) + 4096 * (size_t)tl_rank + 5;
  unsigned char *data = malloc(n);
  mpisw_ckpt *ck = create("dr", "1", "2");
  CHECK_MPI(mpisw_ckpt_protect_mem(ck, data, n));
  struct mpisw_ckpt_status st;
  int v = -1;
  for (int i = 1; i <= 6; i++) {
    fill(data, n, i);
    CHECK_MPI(mpisw_ckpt_take(ck, &v));
    CHECK(v == i, "take gave version %d, not %d", v, i);
    CHECK_MPI(mpisw_ckpt_status(ck, &st));
    CHECK(st.last_levels & MPISW_CKPT_LEVEL_LOCAL, "version %d not on LOCAL", v);
    CHECK(exists(tl_path("local/dr.r%d.s%d.ckpt", tl_rank, 0)), "no LOCAL slot");
  }
  CHECK_MPI(mpisw_ckpt_wait(ck));
  CHECK_MPI(mpisw_ckpt_status(ck, &st));
  CHECK(st.drains_pending == 0, "%d drains pending after wait", st.drains_pending);
  CHECK(st.last_drained == 6, "last drained %d, not 6", st.last_drained);
  CHECK(st.drain_bytes >= n && st.drain_seconds > 0, "drain %llu bytes %.6f s",
        (unsigned long long)st.drain_bytes, st.drain_seconds);
  CHECK(st.last_levels == (MPISW_CKPT_LEVEL_LOCAL | MPISW_CKPT_LEVEL_PFS), "levels %d", st.last_levels);
  image_ok(pfs_image("dr", 6), 6);
  image_ok(pfs_image("dr", 4), 4);
  for (int i = 1; i <= 5; i += 2) CHECK(!exists(pfs_image("dr", i)), "odd version %d on PFS", i);
  CHECK(!exists(tl_path("pfs/dr.r%d.v6.ckpt.part", tl_rank)), ".part left");
  CHECK_MPI(mpisw_ckpt_free(&ck));
  /* The old even versions are pruned once newer ones are complete everywhere. */
  CHECK(!exists(pfs_image("dr", 2)), "version 2 kept beyond ckpt_keep=2");

  /* The node's LOCAL files are lost: restart from PFS. */
  for (int s = 0; s < 2; s++) unlink(tl_path("local/dr.r%d.s%d.ckpt", tl_rank, s));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  ck = create("dr", "1", "2");
  CHECK_MPI(mpisw_ckpt_protect_mem(ck, data, n));
  memset(data, 0, n);
  CHECK_MPI(mpisw_ckpt_restart(ck, &v));
  CHECK(v == 6, "restart found version %d, not 6 (PFS)", v);
  CHECK_MPI(mpisw_ckpt_status(ck, &st));
  CHECK(st.restored_version == 6 && st.restored_level == MPISW_CKPT_LEVEL_PFS,
        "restored version %d from level %d", st.restored_version, st.restored_level);
  CHECK(same(data, n, 6), "the data restored from PFS is not version 6's");
  fill(data, n, 7);
  CHECK_MPI(mpisw_ckpt_take(ck, &v));
  CHECK(v == 7, "the next version after a PFS restart is %d, not 7", v);
  CHECK_MPI(mpisw_ckpt_free(&ck));
  free(data);
}

static void sync_mode(void) {
  size_t n = 300000 + 1000 * (size_t)tl_rank;
  unsigned char *data = malloc(n);
  mpisw_ckpt *ck = create("sy", "0", "1");
  CHECK_MPI(mpisw_ckpt_protect_mem(ck, data, n));
  for (int i = 1; i <= 3; i++) {
    int v;
    fill(data, n, i);
    CHECK_MPI(mpisw_ckpt_take(ck, &v));
    image_ok(pfs_image("sy", v), v); /* before any wait */
    struct mpisw_ckpt_status st;
    CHECK_MPI(mpisw_ckpt_status(ck, &st));
    CHECK(st.drains_pending == 0 && st.last_drained == v, "pending %d, drained %d",
          st.drains_pending, st.last_drained);
    CHECK(st.last_levels == (MPISW_CKPT_LEVEL_LOCAL | MPISW_CKPT_LEVEL_PFS), "levels %d",
          st.last_levels);
  }
  CHECK_MPI(mpisw_ckpt_free(&ck));
  free(data);
}

static void fail_mode(void) {
  size_t n = 100000;
  unsigned char *data = malloc(n);
  fill(data, n, 1);
  for (int staging = 1; staging >= 0; staging--) {
    const char *name = staging ? "fs" : "fn";
    mpisw_ckpt *ck = create(name, staging ? "1" : "0", "1");
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(mpisw_ckpt_protect_mem(ck, data, n));
    /* rank 0's first PFS image cannot be made: its .part name is a directory */
    if (tl_rank == 0) CHECK(mkdir(tl_path("pfs/%s.r0.v1.ckpt.part", name), 0700) == 0, "mkdir");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int v = -1, rc = mpisw_ckpt_take(ck, &v);
    if (staging) {
      CHECK(rc == MPI_SUCCESS && v == 1, "a take with staging failed on a PFS error: %s", tl_errstr(rc));
      rc = mpisw_ckpt_wait(ck);
      if (tl_rank == 0) {
        EXPECT_ERR(rc, MPISW_K_IO, "mpisw_ckpt_wait", "stage: cannot create");
        CHECK_MPI(mpisw_ckpt_wait(ck)); /* said once */
      } else {
        CHECK(rc == MPI_SUCCESS, "rank %d: wait: %s", tl_rank, tl_errstr(rc));
      }
      CHECK(!exists(pfs_image(name, 1)) == (tl_rank == 0), "PFS image of version 1");
    } else {
      EXPECT_ERR(rc, MPISW_K_IO, "mpisw_ckpt_take", "stage: cannot create");
    }
    CHECK_MPI(mpisw_ckpt_free(&ck));
  }
  free(data);
}

/* MPI_Finalize waits for the drains (the staging module). */
static void finalize_mode(void) {
  size_t n = 8u << 20;
  unsigned char *data = malloc(n);
  mpisw_ckpt *ck = create("fz", "1", "1");
  CHECK_MPI(mpisw_ckpt_protect_mem(ck, data, n));
  for (int i = 1; i <= 3; i++) {
    int v;
    fill(data, n, i);
    CHECK_MPI(mpisw_ckpt_take(ck, &v));
  }
  struct mpisw_ckpt_status st;
  CHECK_MPI(mpisw_ckpt_status(ck, &st));
  tl_log("drains pending before MPI_Finalize: %d", st.drains_pending);
  char path[3][4096];
  for (int i = 0; i < 3; i++) snprintf(path[i], sizeof path[i], "%s", pfs_image("fz", i + 1));
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tl_scratch());
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Finalize(); /* no wait, no free */
  int bad = 0;
  for (int i = 0; i < 3; i++) {
    struct mpisw_error e;
    int got = -1;
    if (mpisw_ckpt_image_check(path[i], &got, &e) || got != i + 1) {
      fprintf(stderr, "rank %d: after MPI_Finalize: %s\n", tl_rank, e.msg);
      bad = 1;
    }
  }
  if (tl_rank == 0) {
    sleep(1); /* the other ranks check their images first */
    tl_rm_rf(dir);
  }
  if (!bad && tl_rank == 0) printf("PASS\n");
  free(data);
  exit(bad);
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "drain")) drain();
  else if (!strcmp(mode, "sync")) sync_mode();
  else if (!strcmp(mode, "fail")) fail_mode();
  else if (!strcmp(mode, "finalize")) finalize_mode();
  else tl_fail(__FILE__, __LINE__, "unknown mode '%s'", mode);
  return tl_finish();
}
