/* Shared file pointers of pooled files, one per collective open (MPI-4
 * 14.4.4): opens of one file by different communicators at once each move
 * their own; MPI_COMM_SELF opens per rank; MPI_MODE_APPEND; slots never
 * leak and running out is MPI_ERR_NO_SPACE; the file's own communicator. Linked with the static library
 * to count the pool's slots (src/pool/pool.h). t_pfile_shptr MODE. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool/pool.h"
#include "testlib.h"

#define REC 16 /* one record: {world rank, sequence, 0} */

static int err_class(int rc) {
  int c = rc;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
  return c;
}

static void record(int64_t *r, int seq) {
  r[0] = tl_rank;
  r[1] = seq;
}

static void slots(uint64_t *in_use, uint64_t *cap) { mpisw_pool_shared_ptrs(in_use, cap); }

/* Reads n records at byte off of name (on MPI_COMM_SELF). */
static void read_records(const char *name, MPI_Offset off, int n, int64_t *out) {
  MPI_File fh;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_read_at(fh, off, out, n * REC, MPI_BYTE, &st));
  CHECK_MPI(MPI_File_close(&fh));
}

/* Two halves of the world open one file at once, each with its view at
 * its own place: write_shared and write_ordered of one half land in its
 * region only, in the order MPI gives; each pointer ends at its own total. */
static void halves(void) {
  const char *name = "mem:/shptr-halves";
  int half = tl_rank % 2;
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, half, tl_rank, &comm));
  int n, me;
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &me);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(comm, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  MPI_Offset region = (MPI_Offset)half << 20;
  CHECK_MPI(MPI_File_set_view(fh, region, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  MPI_Barrier(MPI_COMM_WORLD); /* both opens done: their pointers live side by side */
  int64_t r[2];
  MPI_Status st;
  for (int i = 0; i < 3; i++) {
    record(r, i);
    CHECK_MPI(MPI_File_write_shared(fh, r, REC, MPI_BYTE, &st));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  record(r, 100);
  CHECK_MPI(MPI_File_write_ordered(fh, r, REC, MPI_BYTE, &st));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == (MPI_Offset)4 * n * REC, "half %d: shared pointer at %lld, wanted %lld", half,
        (long long)pos, (long long)4 * n * REC);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD); /* every rank's data in (MPI-4 14.6.1) */
  /* this half's region: 3 records of each of its ranks, in any order, then
   * the ordered ones in rank order */
  int64_t *got = calloc((size_t)(4 * n + 1), REC); /* past the end reads nothing */
  read_records(name, region, 4 * n + 1, got);
  int *seen = calloc((size_t)tl_size * 3, sizeof(int));
  for (int k = 0; k < 3 * n; k++) {
    int64_t w = got[2 * k], s = got[2 * k + 1];
    CHECK(w >= 0 && w < tl_size && w % 2 == half && s >= 0 && s < 3 && !seen[w * 3 + s],
          "half %d record %d: rank %lld seq %lld (another open's pointer moved?)", half, k,
          (long long)w, (long long)s);
    seen[w * 3 + s] = 1;
  }
  int world_of_me[64];
  CHECK(n <= 64, "at most 64 ranks per half");
  MPI_Allgather(&tl_rank, 1, MPI_INT, world_of_me, 1, MPI_INT, comm);
  for (int k = 0; k < n; k++)
    CHECK(got[2 * (3 * n + k)] == world_of_me[k] && got[2 * (3 * n + k) + 1] == 100,
          "half %d ordered record %d: rank %lld seq %lld, wanted rank %d seq 100", half, k,
          (long long)got[2 * (3 * n + k)], (long long)got[2 * (3 * n + k) + 1], world_of_me[k]);
  CHECK(got[2 * 4 * n] == 0 && got[2 * 4 * n + 1] == 0, "half %d: a record past its %d",
        half, 4 * n);
  if (me == 0) tl_log("half %d (%d ranks): 4 records each where its own pointer put them", half, n);
  free(got);
  free(seen);
  MPI_Comm_free(&comm);
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
}

/* Every rank opens the same file alone (MPI_COMM_SELF), its view at its
 * own place: each pointer counts that rank's writes only. */
static void self(void) {
  const char *name = "mem:/shptr-self";
  MPI_File fh;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                          &fh));
  MPI_Offset region = (MPI_Offset)tl_rank * 65536;
  CHECK_MPI(MPI_File_set_view(fh, region, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  MPI_Barrier(MPI_COMM_WORLD);
  int64_t r[2];
  for (int i = 0; i < 5; i++) {
    record(r, i);
    CHECK_MPI(MPI_File_write_shared(fh, r, REC, MPI_BYTE, &st));
    MPI_Barrier(MPI_COMM_WORLD); /* the others write in between */
  }
  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == 5 * REC, "rank %d alone: shared pointer at %lld, wanted %d", tl_rank,
        (long long)pos, 5 * REC);
  int64_t got[12] = {0}; /* past the end of the file reads nothing */
  CHECK_MPI(MPI_File_read_at(fh, 0, got, 6 * REC, MPI_BYTE, &st));
  for (int i = 0; i < 5; i++)
    CHECK(got[2 * i] == tl_rank && got[2 * i + 1] == i, "rank %d record %d: rank %lld seq %lld",
          tl_rank, i, (long long)got[2 * i], (long long)got[2 * i + 1]);
  CHECK(got[10] == 0 && got[11] == 0, "rank %d: a sixth record: rank %lld seq %lld", tl_rank,
        (long long)got[10], (long long)got[11]);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) {
    tl_log("%d ranks alone on one file: 5 records each at their own pointer", tl_size);
    CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
  }
}

