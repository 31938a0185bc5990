/* Pooled files beyond MPI-IO's own semantics (tests/mpi/t_mpiio.c runs
 * those on "mem:" files): routing by name, exclusive creation races,
 * stage in and drain, atomic mode under concurrent writers, a full pool,
 * bad hints.
 *
 *   t_pfile route | excl | stage | atomic | full | hints */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"

static int err_class(int rc) {
  int c = rc;
  MPI_Error_class(rc, &c);
  return c;
}

/* MPISW_MEM_PATHS (set by the test) routes /mpisw-pooled-test/... and
 * *.pooltest into the pool: the directory does not exist, so only a pooled
 * open can create the file; ufs: names and other paths stay real files. */
static void test_route(void) {
  MPI_File fh;
  const char *pooled = "/mpisw-pooled-test/dir/a";
  CHECK(!tl_exists("/mpisw-pooled-test"), "/mpisw-pooled-test exists on disk");
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, pooled, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  int v = 7 + tl_rank;
  MPI_Status st;
  CHECK_MPI(MPI_File_write_at_all(fh, tl_rank * (MPI_Offset)sizeof v, &v, 1, MPI_INT, &st));
  CHECK_MPI(MPI_File_close(&fh));
  CHECK(!tl_exists("/mpisw-pooled-test"), "a pooled file was written to disk");
  /* the same file by its mem: name */
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, "mem:/mpisw-pooled-test/dir/a", MPI_MODE_RDONLY,
                          MPI_INFO_NULL, &fh));
  int w = -1;
  CHECK_MPI(MPI_File_read_at(fh, 0, &w, 1, MPI_INT, &st));
  CHECK(w == 7, "mem: name reads %d, expected 7", w);
  CHECK_MPI(MPI_File_close(&fh));
  /* a glob on the last component, as tools building temporary names need */
  const char *tmp = tl_path("x%d.pooltest", tl_rank);
  CHECK_MPI(MPI_File_open(MPI_COMM_SELF, tmp, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_write(fh, &v, 1, MPI_INT, &st));
  CHECK_MPI(MPI_File_close(&fh));
  CHECK(!tl_exists(tmp), "%s matches MPISW_MEM_PATHS but was written to disk", tmp);
  /* ufs: (ROMIO's prefix; Open MPI's own MPI-IO knows none) and unmatched
   * paths reach the MPI's own MPI-IO */
  char real[600];
#ifdef OPEN_MPI
  snprintf(real, sizeof real, "%s", tl_path("real%d", tl_rank));
  const char *real_path = real;
#else
  snprintf(real, sizeof real, "ufs:%s", tl_path("real%d", tl_rank));
  const char *real_path = real + 4;
#endif
  CHECK_MPI(MPI_File_open(MPI_COMM_SELF, real, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_write(fh, &v, 1, MPI_INT, &st));
  CHECK_MPI(MPI_File_close(&fh));
  CHECK(tl_file_size(real_path) == sizeof v, "the real file %s is not on disk", real_path);
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) CHECK_MPI(MPI_File_delete(pooled, MPI_INFO_NULL));
  CHECK_MPI(MPI_File_delete(tmp, MPI_INFO_NULL));
}

/* Ranks race to create the same file exclusively: exactly one wins. */
static void test_excl(void) {
  for (int round = 0; round < 50; round++) {
    char name[64];
    snprintf(name, sizeof name, "mem:/excl/%d", round);
    MPI_File fh;
    MPI_Barrier(MPI_COMM_WORLD);
    int rc = MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR,
                           MPI_INFO_NULL, &fh);
    int won = rc == MPI_SUCCESS, winners = 0;
    CHECK(won || err_class(rc) == MPI_ERR_FILE_EXISTS, "round %d: a lost race gave class %d (%s)",
          round, err_class(rc), tl_errstr(rc));
    MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(winners == 1, "round %d: %d ranks created %s exclusively", round, winners, name);
    if (won) CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (won) CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
  }
}

/* Loaded from a real file at open, written to another at close: the drained
 * file is byte-identical to what the program wrote. */
static void test_stage(void) {
  const size_t size = (20u << 20) + 12345; /* several chunks and stripes, odd end */
  const char *src = tl_path("stage-src"), *dst = tl_path("stage-dst");
  if (tl_rank == 0) tl_write_pattern_file(src, 0, size, 3, 0644);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Info info = tl_info("striping_unit=1048576", NULL);
  MPI_Info_set(info, "mpisw_stage_in", (char *)src);
  MPI_Info_set(info, "mpisw_drain", (char *)dst);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, "mem:/staged", MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  MPI_Info_free(&info);
  MPI_Offset s;
  CHECK_MPI(MPI_File_get_size(fh, &s));
  CHECK(s == (MPI_Offset)size, "staged file size %lld, expected %zu", (long long)s, size);
  /* every rank checks a slice, then overwrites it with another pattern */
  size_t per = size / tl_size, off = per * tl_rank, n = tl_rank == tl_size - 1 ? size - off : per;
  char *buf = malloc(n);
  MPI_Status st;
  CHECK_MPI(MPI_File_read_at(fh, off, buf, (int)n, MPI_BYTE, &st));
  long bad = tl_verify(buf, n, 3, off);
  CHECK(bad < 0, "staged byte %ld is wrong", bad < 0 ? bad : (long)off + bad);
  tl_fill(buf, n, 5, off);
  CHECK_MPI(MPI_File_write_at_all(fh, off, buf, (int)n, MPI_BYTE, &st));
  CHECK_MPI(MPI_File_close(&fh));
  if (tl_rank == 0) {
    CHECK(tl_file_size(dst) == (off_t)size, "drained size %lld", (long long)tl_file_size(dst));
    CHECK_FILE_PATTERN(dst, 0, size, 5, 0);
  }
  free(buf);
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) CHECK_MPI(MPI_File_delete("mem:/staged", MPI_INFO_NULL));
}

