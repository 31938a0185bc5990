/* The collective I/O engine (src/cio/, docs/COLLECTIVE_IO.md "The engine").
 *
 *   t_cio views [cb_nodes [cb_buffer_size]]
 *       For every view of the list below and every strategy: the same data
 *       written with the MPI's own collective write and with the engine
 *       (otp, latp, tatp) over a file holding a background pattern; the
 *       files must be byte-identical (holes keep the background). Then the
 *       engine reads the data back with read_all / read_at_all, and ROMIO
 *       reads the engine's file on the same handle.
 *   t_cio errors     bad hints, disagreement: an error on every rank
 *   t_cio report [FILE [env]]   MPI_File_get_info keys and the nonblocking and
 *       split forms (on FILE, a pooled file's name, instead of an ordinary
 *       file; env: the strategy from MPISW_CB_STRATEGY, not the hint)
 *   t_cio pool [cb_nodes [cb_buffer_size [views]]]
 *       The views on a pooled file ("mem:"): written through the engine
 *       (every strategy; and through pfile's own path without one), read
 *       back through the engine and with independent reads, the engine's
 *       calls counted in get_info, and the whole pooled file byte-identical
 *       to the MPI's collective write of the same data to an ordinary file.
 *   t_cio poolfull   (MPISW_POOL_SIZE small) the engine's write fills the
 *       pool: MPI_ERR_NO_SPACE on every rank, the file still closes
 *   t_cio behind     (every rank a node) writes of many rounds: each
 *       aggregator writes every round on its helper thread (key
 *       mpisw_cb_rounds_behind), none with mpisw_cb_write_behind=false, the
 *       same file both ways; 1 KiB pieces written from the messages
 *       (mpisw_cb_rounds_direct), 4-byte ones copied; every file read back
 *       whole; /dev/full under the thread: MPI_ERR_NO_SPACE on every rank
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

static const char *strategies[] = {"romio", "otp", "latp", "tatp"};
#define NSTRAT 4
#define BACKGROUND 0xEE

struct view {
  const char *name;
  MPI_Offset disp;
  MPI_Datatype etype, ftype; /* MPI_DATATYPE_NULL: the default view */
  MPI_Datatype mtype;        /* memory type of one element of the call */
  int count;                 /* elements of mtype this rank writes */
  size_t mbytes;             /* size of the memory buffer */
  int at;                    /* 1: write_at_all at offset (etypes) */
  MPI_Offset offset;
  int twice;                 /* 1: two write_all calls, the pointer moving */
};

static int P, me;

static void free_view(struct view *v) {
  if (v->ftype != MPI_DATATYPE_NULL && v->ftype != MPI_INT && v->ftype != MPI_BYTE)
    MPI_Type_free(&v->ftype);
  if (v->mtype != MPI_INT && v->mtype != MPI_BYTE && v->mtype != MPI_DOUBLE)
    MPI_Type_free(&v->mtype);
}

