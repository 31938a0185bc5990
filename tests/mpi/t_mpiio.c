/* MPI-IO semantics, the same checks for any file: a real file through the
 * library (pass-through: the MPI's own MPI-IO must behave as without mpisw)
 * and, with a "mem:" prefix, a pooled file (docs/POOLED_FILES.md).
 *
 *   t_mpiio PREFIX [CASE]   files are PREFIX/<case>-<n>; "scratch" means the
 *                           test's scratch directory, "shm" a new directory
 *                           in /dev/shm (tmpfs); CASE runs one case, -CASE
 *                           all but that one
 *
 * Cases: basic (write_at_all / read_at, size), view (vector filetype,
 * get_byte_offset), pointers (individual and shared pointers, seek,
 * ordered), nonblocking (i* calls, split collectives), sizes (set_size,
 * preallocate, get_amode, get_group, atomicity, type extent), errors (error
 * classes MPI prescribes, error handlers, c2f/f2c), delete (delete,
 * DELETE_ON_CLOSE, reopen by another communicator). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

static const char *prefix;
static int serial;

static const char *fname(const char *what) {
  static char buf[8][512];
  char *b = buf[serial % 8];
  snprintf(b, sizeof buf[0], "%s/%s-%d", prefix, what, serial++);
  return b;
}

static int err_class(int rc) {
  int c = rc;
  MPI_Error_class(rc, &c);
  return c;
}

static MPI_File open_rw(MPI_Comm comm, const char *name, int extra) {
  MPI_File fh;
  CHECK_MPI(MPI_File_open(comm, name, MPI_MODE_CREATE | MPI_MODE_RDWR | extra, MPI_INFO_NULL, &fh));
  return fh;
}

/* Each rank writes its block collectively, then every rank reads all. */
static void case_basic(void) {
  const char *name = fname("basic");
  const int n = 100000; /* bytes per rank: unaligned on purpose */
  char *mine = malloc(n), *all = malloc((size_t)n * tl_size);
  tl_fill(mine, n, 7, (size_t)tl_rank * n);
  MPI_File fh = open_rw(MPI_COMM_WORLD, name, 0);
  MPI_Status st;
  CHECK_MPI(MPI_File_write_at_all(fh, (MPI_Offset)tl_rank * n, mine, n, MPI_BYTE, &st));
  int got = -1;
  MPI_Get_count(&st, MPI_BYTE, &got);
  CHECK(got == n, "write_at_all status count %d, expected %d", got, n);
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Offset size = -1;
  CHECK_MPI(MPI_File_get_size(fh, &size));
  CHECK(size == (MPI_Offset)n * tl_size, "size %lld, expected %lld", (long long)size,
        (long long)n * tl_size);
  CHECK_MPI(MPI_File_read_at(fh, 0, all, n * tl_size, MPI_BYTE, &st));
  long bad = tl_verify(all, (size_t)n * tl_size, 7, 0);
  CHECK(bad < 0, "byte %ld read back is wrong (%s)", bad, tl_describe(all + (bad < 0 ? 0 : bad), 16, 0));
  /* past the end: a short read */
  CHECK_MPI(MPI_File_read_at(fh, size - 10, all, 100, MPI_BYTE, &st));
  MPI_Get_count(&st, MPI_BYTE, &got);
  CHECK(got == 10, "read past the end returned %d bytes, expected 10", got);
  CHECK_MPI(MPI_File_close(&fh));
  CHECK(fh == MPI_FILE_NULL, "MPI_File_close did not set MPI_FILE_NULL");
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
  free(mine);
  free(all);
}

