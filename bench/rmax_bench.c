/*
 * rmax_bench: the paper's section 7 on the RMA extensions (2 ranks; rank 0
 * is the origin, rank 1 the target, which only waits in barriers).
 *
 *   --test latency  put and get of 1 B .. 1 MiB, each followed by a flush,
 *                   through an allocated window, a dynamic window (memory
 *                   attached, address as displacement) and a memory-handle
 *                   window (MPI_Alloc_mem memory: the arena); with
 *                   --create also window creation and free per operation
 *                   (allocated: MPI_Win_allocate + free; dynamic:
 *                   MPI_Win_create_dynamic + attach + address exchange +
 *                   detach + free, both collective; memhandle:
 *                   MPIX_Win_from_memhandle + free, local)
 *   --test threads  8-byte put + flush by 1..8 threads (MPI_THREAD_MULTIPLE)
 *                   through windows with mpi_win_scope=process and =thread
 *   --test order    puts through an mpi_win_order=true window with one flush
 *                   at the end ("ordered"), vs a flush after each put
 *                   ("flush"), vs no ordering at all ("unordered")
 *
 * Output: one JSON line per measurement on rank 0's stdout, e.g.
 *   {"bench":"rmax","test":"latency","op":"put","kind":"memhandle",
 *    "create":false,"bytes":65536,"iters":200,"usec":12.3,"ranks":2}
 * "usec" is the median time of one operation with its flush (timed in
 * batches of 16 up to 4 KiB; the mean with --create and for threads/order,
 * which time whole loops). The effective
 * mpi_win_scope / mpi_win_order values are reported as "effective".
 * Run: mpiexec -n 2 rmax_bench [--test latency|threads|order|all] [--create]
 *      [--iters N] [--max BYTES] [--threads N]
 */
#include <getopt.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_mpi.h"
#include "bench_util.h"
#include "mpisw.h"

enum { ORIGIN = 0, TARGET = 1 };
static int rank, nranks;
static long opt_iters = 200;
static size_t opt_max = (size_t)1 << 20;
static int opt_threads = 8;

static const size_t sizes[] = {1, 8, 64, 512, 4096, 32768, 65536, 262144, 1048576};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static long iters_for(size_t bytes, int create) {
  long it = opt_iters;
  if (create) it = it / 4 > 10 ? it / 4 : 10;
  long cap = (long)((256u << 20) / (bytes ? bytes : 1)); /* bytes moved per size */
  if (it > cap) it = cap;
  return it < 10 ? 10 : it;
}

static const char *effective(MPI_Win w, const char *key) {
  static char v[4][64];
  static int i;
  char *out = v[i++ % 4];
  if (!bench_win_info(w, key, out, 64)) strcpy(out, "?");
  return out;
}

/* ---- latency ---- */
struct target_mem {
  MPI_Win parent;   /* the window RMA is synchronized on */
  MPI_Win via;      /* the window RMA goes through */
  MPI_Aint disp0;   /* displacement of the buffer's first byte */
  void *mem;        /* target: what to free */
  char handle[MPIX_MAX_MEMHANDLE_SIZE];
};

static void setup(const char *kind, size_t bytes, struct target_mem *t) {
  memset(t, 0, sizeof *t);
  if (!strcmp(kind, "allocated")) {
    MPI_CHECK(MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &t->mem,
                               &t->parent));
    MPI_CHECK(MPI_Win_set_errhandler(t->parent, MPI_ERRORS_RETURN));
    t->via = t->parent;
    return;
  }
  MPI_CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &t->parent));
  MPI_CHECK(MPI_Win_set_errhandler(t->parent, MPI_ERRORS_RETURN));
  t->via = t->parent;
  if (!strcmp(kind, "dynamic")) {
    if (rank == TARGET) {
      t->mem = malloc(bytes);
      if (!t->mem) bench_die("malloc of %zu bytes: %s", bytes, strerror(errno));
      memset(t->mem, 0, bytes);
      MPI_CHECK(MPI_Win_attach(t->parent, t->mem, (MPI_Aint)bytes));
      MPI_Get_address(t->mem, &t->disp0);
    }
    MPI_Bcast(&t->disp0, 1, MPI_AINT, TARGET, MPI_COMM_WORLD);
    return;
  }
  /* memhandle: MPI_Alloc_mem memory (the arena when enabled) */
  if (rank == TARGET) {
    int hs;
    MPI_CHECK(MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &t->mem));
    memset(t->mem, 0, bytes);
    MPI_CHECK(MPIX_Memhandle_create(t->mem, (MPI_Aint)bytes, t->parent, t->handle, &hs));
  }
  MPI_Bcast(t->handle, sizeof t->handle, MPI_BYTE, TARGET, MPI_COMM_WORLD);
  if (rank == ORIGIN)
    MPI_CHECK(MPIX_Win_from_memhandle(t->handle, (MPI_Aint)bytes, 1, MPI_INFO_NULL, TARGET,
                                      t->parent, &t->via));
}

