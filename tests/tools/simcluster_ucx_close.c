/* simcluster_ucx_close.so: preloaded into the ranks of the simulated
 * cluster (simcluster.sh run). MPICH 4.0's MPI_Finalize closes every UCX
 * endpoint (ucp_disconnect_nb) and spins until all the closes complete;
 * over UCX 1.13's TCP transport one of them sometimes never completes
 * (the TCP interface stops progressing, openucx/ucx#8738; also on one
 * machine: UCX_TLS=tcp,self mpiexec.mpich -n 4), and the job hangs after
 * its work is done. This shim gives those closes SIMCLUSTER_CLOSE_TIMEOUT
 * seconds (1) from the first one, then reports the rest complete (once, on
 * stderr), so MPICH goes on to destroy the worker and finish.
 * It only acts after ucp_disconnect_nb was called, i.e. in MPI_Finalize. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double first_close = -1;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *next(const char *sym) {
  void *f = dlsym(RTLD_NEXT, sym);
  if (!f) {
    fprintf(stderr, "simcluster_ucx_close.so: no %s after it: %s\n", sym, dlerror());
    _exit(1);
  }
  return f;
}

void *ucp_disconnect_nb(void *ep) {
  static void *(*real)(void *);
  if (!real) real = (void *(*)(void *))next("ucp_disconnect_nb");
  if (first_close < 0) first_close = now();
  return real(ep);
}

int ucp_request_is_completed(void *request) {
  static int (*real)(void *);
  static int warned;
  if (!real) real = (int (*)(void *))next("ucp_request_is_completed");
  int done = real(request);
  if (done || first_close < 0) return done;
  const char *s = getenv("SIMCLUSTER_CLOSE_TIMEOUT");
  double limit = s && *s ? atof(s) : 1.0;
  if (limit <= 0 || now() - first_close < limit) return 0;
  if (!warned++)
    fprintf(stderr,
            "simcluster: pid %d: a UCX endpoint did not close within %.1f s in MPI_Finalize "
            "(UCX TCP cleanup bug, openucx/ucx#8738): finishing without it\n",
            (int)getpid(), limit);
  return 1;
}
