/* The pool as a module (process/module.h): made collectively at MPI_Init,
 * freed before MPI_Finalize. One shared window per node (the window
 * module's own path, so MPISW_POOL_HINTS alloc_type=storage puts it on
 * local disks), every segment of the node mapped in every process; when
 * the job spans nodes, one more window over the same memory on
 * MPI_COMM_WORLD, in one passive epoch (lock_all) for the pool's lifetime.
 * A pool that cannot be made is no error of MPI_Init: pooled opens then
 * fail with the reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>

#include "core/config.h"
#include "core/unique.h"
#include "core/path.h"
#include "pool/internal.h"
#include "win/internal.h"

struct pool mpisw_pool = {.mu = PTHREAD_MUTEX_INITIALIZER,
                          .shm = MPI_WIN_NULL,
                          .mem_fd = -1,
                          .why_not = "MPI is not initialized (the pool is made at MPI_Init)"};

/* Use of the whole pool: every rank's counters (the last figures once
 * the pool is freed). */
void mpisw_pool_usage(uint64_t *used, uint64_t *capacity, uint64_t *peak) {
  pthread_mutex_lock(&P->mu);
  if (!P->ready) {
    *used = P->last_used, *capacity = P->last_cap, *peak = P->last_peak;
    pthread_mutex_unlock(&P->mu);
    return;
  }
  uint64_t u = 0, p = 0;
  for (int r = 0; r < P->nranks; r++) {
    u += rm_load(r, H_USED);
    p += rm_load(r, H_PEAK);
  }
  *used = u;
  *peak = p;
  *capacity = (uint64_t)P->nranks * (P->size - P->heap_off);
  pthread_mutex_unlock(&P->mu);
}

int mpisw_pool_ready(void) { return __atomic_load_n(&P->ready, __ATOMIC_ACQUIRE); }

int mpisw_pool_need(const char *name, struct mpisw_error *e) {
  if (mpisw_pool_ready()) return 0;
  return mpisw_fail(e, MPISW_K_USAGE, "pooled file %s: no pool: %s", name ? name : "(null)",
                    mpisw_disabled ? "MPISW_DISABLE=1 (the library passes every call through)"
                                   : P->why_not);
}

/* A quarter of the memory budget: MPISW_MEMORY_LIMIT when set, else the
 * process's share of the node's memory (MemAvailable and the cgroup over
 * the node's ranks); 1 GiB when neither is known. Virtual: it costs what
 * is written. */
uint64_t mpisw_pool_default_size(void) {
  uint64_t budget = mpisw_node_share();
  if (mpisw_cfg_source(MPISW_CFG_MEMORY_LIMIT) == MPISW_CFG_FROM_ENV &&
      mpisw_cfg_size(MPISW_CFG_MEMORY_LIMIT) > 0)
    budget = mpisw_cfg_size(MPISW_CFG_MEMORY_LIMIT);
  if (budget == UINT64_MAX || budget == 0) budget = 4ULL << 30;
  return budget / 4 / POOL_PAGE * POOL_PAGE;
}

static void layout(uint64_t size) {
  P->size = size;
  P->nslots = size >= (64ULL << 20) ? 512 : 128;
  P->dir_off = HDR_SIZE;
  P->idx_off = (P->dir_off + P->nslots * REC_SIZE + POOL_PAGE - 1) / POOL_PAGE * POOL_PAGE;
  uint64_t want = size / 8192; /* room for every block down to 8 KiB units, twice */
  P->idx_cap = 1024;
  while (P->idx_cap < want) P->idx_cap *= 2;
  P->link_off = P->idx_off + P->idx_cap * IDX_ENTRY;
  P->heap_off = P->link_off + (size / POOL_PAGE * 8 + POOL_PAGE - 1) / POOL_PAGE * POOL_PAGE;
}

/* MPISW_POOL_HINTS in MPISW_HINTS's syntax (the same parser), every key one
 * of mpisw's hints; storage_alloc_filename a directory (the pool's file
 * then has no name and goes with the job, and starts empty). */
struct unknown {
  char key[MPISW_HINT_KEY_MAX + 1];
};
static int note_unknown(const char *key, void *arg) {
  struct unknown *u = arg;
  if (!mpisw_hints_known(key) && !u->key[0]) snprintf(u->key, sizeof u->key, "%s", key);
  return 0;
}