/* Rank r owns every P-th int of the file through a vector filetype. */
static void case_view(void) {
  const char *name = fname("view");
  const int per = 1000, P = tl_size;
  MPI_File fh = open_rw(MPI_COMM_WORLD, name, 0);
  MPI_Datatype vec, ftype;
  MPI_Type_vector(1, 1, P, MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, (MPI_Aint)(P * sizeof(int)), &ftype);
  MPI_Type_commit(&ftype);
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)(tl_rank * sizeof(int)), MPI_INT, ftype, "native",
                              MPI_INFO_NULL));
  int *v = malloc(per * sizeof(int));
  for (int i = 0; i < per; i++) v[i] = i * P + tl_rank;
  MPI_Status st;
  CHECK_MPI(MPI_File_write_all(fh, v, per, MPI_INT, &st));
  MPI_Offset pos = -1, byte = -1;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == per, "position after write_all %lld etypes, expected %d", (long long)pos, per);
  CHECK_MPI(MPI_File_get_byte_offset(fh, 3, &byte));
  CHECK(byte == (MPI_Offset)((3 * P + tl_rank) * sizeof(int)), "byte offset of etype 3: %lld",
        (long long)byte);
  MPI_Offset d;
  MPI_Datatype et, ft;
  char rep[MPI_MAX_DATAREP_STRING];
  CHECK_MPI(MPI_File_get_view(fh, &d, &et, &ft, rep));
  CHECK(d == (MPI_Offset)(tl_rank * sizeof(int)) && !strcmp(rep, "native"),
        "get_view disp %lld rep %s", (long long)d, rep);
  if (ft != MPI_INT && ft != MPI_BYTE) MPI_Type_free(&ft);
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_sync(fh));
  /* back to bytes: the whole file is 0, 1, 2, ... */
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  int *all = malloc((size_t)per * P * sizeof(int));
  CHECK_MPI(MPI_File_read_at(fh, 0, all, per * P, MPI_INT, &st));
  for (int i = 0; i < per * P; i++) CHECK(all[i] == i, "int %d of the file is %d", i, all[i]);
  /* and read through the view again into a strided memory type */
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)(tl_rank * sizeof(int)), MPI_INT, ftype, "native",
                              MPI_INFO_NULL));
  MPI_Datatype mtype;
  MPI_Type_vector(per, 1, 2, MPI_INT, &mtype);
  MPI_Type_commit(&mtype);
  int *strided = calloc((size_t)per * 2, sizeof(int));
  CHECK_MPI(MPI_File_read_at_all(fh, 0, strided, 1, mtype, &st));
  for (int i = 0; i < per; i++)
    CHECK(strided[2 * i] == i * P + tl_rank && strided[2 * i + 1] == 0,
          "strided read: element %d is %d (gap %d)", i, strided[2 * i], strided[2 * i + 1]);
  MPI_Type_free(&mtype);
  MPI_Type_free(&ftype);
  MPI_Type_free(&vec);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
  free(v);
  free(all);
  free(strided);
}

