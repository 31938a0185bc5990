/*
 * A PMPI tool stacked in front of mpisw (issue 14). The profiler
 * (tests/stacking/prof.c) comes first, through LD_PRELOAD="prof:mpisw"
 * (t_stack_preload) or linked ahead of libmpisw (t_stack_linked): it counts
 * its MPI_X calls and calls PMPI_X. Step by step this program checks that
 *   - the profiler sees exactly one call per call made here: mpisw's own
 *     work (MPIX_Rrput and its siblings, duplicates, memory handles) calls
 *     no MPI_X of the profiler; MPIX_Rrput is not an MPI_Put call;
 *   - mpisw still does its work behind the profiler: the window lands on
 *     storage, a duplicate answers its parent's attributes, a memory-handle
 *     window reaches the neighbour's memory.
 * Every failed check is printed with its step; the program fails at the end
 * when any did, so one run shows all that is wrong. Run on 2 ranks (any
 * number works). tests/stacking/run_stack.sh checks MPISW_REPORT around it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define N 512 /* int64 slots of the storage window */

static long (*prof_count)(const char *routine);
static int failures;
static const char *step = "setup";

static void expect(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void expect(int ok, const char *fmt, ...) {
  if (ok) return;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  tl_log("FAIL [%s] %s", step, msg);
  failures++;
}

/* An MPI call whose failure is a failed check (the windows return errors). */
static void try_(int rc, const char *call) {
  expect(rc == MPI_SUCCESS, "%s: %s", call, rc == MPI_SUCCESS ? "" : tl_errstr(rc));
}
#define TRY(call) try_((call), #call)

/* ---- the profiler's counts, per step */
static const char *const routines[] = {"MPI_Win_allocate", "MPI_Win_free", "MPI_Put",
                                       "MPI_Accumulate", "MPI_Get_accumulate", "MPI_Win_flush",
                                       "MPI_Win_get_attr", "MPI_Win_attach", "MPI_Win_detach"};
#define NROUTINES (int)(sizeof routines / sizeof *routines)
static long before[NROUTINES];

static void step_begin(const char *name) {
  step = name;
  for (int i = 0; i < NROUTINES; i++) before[i] = prof_count(routines[i]);
}

/* want: "MPI_Put=1 MPI_Win_flush=1": the calls the step made; every routine
 * not named was called 0 times. */
static void step_calls(const char *want) {
  for (int i = 0; i < NROUTINES; i++) {
    long n = 0;
    const char *p = strstr(want, routines[i]);
    size_t len = strlen(routines[i]);
    while (p && p[len] != '=') p = strstr(p + 1, routines[i]);
    if (p) n = atol(p + len + 1);
    long got = prof_count(routines[i]) - before[i];
    expect(got == n, "the profiler saw %ld %s calls, the program made %ld", got, routines[i], n);
  }
}

static int64_t val(int rank, int k) { return 1000 * (int64_t)(rank + 1) + k; }

/* The object that defines name, for messages ("?" when none). */
static const char *where(const char *name) {
  Dl_info di;
  void *p = dlsym(RTLD_DEFAULT, name);
  if (!p || !dladdr(p, &di) || !di.dli_fname) return "?";
  const char *s = strrchr(di.dli_fname, '/');
  return s ? s + 1 : di.dli_fname;
}

/* The profiler must be in front: the program's MPI_X is the profiler's. */
static void check_stack(void) {
  prof_count = (long (*)(const char *))dlsym(RTLD_DEFAULT, "mpisw_testprof_count");
  if (!prof_count) tl_fail(__FILE__, __LINE__, "the profiler (libmpisw_testprof) is not loaded");
  Dl_info prof, put;
  CHECK(dladdr((void *)prof_count, &prof) && dladdr(dlsym(RTLD_DEFAULT, "MPI_Put"), &put),
        "dladdr");
  CHECK(prof.dli_fbase == put.dli_fbase,
        "MPI_Put is %s's, not the profiler's: the stack is in the wrong order", where("MPI_Put"));
  if (tl_rank == 0)
    tl_log("stack: MPI_Put from %s, PMPI_Put from %s, PMPI_Win_allocate from %s",
           where("MPI_Put"), where("PMPI_Put"), where("PMPI_Win_allocate"));
}

/* One user call of each RMA routine and of each MPIX_Rr* on win (byte
 * displacements), into rank `to`, in one lock_all epoch. */
static void rma_calls(MPI_Win win, int to) {
  static int64_t src[6], res[2];
  for (int k = 0; k < 6; k++) src[k] = val(tl_rank, k);
  MPI_Request rq;
  TRY(MPI_Win_lock_all(0, win));
  TRY(MPI_Put(&src[0], 1, MPI_INT64_T, to, 0, 1, MPI_INT64_T, win));
  TRY(MPIX_Rrput(&src[1], 1, MPI_INT64_T, to, 8, 1, MPI_INT64_T, win, &rq));
  TRY(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  TRY(MPI_Win_flush(to, win));
  TRY(MPI_Accumulate(&src[2], 1, MPI_INT64_T, to, 16, 1, MPI_INT64_T, MPI_SUM, win));
  TRY(MPIX_Rraccumulate(&src[3], 1, MPI_INT64_T, to, 24, 1, MPI_INT64_T, MPI_SUM, win, &rq));
  TRY(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  TRY(MPI_Get_accumulate(&src[4], 1, MPI_INT64_T, &res[0], 1, MPI_INT64_T, to, 32, 1,
                         MPI_INT64_T, MPI_SUM, win));
  TRY(MPIX_Rrget_accumulate(&src[5], 1, MPI_INT64_T, &res[1], 1, MPI_INT64_T, to, 40, 1,
                            MPI_INT64_T, MPI_SUM, win, &rq));
  TRY(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  TRY(MPI_Win_unlock_all(win));
  expect(res[0] == 0 && res[1] == 0, "get_accumulate fetched %" PRId64 ", %" PRId64 ", not 0",
         res[0], res[1]);
}

/* Reads the start of a file; 0 when it is missing or shorter. */
static int read_file(const char *path, void *buf, size_t len) {
  return tl_exists(path) && tl_pread(path, 0, buf, len) == (ssize_t)len;
}

/* The window at base and its file hold slots [0, n) as rank from wrote them. */
static void check_slots(const int64_t *base, const char *path, int from, int n) {
  int64_t file[8] = {0};
  expect(read_file(path, file, sizeof file), "%s: missing or short", path);
  for (int k = 0; k < n; k++) {
    expect(base[k] == val(from, k), "window slot %d is %" PRId64 ", rank %d wrote %" PRId64, k,
           base[k], from, val(from, k));
    expect(file[k] == val(from, k), "%s slot %d is %" PRId64 ", rank %d wrote %" PRId64, path,
           k, file[k], from, val(from, k));
  }
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  check_stack();
  int to = (tl_rank + 1) % tl_size, from = (tl_rank + tl_size - 1) % tl_size;
  tl_scratch();
  const char *path = tl_path("s%d", tl_rank);

  /* A storage window through the profiler: mpisw must still place it. */
  step_begin("MPI_Win_allocate");
  int64_t *base = NULL;
  MPI_Win win;
  TL_WALLOC(N * 8, MPI_COMM_WORLD, (void **)&base, &win, tl_path("s%%r"));
  step_calls("MPI_Win_allocate=1");
  expect(tl_file_size(path) == N * 8,
         "%s is missing or not %d bytes: the window is not on storage (the profiler's "
         "PMPI_Win_allocate did not reach mpisw)", path, N * 8);
  expect(tl_backing(base, path, NULL, NULL) == TL_FILE, "the window's memory is not mapped from %s",
         path);

  /* RMA: mpisw's MPIX_Rr* call no MPI_X of the profiler. */
  step_begin("RMA and MPIX_Rr*");
  memset(base, 0, N * 8);
  MPI_Barrier(MPI_COMM_WORLD);
  rma_calls(win, to);
  step_calls("MPI_Put=1 MPI_Accumulate=1 MPI_Get_accumulate=1 MPI_Win_flush=1");
  MPI_Barrier(MPI_COMM_WORLD);
  TL_SYNC(win);
  check_slots(base, path, from, 6);

  /* A duplicate: attributes are its parent's, answered by mpisw in one call;
   * ordered (mpi_win_order=true) puts flush inside mpisw, not through MPI_X. */
  step_begin("duplicate");
  MPI_Win dup = MPI_WIN_NULL;
  MPI_Info oi = tl_info("mpi_win_order=true", NULL);
  TRY(MPIX_Win_dup_with_info(win, oi, &dup));
  MPI_Info_free(&oi);
  void *pbase = NULL;
  MPI_Aint *psize = NULL;
  int flag = 0;
  TRY(MPI_Win_get_attr(dup, MPI_WIN_BASE, &pbase, &flag));
  expect(flag && pbase == base, "MPI_WIN_BASE of the duplicate is %p, its parent's is %p",
         flag ? pbase : NULL, (void *)base);
  flag = 0;
  TRY(MPI_Win_get_attr(dup, MPI_WIN_SIZE, &psize, &flag));
  expect(flag && psize && *psize == N * 8, "MPI_WIN_SIZE of the duplicate is %ld, not %d",
         flag && psize ? (long)*psize : -1L, N * 8);
  int64_t first = -1, second = val(tl_rank, 6);
  TRY(MPI_Win_lock_all(0, dup));
  TRY(MPI_Put(&first, 1, MPI_INT64_T, to, 48, 1, MPI_INT64_T, dup));
  TRY(MPI_Put(&second, 1, MPI_INT64_T, to, 48, 1, MPI_INT64_T, dup));
  TRY(MPI_Win_unlock_all(dup));
  TRY(MPI_Win_free(&dup));
  step_calls("MPI_Win_get_attr=2 MPI_Put=2 MPI_Win_free=1");
  MPI_Barrier(MPI_COMM_WORLD);
  TL_SYNC(win);
  check_slots(base, path, from, 7);

  /* Memory handles on a dynamic window: mpisw attaches and detaches the
   * region itself; the handle window reaches the neighbour's memory. */
  step_begin("memory handle");
  MPI_Win dyn = MPI_WIN_NULL, mw = MPI_WIN_NULL;
  TRY(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn));
  tl_win_errors_return(dyn);
  int64_t *mem = NULL;
  CHECK(posix_memalign((void **)&mem, 4096, 4096) == 0, "posix_memalign");
  memset(mem, 0, 4096);
  char mine[MPIX_MAX_MEMHANDLE_SIZE] = {0}, theirs[MPIX_MAX_MEMHANDLE_SIZE] = {0};
  int mhsize = 0;
  TRY(MPIX_Memhandle_create(mem, 4096, dyn, mine, &mhsize));
  MPI_Sendrecv(mine, sizeof mine, MPI_BYTE, from, 1, theirs, sizeof theirs, MPI_BYTE, to, 1,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  TRY(MPIX_Win_from_memhandle(theirs, 4096, 8, MPI_INFO_NULL, to, dyn, &mw));
  if (mw != MPI_WIN_NULL) {
    int64_t x = val(tl_rank, 0), y = val(tl_rank, 1);
    MPI_Request rq;
    TRY(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, mw));
    TRY(MPI_Put(&x, 1, MPI_INT64_T, to, 0, 1, MPI_INT64_T, mw));
    TRY(MPIX_Rrput(&y, 1, MPI_INT64_T, to, 1, 1, MPI_INT64_T, mw, &rq));
    TRY(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    TRY(MPI_Win_flush(to, mw));
    TRY(MPI_Win_unlock(to, mw));
    TRY(MPI_Win_free(&mw));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect(mem[0] == val(from, 0) && mem[1] == val(from, 1),
         "memory-handle puts: memory holds %" PRId64 ", %" PRId64 ", rank %d wrote %" PRId64
         ", %" PRId64, mem[0], mem[1], from, val(from, 0), val(from, 1));
  TRY(MPIX_Memhandle_release(mine, dyn));
  step_calls("MPI_Put=1 MPI_Win_flush=1 MPI_Win_free=1");

  /* The program's own attach and detach: one each. */
  step_begin("attach");
  static int64_t other[512];
  TRY(MPI_Win_attach(dyn, other, sizeof other));
  TRY(MPI_Win_detach(dyn, other));
  TRY(MPI_Win_free(&dyn));
  step_calls("MPI_Win_attach=1 MPI_Win_detach=1 MPI_Win_free=1");
  free(mem);

  /* Freeing the storage window keeps the file and its data. */
  step_begin("MPI_Win_free");
  TRY(MPI_Win_free(&win));
  step_calls("MPI_Win_free=1");
  int64_t file[7] = {0};
  expect(read_file(path, file, sizeof file) && file[6] == val(from, 6),
         "%s after MPI_Win_free: slot 6 is %" PRId64 ", not %" PRId64, path, file[6],
         val(from, 6));

  int total = tl_allsum(failures);
  if (total) tl_fail(__FILE__, __LINE__, "%d checks failed over %d ranks (above)", total, tl_size);
  return tl_finish();
}