/* The views; n is a size knob (elements per rank, about). */
static int make_view(int k, struct view *v) {
  memset(v, 0, sizeof *v);
  v->etype = MPI_INT;
  v->ftype = MPI_DATATYPE_NULL;
  v->mtype = MPI_INT;
  int n = 96;
  switch (k) {
  case 0: /* contiguous: each rank a block */
    v->name = "contiguous";
    v->disp = (MPI_Offset)me * n * 4;
    v->ftype = MPI_INT;
    v->count = n;
    break;
  case 1: { /* vector: blocks of 3 ints interleaved by rank; memory a vector too */
    v->name = "vector";
    MPI_Type_vector(n / 3, 3, 3 * P, MPI_INT, &v->ftype);
    MPI_Type_commit(&v->ftype);
    v->disp = (MPI_Offset)me * 12;
    MPI_Type_vector(n / 3, 3, 4, MPI_INT, &v->mtype); /* a hole of 1 int in memory */
    MPI_Type_commit(&v->mtype);
    v->count = 1;
    v->mbytes = (size_t)(n / 3) * 16;
    break;
  }
  case 2: { /* subarray 2-D: a 2 x (P/2) or 1 x P grid of blocks of 5 x 7 */
    v->name = "subarray2d";
    int pr = P % 2 == 0 ? 2 : 1, pc = P / pr;
    int gs[2] = {5 * pr, 7 * pc}, ls[2] = {5, 7}, st[2] = {5 * (me % pr), 7 * (me / pr)};
    MPI_Type_create_subarray(2, gs, ls, st, MPI_ORDER_C, MPI_INT, &v->ftype);
    MPI_Type_commit(&v->ftype);
    v->count = 35;
    break;
  }
  case 3: { /* subarray 3-D, the cube benchmark's pattern, Fortran order */
    v->name = "subarray3d";
    int q = P >= 4 ? 2 : 1, r = P / (q * q) > 0 ? P / (q * q) : 1;
    int gs[3] = {4 * q, 3 * q, 2 * r}, ls[3] = {4, 3, 2};
    int st[3] = {4 * (me % q), 3 * ((me / q) % q), 2 * (me / (q * q))};
    if (q * q * r != P) { /* P = 2: split the first axis */
      gs[0] = 4 * P, gs[1] = 3, gs[2] = 2;
      st[0] = 4 * me, st[1] = 0, st[2] = 0;
    }
    MPI_Type_create_subarray(3, gs, ls, st, MPI_ORDER_FORTRAN, MPI_INT, &v->ftype);
    MPI_Type_commit(&v->ftype);
    v->count = 24;
    break;
  }
  case 4: { /* indexed with holes no rank writes: the background stays */
    v->name = "indexed_holes";
    int bl[3] = {2, 5, 1}, dp[3] = {0, 4, 13};
    MPI_Datatype t;
    MPI_Type_indexed(3, bl, dp, MPI_INT, &t);
    MPI_Type_create_resized(t, 0, 16 * 4, &v->ftype); /* tiles of 16 ints */
    MPI_Type_free(&t);
    MPI_Type_commit(&v->ftype);
    v->disp = (MPI_Offset)me * 16 * 4 * 5; /* 5 tiles each */
    v->count = 8 * 5;
    break;
  }
  case 5: { /* struct: an int and a double with a gap, filetype and memory */
    v->name = "struct";
    int bl[2] = {1, 1};
    MPI_Aint dp[2] = {0, 8};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE}, t;
    MPI_Type_create_struct(2, bl, dp, ty, &t);
    MPI_Type_create_resized(t, 0, 16 * P, &v->ftype);
    MPI_Type_free(&t);
    MPI_Type_commit(&v->ftype);
    v->etype = MPI_BYTE;
    v->disp = (MPI_Offset)me * 16;
    MPI_Type_create_struct(2, bl, dp, ty, &t);
    MPI_Type_create_resized(t, 0, 16, &v->mtype);
    MPI_Type_free(&t);
    MPI_Type_commit(&v->mtype);
    v->count = 20;
    v->mbytes = 16 * 20;
    break;
  }
  case 6: { /* darray: 2-D block-cyclic over a process grid */
    v->name = "darray";
    int pr = P % 2 == 0 ? 2 : 1, pc = P / pr;
    int gs[2] = {8, 12}, dist[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK};
    int dargs[2] = {2, MPI_DISTRIBUTE_DFLT_DARG}, ps[2] = {pr, pc};
    MPI_Type_create_darray(P, me, 2, gs, dist, dargs, ps, MPI_ORDER_C, MPI_INT, &v->ftype);
    MPI_Type_commit(&v->ftype);
    int sz;
    MPI_Type_size(v->ftype, &sz);
    v->count = sz / 4;
    break;
  }
  case 7: { /* a resized contiguous type: 3 ints in a slot of 3 * P, one slot each */
    v->name = "resized";
    MPI_Datatype t;
    MPI_Type_contiguous(3, MPI_INT, &t);
    MPI_Type_create_resized(t, 0, 12 * P, &v->ftype);
    MPI_Type_free(&t);
    MPI_Type_commit(&v->ftype);
    v->disp = (MPI_Offset)me * 12;
    v->count = 3 * 17;
    break;
  }
  case 8: /* rank 1 writes nothing; the others a block each */
    v->name = "zero_count";
    v->disp = 0;
    v->ftype = MPI_INT;
    v->at = 1;
    v->offset = (MPI_Offset)me * 50;
    v->count = me == 1 ? 0 : 50;
    break;
  case 9: { /* write_at_all through a vector view: offsets in etypes of the view */
    v->name = "write_at_all";
    MPI_Datatype t; /* tiles of 8 x 2P ints: the ranks' blocks never overlap */
    MPI_Type_vector(8, 2, 2 * P, MPI_INT, &t);
    MPI_Type_create_resized(t, 0, (MPI_Aint)8 * 2 * P * 4, &v->ftype);
    MPI_Type_free(&t);
    MPI_Type_commit(&v->ftype);
    v->disp = 8 + (MPI_Offset)me * 8;
    v->at = 1;
    v->offset = 6;
    v->count = 20;
    break;
  }
  case 10: /* two write_all calls: the individual pointer advances */
    v->name = "pointer";
    MPI_Type_vector(40, 1, P, MPI_INT, &v->ftype);
    MPI_Type_commit(&v->ftype);
    v->disp = (MPI_Offset)me * 4;
    v->count = 13;
    v->twice = 1;
    break;
  default:
    return 0;
  }
  if (!v->mbytes) {
    MPI_Aint lb, ext;
    MPI_Type_get_extent(v->mtype, &lb, &ext);
    v->mbytes = (size_t)ext * (size_t)v->count + 16;
  }
  return 1;
}

static unsigned char pattern(int rank, size_t i, int call) {
  return (unsigned char)(1 + (rank * 37 + i * 11 + call * 101) % 200);
}

static const char *cb_mode; /* romio_cb_write and _read for the views, or NULL */

static MPI_Info hints(const char *strategy, const char *cb_nodes, const char *cbs) {
  MPI_Info info;
  MPI_Info_create(&info);
  if (cb_mode) {
    MPI_Info_set(info, "romio_cb_write", cb_mode);
    MPI_Info_set(info, "romio_cb_read", cb_mode);
  }
  if (strategy) MPI_Info_set(info, "mpisw_cb_strategy", strategy);
  if (cb_nodes) MPI_Info_set(info, "cb_nodes", cb_nodes);
  if (cbs) MPI_Info_set(info, "cb_buffer_size", cbs);
  return info;
}

static void set_view(MPI_File fh, const struct view *v) {
  if (v->ftype != MPI_DATATYPE_NULL)
    CHECK_MPI(MPI_File_set_view(fh, v->disp, v->etype, v->ftype, "native", MPI_INFO_NULL));
}