static void teardown(const char *kind, struct target_mem *t) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (!strcmp(kind, "memhandle")) {
    if (rank == ORIGIN) MPI_CHECK(MPI_Win_free(&t->via));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == TARGET) {
      MPI_CHECK(MPIX_Memhandle_release(t->handle, t->parent));
      MPI_CHECK(MPI_Free_mem(t->mem));
    }
  } else if (!strcmp(kind, "dynamic") && rank == TARGET) {
    MPI_CHECK(MPI_Win_detach(t->parent, t->mem));
    free(t->mem);
  }
  MPI_CHECK(MPI_Win_free(&t->parent));
}

static void one_op(int put, void *buf, size_t b, struct target_mem *t) {
  if (put) MPI_CHECK(MPI_Put(buf, (int)b, MPI_BYTE, TARGET, t->disp0, (int)b, MPI_BYTE, t->via));
  else MPI_CHECK(MPI_Get(buf, (int)b, MPI_BYTE, TARGET, t->disp0, (int)b, MPI_BYTE, t->via));
  MPI_CHECK(MPI_Win_flush(TARGET, t->via));
}

/* usec: the median of single operations when timed one by one (robust to
 * the other jobs on a shared machine), else the mean; usec_mean: the mean. */
static void emit_latency(const char *op, const char *kind, int create, size_t b, long it, double sec,
                         double med) {
  if (rank != ORIGIN) return;
  double mean = sec / (double)it * 1e6;
  printf("{\"bench\":\"rmax\",\"test\":\"latency\",\"op\":\"%s\",\"kind\":\"%s\",\"create\":%s,"
         "\"bytes\":%zu,\"iters\":%ld,\"usec\":%.4f,\"usec_mean\":%.4f,\"ranks\":%d}\n",
         op, kind, create ? "true" : "false", b, it, med > 0 ? med * 1e6 : mean, mean, nranks);
  fflush(stdout);
}

static void latency_steady(const char *kind, char *buf) {
  struct target_mem t;
  setup(kind, opt_max, &t);
  if (rank == ORIGIN) MPI_CHECK(MPI_Win_lock_all(0, t.parent));
  for (int put = 1; put >= 0; put--)
    for (size_t s = 0; s < NSIZES && sizes[s] <= opt_max; s++) {
      size_t b = sizes[s];
      long it = iters_for(b, 0);
      double sec = 0, med = 0;
      if (rank == ORIGIN) {
        /* timed in batches: a clock read costs about as much as a small op */
        long batch = b <= 4096 ? 16 : 1, nb = (it + batch - 1) / batch;
        it = nb * batch;
        double *one = malloc((size_t)nb * sizeof *one);
        if (!one) bench_die("malloc of %zu bytes: %s", (size_t)nb * sizeof *one, strerror(errno));
        for (int w = 0; w < 5; w++) one_op(put, buf, b, &t);
        double t0 = MPI_Wtime();
        for (long i = 0; i < nb; i++) {
          double a = MPI_Wtime();
          for (long j = 0; j < batch; j++) one_op(put, buf, b, &t);
          one[i] = (MPI_Wtime() - a) / (double)batch;
        }
        sec = MPI_Wtime() - t0;
        qsort(one, (size_t)nb, sizeof *one, bench_cmp_double);
        med = one[nb / 2];
        free(one);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      emit_latency(put ? "put" : "get", kind, 0, b, it, sec, med);
    }
  if (rank == ORIGIN) MPI_CHECK(MPI_Win_unlock_all(t.parent));
  teardown(kind, &t);
}

/* Window creation and free inside the timed loop. */
static void latency_create(const char *kind, char *buf) {
  for (int put = 1; put >= 0; put--)
    for (size_t s = 0; s < NSIZES && sizes[s] <= opt_max; s++) {
      size_t b = sizes[s];
      long it = iters_for(b, 1);
      double t0 = MPI_Wtime(), sec = 0;
      if (!strcmp(kind, "allocated") || !strcmp(kind, "dynamic")) {
        /* collective: create (dynamic: attach, address to the origin), one
         * operation in a lock epoch, free */
        for (long i = 0; i < it; i++) {
          struct target_mem t;
          setup(kind, b, &t);
          if (rank == ORIGIN) {
            MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, TARGET, 0, t.parent));
            one_op(put, buf, b, &t);
            MPI_CHECK(MPI_Win_unlock(TARGET, t.parent));
          }
          if (!strcmp(kind, "dynamic")) {
            teardown(kind, &t);
          } else {
            MPI_CHECK(MPI_Win_free(&t.parent));
          }
        }
        sec = MPI_Wtime() - t0;
      } else { /* memhandle: the handle exists; each window is made from it */
        struct target_mem t;
        setup(kind, b, &t);
        if (rank == ORIGIN) {
          MPI_CHECK(MPI_Win_free(&t.via));
          MPI_CHECK(MPI_Win_lock_all(0, t.parent));
          t0 = MPI_Wtime();
          for (long i = 0; i < it; i++) {
            MPI_CHECK(MPIX_Win_from_memhandle(t.handle, (MPI_Aint)b, 1, MPI_INFO_NULL, TARGET,
                                              t.parent, &t.via));
            one_op(put, buf, b, &t);
            MPI_CHECK(MPI_Win_free(&t.via));
          }
          sec = MPI_Wtime() - t0;
          MPI_CHECK(MPI_Win_unlock_all(t.parent));
          MPI_CHECK(MPIX_Win_from_memhandle(t.handle, (MPI_Aint)b, 1, MPI_INFO_NULL, TARGET,
                                            t.parent, &t.via)); /* for teardown */
        }
        teardown(kind, &t);
      }
      emit_latency(put ? "put" : "get", kind, 1, b, it, sec, 0);
    }
}