/* Atomic mode: concurrent writers of one range; every read sees one
 * writer's whole data, never a mix. */
static void test_atomic(void) {
  const int n = 3 << 20; /* across stripes */
  MPI_File fh;
  MPI_Info info = tl_info("striping_unit=1048576", NULL);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, "mem:/atomic", MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  MPI_Info_free(&info);
  CHECK_MPI(MPI_File_set_atomicity(fh, 1));
  int *w = malloc(n), *r = malloc(n);
  MPI_Status st;
  for (int round = 0; round < 20; round++) {
    for (int i = 0; i < n / 4; i++) w[i] = round * 100 + tl_rank;
    CHECK_MPI(MPI_File_write_at(fh, 0, w, n / 4, MPI_INT, &st));
    CHECK_MPI(MPI_File_read_at(fh, 0, r, n / 4, MPI_INT, &st));
    for (int i = 1; i < n / 4; i++)
      CHECK(r[i] == r[0], "round %d: int %d is %d but int 0 is %d: two writers mixed", round, i,
            r[i], r[0]);
  }
  free(w);
  free(r);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) CHECK_MPI(MPI_File_delete("mem:/atomic", MPI_INFO_NULL));
}

/* A pool smaller than what is written (MPISW_POOL_SIZE set by the test):
 * MPI_ERR_NO_SPACE on the writing rank, the data written before intact. */
static void test_full(void) {
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_SELF, "mem:/full", MPI_MODE_CREATE | MPI_MODE_RDWR,
                          MPI_INFO_NULL, &fh));
  const int chunk = 1 << 20;
  char *buf = malloc(chunk);
  MPI_Status st;
  int rc = MPI_SUCCESS, i = 0;
  if (tl_rank == 0)
    for (; i < 1024 && rc == MPI_SUCCESS; i++) {
      tl_fill(buf, chunk, 9, (size_t)i * chunk);
      rc = MPI_File_write_at(fh, (MPI_Offset)i * chunk, buf, chunk, MPI_BYTE, &st);
    }
  if (tl_rank == 0) {
    CHECK(err_class(rc) == MPI_ERR_NO_SPACE, "filling the pool: class %d (%s) after %d MiB",
          err_class(rc), tl_errstr(rc), i);
    for (int j = 0; j < i - 1; j++) {
      CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)j * chunk, buf, chunk, MPI_BYTE, &st));
      long bad = tl_verify(buf, chunk, 9, (size_t)j * chunk);
      CHECK(bad < 0, "MiB %d corrupted after the pool filled (byte %ld)", j, bad);
    }
  }
  free(buf);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) CHECK_MPI(MPI_File_delete("mem:/full", MPI_INFO_NULL));
  MPI_Barrier(MPI_COMM_WORLD); /* deleted before any rank asks for space again */
  /* the space comes back */
  CHECK_MPI(MPI_File_open(MPI_COMM_SELF, "mem:/full2", MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                          MPI_INFO_NULL, &fh));
  char c = 1;
  CHECK_MPI(MPI_File_write_at(fh, 0, &c, 1, MPI_BYTE, &st));
  CHECK_MPI(MPI_File_close(&fh));
}

/* Bad hints name the hint. */
static void test_hints(void) {
  MPI_File fh;
  MPI_Info info = tl_info("striping_unit=lots", NULL);
  int rc = MPI_File_open(MPI_COMM_WORLD, "mem:/hint", MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
  CHECK(err_class(rc) == MPI_ERR_INFO_VALUE, "striping_unit=lots: class %d (%s)", err_class(rc),
        tl_errstr(rc));
  MPI_Info_free(&info);
  info = tl_info("mpisw_stage_in=/nonexistent/mpisw/file", NULL);
  rc = MPI_File_open(MPI_COMM_WORLD, "mem:/hint", MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
  CHECK(err_class(rc) == MPI_ERR_NO_SUCH_FILE, "stage in from a missing file: class %d (%s)",
        err_class(rc), tl_errstr(rc));
  MPI_Info_free(&info);
  if (tl_rank == 0) MPI_File_delete("mem:/hint", MPI_INFO_NULL);
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  CHECK(argc == 2, "usage: t_pfile route|excl|stage|atomic|full|hints");
  MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
  const char *m = argv[1];
  if (!strcmp(m, "route")) test_route();
  else if (!strcmp(m, "excl")) test_excl();
  else if (!strcmp(m, "stage")) test_stage();
  else if (!strcmp(m, "atomic")) test_atomic();
  else if (!strcmp(m, "full")) test_full();
  else if (!strcmp(m, "hints")) test_hints();
  else CHECK(0, "unknown mode %s", m);
  return tl_finish();
}
