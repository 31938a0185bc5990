/* h5_roundtrip: an ordinary parallel HDF5 program (built with h5pcc.mpich,
 * nothing of mpisw in it) that writes through the MPI-IO driver and reads
 * the file back, byte-exact. The file name comes from the command line, so
 * the same binary writes a real file today and a pooled one (`mem:...`, or a
 * path that MPISW_MEM_PATHS matches) once libmpisw routes them.
 *
 *   h5_roundtrip FILE collective|independent   (any number of ranks)
 *       H5Pset_fapl_mpio on MPI_COMM_WORLD, H5Pset_dxpl_mpio with the mode;
 *       a contiguous int64 dataset (row blocks per rank), a chunked double
 *       dataset written in interleaved row strips (chunks shared by ranks),
 *       a chunked byte dataset with odd sizes, attributes on the file and on
 *       datasets; close, reopen read-only, check layouts, dimensions,
 *       attributes and every byte, each rank also reading a neighbour's part.
 *   h5_roundtrip --verify FILE NP   (one process, HDF5's POSIX driver)
 *       checks the file on disk holds what NP ranks wrote: proof that the
 *       data went through the MPI library to the real file.
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONTIG_ROWS 64   /* rows of "contig_i64" per rank */
#define CONTIG_COLS 1000
#define STRIP 5          /* "chunked_f64": strips of 5 rows, round robin */
#define STRIPS 10        /* strips per rank */
#define CHK_COLS 301
#define BYTES_PER_RANK 100003 /* "chunked_u8": odd on purpose */
#define TITLE "mpisw realprog h5_roundtrip"

static int rank_ = 0;

#define CHECK(cond, ...)                                                      \
  do {                                                                        \
    if (!(cond)) {                                                            \
      fprintf(stderr, "h5_roundtrip: rank %d: %s:%d: check failed: %s: ", rank_, \
              __FILE__, __LINE__, #cond);                                     \
      fprintf(stderr, __VA_ARGS__);                                           \
      fputc('\n', stderr);                                                    \
      MPI_Abort(MPI_COMM_WORLD, 1);                                           \
    }                                                                         \
  } while (0)
#define H5OK(call) CHECK((call) >= 0, "%s", "HDF5 call failed")

/* The values: a function of the global element index only, so any process
 * can say what any element must hold. */
static int64_t v_i64(hsize_t row, hsize_t col) {
  return (int64_t)(row * 1000003u + col * 7u) ^ (int64_t)0x5a5a5a5a5a5a5a5aLL;
}
static double v_f64(hsize_t row, hsize_t col) { return (double)row * 1024.0 + (double)col / 8.0 + 0.5; }
static uint8_t v_u8(hsize_t i) { return (uint8_t)((i * 2654435761u) >> 13); }

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  CHECK(p, "out of memory (%zu bytes)", n);
  return p;
}

/* Rows [r*CONTIG_ROWS, (r+1)*CONTIG_ROWS) of "contig_i64". */
static void fill_contig(int64_t *b, int r) {
  for (hsize_t i = 0; i < CONTIG_ROWS; i++)
    for (hsize_t j = 0; j < CONTIG_COLS; j++)
      b[i * CONTIG_COLS + j] = v_i64((hsize_t)r * CONTIG_ROWS + i, j);
}
/* Rank r's strips of "chunked_f64", in the order a hyperslab lists them:
 * strip s covers rows (s*np + r)*STRIP .. +STRIP. */
static void fill_strips(double *b, int r, int np) {
  size_t k = 0;
  for (hsize_t s = 0; s < STRIPS; s++)
    for (hsize_t i = 0; i < STRIP; i++)
      for (hsize_t j = 0; j < CHK_COLS; j++)
        b[k++] = v_f64((s * (hsize_t)np + (hsize_t)r) * STRIP + i, j);
}
static void fill_u8(uint8_t *b, hsize_t from, hsize_t n) {
  for (hsize_t i = 0; i < n; i++) b[i] = v_u8(from + i);
}

static void select_contig(hid_t space, int r) {
  hsize_t start[2] = {(hsize_t)r * CONTIG_ROWS, 0}, count[2] = {CONTIG_ROWS, CONTIG_COLS};
  H5OK(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL));
}
static void select_strips(hid_t space, int r, int np) {
  hsize_t start[2] = {(hsize_t)r * STRIP, 0}, stride[2] = {(hsize_t)np * STRIP, 1};
  hsize_t count[2] = {STRIPS, 1}, block[2] = {STRIP, CHK_COLS};
  H5OK(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, stride, count, block));
}
static void select_u8(hid_t space, int r) {
  hsize_t start[1] = {(hsize_t)r * BYTES_PER_RANK}, count[1] = {BYTES_PER_RANK};
  H5OK(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL));
}