/* The background: 4 KiB of BACKGROUND, so holes and the tail are seen. */
static void background(const char *path) {
  if (me == 0) {
    FILE *f = fopen(path, "wb");
    CHECK(f, "cannot create %s", path);
    unsigned char b[4096];
    memset(b, BACKGROUND, sizeof b);
    CHECK(fwrite(b, 1, sizeof b, f) == sizeof b, "short write of %s", path);
    fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void do_write(MPI_File fh, const struct view *v, unsigned char *buf, int call) {
  MPI_Status st;
  for (size_t i = 0; i < v->mbytes; i++) buf[i] = pattern(me, i, call);
  if (v->at)
    CHECK_MPI(MPI_File_write_at_all(fh, v->offset, buf, v->count, v->mtype, &st));
  else
    CHECK_MPI(MPI_File_write_all(fh, buf, v->count, v->mtype, &st));
  int n;
  MPI_Get_count(&st, v->mtype, &n);
  /* (Open MPI's ROMIO leaves the status of a count of 0 unset) */
  CHECK(n == v->count || v->count == 0, "%s: status count %d, wrote %d", v->name, n, v->count);
}

/* Reads the data back through the view and checks it: with the engine
 * (read_all / read_at_all) or with the MPI's independent reads on the same
 * handle, which must see the engine's bytes. */
static void read_back(MPI_File fh, const struct view *v, int via_mpi) {
  MPI_Datatype m = v->mtype;
  int sz;
  MPI_Type_size(m, &sz);
  size_t n = (size_t)sz * v->count + 1;
  unsigned char *buf = malloc(v->mbytes), *pat = malloc(v->mbytes);
  unsigned char *want = malloc(n), *got = malloc(n);
  if (!v->at) CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  for (int c = 0; c < (v->twice ? 2 : 1); c++) {
    memset(buf, 0, v->mbytes);
    for (size_t i = 0; i < v->mbytes; i++) pat[i] = pattern(me, i, c);
    int pos = 0;
    MPI_Pack(pat, v->count, m, want, (int)n, &pos, MPI_COMM_SELF);
    MPI_Status st;
    if (via_mpi) {
      if (v->at) CHECK_MPI(MPI_File_read_at(fh, v->offset, buf, v->count, m, &st));
      else CHECK_MPI(MPI_File_read(fh, buf, v->count, m, &st));
    } else if (v->at) {
      CHECK_MPI(MPI_File_read_at_all(fh, v->offset, buf, v->count, m, &st));
    } else {
      CHECK_MPI(MPI_File_read_all(fh, buf, v->count, m, &st));
    }
    pos = 0;
    MPI_Pack(buf, v->count, m, got, (int)n, &pos, MPI_COMM_SELF);
    for (int i = 0; i < sz * v->count; i++)
      CHECK(got[i] == want[i], "%s (%s): byte %d of the data read back is %d, not %d",
            v->name, via_mpi ? "the MPI's read" : "the engine's read", i, got[i], want[i]);
  }
  free(buf), free(pat), free(want), free(got);
}

/* Writes the view's data over the background; with check, reads it back
 * with the engine and then with the MPI on the same handle. */
static void write_file(const char *path, const struct view *v, MPI_Info info, int check) {
  background(path);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh));
  set_view(fh, v);
  unsigned char *buf = malloc(v->mbytes);
  do_write(fh, v, buf, 0);
  if (v->twice) do_write(fh, v, buf, 1);
  if (v->twice) {
    MPI_Offset pos;
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    int sz, esz;
    MPI_Type_size(v->mtype, &sz);
    MPI_Type_size(v->etype, &esz);
    CHECK(pos == (MPI_Offset)2 * v->count * sz / esz, "%s: pointer at %lld", v->name,
          (long long)pos);
  }
  free(buf);
  if (check) {
    read_back(fh, v, 0);
    read_back(fh, v, 1);
  }
  CHECK_MPI(MPI_File_close(&fh));
}