/* Individual and shared file pointers, seek, ordered access. */
static void case_pointers(void) {
  const char *name = fname("ptr");
  MPI_File fh = open_rw(MPI_COMM_WORLD, name, 0);
  MPI_Status st;
  /* individual: each rank writes 3 ints at its own place by seeking */
  int rec[3] = {tl_rank, tl_rank * 10, tl_rank * 100};
  CHECK_MPI(MPI_File_seek(fh, (MPI_Offset)(tl_rank * sizeof rec), MPI_SEEK_SET));
  CHECK_MPI(MPI_File_write(fh, rec, 3, MPI_INT, &st));
  MPI_Offset pos;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == (MPI_Offset)((tl_rank + 1) * sizeof rec), "position %lld after write", (long long)pos);
  CHECK_MPI(MPI_File_seek(fh, -(MPI_Offset)sizeof rec, MPI_SEEK_CUR));
  int back[3] = {-1, -1, -1};
  CHECK_MPI(MPI_File_read(fh, back, 3, MPI_INT, &st));
  CHECK(!memcmp(back, rec, sizeof rec), "read after seek_cur: %d %d %d", back[0], back[1], back[2]);
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_sync(fh));
  /* shared: every rank appends one record after the individual block */
  MPI_Offset base = (MPI_Offset)(tl_size * sizeof rec);
  CHECK_MPI(MPI_File_seek_shared(fh, base, MPI_SEEK_SET));
  int one[2] = {0x5eed, tl_rank};
  CHECK_MPI(MPI_File_write_shared(fh, one, 2, MPI_INT, &st));
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Offset sp;
  CHECK_MPI(MPI_File_get_position_shared(fh, &sp));
  CHECK(sp == base + (MPI_Offset)(tl_size * sizeof one), "shared position %lld, expected %lld",
        (long long)sp, (long long)(base + tl_size * sizeof one));
  int *recs = malloc(tl_size * sizeof one);
  CHECK_MPI(MPI_File_read_at(fh, base, recs, 2 * tl_size, MPI_INT, &st));
  int *seen = calloc(tl_size, sizeof(int));
  for (int i = 0; i < tl_size; i++) {
    CHECK(recs[2 * i] == 0x5eed && recs[2 * i + 1] >= 0 && recs[2 * i + 1] < tl_size,
          "shared record %d is (%x, %d)", i, recs[2 * i], recs[2 * i + 1]);
    seen[recs[2 * i + 1]]++;
  }
  for (int r = 0; r < tl_size; r++) CHECK(seen[r] == 1, "rank %d's shared record seen %d times", r, seen[r]);
  /* ordered: in rank order, after the shared records */
  MPI_Barrier(MPI_COMM_WORLD);
  int ord[2] = {0x0d, tl_rank};
  CHECK_MPI(MPI_File_write_ordered(fh, ord, 2, MPI_INT, &st));
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_MPI(MPI_File_read_at(fh, sp, recs, 2 * tl_size, MPI_INT, &st));
  for (int i = 0; i < tl_size; i++)
    CHECK(recs[2 * i] == 0x0d && recs[2 * i + 1] == i, "ordered record %d is (%x, %d)", i,
          recs[2 * i], recs[2 * i + 1]);
  /* read_ordered reads them back in the same order */
  CHECK_MPI(MPI_File_seek_shared(fh, sp, MPI_SEEK_SET));
  int rd[2] = {-1, -1};
  CHECK_MPI(MPI_File_read_ordered(fh, rd, 2, MPI_INT, &st));
  CHECK(rd[0] == 0x0d && rd[1] == tl_rank, "read_ordered gave (%x, %d)", rd[0], rd[1]);
  free(recs);
  free(seen);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
}

/* Nonblocking calls and split collectives. */
static void case_nonblocking(void) {
  const char *name = fname("nb");
  const int n = 4096;
  MPI_File fh = open_rw(MPI_COMM_WORLD, name, 0);
  char *a = malloc(n), *b = malloc(n);
  tl_fill(a, n, 11, (size_t)tl_rank * n);
  MPI_Request rq;
  MPI_Status st;
  CHECK_MPI(MPI_File_iwrite_at(fh, (MPI_Offset)tl_rank * n, a, n, MPI_BYTE, &rq));
  CHECK_MPI(MPI_Wait(&rq, &st));
  int got;
  MPI_Get_count(&st, MPI_BYTE, &got);
  CHECK(got == n, "iwrite_at status count %d", got);
  CHECK_MPI(MPI_File_iread_at(fh, (MPI_Offset)tl_rank * n, b, n, MPI_BYTE, &rq));
  CHECK_MPI(MPI_Wait(&rq, &st));
  CHECK(!memcmp(a, b, n), "iread_at read something else than iwrite_at wrote");
  /* split collective: a second block after everyone's first */
  MPI_Offset off2 = (MPI_Offset)(tl_size + tl_rank) * n;
  CHECK_MPI(MPI_File_write_at_all_begin(fh, off2, a, n, MPI_BYTE));
  CHECK_MPI(MPI_File_write_at_all_end(fh, a, &st));
  MPI_Get_count(&st, MPI_BYTE, &got);
  CHECK(got == n, "write_at_all_end status count %d", got);
  memset(b, 0, n);
  CHECK_MPI(MPI_File_read_at_all_begin(fh, off2, b, n, MPI_BYTE));
  CHECK_MPI(MPI_File_read_at_all_end(fh, b, &st));
  CHECK(!memcmp(a, b, n), "split collective read something else");
  /* iwrite_all with the individual pointer */
  CHECK_MPI(MPI_File_seek(fh, (MPI_Offset)(2 * tl_size + tl_rank) * n, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_iwrite_all(fh, a, n, MPI_BYTE, &rq));
  CHECK_MPI(MPI_Wait(&rq, &st));
  MPI_Offset pos;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == (MPI_Offset)(2 * tl_size + tl_rank + 1) * n, "position after iwrite_all %lld",
        (long long)pos);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
  free(a);
  free(b);
}

