/* Remote sync (docs/DURABILITY.md "Remote sync"): the time of MPI_Win_sync
 * on a storage window with storage_sync_scope=remote after rank 0 put
 * 1 MiB (--bytes) into a target's storage (kind "remote"), against the same
 * call after rank 0 wrote 1 MiB into its own storage (kind "local"). Only
 * the sync is timed: the put is flushed, the memcpy done, before the clock
 * starts. Both kinds run in interleaved rounds (A B, then B A, ...) on one
 * window; --aa measures "local" against "local2" (the noise). The target is
 * rank 1, or with --nodes 2 the first rank of the other simulated node
 * (MPICH's fork launcher, one host name per node: the program starts
 * itself under mpiexec.mpich with tests/tools/simhost.sh, --simhost).
 * The target waits in MPI_Barrier meanwhile, spinning on its CPU as a
 * computing target would; --nap makes it sleep 200 us between tests of an
 * MPI_Ibarrier instead (an idle target: cleaning its pages then needs no
 * TLB shootdown on another CPU, see docs/DURABILITY.md).
 *
 *   remote_sync_bench [--bytes N] [--rounds R] [--iters I] [--backend mmap|pager]
 *                     [--aa] [--nap] [--nodes 2 --simhost PATH] [--path DIR]
 *
 * One JSON line per round and kind: {"bench":"remote_sync","kind","backend",
 * "nodes","aa","nap","round","bytes","ranks","usec"} (usec per sync, rank 0). */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_mpi.h"
#include "bench_util.h"
#include "mpisw.h"

static size_t bytes = 1 << 20;
static long rounds = 10, iters = 20;
static const char *backend = "mmap", *dir = "/tmp", *simhost = NULL;
static int aa = 0, nodes = 1, nap = 0;

/* --nodes 2 outside MPI: this program again, on two simulated nodes. */
static void relaunch(int argc, char **argv) {
  if (getenv("PMI_RANK") || getenv("MPIR_CVAR_CH3_INTERFACE_HOSTNAME")) return;
#ifndef MPICH_VERSION
  printf("{\"bench\":\"remote_sync\",\"skipped\":\"simulated nodes need MPICH's fork "
         "launcher\"}\n");
  exit(0);
#endif
  if (!simhost) bench_die("--nodes 2 needs --simhost PATH (tests/tools/simhost.sh)");
  char **av = calloc((size_t)argc + 16, sizeof *av);
  int n = 0;
  const char *pre[] = {"mpiexec.mpich", "-launcher", "fork", "-hosts",
                       "mpisw-rsb-node0,mpisw-rsb-node1", "-ppn", "2", "-n", "4", "/bin/sh",
                       simhost, "/proc/self/exe"};
  for (size_t i = 0; i < sizeof pre / sizeof *pre; i++) av[n++] = (char *)pre[i];
  char self[4096];
  ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
  if (k <= 0) bench_die("readlink /proc/self/exe failed");
  self[k] = 0;
  av[n - 1] = self;
  for (int i = 1; i < argc; i++) av[n++] = argv[i];
  av[n] = NULL;
  fflush(stdout);
  execvp(av[0], av);
  bench_die("cannot run mpiexec.mpich: %s", strerror(errno));
}

static MPI_Win make(char **base) {
  char fn[4096];
  if ((size_t)snprintf(fn, sizeof fn, "%s/remote-sync-%%r.win", dir) >= sizeof fn)
    bench_die("--path is too long");
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_type", "storage");
  MPI_Info_set(info, "storage_alloc_filename", fn);
  MPI_Info_set(info, "storage_alloc_unlink", "true");
  MPI_Info_set(info, "storage_sync_scope", "remote");
  MPI_Info_set(info, "storage_backend", backend);
  MPI_Win win;
  int rc = MPI_Win_allocate((MPI_Aint)bytes * 2, 1, info, MPI_COMM_WORLD, base, &win);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) bench_die_mpi("MPI_Win_allocate", rc);
  char b[64];
  if (bench_win_info(win, "storage_backend", b, sizeof b) && strcmp(b, backend))
    bench_die("storage_backend=%s fell back to %s here", backend, b);
  memset(*base, 0, bytes * 2);
  return win;
}