static unsigned char *slurp(const char *path, long *len) {
  FILE *f = fopen(path, "rb");
  CHECK(f, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  *len = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc((size_t)*len + 1);
  CHECK(fread(b, 1, (size_t)*len, f) == (size_t)*len, "short read of %s", path);
  fclose(f);
  return b;
}

static void compare(const char *ref, const char *got, const char *what) {
  int bad = 0;
  if (me == 0) {
    long n1, n2;
    unsigned char *a = slurp(ref, &n1), *b = slurp(got, &n2);
    if (n1 != n2) {
      tl_log("FAIL %s: %ld bytes, the MPI's file %ld", what, n2, n1);
      bad = 1;
    }
    for (long i = 0; !bad && i < n1; i++)
      if (a[i] != b[i]) {
        tl_log("FAIL %s: byte %ld is %d, the MPI's %d", what, i, b[i], a[i]);
        bad = 1;
      }
    free(a), free(b);
  }
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  CHECK(!bad, "%s: not the MPI's bytes", what);
}

static int views(int argc, char **argv) {
  /* "-": the default; argv[4]: a comma list of the views to run */
  const char *cb_nodes = argc > 2 && strcmp(argv[2], "-") ? argv[2] : NULL;
  const char *cbs = argc > 3 && strcmp(argv[3], "-") ? argv[3] : NULL;
  const char *only = argc > 4 && strcmp(argv[4], "-") ? argv[4] : NULL;
  cb_mode = argc > 5 ? argv[5] : NULL;
  int nviews = 0;
  struct view v;
  for (int k = 0; make_view(k, &v); k++) {
    char key[64];
    snprintf(key, sizeof key, ",%s,", v.name);
    char list[512];
    snprintf(list, sizeof list, ",%s,", only ? only : "");
    if (only && !strstr(list, key)) {
      free_view(&v);
      continue;
    }
    const char *ref = tl_path("%s_romio", v.name);
    MPI_Info none = hints("romio", NULL, cbs);
    write_file(ref, &v, none, 0);
    MPI_Info_free(&none);
    for (int s = 1; s < NSTRAT; s++) {
      MPI_Info info = hints(strategies[s], cb_nodes, cbs);
      const char *path = tl_path("%s_%s", v.name, strategies[s]);
      write_file(path, &v, info, 1);
      char what[128];
      snprintf(what, sizeof what, "view %s, strategy %s", v.name, strategies[s]);
      compare(ref, path, what);
      MPI_Info_free(&info);
    }
    free_view(&v);
    nviews++;
  }
  if (me == 0)
    printf("%d views x 3 strategies: byte-identical to the MPI's collective write, read back "
           "(cb_nodes=%s, cb_buffer_size=%s, romio_cb_write/read=%s)\n",
           nviews, cb_nodes ? cb_nodes : "default", cbs ? cbs : "default",
           cb_mode ? cb_mode : "default");
  return 0;
}


/* ---- errors: one error for every rank, never a hang ---- */
static int try_open(const char *path, MPI_Info info) {
  MPI_File fh;
  int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
  if (rc == MPI_SUCCESS) MPI_File_close(&fh);
  return rc;
}

static int errors(void) {
  const char *path = tl_path("errors");
  MPI_Info info = hints("fast", NULL, NULL);
  EXPECT_ERR(try_open(path, info), MPISW_ERR_HINT, "mpisw_cb_strategy='fast'", "otp, latp, tatp");
  MPI_Info_free(&info);
  info = hints("tatp", "0", NULL);
  EXPECT_ERR(try_open(path, info), MPISW_ERR_HINT, "cb_nodes='0'", "auto");
  MPI_Info_free(&info);
  info = hints("otp", "many", NULL);
  EXPECT_ERR(try_open(path, info), MPISW_ERR_HINT, "cb_nodes='many'", NULL);
  MPI_Info_free(&info);
  info = hints("otp", NULL, "-5");
  EXPECT_ERR(try_open(path, info), MPISW_ERR_HINT, "cb_buffer_size='-5'", NULL);
  MPI_Info_free(&info);
  info = hints("latp", NULL, NULL);
  MPI_Info_set(info, "romio_cb_write", "sometimes");
  EXPECT_ERR(try_open(path, info), MPISW_ERR_HINT, "romio_cb_write='sometimes'", NULL);
  MPI_Info_free(&info);
  info = hints("otp", NULL, NULL);
  MPI_Info_set(info, "mpisw_cb_write_behind", "maybe");
  EXPECT_ERR(try_open(path, info), MPISW_ERR_HINT,
             "mpisw_cb_write_behind: 'maybe' is not a boolean", NULL);
  MPI_Info_free(&info);
  info = hints("otp", NULL, NULL);
  MPI_Info_set(info, "mpisw_cb_place", "sometimes");
  EXPECT_ERR(try_open(path, info), MPISW_ERR_HINT, "mpisw_cb_place: 'sometimes' is not a boolean",
             NULL);
  MPI_Info_free(&info);
  /* without the engine, the MPI's keys are the MPI's: no error of ours */
  info = hints("romio", "many", NULL);
  int rc0 = try_open(path, info);
  CHECK(rc0 == MPI_SUCCESS || !strstr(tl_errstr(rc0), "mpisw"), "romio's cb_nodes: %s",
        tl_errstr(rc0));
  MPI_Info_free(&info);
  /* the last rank alone has a bad value: every rank fails with its message */
  info = hints(me == P - 1 ? "bogus" : "tatp", NULL, NULL);
  EXPECT_ERR(try_open(path, info), MPISW_ERR_HINT, "mpisw_cb_strategy='bogus'", NULL);
  MPI_Info_free(&info);
  if (P > 1) {
    /* ranks that disagree on the strategy, or on using the engine at all */
    info = hints(me == 0 ? "tatp" : "otp", NULL, NULL);
    EXPECT_ERR(try_open(path, info), MPISW_ERR_HINT, "ranks disagree on the collective I/O hints",
               NULL);
    MPI_Info_free(&info);
    info = hints(me == 0 ? "tatp" : "romio", NULL, NULL);
    EXPECT_ERR(try_open(path, info), MPISW_ERR_HINT, "ranks disagree", NULL);
    MPI_Info_free(&info);
    /* one collective call, two kinds: an error on every rank, no hang */
    info = hints("tatp", NULL, NULL);
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
    int x[4] = {1, 2, 3, 4}, rc;
    if (me == 0) rc = MPI_File_write_all(fh, x, 4, MPI_INT, MPI_STATUS_IGNORE);
    else rc = MPI_File_write_at_all(fh, 16 * me, x, 4, MPI_INT, MPI_STATUS_IGNORE);
    EXPECT_ERR(rc, MPISW_ERR_USAGE, "ranks disagree on the collective call", NULL);
    /* the file still works */
    CHECK_MPI(MPI_File_write_at_all(fh, 16 * me, x, 4, MPI_INT, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Info_free(&info);
  }
  /* a full disk under an aggregator (/dev/full): MPI_ERR_NO_SPACE on every rank */
  if (access("/dev/full", W_OK) == 0) {
    info = hints("tatp", NULL, NULL);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, "/dev/full", MPI_MODE_WRONLY, info, &fh);
    if (rc == MPI_SUCCESS) {
      int x[64] = {0}, cls;
      rc = MPI_File_write_at_all(fh, 256 * me, x, 64, MPI_INT, MPI_STATUS_IGNORE);
      MPI_Error_class(rc, &cls);
      CHECK(cls == MPI_ERR_NO_SPACE, "a write_all on /dev/full: %s", tl_errstr(rc));
      MPI_File_close(&fh);
    } else if (me == 0) {
      printf("errors: the MPI does not open /dev/full (%s): full-disk case not run\n",
             tl_errstr(rc));
    }
    MPI_Info_free(&info);
  }
  if (me == 0) printf("errors: every rank got the error\n");
  return 0;
}

/* MPISW_CB_STRATEGY or MPISW_TOPOLOGY is wrong (set by the test): the open fails
 * on every rank with kind argv[2], message argv[3]. */
static int env_error(int argc, char **argv) {
  CHECK(argc >= 4, "usage: t_cio enverror KIND TEXT");
  EXPECT_ERR(try_open(tl_path("envbad"), MPI_INFO_NULL), atoi(argv[2]), argv[3], NULL);
  return 0;
}

/* ---- report: the info keys, a case where TATP beats OTP, the other forms ---- */
static const char *info_val(MPI_File fh, const char *key) {
  static char v[MPI_MAX_INFO_VAL + 1];
  MPI_Info info;
  int flag = 0;
  CHECK_MPI(MPI_File_get_info(fh, &info));
  MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag);
  MPI_Info_free(&info);
  CHECK(flag, "MPI_File_get_info has no key %s", key);
  return v;
}

/* file: "" for an ordinary file, else a pooled file's name; env: the
 * strategy from MPISW_CB_STRATEGY (tatp), not the hint. */
static int report(const char *file, int env) {
  /* every rank its own node (MPISW_TOPO_HOSTNAME=n%r): one domain per rank.
   * Rank r writes the block that domain P-1-r covers: OTP (domain d to rank
   * d) moves every byte, LATP and TATP none. */
  const int n = 1024;
  int *x = malloc(sizeof(int) * n), *y = malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) x[i] = me * 100000 + i;
  const char *path = file[0] ? file : tl_path("report");
  MPI_Info info = hints(env ? NULL : "tatp", NULL, NULL);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
  CHECK(!strcmp(info_val(fh, "mpisw_cb_strategy"), "tatp"), "strategy key");
  CHECK(!strcmp(info_val(fh, "mpisw_cb_calls"), "0"), "calls before any");
  MPI_Offset at = (MPI_Offset)(P - 1 - me) * n * 4;
  CHECK_MPI(MPI_File_write_at_all(fh, at, x, n, MPI_INT, MPI_STATUS_IGNORE));
  CHECK(!strcmp(info_val(fh, "mpisw_cb_calls"), "1"), "calls after one");
  CHECK(!strcmp(info_val(fh, "mpisw_cb_call"), "write_at_all"), "call key");
  CHECK(atoi(info_val(fh, "mpisw_cb_domains")) == P, "%s domains, want %d",
        info_val(fh, "mpisw_cb_domains"), P);
  char want[256] = "";
  for (int d = 0; d < P; d++)
    snprintf(want + strlen(want), sizeof want - strlen(want), "%s%d", d ? "," : "", P - 1 - d);
  CHECK(!strcmp(info_val(fh, "mpisw_cb_aggregators"), want), "aggregators %s, want %s",
        info_val(fh, "mpisw_cb_aggregators"), want);
  double bytes = (double)n * 4 * P, otp = atof(info_val(fh, "mpisw_cb_hopbytes_otp"));
  CHECK(atof(info_val(fh, "mpisw_cb_hopbytes")) == 0, "TATP's hop-bytes %s",
        info_val(fh, "mpisw_cb_hopbytes"));
  CHECK(atof(info_val(fh, "mpisw_cb_hopbytes_tatp")) == 0, "tatp key");
  CHECK(atof(info_val(fh, "mpisw_cb_hopbytes_latp")) == 0, "latp key");
  /* OTP: every byte 2 hops away (flat default), except with one rank */
  CHECK(otp == (P > 1 ? 2 * bytes - (P % 2 ? 2 * n * 4 : 0) : 0), "OTP's hop-bytes %.0f", otp);
  CHECK(atof(info_val(fh, "mpisw_cb_bytes")) == bytes, "bytes key");
  CHECK(atof(info_val(fh, "mpisw_cb_max_link_load")) == 0, "link load %s with nothing moved",
        info_val(fh, "mpisw_cb_max_link_load"));
  const char *times[] = {"mpisw_cb_time_metadata", "mpisw_cb_time_assign",
                         "mpisw_cb_time_shuffle", "mpisw_cb_time_io"};
  for (int i = 0; i < 4; i++)
    CHECK(atof(info_val(fh, times[i])) >= 0 && atof(info_val(fh, times[i])) < 60, "%s=%s",
          times[i], info_val(fh, times[i]));
  CHECK(atoi(info_val(fh, "mpisw_cb_rounds")) >= 1, "rounds");
  /* the first call gathers C on its own; the same range again: C comes with
   * the agreement (one Allgather fewer), the same file and report */
  CHECK(!strcmp(info_val(fh, "mpisw_cb_matrix"), "own-gather"), "first call's matrix %s",
        info_val(fh, "mpisw_cb_matrix"));
  CHECK_MPI(MPI_File_write_at_all(fh, at, x, n, MPI_INT, MPI_STATUS_IGNORE));
  CHECK(!strcmp(info_val(fh, "mpisw_cb_matrix"), "with-agreement"), "second call's matrix %s",
        info_val(fh, "mpisw_cb_matrix"));
  CHECK(!strcmp(info_val(fh, "mpisw_cb_aggregators"), want), "aggregators again %s",
        info_val(fh, "mpisw_cb_aggregators"));
  CHECK(atof(info_val(fh, "mpisw_cb_hopbytes_otp")) == otp, "OTP's hop-bytes, guessed");

  /* OTP on the same data: the link of every node carries its block */
  MPI_Info_set(info, "mpisw_cb_strategy", "otp");
  CHECK_MPI(MPI_File_set_info(fh, info));
  CHECK_MPI(MPI_File_write_at_all(fh, at, x, n, MPI_INT, MPI_STATUS_IGNORE));
  CHECK(!strcmp(info_val(fh, "mpisw_cb_strategy"), "otp"), "set_info's strategy");
  if (P > 1 && P % 2 == 0)
    CHECK(atof(info_val(fh, "mpisw_cb_max_link_load")) == n * 4, "OTP's link load %s",
          info_val(fh, "mpisw_cb_max_link_load"));
  CHECK(atof(info_val(fh, "mpisw_cb_hopbytes")) == otp, "OTP's hop-bytes again");

  /* nonblocking and split forms, reads included */
  MPI_Request rq;
  MPI_Status st;
  int cnt;
  for (int i = 0; i < n; i++) x[i] = -i - me;
  CHECK_MPI(MPI_File_seek(fh, at / 4, MPI_SEEK_SET)); /* etype MPI_BYTE: offset in bytes */
  CHECK_MPI(MPI_File_seek(fh, at, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_iwrite_all(fh, x, n / 2, MPI_INT, &rq));
  CHECK_MPI(MPI_Wait(&rq, &st));
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == n / 2, "iwrite_all's count %d", cnt);
  CHECK_MPI(MPI_File_write_all_begin(fh, x + n / 2, n / 2, MPI_INT));
  CHECK_MPI(MPI_File_write_all_end(fh, x + n / 2, &st));
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == n / 2, "write_all_end's count %d", cnt);
  CHECK_MPI(MPI_File_iread_at_all(fh, at, y, n / 2, MPI_INT, &rq));
  CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_File_read_at_all_begin(fh, at + n * 2, y + n / 2, n / 2, MPI_INT));
  CHECK_MPI(MPI_File_read_at_all_end(fh, y + n / 2, &st));
  for (int i = 0; i < n; i++) CHECK(y[i] == -i - me, "read back %d: %d", i, y[i]);
  CHECK(!strcmp(info_val(fh, "mpisw_cb_calls"), "7"), "calls %s", info_val(fh, "mpisw_cb_calls"));
  /* blocks in rank order do not interleave: no two phases (ROMIO's rule) */
  CHECK_MPI(MPI_File_write_at_all(fh, (MPI_Offset)me * n * 4, x, n, MPI_INT, MPI_STATUS_IGNORE));
  CHECK(!strcmp(info_val(fh, "mpisw_cb_mode"), "independent"),
        "mode %s", info_val(fh, "mpisw_cb_mode"));
  CHECK_MPI(MPI_File_read_at_all(fh, (MPI_Offset)me * n * 4, y, n, MPI_INT, MPI_STATUS_IGNORE));
  for (int i = 0; i < n; i++) CHECK(y[i] == x[i], "independent read back %d: %d", i, y[i]);
  CHECK_MPI(MPI_File_write_at_all(fh, at, x, n, MPI_INT, MPI_STATUS_IGNORE));
  CHECK(P == 1 || !strcmp(info_val(fh, "mpisw_cb_mode"), "two-phase"), "mode %s",
        info_val(fh, "mpisw_cb_mode"));
  /* atomic mode: the MPI's own collective write, not the engine's */
  CHECK_MPI(MPI_File_set_atomicity(fh, 1));
  for (int i = 0; i < n; i++) x[i] = 7 * i + me;
  CHECK_MPI(MPI_File_write_at_all(fh, at, x, n, MPI_INT, MPI_STATUS_IGNORE));
  CHECK(!strcmp(info_val(fh, "mpisw_cb_calls"), "10"), "atomic mode: the engine took the call");
  CHECK_MPI(MPI_File_set_atomicity(fh, 0));
  CHECK_MPI(MPI_File_read_at_all(fh, at, y, n, MPI_INT, MPI_STATUS_IGNORE));
  for (int i = 0; i < n; i++) CHECK(y[i] == 7 * i + me, "after atomic mode %d: %d", i, y[i]);
  CHECK(!strcmp(info_val(fh, "mpisw_cb_calls"), "11"), "calls %s", info_val(fh, "mpisw_cb_calls"));
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Info_free(&info);
  free(x), free(y);
  if (me == 0)
    printf("report: info keys, TATP 0 hop-bytes where OTP %.0f, nonblocking and split, atomic "
           "mode left to the MPI\n", otp);
  return 0;
}