/* Size calls and file queries. */
static void case_sizes(void) {
  const char *name = fname("size");
  MPI_File fh = open_rw(MPI_COMM_WORLD, name, 0);
  CHECK_MPI(MPI_File_set_size(fh, 12345));
  MPI_Offset s;
  CHECK_MPI(MPI_File_get_size(fh, &s));
  CHECK(s == 12345, "size after set_size %lld", (long long)s);
  CHECK_MPI(MPI_File_preallocate(fh, 1 << 20));
  CHECK_MPI(MPI_File_get_size(fh, &s));
  CHECK(s == 1 << 20, "size after preallocate %lld", (long long)s);
  CHECK_MPI(MPI_File_set_size(fh, 100));
  CHECK_MPI(MPI_File_get_size(fh, &s));
  CHECK(s == 100, "size after shrinking %lld", (long long)s);
  char z[100];
  MPI_Status st;
  CHECK_MPI(MPI_File_read_at(fh, 0, z, 100, MPI_BYTE, &st));
  for (int i = 0; i < 100; i++) CHECK(z[i] == 0, "byte %d of a set_size'd file is %d", i, z[i]);
  int amode;
  CHECK_MPI(MPI_File_get_amode(fh, &amode));
  CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_RDWR), "amode %#x", amode);
  MPI_Group g;
  int gs;
  CHECK_MPI(MPI_File_get_group(fh, &g));
  MPI_Group_size(g, &gs);
  MPI_Group_free(&g);
  CHECK(gs == tl_size, "group size %d", gs);
  int atom = -1;
  CHECK_MPI(MPI_File_get_atomicity(fh, &atom));
  CHECK(atom == 0, "default atomicity %d", atom);
  CHECK_MPI(MPI_File_set_atomicity(fh, 1));
  CHECK_MPI(MPI_File_get_atomicity(fh, &atom));
  CHECK(atom == 1, "atomicity after set %d", atom);
  MPI_Aint ext;
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_DOUBLE, &ext));
  CHECK(ext == sizeof(double), "type extent of MPI_DOUBLE %ld", (long)ext);
  MPI_Info used;
  CHECK_MPI(MPI_File_get_info(fh, &used));
  MPI_Info_free(&used);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
}

static int handler_calls;
static void count_handler(MPI_File *fh, int *code, ...) { handler_calls++; }