/* usec of one MPI_Win_sync after 1 MiB was written: kind local (own
 * storage) or remote (a put into target). Different bytes each time, so
 * every page is dirty again. */
static double once(MPI_Win win, char *base, char *buf, int remote, int target, long it) {
  memset(buf, (int)(it & 0xff) + 1, bytes);
  if (remote) {
    bench_check_mpi(MPI_Put(buf, (int)bytes, MPI_BYTE, target, 0, (int)bytes, MPI_BYTE, win),
                    "MPI_Put");
    bench_check_mpi(MPI_Win_flush(target, win), "MPI_Win_flush");
  } else {
    memcpy(base, buf, bytes);
  }
  double t0 = bench_now();
  bench_check_mpi(MPI_Win_sync(win), "MPI_Win_sync");
  return (bench_now() - t0) * 1e6;
}

int main(int argc, char **argv) {
  static struct option longopts[] = {
      {"bytes", required_argument, NULL, 'b'}, {"rounds", required_argument, NULL, 'r'},
      {"iters", required_argument, NULL, 'i'}, {"backend", required_argument, NULL, 'k'},
      {"aa", no_argument, NULL, 'a'},          {"nap", no_argument, NULL, 'z'},
      {"nodes", required_argument, NULL, 'n'},
      {"simhost", required_argument, NULL, 's'}, {"path", required_argument, NULL, 'p'},
      {NULL, 0, NULL, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    if (c == 'b' && bench_parse_bytes(optarg, &bytes) == 0) continue;
    if (c == 'r') rounds = atol(optarg);
    else if (c == 'i') iters = atol(optarg);
    else if (c == 'k') backend = optarg;
    else if (c == 'a') aa = 1;
    else if (c == 'z') nap = 1;
    else if (c == 'n') nodes = atoi(optarg);
    else if (c == 's') simhost = optarg;
    else if (c == 'p') dir = optarg;
    else bench_die("usage: remote_sync_bench [--bytes N] [--rounds R] [--iters I] "
                   "[--backend mmap|pager] [--aa] [--nap] [--nodes 2 --simhost PATH] [--path DIR]");
  }
  if (nodes == 2) relaunch(argc, argv);
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int target = nodes == 2 ? size / 2 : 1;
  if (size <= target) bench_die("needs at least %d ranks", target + 1);
  char *base, *buf = malloc(bytes);
  if (!buf) bench_die("out of memory");
  MPI_Win win = make(&base);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  const char *kinds[2] = {"local", aa ? "local2" : "remote"};
  MPI_Barrier(MPI_COMM_WORLD);
  bench_check_mpi(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
  for (long r = 0; r < rounds; r++) {
    for (int j = 0; j < 2; j++) {
      int k = (r & 1) ? 1 - j : j;
      double sum = 0;
      if (rank == 0)
        for (long i = 0; i < iters; i++)
          sum += once(win, base, buf, !aa && k == 1, target, r * iters + i);
      /* the target stays in MPI meanwhile: MPICH's RMA needs it there */
      if (nap) { /* --nap: the target sleeps between tests instead of spinning */
        MPI_Request q;
        int flag = 0;
        MPI_Ibarrier(MPI_COMM_WORLD, &q);
        if (rank == 0) MPI_Wait(&q, MPI_STATUS_IGNORE);
        while (!flag && MPI_Test(&q, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && !flag)
          usleep(200);
      } else {
        MPI_Barrier(MPI_COMM_WORLD);
      }
      if (rank == 0)
        printf("{\"bench\":\"remote_sync\",\"kind\":\"%s\",\"backend\":\"%s\",\"nodes\":%d,"
               "\"aa\":%d,\"nap\":%d,\"round\":%ld,\"bytes\":%zu,\"ranks\":%d,\"usec\":%.3f}\n",
               kinds[k], backend, nodes, aa, nap, r, bytes, size, sum / (double)iters);
    }
  }
  bench_check_mpi(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
  MPI_Win_free(&win);
  free(buf);
  MPI_Finalize();
  return 0;
}