/* ---- pooled files ---- */
static const char *info_val(MPI_File fh, const char *key);

/* 1 when get_info has the key. */
static int info_has(MPI_File fh, const char *key) {
  MPI_Info info;
  char v[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  CHECK_MPI(MPI_File_get_info(fh, &info));
  MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag);
  MPI_Info_free(&info);
  return flag;
}

/* The whole pooled file (default view, independent reads on rank 0)
 * against the ordinary file ref. */
static void compare_pooled(const char *ref, MPI_File fh, const char *what) {
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  int bad = 0;
  if (me == 0) {
    long n1;
    unsigned char *a = slurp(ref, &n1);
    MPI_Offset n2;
    CHECK_MPI(MPI_File_get_size(fh, &n2));
    unsigned char *b = malloc((size_t)n2 + 1);
    CHECK_MPI(MPI_File_read_at(fh, 0, b, (int)n2, MPI_BYTE, MPI_STATUS_IGNORE));
    if (n1 != n2) {
      tl_log("FAIL %s: %lld bytes, the MPI's file %ld", what, (long long)n2, n1);
      bad = 1;
    }
    for (long i = 0; !bad && i < n1; i++)
      if (a[i] != b[i]) {
        tl_log("FAIL %s: byte %ld is %d, the MPI's %d", what, i, b[i], a[i]);
        bad = 1;
      }
    free(a), free(b);
  }
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  CHECK(!bad, "%s: not the MPI's bytes", what);
}