/* MPI_MODE_APPEND: a second open of a file starts its shared pointer at
 * the end, and the first open's pointer goes on where it was. */
static void append(void) {
  const char *name = "mem:/shptr-append";
  MPI_File a, b;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                          &a));
  int64_t r[2];
  record(r, 1);
  CHECK_MPI(MPI_File_write_ordered(a, r, REC, MPI_BYTE, &st)); /* [0, size*REC) */
  CHECK_MPI(MPI_File_sync(a));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_sync(a));
  MPI_Offset end = (MPI_Offset)tl_size * REC, pos = -1;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_WRONLY | MPI_MODE_APPEND,
                          MPI_INFO_NULL, &b));
  CHECK_MPI(MPI_File_get_position_shared(b, &pos));
  CHECK(pos == end, "APPEND open: shared pointer at %lld, wanted the end %lld", (long long)pos,
        (long long)end);
  CHECK_MPI(MPI_File_get_position(b, &pos));
  CHECK(pos == end, "APPEND open: individual pointer at %lld, wanted %lld", (long long)pos,
        (long long)end);
  CHECK_MPI(MPI_File_get_position_shared(a, &pos));
  CHECK(pos == end, "the first open's shared pointer moved to %lld by the second open, wanted "
        "%lld", (long long)pos, (long long)end);
  record(r, 2);
  CHECK_MPI(MPI_File_write_ordered(b, r, REC, MPI_BYTE, &st)); /* [end, 2 end) */
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_get_position_shared(a, &pos));
  CHECK(pos == end, "the first open's shared pointer at %lld after the second open's writes, "
        "wanted %lld", (long long)pos, (long long)end);
  CHECK_MPI(MPI_File_get_position_shared(b, &pos));
  CHECK(pos == 2 * end, "the APPEND open's shared pointer at %lld, wanted %lld", (long long)pos,
        (long long)(2 * end));
  CHECK_MPI(MPI_File_close(&b));
  CHECK_MPI(MPI_File_close(&a));
  MPI_Barrier(MPI_COMM_WORLD);
  int64_t *got = malloc((size_t)(2 * tl_size) * REC);
  read_records(name, 0, 2 * tl_size, got);
  for (int k = 0; k < 2 * tl_size; k++)
    CHECK(got[2 * k] == k % tl_size && got[2 * k + 1] == 1 + k / tl_size,
          "record %d: rank %lld seq %lld", k, (long long)got[2 * k], (long long)got[2 * k + 1]);
  free(got);
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) {
    tl_log("APPEND: its pointer at the end, the other open's where it was");
    CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
  }
}

/* Many opens and closes (more than there are slots, on the world and
 * alone): no slot and no block left behind. */