static int check_hints(const char *text, int *storage, int *pager, struct mpisw_error *e) {
  struct mpisw_hints h;
  struct unknown u = {{0}};
  mpisw_hints_init(&h);
  *storage = *pager = 0;
  if (!text) return 0;
  if (mpisw_hints_parse_env(&h, text, note_unknown, &u, e)) {
    char inner[MPISW_MSG_MAX];
    const char *m = e->msg;
    if (!strncmp(m, "MPISW_HINTS: ", 13)) m += 13;
    snprintf(inner, sizeof inner, "%s", m);
    return mpisw_fail(e, MPISW_K_HINT, "MPISW_POOL_HINTS: %s", inner);
  }
  if (u.key[0])
    return mpisw_fail(e, MPISW_K_HINT, "MPISW_POOL_HINTS: '%s' is not a hint of mpisw (nearest: %s)",
                      u.key, mpisw_hints_nearest(u.key));
  if (mpisw_hints_check(&h, e)) {
    char inner[MPISW_MSG_MAX];
    snprintf(inner, sizeof inner, "%s", e->msg);
    return mpisw_fail(e, MPISW_K_HINT, "MPISW_POOL_HINTS: %s", inner);
  }
  struct stat st;
  if (h.storage && (stat(h.filename, &st) || !S_ISDIR(st.st_mode)))
    return mpisw_fail(e, MPISW_K_HINT,
                      "MPISW_POOL_HINTS: storage_alloc_filename=%s is not a directory; the pool "
                      "takes a directory (its file has no name and starts empty)",
                      h.filename);
  *storage = h.storage;
  *pager = h.storage && h.backend == MPISW_BACKEND_PAGER;
  return 0;
}

static void not_ready(const struct mpisw_error *e, int speak) {
  snprintf(P->why_not, sizeof P->why_not, "%s", e->msg);
  if (speak) fprintf(stderr, "mpisw: MPI_Init: no pool of pooled files: %s\n", e->msg);
}

/* Memory: one memfd per node, made by the node's first rank, mapped whole
 * in every process (the others open it through /proc/<pid>/fd/<n>). No
 * page is reserved (a pool costs what is written), and no MPI window is
 * made on one node: MPICH's shared windows search an address range free
 * in every process, which costs seconds for a large pool. */
static uint64_t mem_len;
#define mem_base P->mem_base