/* One view on the pooled file name with strategy s (0: none, pfile's own
 * path): the background, the writes, the reads back, the count of the
 * engine's calls, the bytes against ref; then the file is deleted. */
static void pool_view(const char *name, const struct view *v, int s, const char *cb_nodes,
                      const char *cbs, const char *ref) {
  MPI_Info info = hints(strategies[s], cb_nodes, cbs);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
  MPI_Info_free(&info);
  if (me == 0) { /* the background, by pfile's independent write */
    unsigned char b[4096];
    memset(b, BACKGROUND, sizeof b);
    CHECK_MPI(MPI_File_write_at(fh, 0, b, (int)sizeof b, MPI_BYTE, MPI_STATUS_IGNORE));
  }
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_sync(fh));
  set_view(fh, v);
  unsigned char *buf = malloc(v->mbytes);
  do_write(fh, v, buf, 0);
  if (v->twice) do_write(fh, v, buf, 1);
  free(buf);
  CHECK_MPI(MPI_File_sync(fh));
  read_back(fh, v, 0); /* the engine's reads */
  read_back(fh, v, 1); /* independent: pfile's */
  int calls = (v->twice ? 2 : 1) * 2;
  if (s == 0)
    CHECK(!info_has(fh, "mpisw_cb_calls"), "%s: the engine served a pooled file without a "
          "strategy", v->name);
  else
    CHECK(atoi(info_val(fh, "mpisw_cb_calls")) == calls, "%s, %s: the engine served %s calls, "
          "not %d", v->name, strategies[s], info_val(fh, "mpisw_cb_calls"), calls);
  char what[128];
  snprintf(what, sizeof what, "pooled file, view %s, strategy %s", v->name, strategies[s]);
  compare_pooled(ref, fh, what);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
  MPI_Barrier(MPI_COMM_WORLD);
}