/* Error classes MPI prescribes, handlers, Fortran handles. */
static void case_errors(void) {
  const char *name = fname("err");
  MPI_File fh = MPI_FILE_NULL;
  int rc = MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  CHECK(err_class(rc) == MPI_ERR_NO_SUCH_FILE, "open of a missing file: class %d (%s)",
        err_class(rc), tl_errstr(rc));
  fh = open_rw(MPI_COMM_WORLD, name, 0);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_File f2;
  rc = MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR,
                     MPI_INFO_NULL, &f2);
  CHECK(err_class(rc) == MPI_ERR_FILE_EXISTS, "exclusive create of an existing file: class %d (%s)",
        err_class(rc), tl_errstr(rc));
  rc = MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_RDONLY, MPI_INFO_NULL, &f2);
  CHECK(err_class(rc) == MPI_ERR_AMODE, "RDWR|RDONLY: class %d (%s)", err_class(rc), tl_errstr(rc));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  char c = 1;
  MPI_Status st;
  rc = MPI_File_write_at(fh, 0, &c, 1, MPI_BYTE, &st);
  CHECK(err_class(rc) == MPI_ERR_READ_ONLY || err_class(rc) == MPI_ERR_ACCESS,
        "write to a read-only open: class %d (%s)", err_class(rc), tl_errstr(rc));
  /* a user error handler is called with the file */
  MPI_Errhandler eh, cur;
  CHECK_MPI(MPI_File_create_errhandler(count_handler, &eh));
  CHECK_MPI(MPI_File_set_errhandler(fh, eh));
  CHECK_MPI(MPI_File_get_errhandler(fh, &cur));
  MPI_Errhandler_free(&cur);
  CHECK_MPI(MPI_File_call_errhandler(fh, MPI_ERR_OTHER));
  CHECK(handler_calls == 1, "user handler called %d times", handler_calls);
  rc = MPI_File_write_at(fh, 0, &c, 1, MPI_BYTE, &st);
  CHECK(rc != MPI_SUCCESS && handler_calls == 2, "handler calls %d after a failing write", handler_calls);
  CHECK_MPI(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
  MPI_Errhandler_free(&eh);
  /* Fortran handle and back */
  MPI_Fint f = MPI_File_c2f(fh);
  CHECK(MPI_File_f2c(f) == fh, "MPI_File_f2c(MPI_File_c2f(fh)) is another file");
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0) {
    CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
    rc = MPI_File_delete(name, MPI_INFO_NULL);
    CHECK(err_class(rc) == MPI_ERR_NO_SUCH_FILE, "second delete: class %d (%s)", err_class(rc),
          tl_errstr(rc));
  }
}

/* DELETE_ON_CLOSE, and a file outliving its close: another communicator
 * opens it again. */
static void case_delete(void) {
  const char *name = fname("del");
  MPI_File fh = open_rw(MPI_COMM_WORLD, name, 0);
  int v = 42 + tl_rank;
  MPI_Status st;
  CHECK_MPI(MPI_File_write_at_all(fh, (MPI_Offset)(tl_rank * sizeof v), &v, 1, MPI_INT, &st));
  CHECK_MPI(MPI_File_close(&fh));
  /* each rank alone, on MPI_COMM_SELF, reads the others' values */
  CHECK_MPI(MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  for (int r = 0; r < tl_size; r++) {
    int w = -1;
    CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)(r * sizeof w), &w, 1, MPI_INT, &st));
    CHECK(w == 42 + r, "reopened on MPI_COMM_SELF: rank %d's int is %d", r, w);
  }
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                          MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  int rc = MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  CHECK(err_class(rc) == MPI_ERR_NO_SUCH_FILE, "a DELETE_ON_CLOSE file is still there: class %d (%s)",
        err_class(rc), tl_errstr(rc));
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  CHECK(argc >= 2, "usage: t_mpiio PREFIX [CASE]");
  static char shm[64] = "/dev/shm/mpisw-mpiio-XXXXXX";
  if (!strcmp(argv[1], "scratch")) {
    prefix = tl_scratch();
  } else if (!strcmp(argv[1], "shm")) {
    if (tl_rank == 0 && !mkdtemp(shm)) shm[0] = 0;
    MPI_Bcast(shm, sizeof shm, MPI_CHAR, 0, MPI_COMM_WORLD);
    CHECK(shm[0], "cannot make a directory in /dev/shm");
    prefix = shm;
  } else {
    prefix = argv[1];
  }
  const char *only = argc > 2 ? argv[2] : NULL;
  MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
  static const struct {
    const char *name;
    void (*run)(void);
  } cases[] = {{"basic", case_basic},           {"view", case_view},   {"pointers", case_pointers},
               {"nonblocking", case_nonblocking}, {"sizes", case_sizes}, {"errors", case_errors},
               {"delete", case_delete}};
  int ran = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (!only || (only[0] == '-' ? strcmp(only + 1, cases[i].name) != 0
                                 : !strcmp(only, cases[i].name))) {
      cases[i].run();
      ran++;
    }
  CHECK(ran > 0, "no case named %s", only);
  MPI_Barrier(MPI_COMM_WORLD);
  if (tl_rank == 0 && prefix == shm) tl_rm_rf(shm);
  return tl_finish();
}