static int memory_segments(uint64_t size, int nrank, int nnode, char **node_seg,
                           struct mpisw_error *e) {
  struct {
    int pid, fd, err;
  } m = {getpid(), -1, 0};
  mem_len = size * (uint64_t)nnode;
  if (nrank == 0) {
    m.fd = memfd_create("mpisw-pool", MFD_CLOEXEC);
    if (m.fd < 0 || ftruncate(m.fd, (off_t)mem_len)) m.err = errno;
  }
  PMPI_Bcast(&m, 3, MPI_INT, 0, P->node);
  int fd = nrank == 0 ? m.fd : -1, err = m.err;
  char proc[64] = "memfd";
  if (!err && nrank != 0 && (fd = mpisw_unique_open_peer(m.pid, m.fd, proc, sizeof proc)) < 0)
    err = errno;
  void *p = MAP_FAILED;
  if (!err && (p = mmap(NULL, mem_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
    err = errno;
  PMPI_Barrier(P->node); /* every process has opened it */
  if (err) {
    if (fd >= 0) close(fd);
    if (p != MAP_FAILED) munmap(p, mem_len);
    return mpisw_fail(e, MPISW_K_NOMEM, "the pool's memory (%s, %llu bytes for %d ranks): %s",
                      proc, (unsigned long long)mem_len, nnode, strerror(err));
  }
  mem_base = p;
  P->mem_fd = fd; /* writes into pages not there yet go in with pwrite (data.c) */
  mpisw_pool_data_open(mem_len);
  for (int q = 0; q < nnode; q++) node_seg[q] = mem_base + (uint64_t)q * size;
  return 0;
}

/* The pool's storage window, with the pool's hints instead of MPISW_HINTS:
 * the window module's own shared window over the node (rank 0 of the node
 * makes the file, every process maps the whole node range), or with the
 * pager (storage_backend=pager, docs/PAGER.md) a private window over
 * MPI_COMM_WORLD. The pager's memory is this process's own (anonymous,
 * filled through userfaultfd), which no other process can map, and a
 * node-shared window would silently fall back to mmap (the page cache,
 * throttled out of core); the pool then takes the rma path on that window:
 * this rank's segment by memcpy, the others' by the MPI's RMA (MPICH's
 * MPI_Win_create path is shared-memory fast on one node).
 * On the pager the metadata (header, directory, block index, free-list
 * links: [0, heap_off), 0.7% of the segment) is the window's memory part and
 * only the heap is paged: as a paged block it was evicted like any other
 * (the pager's order is first in, first out), and each fault back of an
 * index block looked like a sequential stream to the pager, whose read-ahead
 * then read back 16 data blocks already written out. */
static int pool_window(int pager, uint64_t size, const char *text, void **base,
                       struct mpisw_error *e) {
  char hints[4096], factor[64] = "";
  if (pager)
    snprintf(factor, sizeof factor, "storage_alloc_factor=%.17g;",
             (double)(size - P->heap_off) / (double)size);
  snprintf(hints, sizeof hints, "storage_alloc_discard=true;%s%s", factor, text ? text : "");
  /* The pool is not the program's window: MPISW_REPORT's figures stay the
   * program's. */
  pthread_mutex_lock(&mpisw_lock);
  struct mpisw_stats before = mpisw_stats;
  pthread_mutex_unlock(&mpisw_lock);
  MPI_Info info;
  PMPI_Info_create(&info);
  PMPI_Info_set(info, "alloc_shared_noncontig", "true"); /* segments on pages */
  mpisw_env_hints_replace(hints);
  int rc = pager ? mpisw_win_allocate("MPI_Init, the pool", (MPI_Aint)size, 1, MPI_INFO_NULL,
                                      MPI_COMM_WORLD, base, &P->shm, 0)
                 : mpisw_win_allocate_shared("MPI_Init, the pool", (MPI_Aint)size, 1, info,
                                             P->node, base, &P->shm, 0);
  mpisw_env_hints_restore();
  PMPI_Info_free(&info);
  pthread_mutex_lock(&mpisw_lock);
  mpisw_stats = before;
  pthread_mutex_unlock(&mpisw_lock);
  if (rc != MPI_SUCCESS) {
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    PMPI_Error_string(rc, s, &n);
    P->shm = MPI_WIN_NULL;
    return mpisw_fail(e, MPISW_K_IO, "the pool's window%s (%llu bytes per rank): %s",
                      pager ? " on the pager" : "", (unsigned long long)size, s);
  }
  PMPI_Win_set_errhandler(P->shm, MPI_ERRORS_RETURN);
  return 0;
}

/* Storage: every segment of the node, from the shared window; with the
 * pager only this rank's (the others' stay NULL: reached by RMA). */
static int storage_segments(int pager, uint64_t size, const char *text, int nrank,
                            char **node_seg, struct mpisw_error *e) {
  void *base = NULL;
  if (pool_window(pager, size, text, &base, e)) return -1;
  if (pager) {
    node_seg[nrank] = base;
    return 0;
  }
  int nnode;
  PMPI_Comm_size(P->node, &nnode);
  for (int q = 0; q < nnode; q++) {
    MPI_Aint sz, du;
    void *ptr = NULL;
    int handled = 0;
    mpisw_win_shared_query(P->shm, q, &sz, &du, &ptr, &handled);
    node_seg[q] = ptr;
  }
  return 0;
}

static void release_segments(void) {
  if (P->shm != MPI_WIN_NULL) {
    pthread_mutex_lock(&mpisw_lock);
    struct mpisw_stats before = mpisw_stats;
    pthread_mutex_unlock(&mpisw_lock);
    mpisw_win_free(&P->shm);
    pthread_mutex_lock(&mpisw_lock);
    mpisw_stats = before; /* MPISW_REPORT's figures stay the program's */
    pthread_mutex_unlock(&mpisw_lock);
  }
  if (mem_base) munmap(mem_base, mem_len);
  mpisw_pool_data_close();
  mem_base = NULL;
  if (P->mem_fd >= 0) close(P->mem_fd);
  P->mem_fd = -1;
}

/* Who runs each rank, for lock waiters (rmem.c): every rank's pid and its
 * kernel (boot id and pid namespace); a rank under this process's own
 * kernel (this node, or a simulated node on it) gets a pidfd, which polls
 * readable when it ends. Without pidfds (old kernels) no death is seen
 * and MPISW_POOL_TIMEOUT bounds the wait. */
static void watch_ranks(int nranks) {
  struct who {
    uint64_t kernel;
    int64_t pid;
  } me = {mpisw_kernel_id(), getpid()}, *all = calloc((size_t)nranks, sizeof *all);
  P->pid = calloc((size_t)nranks, sizeof *P->pid);
  P->pidfd = malloc((size_t)nranks * sizeof *P->pidfd);
  int ok = all && P->pid && P->pidfd, every = 0;
  PMPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (every)
    PMPI_Allgather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, MPI_COMM_WORLD);
  for (int r = 0; P->pidfd && r < nranks; r++) {
    P->pid[r] = every ? (int)all[r].pid : 0;
    P->pidfd[r] = -1;
    if (every && all[r].kernel == me.kernel && all[r].pid != me.pid)
      P->pidfd[r] = (int)syscall(SYS_pidfd_open, (pid_t)all[r].pid, 0);
  }
  free(all);
}

static void unwatch_ranks(void) {
  for (int r = 0; P->pidfd && r < P->nranks; r++)
    if (P->pidfd[r] >= 0) close(P->pidfd[r]);
  free(P->pidfd);
  free(P->pid);
  P->pidfd = P->pid = NULL;
}

static void after_init(void) {
  struct mpisw_error e;
  int rank, nranks;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &nranks);
  unsigned long long size = mpisw_cfg_source(MPISW_CFG_POOL_SIZE) == MPISW_CFG_FROM_ENV
                                ? mpisw_cfg_size(MPISW_CFG_POOL_SIZE)
                                : mpisw_pool_default_size();
  const char *text = mpisw_cfg_text(MPISW_CFG_POOL_HINTS);
  int storage = 0, pager = 0;
  int failed = check_hints(text, &storage, &pager, &e) != 0;
#ifdef OPEN_MPI
  /* Open MPI 4.1's osc/ucx hangs in the pool's atomics on MPI_Win_create
   * memory of one node (seen: a rank's MPI_Fetch_and_op to a peer spinning
   * in the peer's lock word never returns); the pager needs that path. There
   * the pool stays on the node's shared window, whose pager falls back to
   * mmap, as before. */
  if (pager && rank == 0 && mpisw_cfg_bool(MPISW_CFG_PAGER_DEBUG))
    fprintf(stderr, "mpisw: the pool's storage_backend=pager is not used with Open MPI "
                    "(osc/ucx hangs in its atomics on one node): mmap\n");
  pager = 0;
#endif
  /* One size for all (the smallest), one verdict on the hints. */
  unsigned long long least = size;
  PMPI_Allreduce(&size, &least, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  if (mpisw_agree(MPI_COMM_WORLD, failed, &e, NULL)) return not_ready(&e, rank == 0);
  if (least == 0) {
    mpisw_fail(&e, MPISW_K_USAGE, "MPISW_POOL_SIZE=0 (no pool)");
    return not_ready(&e, 0);
  }
  if (least < POOL_MIN_SIZE) {
    mpisw_fail(&e, MPISW_K_USAGE, "MPISW_POOL_SIZE=%llu is below the pool's minimum of 4M", least);
    /* said when asked for; a small default budget just makes no pool */
    return not_ready(&e, rank == 0 && mpisw_cfg_source(MPISW_CFG_POOL_SIZE) == MPISW_CFG_FROM_ENV);
  }

  PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &P->node);
  PMPI_Comm_set_errhandler(P->node, MPI_ERRORS_RETURN);
  int nrank, nnode;
  PMPI_Comm_rank(P->node, &nrank);
  PMPI_Comm_size(P->node, &nnode);
  /* A memory pool lives in the node's shared memory (/dev/shm): one larger
   * than its free space would fail later with SIGBUS on a write, so the
   * default shrinks to fit and a size asked for is refused. */
  struct statvfs vfs;
  uint64_t shm_free = 0, node_bytes = (uint64_t)least * (uint64_t)nnode;
  if (!storage && statvfs("/dev/shm", &vfs) == 0)
    shm_free = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
  int too_big = shm_free && node_bytes > shm_free - shm_free / 8;
  if (too_big && mpisw_cfg_source(MPISW_CFG_POOL_SIZE) != MPISW_CFG_FROM_ENV) {
    least = (shm_free / 2 / (uint64_t)nnode) / POOL_PAGE * POOL_PAGE;
    too_big = 0;
  }
  unsigned long long fit = least;
  PMPI_Allreduce(&fit, &least, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  failed = too_big ? mpisw_fail(&e, MPISW_K_NOSPACE,
                                "MPISW_POOL_SIZE=%llu: the node's pool (%d ranks, %llu bytes) "
                                "is larger than the free space of /dev/shm (%llu bytes); lower "
                                "it, or put the pool on storage (MPISW_POOL_HINTS with "
                                "alloc_type=storage and storage_alloc_filename=DIR)",
                                least, nnode, (unsigned long long)node_bytes,
                                (unsigned long long)shm_free) != 0
                   : 0;
  if (!failed && least < POOL_MIN_SIZE)
    failed = mpisw_fail(&e, MPISW_K_USAGE, "the pool's share of /dev/shm is below 4M") != 0;
  if (mpisw_agree(MPI_COMM_WORLD, failed, &e, NULL)) {
    PMPI_Comm_free(&P->node);
    return not_ready(&e, rank == 0);
  }
  layout(least);
  P->seg = calloc((size_t)nranks, sizeof *P->seg);
  char **node_seg = calloc((size_t)nnode, sizeof *node_seg);
  failed = !P->seg || !node_seg;
  if (failed) mpisw_fail(&e, MPISW_K_NOMEM, "out of memory for the pool's segment table");
  else if (storage) failed = storage_segments(pager, least, text, nrank, node_seg, &e) != 0;
  else failed = memory_segments(least, nrank, nnode, node_seg, &e) != 0;
  if (mpisw_agree(MPI_COMM_WORLD, failed, &e, NULL)) {
    if (!failed) release_segments();
    free(P->seg);
    free(node_seg);
    P->seg = NULL;
    PMPI_Comm_free(&P->node);
    return not_ready(&e, rank == 0);
  }
  void *base = node_seg[nrank];
  int *world_of = calloc((size_t)nnode, sizeof *world_of);
  PMPI_Allgather(&rank, 1, MPI_INT, world_of, 1, MPI_INT, P->node);
  for (int q = 0; q < nnode; q++) P->seg[world_of[q]] = node_seg[q];
  free(node_seg);
  free(world_of);
  P->rank = rank;
  P->nranks = nranks;
  P->storage = storage;
  P->timeout = (int)mpisw_cfg_int(MPISW_CFG_POOL_TIMEOUT);
  P->mpi_rc = P->mpi_dead = 0;
  watch_ranks(nranks);
  P->rma = nnode < nranks || pager;
  if (P->rma) {
    int rc = MPI_SUCCESS;
    if (pager) P->world = P->shm; /* already over MPI_COMM_WORLD */
    else
      rc = mpisw_next.Win_create(base, (MPI_Aint)least, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                                 &P->world);
    if (rc != MPI_SUCCESS) { /* collective: every rank fails alike */
      char s[MPI_MAX_ERROR_STRING];
      int n = 0;
      PMPI_Error_string(rc, s, &n);
      mpisw_fail(&e, MPISW_K_IO, "the pool's window over MPI_COMM_WORLD: %s", s);
      release_segments();
      unwatch_ranks();
      PMPI_Comm_free(&P->node);
      free(P->seg);
      P->seg = NULL;
      return not_ready(&e, rank == 0);
    }
    PMPI_Win_set_errhandler(P->world, MPI_ERRORS_RETURN);
    mpisw_next.Win_lock_all(MPI_MODE_NOCHECK, P->world);
  }
  __atomic_store_n(&P->ready, 1, __ATOMIC_RELEASE);
}

static void before_finalize(void) {
  if (!mpisw_pool_ready()) return;
  /* the figures for MPISW_REPORT after the pool is gone (across nodes it
   * costs two atomics per rank: only when a report is wanted) */
  if (!P->rma || mpisw_report_enabled())
    mpisw_pool_usage(&P->last_used, &P->last_cap, &P->last_peak);
  pthread_mutex_lock(&P->mu);
  __atomic_store_n(&P->ready, 0, __ATOMIC_RELEASE);
  snprintf(P->why_not, sizeof P->why_not, "the pool was freed at MPI_Finalize");
  pthread_mutex_unlock(&P->mu);
  if (P->rma) {
    mpisw_next.Win_unlock_all(P->world);
    if (P->world != P->shm) mpisw_next.Win_free(&P->world);
    P->world = MPI_WIN_NULL;
  }
  release_segments();
  unwatch_ranks();
  PMPI_Comm_free(&P->node);
  free(P->seg);
  P->seg = NULL;
}

const struct mpisw_module mpisw_pool_module = {
    .name = "pool",
    .after_init = after_init,
    .before_finalize = before_finalize,
};
