/*
 * One-sided bandwidth on a dynamic window, the shape of well-known RMA
 * benchmarks (issue 21): MPI_Win_create_dynamic, MPI_Win_attach of malloc'ed
 * memory, displacements from MPI_Get_address, and rank 0 reading rank 1's
 * memory with windows of MPI_Get + MPI_Win_flush under MPI_Win_lock, sizes
 * 1 B to --max (4 MiB). Every byte fetched is checked.
 *
 * A plain MPI program: it does not link libmpisw, so the same binary runs
 * with and without the library preloaded (LD_PRELOAD + MPISW_HINTS). Open
 * MPI 4.1 with UCX 1.13 can crash in it on its own ("failed to unpack remote
 * key from remote md[3]: Shared memory error", SIGSEGV in ompi_osc_ucx_get);
 * see docs/TROUBLESHOOTING.md for the workaround.
 *
 * Run: mpiexec -n 2 t_dynamic_bw [--max BYTES] [--iters N] [--window W] [--quiet]
 *                               [--mmap]   (exposed memory from mmap, not malloc)
 * Exit status: 0 ok, 1 wrong data or an MPI error, 2 bad usage.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static int rank;

static void die(const char *what, int rc) {
  char s[MPI_MAX_ERROR_STRING] = "";
  int n = 0;
  if (rc != MPI_SUCCESS) MPI_Error_string(rc, s, &n);
  fprintf(stderr, "t_dynamic_bw: rank %d: %s%s%s\n", rank, what, n ? ": " : "", s);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

#define CK(call)                          \
  do {                                    \
    int rc_ = (call);                     \
    if (rc_ != MPI_SUCCESS) die(#call, rc_); \
  } while (0)

static unsigned char byte_at(size_t i) { return (unsigned char)(i * 7 + 3); }

int main(int argc, char **argv) {
  size_t max = (size_t)4 << 20;
  long iters = 10, window = 16;
  int quiet = 0, use_mmap = 0, nranks;
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--max") && i + 1 < argc) max = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atol(argv[++i]);
    else if (!strcmp(argv[i], "--window") && i + 1 < argc) window = atol(argv[++i]);
    else if (!strcmp(argv[i], "--quiet")) quiet = 1;
    else if (!strcmp(argv[i], "--mmap")) use_mmap = 1;
    else {
      if (rank == 0) fprintf(stderr, "usage: t_dynamic_bw [--max B] [--iters N] [--window W] [--quiet] [--mmap]\n");
      MPI_Finalize();
      return 2;
    }
  }
  if (nranks != 2 || max < 1 || iters < 1 || window < 1 || window > 1024) {
    if (rank == 0) fprintf(stderr, "t_dynamic_bw: needs 2 ranks and positive sizes\n");
    MPI_Finalize();
    return 2;
  }

  /* As the benchmarks do: for every size a new dynamic window, new malloc'ed
   * memory on both ranks (attached, its address sent to the peer), then
   * detach, free the window and the memory. New memory may come back at an
   * address an earlier window exposed. */
  int bad = 0;
  for (size_t size = 1; size <= max && !bad; size *= 2) {
    long w = size > ((size_t)1 << 20) ? 1 : window; /* big sizes: one get per flush */
    unsigned char *mem = use_mmap ? mmap(NULL, size, PROT_READ | PROT_WRITE,
                                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                                  : malloc(size);
    unsigned char *dst = malloc(size * (size_t)w);
    if (mem == MAP_FAILED) mem = NULL;
    if (!mem || !dst) die("out of memory", MPI_SUCCESS);
    for (size_t i = 0; i < size; i++) mem[i] = rank == 1 ? byte_at(i) : 0;
    memset(dst, 0, size * (size_t)w);
    MPI_Win win;
    CK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    CK(MPI_Win_attach(win, mem, (MPI_Aint)size));
    MPI_Aint mine, disp = 0;
    CK(MPI_Get_address(mem, &mine));
    CK(MPI_Sendrecv(&mine, 1, MPI_AINT, 1 - rank, 0, &disp, 1, MPI_AINT, 1 - rank, 0,
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (rank == 0) {
      CK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
      double t0 = MPI_Wtime();
      for (long it = 0; it < iters; it++) {
        for (long j = 0; j < w; j++)
          CK(MPI_Get(dst + (size_t)j * size, (int)size, MPI_BYTE, 1, disp, (int)size, MPI_BYTE,
                     win));
        CK(MPI_Win_flush(1, win));
      }
      double t = MPI_Wtime() - t0;
      CK(MPI_Win_unlock(1, win));
      for (long j = 0; j < w && !bad; j++)
        for (size_t i = 0; i < size; i++)
          if (dst[(size_t)j * size + i] != byte_at(i)) {
            fprintf(stderr, "t_dynamic_bw: size %zu get %ld byte %zu is %u, expected %u\n", size,
                    j, i, dst[(size_t)j * size + i], byte_at(i));
            bad = 1;
            break;
          }
      if (!quiet)
        printf("%zu %.2f MiB/s\n", size, (double)size * (double)(w * iters) / t / (1 << 20));
    }
    CK(MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD));
    CK(MPI_Win_detach(win, mem));
    CK(MPI_Win_free(&win));
    if (use_mmap) munmap(mem, size);
    else free(mem);
    free(dst);
  }
  MPI_Finalize();
  if (rank == 0 && !bad && !quiet) printf("t_dynamic_bw: ok\n");
  return bad;
}