static int pool(int argc, char **argv) {
  const char *cb_nodes = argc > 2 && strcmp(argv[2], "-") ? argv[2] : NULL;
  const char *cbs = argc > 3 && strcmp(argv[3], "-") ? argv[3] : NULL;
  const char *only = argc > 4 && strcmp(argv[4], "-") ? argv[4] : NULL;
  int nviews = 0;
  struct view v;
  for (int k = 0; make_view(k, &v); k++) {
    char key[64], list[512];
    snprintf(key, sizeof key, ",%s,", v.name);
    snprintf(list, sizeof list, ",%s,", only ? only : "");
    if (only && !strstr(list, key)) {
      free_view(&v);
      continue;
    }
    const char *ref = tl_path("%s_romio", v.name);
    MPI_Info none = hints("romio", NULL, cbs);
    write_file(ref, &v, none, 0);
    MPI_Info_free(&none);
    for (int s = 0; s < NSTRAT; s++) {
      char name[128];
      snprintf(name, sizeof name, "mem:t_cio_pool_%s_%s", v.name, strategies[s]);
      pool_view(name, &v, s, cb_nodes, cbs, ref);
    }
    free_view(&v);
    nviews++;
  }
  if (me == 0)
    printf("pooled files: %d views x 3 strategies (and pfile's own path) byte-identical to the "
           "MPI's collective write, read back (cb_nodes=%s, cb_buffer_size=%s)\n",
           nviews, cb_nodes ? cb_nodes : "default", cbs ? cbs : "default");
  return 0;
}

static int poolfull(void) {
  /* each rank 12 MiB in blocks of 1 KiB interleaved by rank: two phases */
  const int blk = 256, nblk = 12 * 1024;
  int *x = malloc(sizeof(int) * blk * nblk);
  for (int i = 0; i < blk * nblk; i++) x[i] = i + me;
  MPI_Datatype ft;
  MPI_Type_vector(nblk, blk, blk * P, MPI_INT, &ft);
  MPI_Type_commit(&ft);
  MPI_Info info = hints("tatp", NULL, NULL);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, "mem:t_cio_poolfull", MPI_MODE_RDWR | MPI_MODE_CREATE,
                          info, &fh));
  MPI_Info_free(&info);
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)me * blk * 4, MPI_INT, ft, "native",
                              MPI_INFO_NULL));
  int rc = MPI_File_write_all(fh, x, blk * nblk, MPI_INT, MPI_STATUS_IGNORE), cls = 0;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_NO_SPACE, "a full pool: class %d (%s)", cls, tl_errstr(rc));
  /* (MPICH 4.0 shows its class's own text for codes under MPI's classes) */
  CHECK(strncmp(tl_errstr(rc), "mpisw:", 6) ||
            strstr(tl_errstr(rc), "pool write of mem:t_cio_poolfull failed"),
        "message: %s", tl_errstr(rc));
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) CHECK_MPI(MPI_File_delete("mem:t_cio_poolfull", MPI_INFO_NULL));
  MPI_Type_free(&ft);
  free(x);
  if (me == 0) printf("full pool: MPI_ERR_NO_SPACE on every rank: %s\n", tl_errstr(rc));
  return 0;
}

/* ---- writes behind the shuffle (src/cio/behind.c) ---- */
/* Rank r's ints in blocks of blk, interleaved with the other ranks' blocks:
 * two phases; every rank its own node: P domains of n * 4 bytes, rounds of
 * cbs bytes. Int j of the file holds 3j + 1. Returns this rank's rounds,
 * the rounds it wrote behind and those it wrote from the messages. */
static void behind_write(const char *path, const char *wb, const char *place, int n, int blk,
                         const char *cbs, int *rounds, int *behind, int *direct, int *placed) {
  int *x = malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) x[i] = ((i / blk) * blk * P + me * blk + i % blk) * 3 + 1;
  MPI_Datatype ft;
  MPI_Type_vector(n / blk, blk, blk * P, MPI_INT, &ft);
  MPI_Type_commit(&ft);
  MPI_Info info = hints("tatp", NULL, cbs);
  MPI_Info_set(info, "mpisw_cb_write_behind", wb);
  MPI_Info_set(info, "mpisw_cb_place", place);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
  MPI_Info_free(&info);
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)me * blk * 4, MPI_INT, ft, "native",
                              MPI_INFO_NULL));
  CHECK_MPI(MPI_File_write_all(fh, x, n, MPI_INT, MPI_STATUS_IGNORE));
  *rounds = atoi(info_val(fh, "mpisw_cb_rounds"));
  *behind = atoi(info_val(fh, "mpisw_cb_rounds_behind"));
  *direct = atoi(info_val(fh, "mpisw_cb_rounds_direct"));
  *placed = atoi(info_val(fh, "mpisw_cb_rounds_placed"));
  /* the whole file, read by the MPI on the same handle */
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  int *all = malloc(sizeof(int) * n * P);
  CHECK_MPI(MPI_File_read_at(fh, 0, all, n * P, MPI_INT, MPI_STATUS_IGNORE));
  for (int j = 0; j < n * P; j++)
    CHECK(all[j] == j * 3 + 1, "%s (write behind %s): int %d is %d", path, wb, j, all[j]);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Type_free(&ft);
  free(all), free(x);
}