static hid_t make_dataset(hid_t file, const char *name, hid_t type, int rank, const hsize_t *dims,
                          const hsize_t *chunk) {
  hid_t space = H5Screate_simple(rank, dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5OK(space);
  H5OK(dcpl);
  if (chunk) H5OK(H5Pset_chunk(dcpl, rank, chunk));
  else H5OK(H5Pset_layout(dcpl, H5D_CONTIGUOUS));
  hid_t d = H5Dcreate2(file, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5OK(d);
  H5OK(H5Pclose(dcpl));
  H5OK(H5Sclose(space));
  return d;
}

static void put_attr(hid_t obj, const char *name, hid_t type, hsize_t n, const void *v) {
  hid_t space = n ? H5Screate_simple(1, &n, NULL) : H5Screate(H5S_SCALAR);
  H5OK(space);
  hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5OK(a);
  H5OK(H5Awrite(a, type, v));
  H5OK(H5Aclose(a));
  H5OK(H5Sclose(space));
}

static void write_part(hid_t d, hid_t mtype, int sel, int np, hid_t dxpl, const void *buf) {
  hid_t fspace = H5Dget_space(d);
  H5OK(fspace);
  if (sel == 0) select_contig(fspace, rank_);
  else if (sel == 1) select_strips(fspace, rank_, np);
  else select_u8(fspace, rank_);
  hssize_t n = H5Sget_select_npoints(fspace);
  hsize_t mn = (hsize_t)n;
  hid_t mspace = H5Screate_simple(1, &mn, NULL);
  H5OK(mspace);
  H5OK(H5Dwrite(d, mtype, mspace, fspace, dxpl, buf));
  H5OK(H5Sclose(mspace));
  H5OK(H5Sclose(fspace));
}

static void write_file(const char *path, int np, hid_t fapl, hid_t dxpl) {
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  CHECK(f >= 0, "H5Fcreate(\"%s\") failed", path);
  hid_t str = H5Tcopy(H5T_C_S1);
  H5OK(H5Tset_size(str, sizeof TITLE));
  put_attr(f, "title", str, 0, TITLE);
  H5OK(H5Tclose(str));

  hsize_t cdims[2] = {(hsize_t)np * CONTIG_ROWS, CONTIG_COLS};
  hid_t dc = make_dataset(f, "contig_i64", H5T_STD_I64LE, 2, cdims, NULL);
  int nr = np;
  put_attr(dc, "nranks", H5T_NATIVE_INT, 1, &nr);
  hsize_t kdims[2] = {(hsize_t)np * STRIPS * STRIP, CHK_COLS}, kchunk[2] = {16, 37};
  hid_t dk = make_dataset(f, "chunked_f64", H5T_IEEE_F64LE, 2, kdims, kchunk);
  double scale[3] = {1024.0, 0.125, 0.5};
  put_attr(dk, "scale", H5T_NATIVE_DOUBLE, 3, scale);
  hsize_t udims[1] = {(hsize_t)np * BYTES_PER_RANK}, uchunk[1] = {4099};
  hid_t du = make_dataset(f, "chunked_u8", H5T_STD_U8LE, 1, udims, uchunk);

  int64_t *bc = xmalloc(sizeof *bc * CONTIG_ROWS * CONTIG_COLS);
  double *bk = xmalloc(sizeof *bk * STRIPS * STRIP * CHK_COLS);
  uint8_t *bu = xmalloc(BYTES_PER_RANK);
  fill_contig(bc, rank_);
  fill_strips(bk, rank_, np);
  fill_u8(bu, (hsize_t)rank_ * BYTES_PER_RANK, BYTES_PER_RANK);
  write_part(dc, H5T_NATIVE_INT64, 0, np, dxpl, bc);
  write_part(dk, H5T_NATIVE_DOUBLE, 1, np, dxpl, bk);
  write_part(du, H5T_NATIVE_UINT8, 2, np, dxpl, bu);
  free(bc);
  free(bk);
  free(bu);
  H5OK(H5Dclose(dc));
  H5OK(H5Dclose(dk));
  H5OK(H5Dclose(du));
  H5OK(H5Fclose(f));
}

static void check_attrs(hid_t f, hid_t dc, hid_t dk, int np) {
  char title[sizeof TITLE + 8] = {0};
  hid_t a = H5Aopen(f, "title", H5P_DEFAULT);
  H5OK(a);
  hid_t t = H5Aget_type(a);
  H5OK(t);
  CHECK(H5Tget_size(t) == sizeof TITLE, "attribute title has size %zu", H5Tget_size(t));
  H5OK(H5Aread(a, t, title));
  CHECK(strcmp(title, TITLE) == 0, "attribute title reads \"%s\"", title);
  H5OK(H5Tclose(t));
  H5OK(H5Aclose(a));
  int nr = -1;
  a = H5Aopen(dc, "nranks", H5P_DEFAULT);
  H5OK(a);
  H5OK(H5Aread(a, H5T_NATIVE_INT, &nr));
  CHECK(nr == np, "attribute nranks is %d, expected %d", nr, np);
  H5OK(H5Aclose(a));
  double scale[3] = {0, 0, 0};
  a = H5Aopen(dk, "scale", H5P_DEFAULT);
  H5OK(a);
  H5OK(H5Aread(a, H5T_NATIVE_DOUBLE, scale));
  CHECK(scale[0] == 1024.0 && scale[1] == 0.125 && scale[2] == 0.5, "attribute scale is %g %g %g",
        scale[0], scale[1], scale[2]);
  H5OK(H5Aclose(a));
}

static void check_shape(hid_t d, const char *name, H5D_layout_t layout, int rank, const hsize_t *want) {
  hid_t dcpl = H5Dget_create_plist(d);
  H5OK(dcpl);
  CHECK(H5Pget_layout(dcpl) == layout, "%s has layout %d, expected %d", name, (int)H5Pget_layout(dcpl),
        (int)layout);
  H5OK(H5Pclose(dcpl));
  hid_t s = H5Dget_space(d);
  hsize_t dims[2] = {0, 0};
  CHECK(H5Sget_simple_extent_ndims(s) == rank, "%s has %d dimensions", name, H5Sget_simple_extent_ndims(s));
  H5OK(H5Sget_simple_extent_dims(s, dims, NULL));
  for (int i = 0; i < rank; i++)
    CHECK(dims[i] == want[i], "%s dimension %d is %llu, expected %llu", name, i,
          (unsigned long long)dims[i], (unsigned long long)want[i]);
  H5OK(H5Sclose(s));
}

/* Reads the selection of rank `who` (sel as in write_part) into buf. */
static void read_part(hid_t d, hid_t mtype, int sel, int who, int np, hid_t dxpl, void *buf) {
  hid_t fspace = H5Dget_space(d);
  H5OK(fspace);
  if (sel == 0) select_contig(fspace, who);
  else if (sel == 1) select_strips(fspace, who, np);
  else select_u8(fspace, who);
  hsize_t mn = (hsize_t)H5Sget_select_npoints(fspace);
  hid_t mspace = H5Screate_simple(1, &mn, NULL);
  H5OK(mspace);
  H5OK(H5Dread(d, mtype, mspace, fspace, dxpl, buf));
  H5OK(H5Sclose(mspace));
  H5OK(H5Sclose(fspace));
}

static void check_bytes(const void *got, const void *want, size_t n, const char *what, int who) {
  if (memcmp(got, want, n) == 0) return;
  size_t i = 0;
  while (((const uint8_t *)got)[i] == ((const uint8_t *)want)[i]) i++;
  CHECK(0, "%s of rank %d differs at byte %zu of %zu (0x%02x, expected 0x%02x)", what, who, i, n,
        ((const uint8_t *)got)[i], ((const uint8_t *)want)[i]);
}

/* Every rank reads its own part and rank (r+1)'s of each dataset, byte-exact;
 * with an MPI-IO transfer list, HDF5 must report the I/O mode asked for. */
static void read_file(const char *path, int np, hid_t fapl, hid_t dxpl, int collective) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  CHECK(f >= 0, "H5Fopen(\"%s\") failed", path);
  hid_t dc = H5Dopen2(f, "contig_i64", H5P_DEFAULT);
  hid_t dk = H5Dopen2(f, "chunked_f64", H5P_DEFAULT);
  hid_t du = H5Dopen2(f, "chunked_u8", H5P_DEFAULT);
  H5OK(dc);
  H5OK(dk);
  H5OK(du);
  hsize_t cdims[2] = {(hsize_t)np * CONTIG_ROWS, CONTIG_COLS};
  hsize_t kdims[2] = {(hsize_t)np * STRIPS * STRIP, CHK_COLS};
  hsize_t udims[1] = {(hsize_t)np * BYTES_PER_RANK};
  check_shape(dc, "contig_i64", H5D_CONTIGUOUS, 2, cdims);
  check_shape(dk, "chunked_f64", H5D_CHUNKED, 2, kdims);
  check_shape(du, "chunked_u8", H5D_CHUNKED, 1, udims);
  check_attrs(f, dc, dk, np);

  size_t nc = sizeof(int64_t) * CONTIG_ROWS * CONTIG_COLS;
  size_t nk = sizeof(double) * STRIPS * STRIP * CHK_COLS;
  int64_t *gc = xmalloc(nc), *wc = xmalloc(nc);
  double *gk = xmalloc(nk), *wk = xmalloc(nk);
  uint8_t *gu = xmalloc(BYTES_PER_RANK), *wu = xmalloc(BYTES_PER_RANK);
  for (int k = 0; k < 2; k++) {
    int who = (rank_ + k) % np;
    fill_contig(wc, who);
    fill_strips(wk, who, np);
    fill_u8(wu, (hsize_t)who * BYTES_PER_RANK, BYTES_PER_RANK);
    memset(gc, 0, nc);
    memset(gk, 0, nk);
    memset(gu, 0, BYTES_PER_RANK);
    read_part(dc, H5T_NATIVE_INT64, 0, who, np, dxpl, gc);
    check_bytes(gc, wc, nc, "contig_i64", who);
    read_part(dk, H5T_NATIVE_DOUBLE, 1, who, np, dxpl, gk);
    check_bytes(gk, wk, nk, "chunked_f64", who);
    read_part(du, H5T_NATIVE_UINT8, 2, who, np, dxpl, gu);
    check_bytes(gu, wu, BYTES_PER_RANK, "chunked_u8", who);
  }
  if (dxpl != H5P_DEFAULT) {
    H5D_mpio_actual_io_mode_t m;
    H5OK(H5Pget_mpio_actual_io_mode(dxpl, &m));
    if (collective)
      CHECK(m != H5D_MPIO_NO_COLLECTIVE, "HDF5 did no collective I/O (actual io mode %d)", (int)m);
    else
      CHECK(m == H5D_MPIO_NO_COLLECTIVE, "independent transfer did collective I/O (mode %d)", (int)m);
  }
  free(gc);
  free(wc);
  free(gk);
  free(wk);
  free(gu);
  free(wu);
  H5OK(H5Dclose(dc));
  H5OK(H5Dclose(dk));
  H5OK(H5Dclose(du));
  H5OK(H5Fclose(f));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  int np;
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (argc == 4 && strcmp(argv[1], "--verify") == 0) {
    /* One process, HDF5's default (POSIX) driver: what is on disk. */
    int wnp = atoi(argv[3]);
    CHECK(wnp > 0, "bad rank count '%s'", argv[3]);
    rank_ = 0;
    read_file(argv[2], wnp, H5P_DEFAULT, H5P_DEFAULT, 0);
    printf("h5_roundtrip: %s on disk holds what %d ranks wrote\n", argv[2], wnp);
    MPI_Finalize();
    return 0;
  }
  if (argc != 3 || (strcmp(argv[2], "collective") && strcmp(argv[2], "independent"))) {
    if (rank_ == 0)
      fprintf(stderr, "usage: h5_roundtrip FILE collective|independent\n"
                      "       h5_roundtrip --verify FILE NP\n");
    MPI_Finalize();
    return 2;
  }
  const char *path = argv[1];
  int collective = strcmp(argv[2], "collective") == 0;
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5OK(fapl);
  H5OK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  H5OK(dxpl);
  H5OK(H5Pset_dxpl_mpio(dxpl, collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT));

  write_file(path, np, fapl, dxpl);
  MPI_Barrier(MPI_COMM_WORLD);
  read_file(path, np, fapl, dxpl, collective);
  H5OK(H5Pclose(dxpl));
  H5OK(H5Pclose(fapl));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_ == 0)
    printf("h5_roundtrip: %s: %d ranks, %s: wrote, reopened and read back byte-exact\n", path, np,
           argv[2]);
  MPI_Finalize();
  return 0;
}
