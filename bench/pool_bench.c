/* Micro-benchmark of the pool (src/pool/): what MPI_Init costs with it,
 * open+close of a pooled file, and write/read GB/s of one shared file at
 * transfer sizes 1 MiB and 100,000 B (sequential, each rank its own
 * interleaved slots, striped over all ranks), next to memcpy of the same
 * sizes. Linked with the static library (the pool's interface is internal).
 *   pool_bench [MiB per rank, default 256] [repetitions, default 3]
 * Prints one JSON line per measurement (rank 0); medians of the
 * repetitions, each the slowest rank's time. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "pool/pool.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return v[n / 2];
}

static int rank, nranks;

static double slowest(double t) {
  double m = t;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

static void die(const char *what, int rc, const struct mpisw_error *e) {
  fprintf(stderr, "pool_bench: rank %d: %s: %d %s\n", rank, what, rc, e->msg);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv) {
  double t0 = now();
  MPI_Init(&argc, &argv);
  double init = now() - t0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  init = slowest(init);
  uint64_t per_rank = (argc > 1 ? strtoull(argv[1], NULL, 10) : 256) << 20;
  int reps = argc > 2 ? atoi(argv[2]) : 3;
  if (rank == 0)
    printf("{\"what\":\"init\",\"ranks\":%d,\"pool\":%d,\"seconds\":%.6f}\n", nranks,
           mpisw_pool_ready(), init);
  if (!mpisw_pool_ready()) {
    MPI_Finalize();
    return 0;
  }
  struct mpisw_error e;
  struct mpisw_pool_file *f;
  int rc;
  /* open + close, 200 times (every rank its own name, then one shared) */
  double oc[200];
  char name[64];
  snprintf(name, sizeof name, "bench-oc-%d", rank);
  if ((rc = mpisw_pool_open(name, 1, 0, NULL, &f, &e))) die("open", rc, &e);
  mpisw_pool_close(f, &e);
  for (int i = 0; i < 200; i++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double s = now();
    if ((rc = mpisw_pool_open("bench-oc-shared", 1, 0, NULL, &f, &e))) die("open", rc, &e);
    mpisw_pool_close(f, &e);
    oc[i] = slowest(now() - s);
  }
  if (rank == 0)
    printf("{\"what\":\"open_close\",\"ranks\":%d,\"median_us\":%.2f}\n", nranks,
           median(oc, 200) * 1e6);

  uint64_t sizes[2] = {1 << 20, 100000};
  char *buf = malloc(sizes[0]), *dst = malloc(per_rank);
  memset(buf, 1, sizes[0]);
  memset(dst, 2, per_rank);
  for (int k = 0; k < 2; k++) {
    uint64_t ts = sizes[k], n = per_rank / ts;
    double w[16], r[16], m[16], tw[16], tr[16];
    for (int rep = 0; rep < reps && rep < 16; rep++) {
      snprintf(name, sizeof name, "bench-%llu", (unsigned long long)ts);
      if ((rc = mpisw_pool_open(name, 1, 0, NULL, &f, &e))) die("open", rc, &e);
      MPI_Barrier(MPI_COMM_WORLD);
      double s = now();
      for (uint64_t i = 0; i < n; i++)
        if ((rc = mpisw_pool_write(f, (i * (uint64_t)nranks + (uint64_t)rank) * ts, buf, ts, &e)))
          die("write", rc, &e);
      w[rep] = slowest(now() - s);
      s = now();
      for (uint64_t i = 0; i < n; i++) {
        uint64_t got;
        if ((rc = mpisw_pool_read(f, (i * (uint64_t)nranks + (uint64_t)rank) * ts, buf, ts, &got,
                                  &e)))
          die("read", rc, &e);
      }
      r[rep] = slowest(now() - s);
      s = now();
      for (uint64_t i = 0; i < n; i++) memcpy(dst + i * ts, buf, ts);
      m[rep] = slowest(now() - s);
      /* the same on a shared file in /dev/shm with pwrite/pread (what
       * ROMIO's ufs driver does there), for reference */
      char path[64];
      snprintf(path, sizeof path, "/dev/shm/pool_bench-%d", (int)getppid());
      int fd = open(path, O_RDWR | O_CREAT, 0600);
      MPI_Barrier(MPI_COMM_WORLD);
      s = now();
      for (uint64_t i = 0; i < n; i++)
        if (pwrite(fd, buf, ts, (off_t)((i * (uint64_t)nranks + (uint64_t)rank) * ts)) != (ssize_t)ts)
          die("pwrite", -1, &e);
      tw[rep] = slowest(now() - s);
      s = now();
      for (uint64_t i = 0; i < n; i++)
        if (pread(fd, buf, ts, (off_t)((i * (uint64_t)nranks + (uint64_t)rank) * ts)) != (ssize_t)ts)
          die("pread", -1, &e);
      tr[rep] = slowest(now() - s);
      close(fd);
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0) unlink(path);
      mpisw_pool_close(f, &e);
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0) mpisw_pool_delete(name, &e);
      MPI_Barrier(MPI_COMM_WORLD);
    }
    double bytes = (double)(n * ts) * nranks;
    if (rank == 0)
      printf("{\"what\":\"transfer\",\"ranks\":%d,\"transfer\":%llu,\"write_GBps\":%.2f,"
             "\"read_GBps\":%.2f,\"memcpy_GBps\":%.2f,\"devshm_write_GBps\":%.2f,"
             "\"devshm_read_GBps\":%.2f}\n",
             nranks, (unsigned long long)ts, bytes / median(w, reps) / 1e9,
             bytes / median(r, reps) / 1e9, bytes / median(m, reps) / 1e9,
             bytes / median(tw, reps) / 1e9, bytes / median(tr, reps) / 1e9);
  }
  free(buf);
  free(dst);
  MPI_Finalize();
  return 0;
}
