/*
 * An ordinary MPI program that knows nothing about mpisw (it is linked with
 * the MPI library only). tests/tools/preload.sh runs it with
 * LD_PRELOAD=libmpisw.so and MPISW_HINTS and then checks the files.
 *
 *   t_plain allocate SIZE   MPI_Win_allocate; rank r puts pattern r into rank r+1; MPI_Win_free
 *   t_plain allocmem SIZE   MPI_Alloc_mem + MPI_Win_create; the same puts; free; MPI_Free_mem
 *   t_plain dynamic SIZE    MPI_Win_create_dynamic + MPI_Alloc_mem + attach; puts at the
 *                           MPI_Get_address displacement; detach; free; MPI_Free_mem
 *   t_plain --verify FILE SEED SIZE      file starts with SIZE bytes of pattern SEED (no MPI)
 *   t_plain --verify-dir DIR NP SIZE     DIR holds NP files, each starting with the pattern of
 *                                        a different seed in 0..NP-1 (no MPI)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint8_t pat(unsigned seed, size_t pos) { /* same as tl_pat in testlib.h */
  uint32_t x = (uint32_t)seed * 0x9E3779B1u ^ (uint32_t)pos * 0x85EBCA77u ^ (uint32_t)(pos >> 32);
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  return (uint8_t)(x ^ (x >> 24));
}

static int rank = -1, size = 0;

#define CHK(c, ...)                                                        \
  do {                                                                     \
    if (!(c)) {                                                            \
      fprintf(stderr, "FAIL rank %d t_plain.c:%d: ", rank, __LINE__);      \
      fprintf(stderr, __VA_ARGS__);                                        \
      fprintf(stderr, "\n");                                               \
      if (rank >= 0) MPI_Abort(MPI_COMM_WORLD, 1);                         \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

/* Returns the seed whose pattern the file starts with (SIZE bytes), or -1. */
static int file_seed(const char *path, size_t n, int maxseed) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -2;
  uint8_t *b = malloc(n);
  size_t got = 0;
  while (got < n) {
    ssize_t r = pread(fd, b + got, n - got, (off_t)got);
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  int found = -1;
  if (got == n)
    for (int s = 0; s < maxseed && found < 0; s++) {
      size_t i = 0;
      while (i < n && b[i] == pat((unsigned)s, i)) i++;
      if (i == n) found = s;
    }
  free(b);
  return found;
}

static int verify(int argc, char **argv) {
  if (!strcmp(argv[1], "--verify") && argc == 5) {
    unsigned seed = (unsigned)atoi(argv[3]);
    size_t n = (size_t)atol(argv[4]);
    int s = file_seed(argv[2], n, (int)seed + 1);
    if (s == -2) {
      fprintf(stderr, "FAIL: %s does not exist\n", argv[2]);
      return 1;
    }
    if (s != (int)seed) {
      fprintf(stderr, "FAIL: %s does not start with %zu bytes of pattern %u\n", argv[2], n, seed);
      return 1;
    }
    return 0;
  }
  if (!strcmp(argv[1], "--verify-dir") && argc == 5) {
    int np = atoi(argv[3]);
    size_t n = (size_t)atol(argv[4]);
    int *seen = calloc((size_t)np, sizeof(int));
    DIR *d = opendir(argv[2]);
    if (!d) {
      fprintf(stderr, "FAIL: cannot open %s\n", argv[2]);
      return 1;
    }
    struct dirent *e;
    int files = 0, bad = 0;
    char p[4096];
    while ((e = readdir(d))) {
      if (e->d_name[0] == '.') continue;
      files++;
      snprintf(p, sizeof p, "%s/%s", argv[2], e->d_name);
      int s = file_seed(p, n, np);
      if (s < 0) {
        fprintf(stderr, "FAIL: %s does not start with the pattern of any rank\n", p);
        bad = 1;
      } else if (seen[s]++) {
        fprintf(stderr, "FAIL: two files hold the pattern of rank %d\n", s);
        bad = 1;
      }
    }
    closedir(d);
    if (files != np) {
      fprintf(stderr, "FAIL: %s holds %d files, expected %d (one per rank)\n", argv[2], files, np);
      bad = 1;
    }
    return bad;
  }
  fprintf(stderr, "usage: t_plain --verify FILE SEED SIZE | --verify-dir DIR NP SIZE\n");
  return 2;
}

/* Puts SIZE bytes of pattern <rank> into rank+1 at displacement disp[to]. */
static void ring_put(MPI_Win win, size_t n, const MPI_Aint *disp, int fence) {
  int to = (rank + 1) % size;
  uint8_t *src = malloc(n);
  for (size_t i = 0; i < n; i++) src[i] = pat((unsigned)rank, i);
  if (fence) {
    MPI_Win_fence(0, win);
    CHK(MPI_Put(src, (int)n, MPI_BYTE, to, disp ? disp[to] : 0, (int)n, MPI_BYTE, win) == MPI_SUCCESS, "put");
    MPI_Win_fence(0, win);
  } else {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, to, 0, win);
    CHK(MPI_Put(src, (int)n, MPI_BYTE, to, disp ? disp[to] : 0, (int)n, MPI_BYTE, win) == MPI_SUCCESS, "put");
    MPI_Win_unlock(to, win);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  free(src);
}

static void check_mem(const uint8_t *m, size_t n) {
  int from = (rank + size - 1) % size;
  for (size_t i = 0; i < n; i++)
    CHK(m[i] == pat((unsigned)from, i), "byte %zu of the window is not what rank %d put", i, from);
}

int main(int argc, char **argv) {
  if (argc > 1 && argv[1][0] == '-' && argv[1][1] == '-') return verify(argc, argv);
  if (argc != 3) {
    fprintf(stderr, "usage: t_plain allocate|allocmem|dynamic SIZE\n");
    return 2;
  }
  size_t n = (size_t)atol(argv[2]);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Win win;
  if (!strcmp(argv[1], "allocate")) {
    void *base;
    CHK(MPI_Win_allocate((MPI_Aint)n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win) == MPI_SUCCESS, "allocate");
    ring_put(win, n, NULL, 1);
    check_mem(base, n);
    MPI_Win_free(&win);
  } else if (!strcmp(argv[1], "allocmem")) {
    void *p;
    CHK(MPI_Alloc_mem((MPI_Aint)n, MPI_INFO_NULL, &p) == MPI_SUCCESS, "alloc_mem");
    CHK(MPI_Win_create(p, (MPI_Aint)n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS, "win_create");
    ring_put(win, n, NULL, 1);
    check_mem(p, n);
    MPI_Win_free(&win);
    MPI_Free_mem(p);
  } else if (!strcmp(argv[1], "dynamic")) {
    void *p;
    CHK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS, "create_dynamic");
    CHK(MPI_Alloc_mem((MPI_Aint)n, MPI_INFO_NULL, &p) == MPI_SUCCESS, "alloc_mem");
    CHK(MPI_Win_attach(win, p, (MPI_Aint)n) == MPI_SUCCESS, "attach");
    MPI_Aint a, *all = malloc(sizeof(MPI_Aint) * (size_t)size);
    MPI_Get_address(p, &a);
    MPI_Allgather(&a, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
    ring_put(win, n, all, 0);
    check_mem(p, n);
    MPI_Win_detach(win, p);
    MPI_Win_free(&win);
    MPI_Free_mem(p);
    free(all);
  } else {
    CHK(0, "unknown mode %s", argv[1]);
  }
  MPI_Finalize();
  return 0;
}