static int behind(void) {
  int rounds, wrote_behind, direct, placed;
  /* 4-byte pieces: copied into the collective buffer, written behind */
  behind_write(tl_path("behind"), "true", "false", 1024, 1, "256", &rounds, &wrote_behind,
               &direct, &placed);
  CHECK(rounds == 16, "rounds %d, want 16 (4096-byte domains, 256-byte buffer)", rounds);
  CHECK(wrote_behind == rounds, "rank %d aggregated %d rounds, wrote %d of them behind", me,
        rounds, wrote_behind);
  CHECK(direct == 0, "4-byte pieces: %d rounds written from the messages", direct);
  behind_write(tl_path("inline"), "false", "false", 1024, 1, "256", &rounds, &wrote_behind,
               &direct, &placed);
  CHECK(wrote_behind == 0, "mpisw_cb_write_behind=false: %d rounds behind", wrote_behind);
  compare(tl_path("inline"), tl_path("behind"), "written behind vs in line");
  /* 1 KiB pieces: written from the messages and the user's buffer (pwritev) */
  behind_write(tl_path("direct"), "1", "0", 4096, 256, "4096", &rounds, &wrote_behind, &direct,
               &placed);
  CHECK(rounds == 4 && wrote_behind == 4 && direct == 4, "1 KiB pieces: %d rounds, %d behind, "
        "%d direct (want 4 each)", rounds, wrote_behind, direct);
  behind_write(tl_path("direct_inline"), "0", "0", 4096, 256, "4096", &rounds, &wrote_behind,
               &direct, &placed);
  CHECK(wrote_behind == 0 && direct == 4, "in line: %d behind, %d direct", wrote_behind, direct);
  /* received into place (derived datatypes), behind and in line, both sizes */
  const char *pl_wb[2] = {"true", "false"};
  for (int k = 0; k < 4; k++) {
    behind_write(tl_path("placed%d", k), pl_wb[k % 2], "true", k < 2 ? 1024 : 4096,
                 k < 2 ? 1 : 256, k < 2 ? "256" : "4096", &rounds, &wrote_behind, &direct,
                 &placed);
    CHECK(placed == rounds && direct == 0 && wrote_behind == (k % 2 ? 0 : rounds),
          "placed (%s, %s pieces): %d rounds, %d placed, %d direct, %d behind", pl_wb[k % 2],
          k < 2 ? "4-byte" : "1 KiB", rounds, placed, direct, wrote_behind);
  }
  compare(tl_path("inline"), tl_path("placed0"), "received into place vs copied");
  compare(tl_path("direct"), tl_path("placed2"), "received into place vs written from messages");
  /* an erroneous program: every rank writes the same bytes; placed, the
   * overlapping pieces are laid in rank order: the last rank's bytes win */
  {
    int y[256], z[256];
    for (int i = 0; i < 256; i++) y[i] = (me + 1) * 1000 + i;
    MPI_Info info = hints("tatp", NULL, NULL);
    MPI_Info_set(info, "mpisw_cb_place", "true");
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, tl_path("overlap"), MPI_MODE_RDWR | MPI_MODE_CREATE,
                            info, &fh));
    MPI_Info_free(&info);
    CHECK_MPI(MPI_File_write_at_all(fh, 0, y, 256, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(P == 1 || atoi(info_val(fh, "mpisw_cb_rounds_placed")) == 0,
          "overlapping pieces counted as placed");
    CHECK_MPI(MPI_File_read_at(fh, 0, z, 256, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < 256; i++)
      CHECK(z[i] == P * 1000 + i, "overlap: int %d is %d, the last rank's %d", i, z[i],
            P * 1000 + i);
    CHECK_MPI(MPI_File_close(&fh));
  }
  /* a failed write on the thread: the error on every rank, after the rounds */
  if (access("/dev/full", W_OK) == 0) {
    MPI_Info info = hints("tatp", NULL, "64");
    MPI_Info_set(info, "mpisw_cb_write_behind", "true");
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, "/dev/full", MPI_MODE_WRONLY, info, &fh);
    if (rc == MPI_SUCCESS) {
      int x[256], cls;
      for (int i = 0; i < 256; i++) x[i] = i;
      MPI_Datatype ft;
      MPI_Type_vector(256, 1, P, MPI_INT, &ft);
      MPI_Type_commit(&ft);
      CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)me * 4, MPI_INT, ft, "native", MPI_INFO_NULL));
      rc = MPI_File_write_all(fh, x, 256, MPI_INT, MPI_STATUS_IGNORE);
      MPI_Error_class(rc, &cls);
      CHECK(cls == MPI_ERR_NO_SPACE, "write behind on /dev/full: %s", tl_errstr(rc));
      MPI_Type_free(&ft);
      MPI_File_close(&fh);
    } else if (me == 0) {
      printf("behind: the MPI does not open /dev/full (%s): full-disk case not run\n",
             tl_errstr(rc));
    }
    MPI_Info_free(&info);
  }
  if (me == 0)
    printf("behind: rounds written on the helper thread (4-byte pieces copied, 1 KiB pieces "
           "from the messages), the same files as in line\n");
  return 0;
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  CHECK(argc >= 2, "usage: t_cio views|errors|report ...");
  if (!strcmp(argv[1], "views")) views(argc, argv);
  else if (!strcmp(argv[1], "errors")) errors();
  else if (!strcmp(argv[1], "enverror")) env_error(argc, argv);
  else if (!strcmp(argv[1], "report"))
    report(argc > 2 ? argv[2] : "", argc > 3 && !strcmp(argv[3], "env"));
  else if (!strcmp(argv[1], "pool")) pool(argc, argv);
  else if (!strcmp(argv[1], "poolfull")) poolfull();
  else if (!strcmp(argv[1], "behind")) behind();
  else CHECK(0, "unknown mode %s", argv[1]);
  return tl_finish();
}