static void leak(int loops) {
  const char *name = "mem:/shptr-leak";
  uint64_t in0, cap, in1, cap1, used0, used1, c0, p0;
  MPI_Barrier(MPI_COMM_WORLD);
  slots(&in0, &cap);
  mpisw_pool_usage(&used0, &c0, &p0);
  CHECK(cap > 0, "the pool has no shared pointer slots");
  CHECK((uint64_t)loops > cap, "%d loops do not pass the %llu slots", loops,
        (unsigned long long)cap);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  MPI_Status st;
  for (int i = 0; i < loops; i++) {
    MPI_File fh;
    MPI_Comm comm = i % 2 ? MPI_COMM_SELF : MPI_COMM_WORLD;
    CHECK_MPI(MPI_File_open(comm, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    char c = (char)i;
    CHECK_MPI(MPI_File_write_shared(fh, &c, 1, MPI_BYTE, &st));
    CHECK_MPI(MPI_File_close(&fh));
  }
  double dt = MPI_Wtime() - t0;
  MPI_Barrier(MPI_COMM_WORLD);
  slots(&in1, &cap1);
  mpisw_pool_usage(&used1, &c0, &p0);
  if (tl_rank == 0)
    tl_log("%d opens+closes per rank (%.1f us each): shared pointer slots in use before %llu, "
           "after %llu, of %llu; pool bytes in use before %llu, after %llu",
           loops, dt / loops * 1e6, (unsigned long long)in0, (unsigned long long)in1,
           (unsigned long long)cap1, (unsigned long long)used0, (unsigned long long)used1);
  CHECK(in1 == in0, "shared pointer slots in use: %llu before, %llu after %d opens",
        (unsigned long long)in0, (unsigned long long)in1, loops);
  CHECK(used1 >= used0, "pool use went down: %llu -> %llu", (unsigned long long)used0,
        (unsigned long long)used1);
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
  MPI_Barrier(MPI_COMM_WORLD);
  mpisw_pool_usage(&used1, &c0, &p0);
  CHECK(used1 == used0, "pool bytes in use %llu after the delete, %llu before",
        (unsigned long long)used1, (unsigned long long)used0);
}

/* Every rank opens one file alone until the slots run out: an MPI error
 * of class MPI_ERR_NO_SPACE naming the reason, on a total of exactly the
 * slots there are; the files open before keep working; all back after. */
#define MAXOPEN 100000
static void exhaust(void) {
  const char *name = "mem:/shptr-exhaust";
  uint64_t in0, cap, in1;
  MPI_File *fh = malloc(sizeof(MPI_File) * MAXOPEN);
  MPI_Status st;
  MPI_Barrier(MPI_COMM_WORLD);
  slots(&in0, &cap);
  CHECK(in0 == 0, "%llu slots in use before the test", (unsigned long long)in0);
  MPI_Barrier(MPI_COMM_WORLD); /* counted before anyone opens */
  MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
  int n = 0, rc = MPI_SUCCESS;
  while (n < MAXOPEN) {
    rc = MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                       &fh[n]);
    if (rc != MPI_SUCCESS) break;
    n++;
  }
  CHECK(rc != MPI_SUCCESS, "%d opens and no error (%llu slots)", n, (unsigned long long)cap);
  CHECK(err_class(rc) == MPI_ERR_NO_SPACE, "class %d, wanted MPI_ERR_NO_SPACE: %s",
        err_class(rc), tl_errstr(rc));
  if (strstr(tl_errstr(rc), "mpisw:")) /* MPICH 4.0 shows its class's text instead */
    CHECK(strstr(tl_errstr(rc), "no shared file pointer left") &&
              strstr(tl_errstr(rc), "shptr-exhaust"),
          "message: %s", tl_errstr(rc));
  int total = 0;
  MPI_Allreduce(&n, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK((uint64_t)total == cap, "%d opens succeeded over all ranks, %llu slots", total,
        (unsigned long long)cap);
  /* the last one open still has its own pointer */
  if (n > 0) {
    char c = 'x';
    MPI_Offset pos = -1;
    CHECK_MPI(MPI_File_write_shared(fh[n - 1], &c, 1, MPI_BYTE, &st));
    CHECK_MPI(MPI_File_get_position_shared(fh[n - 1], &pos));
    CHECK(pos == 1, "shared pointer %lld after one byte", (long long)pos);
  }
  for (int i = 0; i < n; i++) CHECK_MPI(MPI_File_close(&fh[i]));
  MPI_Barrier(MPI_COMM_WORLD);
  slots(&in1, &cap);
  CHECK(in1 == in0, "%llu slots in use after closing all, %llu before", (unsigned long long)in1,
        (unsigned long long)in0);
  if (tl_rank == 0) {
    tl_log("%d opens over %d ranks took every slot; the next: %s", total, tl_size, tl_errstr(rc));
    /* no handle of the failed opens is left: the file can go */
    CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
  }
  free(fh);
}

/* The file's communicator (a duplicate kept on the program's communicator
 * for its next open): two files open at once on one communicator, a third
 * opened after the first closed, and a communicator the program frees
 * while a file opened on it is still open; the collectives of each file
 * (ordered writes, set_size) stay its own. */
static void ordered_check(MPI_File fh, int seq, MPI_Offset at) {
  int64_t r[2];
  MPI_Status st;
  record(r, seq);
  CHECK_MPI(MPI_File_write_ordered(fh, r, REC, MPI_BYTE, &st));
  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == at + (MPI_Offset)tl_size * REC, "seq %d: shared pointer %lld, wanted %lld", seq,
        (long long)pos, (long long)(at + (MPI_Offset)tl_size * REC));
}

static void comms(void) {
  MPI_File a, b, c, d;
  int amode = MPI_MODE_CREATE | MPI_MODE_RDWR;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, "mem:/shptr-ca", amode, MPI_INFO_NULL, &a));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, "mem:/shptr-cb", amode, MPI_INFO_NULL, &b));
  for (int i = 0; i < 3; i++) { /* the two files' collectives interleaved */
    ordered_check(a, i, (MPI_Offset)i * tl_size * REC);
    ordered_check(b, 10 + i, (MPI_Offset)i * tl_size * REC);
  }
  CHECK_MPI(MPI_File_close(&a));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, "mem:/shptr-cc", amode, MPI_INFO_NULL, &c));
  ordered_check(c, 20, 0);
  ordered_check(b, 13, (MPI_Offset)3 * tl_size * REC);
  CHECK_MPI(MPI_File_set_size(c, 4096));
  ordered_check(c, 21, (MPI_Offset)tl_size * REC);
  CHECK_MPI(MPI_File_close(&b));
  CHECK_MPI(MPI_File_close(&c));
  /* a communicator freed while its file is open, then one freed after */
  MPI_Comm dupw;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dupw));
  CHECK_MPI(MPI_File_open(dupw, "mem:/shptr-cd", amode, MPI_INFO_NULL, &d));
  CHECK_MPI(MPI_Comm_free(&dupw));
  ordered_check(d, 30, 0);
  CHECK_MPI(MPI_File_close(&d));
  for (int k = 0; k < 50; k++) { /* communicators come and go: each open works */
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dupw));
    CHECK_MPI(MPI_File_open(dupw, "mem:/shptr-cd", MPI_MODE_RDWR, MPI_INFO_NULL, &d));
    ordered_check(d, 40 + k, 0);
    CHECK_MPI(MPI_File_close(&d));
    CHECK_MPI(MPI_Comm_free(&dupw));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int64_t *got = calloc((size_t)(4 * tl_size), REC);
  read_records("mem:/shptr-cb", 0, 4 * tl_size, got);
  for (int k = 0; k < 4 * tl_size; k++)
    CHECK(got[2 * k] == k % tl_size && got[2 * k + 1] == 10 + k / tl_size,
          "file b record %d: rank %lld seq %lld", k, (long long)got[2 * k],
          (long long)got[2 * k + 1]);
  free(got);
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) {
    const char *names[] = {"mem:/shptr-ca", "mem:/shptr-cb", "mem:/shptr-cc", "mem:/shptr-cd"};
    for (int i = 0; i < 4; i++) CHECK_MPI(MPI_File_delete(names[i], MPI_INFO_NULL));
    tl_log("two files at once on one communicator, a freed communicator: collectives apart");
  }
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "halves")) {
    if (tl_size < 2) {
      if (tl_rank == 0) printf("SKIP: halves needs 2 ranks or more\n");
      MPI_Finalize();
      return TL_SKIP_CODE;
    }
    halves();
  } else if (!strcmp(mode, "self")) {
    self();
  } else if (!strcmp(mode, "append")) {
    append();
  } else if (!strcmp(mode, "leak")) {
    leak(argc > 2 ? atoi(argv[2]) : 2000);
  } else if (!strcmp(mode, "exhaust")) {
    exhaust();
  } else if (!strcmp(mode, "comms")) {
    comms();
  } else {
    tl_fail(__FILE__, __LINE__, "unknown mode '%s' (halves, self, append, leak, exhaust, comms)", mode);
  }
  return tl_finish();
}