/* ---- threads ---- */
struct thr {
  MPI_Win w;
  int id;
  long iters;
  pthread_barrier_t *bar;
  double sec;
};

static void *thread_main(void *arg) {
  struct thr *t = arg;
  int64_t v = t->id;
  pthread_barrier_wait(t->bar);
  double t0 = MPI_Wtime();
  for (long i = 0; i < t->iters; i++) {
    MPI_CHECK(MPI_Put(&v, 8, MPI_BYTE, TARGET, (MPI_Aint)t->id * 64, 8, MPI_BYTE, t->w));
    MPI_CHECK(MPI_Win_flush(TARGET, t->w));
  }
  t->sec = MPI_Wtime() - t0;
  return NULL;
}

static void threads_test(void) {
  void *base;
  MPI_Win win;
  MPI_CHECK(MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  MPI_CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  for (int scope = 0; scope < 2; scope++) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_win_scope", scope ? "thread" : "process");
    MPI_Win w;
    MPI_CHECK(MPIX_Win_dup_with_info(win, info, &w));
    MPI_Info_free(&info);
    const char *eff = effective(w, "mpi_win_scope");
    if (rank == ORIGIN) MPI_CHECK(MPI_Win_lock_all(0, w));
    for (int n = 1; n <= opt_threads; n *= 2) {
      double mean = 0, worst = 0;
      long it = opt_iters * 5;
      if (rank == ORIGIN) {
        pthread_t tid[64];
        struct thr th[64];
        pthread_barrier_t bar;
        pthread_barrier_init(&bar, NULL, (unsigned)n);
        for (int i = 0; i < n; i++) {
          th[i] = (struct thr){w, i, it, &bar, 0};
          pthread_create(&tid[i], NULL, thread_main, &th[i]);
        }
        for (int i = 0; i < n; i++) {
          pthread_join(tid[i], NULL);
          mean += th[i].sec / n;
          if (th[i].sec > worst) worst = th[i].sec;
        }
        pthread_barrier_destroy(&bar);
        printf("{\"bench\":\"rmax\",\"test\":\"threads\",\"scope\":\"%s\",\"effective\":\"%s\","
               "\"threads\":%d,\"bytes\":8,\"iters\":%ld,\"usec\":%.4f,\"usec_worst\":%.4f,"
               "\"ranks\":%d}\n",
               scope ? "thread" : "process", eff, n, it, mean / (double)it * 1e6,
               worst / (double)it * 1e6, nranks);
        fflush(stdout);
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == ORIGIN) MPI_CHECK(MPI_Win_unlock_all(w));
    MPI_CHECK(MPI_Win_free(&w));
  }
  MPI_CHECK(MPI_Win_free(&win));
}

/* ---- order ---- */
static void order_test(char *buf) {
  void *base;
  MPI_Win win, ord;
  const size_t maxb = opt_max < 65536 ? opt_max : 65536;
  MPI_CHECK(MPI_Win_allocate((MPI_Aint)maxb * 2, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  MPI_CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpi_win_order", "true");
  MPI_CHECK(MPIX_Win_dup_with_info(win, info, &ord));
  MPI_Info_free(&info);
  const char *eff = effective(ord, "mpi_win_order");
  if (rank == ORIGIN) MPI_CHECK(MPI_Win_lock_all(0, win));
  static const char *modes[] = {"ordered", "flush", "unordered"};
  for (size_t s = 0; s < NSIZES && sizes[s] <= maxb; s++) {
    size_t b = sizes[s];
    long it = iters_for(b, 0);
    for (int m = 0; m < 3; m++) {
      MPI_Win w = m == 0 ? ord : win;
      if (rank == ORIGIN) {
        double t0 = MPI_Wtime();
        for (long i = 0; i < it; i++) {
          /* alternate two places, as a data-then-flag sequence would */
          MPI_CHECK(MPI_Put(buf, (int)b, MPI_BYTE, TARGET, (MPI_Aint)((i & 1) * maxb), (int)b,
                            MPI_BYTE, w));
          if (m == 1) MPI_CHECK(MPI_Win_flush(TARGET, w));
        }
        MPI_CHECK(MPI_Win_flush(TARGET, w));
        double sec = MPI_Wtime() - t0;
        printf("{\"bench\":\"rmax\",\"test\":\"order\",\"mode\":\"%s\",\"effective\":\"%s\","
               "\"bytes\":%zu,\"iters\":%ld,\"usec\":%.4f,\"ranks\":%d}\n",
               modes[m], m == 0 ? eff : "false", b, it, sec / (double)it * 1e6, nranks);
        fflush(stdout);
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  if (rank == ORIGIN) MPI_CHECK(MPI_Win_unlock_all(win));
  MPI_CHECK(MPI_Win_free(&ord));
  MPI_CHECK(MPI_Win_free(&win));
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided); /* a failure here aborts */
  MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
  const char *test = "all";
  int create = 0;
  static struct option lo[] = {{"test", 1, 0, 't'},  {"create", 0, 0, 'c'}, {"iters", 1, 0, 'i'},
                               {"max", 1, 0, 'm'},   {"threads", 1, 0, 'n'}, {0, 0, 0, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
    switch (c) {
    case 't': test = optarg; break;
    case 'c': create = 1; break;
    case 'i': opt_iters = atol(optarg); break;
    case 'm':
      if (bench_parse_bytes(optarg, &opt_max)) goto usage;
      break;
    case 'n': opt_threads = atoi(optarg); break;
    default: goto usage;
    }
  }
  if (nranks != 2 || opt_iters <= 0 || opt_threads < 1 || opt_threads > 64) goto usage;
  char *buf = malloc(opt_max);
  if (!buf) bench_die("malloc of %zu bytes: %s", opt_max, strerror(errno));
  memset(buf, 7, opt_max);
  int all = !strcmp(test, "all");
  if (all || !strcmp(test, "latency")) {
    static const char *kinds[] = {"allocated", "dynamic", "memhandle"};
    for (int k = 0; k < 3; k++) {
      if (!create) {
        latency_steady(kinds[k], buf);
        continue;
      }
#ifdef OPEN_MPI
      /* Open MPI 4.1 osc/ucx crashes (SIGSEGV in ucp_ep_rkey_unpack) on a get
       * through a dynamic window re-created over a re-attached region */
      if (k == 1) {
        if (rank == ORIGIN) fprintf(stderr, "rmax_bench: dynamic --create skipped on Open MPI\n");
        continue;
      }
#endif
      latency_create(kinds[k], buf);
    }
  }
  if (all || !strcmp(test, "threads")) {
    if (provided < MPI_THREAD_MULTIPLE) {
      if (rank == ORIGIN) fprintf(stderr, "rmax_bench: no MPI_THREAD_MULTIPLE, threads test skipped\n");
    } else {
      threads_test();
    }
  }
  if (all || !strcmp(test, "order")) order_test(buf);
  free(buf);
  MPI_Finalize();
  return 0;
usage:
  if (rank == 0)
    fprintf(stderr, "usage: mpiexec -n 2 rmax_bench [--test latency|threads|order|all] [--create] "
                    "[--iters N] [--max BYTES] [--threads N]\n");
  MPI_Finalize();
  return 2;
}
