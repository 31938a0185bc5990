/* MPI_Win_allocate_shared on storage: one node file, every rank maps the
 * whole node range and creates the window over its own segment;
 * MPI_Win_shared_query answers from that mapping (the MPI cannot: its
 * window is not of the shared flavor, or, on the node-shared route, its
 * segments are not the user's). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/path.h"
#include "core/unique.h"
#include "win/info_keys.h"
#include "win/internal.h"
#include "win/remote.h"

/* What rank 0 tells the others once it has made the node's file. */
struct leader_msg {
  int failed;
  struct mpisw_error err;
  struct mpisw_layout layout;
  char path[MPISW_PATH_MAX];     /* for messages, and the file itself when named */
  int anon;                      /* a unique file without a name: open pid's fd */
  int pid, fd;                   /* rank 0 and its descriptor of the file */
  int shm_fd;                    /* rank 0's memfd of the memory part */
  char shm[64];                  /* its name, for messages */
};

/* Rank 0: the node file and the shared memory part. */
static int make_node_storage(struct mpisw_place *p, struct leader_msg *m, uint64_t total,
                             int nranks) {
  static int counter;
  struct mpisw_error *e = &m->err;
  uint64_t mem = mpisw_place_mem_target(&p->h, total, nranks);
  if (mpisw_layout_compute(total, mem, p->h.storage_first, p->h.offset, mpisw_page_size(),
                           &m->layout, e))
    return -1;
  if (mpisw_budget_check(m->layout.mem_len, nranks, e)) return -1;
  if (m->layout.sto_len) {
    char host[64], path[MPISW_PATH_MAX];
    mpisw_path_hostname(host, sizeof host);
    if (mpisw_path_expand(p->h.filename, 0, host, path, sizeof path, e)) return -1;
    struct mpisw_file_opts o = {1, p->h.file_perm, "shared", p->h.striping_factor,
                                p->h.striping_unit};
    if (mpisw_file_open(&p->file, path, &o, e)) return -1;
    if (mpisw_file_reserve(&p->file, p->h.offset, m->layout.sto_len, e)) {
      mpisw_file_rollback(&p->file);
      return -1;
    }
    snprintf(m->path, sizeof m->path, "%s", p->file.path);
    m->anon = p->file.unique;
    m->pid = (int)getpid();
    m->fd = p->file.fd;
  }
  if (m->layout.map_mem_len) { /* a memfd: no name to leave behind in /dev/shm */
    snprintf(m->shm, sizeof m->shm, "mpisw-shared-%ld-%d", (long)getpid(), counter++);
    p->shm_fd = memfd_create(m->shm, MFD_CLOEXEC);
    m->pid = (int)getpid();
    m->shm_fd = p->shm_fd;
    int err = p->shm_fd < 0 ? errno : posix_fallocate(p->shm_fd, 0, (off_t)m->layout.map_mem_len);
    if (err) {
      if (p->shm_fd >= 0) close(p->shm_fd);
      p->shm_fd = -1;
      mpisw_file_rollback(&p->file);
      return mpisw_fail(e, MPISW_K_NOMEM,
                        "cannot make %llu bytes of node shared memory for the memory part: %s",
                        (unsigned long long)m->layout.map_mem_len, strerror(err));
    }
  }
  return 0;
}

/* A peer's view of rank 0's unique file, which has no name: through rank
 * 0's descriptor (it holds it open until every rank has agreed). */
static int open_leader_fd(struct mpisw_file *f, const struct leader_msg *m,
                          struct mpisw_error *e) {
  char proc[64];
  mpisw_file_init(f);
  f->fd = mpisw_unique_open_peer(m->pid, m->fd, proc, sizeof proc);
  if (f->fd < 0)
    return mpisw_fail(e, MPISW_K_ACCESS, "cannot open rank 0's file '%s' through %s: %s",
                      m->path, proc, strerror(errno));
  snprintf(f->path, sizeof f->path, "%s", m->path);
  return 0;
}

/* Other ranks: open what rank 0 made. */
static int open_node_storage(struct mpisw_place *p, const struct leader_msg *m,
                             struct mpisw_error *e) {
  if (m->layout.sto_len) {
    struct mpisw_file_opts o = {0, -1, NULL, 0, 0};
    if (m->anon ? open_leader_fd(&p->file, m, e) : mpisw_file_open(&p->file, m->path, &o, e))
      return -1;
  }
  if (m->layout.map_mem_len) {
    char proc[64];
    p->shm_fd = mpisw_unique_open_peer(m->pid, m->shm_fd, proc, sizeof proc);
    if (p->shm_fd < 0) {
      mpisw_file_close(&p->file, 0);
      return mpisw_fail(e, MPISW_K_IO, "cannot open the node's shared memory '%s' through %s: %s",
                        m->shm, proc, strerror(errno));
    }
  }
  return 0;
}

/* MPI_Win_shared_query answers what the MPI answers for a memory window of
 * the same shape (measured; tests/mpi/t_zeroseg.c compares the two at run
 * time). MPICH 4.0: a segment of size 0 has base NULL; with no bytes on
 * any rank, every query (MPI_PROC_NULL too) answers size 0, the caller's
 * own disp_unit and NULL.
 * Open MPI 4.1 (osc/sm): contiguous segments of size 0 sit where the next
 * one begins (never NULL, even with no memory at all); with
 * alloc_shared_noncontig over several processes they are NULL and every
 * size is rounded up to whole pages; with no memory, MPI_PROC_NULL answers
 * 0, 0, NULL. */
#ifdef OPEN_MPI /* one process: osc/sm allocates plainly, noncontig or not */
#define ZERO_AT_POSITION(w) (!(w)->noncontig || (w)->nranks == 1)
#define SIZES_IN_PAGES(w) ((w)->noncontig && (w)->nranks > 1)
#define NONE_OWN_DISP 0
#else
#define ZERO_AT_POSITION(w) 0
#define SIZES_IN_PAGES(w) 0
#define NONE_OWN_DISP 1
#endif

static char no_memory; /* a base for segments of size 0 in a window of no bytes */

static void *seg_base(const struct mpisw_win *w, int r) {
  if (w->seg_size[r] == 0 && !ZERO_AT_POSITION(w)) return NULL;
  return w->p.region.base ? w->p.region.base + w->seg_off[r] : &no_memory;
}

static MPI_Aint seg_size_answer(const struct mpisw_win *w, int r) {
  MPI_Aint page = (MPI_Aint)mpisw_page_size();
  return SIZES_IN_PAGES(w) ? (w->seg_size[r] + page - 1) / page * page : w->seg_size[r];
}

/* Segment offsets in rank order; page-aligned starts when noncontig (and
 * the window ends on a page boundary where sizes are answered in pages). */
static uint64_t lay_segments(struct mpisw_win *w, const MPI_Aint *pairs) {
  uint64_t at = 0, page = mpisw_page_size();
  for (int r = 0; r < w->nranks; r++) {
    if (w->noncontig) at = (at + page - 1) / page * page;
    w->seg_off[r] = (MPI_Aint)at;
    w->seg_size[r] = pairs[2 * r];
    w->seg_disp[r] = pairs[2 * r + 1];
    at += (uint64_t)pairs[2 * r];
  }
  if (SIZES_IN_PAGES(w)) at = (at + page - 1) / page * page;
  return at;
}

int mpisw_win_allocate_shared(const char *routine, MPI_Aint size, MPI_Aint disp_unit,
                              MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win,
                              int large) {
  struct mpisw_hints h;
  struct mpisw_error e;
  int rank, nranks;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &nranks);
  int failed = mpisw_hints_from_info(info, &h, &e) != 0 || mpisw_info_rma_check(info, &e) != 0;
  int storage = rank == 0 && !failed && h.storage;
  if (mpisw_agree(comm, failed, &e, &storage))
    return mpisw_raise_comm(comm, mpisw_error_code(routine, &e));
  if (!storage) { /* rank 0 decides for the node: memory, the MPI's window */
    failed = mpisw_budget_check(size > 0 ? (uint64_t)size : 0, 1, &e) != 0;
    if (mpisw_agree(comm, failed, &e, NULL))
      return mpisw_raise_comm(comm, mpisw_error_code(routine, &e));
    int rc = mpisw_mpi_Win_allocate_shared(size, disp_unit, info, comm, baseptr, win, large);
    if (rc != MPI_SUCCESS) return rc;
    mpisw_win_track_memory(*win, MPI_WIN_FLAVOR_SHARED, size);
    return MPI_SUCCESS;
  }

  /* Rank 0's hints place the node's range. */
  struct mpisw_win *w = mpisw_win_new(MPISW_WIN_SHARED, MPI_WIN_FLAVOR_SHARED);
  /* The MPI's key, interpreted by mpisw on storage only: the one boolean
   * rule here; memory shared windows leave it to the MPI (above). */
  int noncontig = 0;
  failed = !w ? mpisw_fail(&e, MPISW_K_NOMEM, "out of memory for the window's state") != 0
              : mpisw_info_bool(info, "alloc_shared_noncontig", &noncontig, &e) < 0;
  if (mpisw_agree(comm, failed, &e, NULL)) {
    if (w) mpisw_win_destroy(w);
    return mpisw_raise_comm(comm, mpisw_error_code(routine, &e));
  }
  PMPI_Bcast(&h, (int)sizeof h, MPI_BYTE, 0, comm);
  w->p.h = h;
  w->nranks = nranks;
  w->rank = rank;
  w->noncontig = noncontig;
  PMPI_Bcast(&w->noncontig, 1, MPI_INT, 0, comm);
  w->seg_off = calloc((size_t)nranks, sizeof(MPI_Aint));
  w->seg_size = calloc((size_t)nranks, sizeof(MPI_Aint));
  w->seg_disp = calloc((size_t)nranks, sizeof(MPI_Aint));
  MPI_Aint *pairs = calloc(2 * (size_t)nranks, sizeof(MPI_Aint));
  int one_node = mpisw_one_node(comm); /* collective: every rank, before any test */
  failed = 0;
  if (!w->seg_off || !w->seg_size || !w->seg_disp || !pairs)
    failed = mpisw_fail(&e, MPISW_K_NOMEM, "out of memory for the segment table") != 0;
  else if (size < 0)
    failed = mpisw_fail(&e, MPISW_K_USAGE, "size %lld is negative", (long long)size) != 0;
  else if (!one_node)
    failed = mpisw_fail(&e, MPISW_K_USAGE,
                        "the communicator spans more than one node; shared windows on "
                        "storage need one node (split it with MPI_COMM_TYPE_SHARED)") != 0;
  if (mpisw_agree(comm, failed, &e, NULL)) goto fail_early;
  MPI_Aint mine[2] = {size, disp_unit};
  PMPI_Allgather(mine, 2, MPI_AINT, pairs, 2, MPI_AINT, comm);
  uint64_t total = lay_segments(w, pairs);
  free(pairs);
  pairs = NULL;

  struct leader_msg *m = calloc(1, sizeof *m);
  if (!m) {
    failed = 1;
    mpisw_fail(&e, MPISW_K_NOMEM, "out of memory");
  } else if (rank == 0) {
    m->failed = make_node_storage(&w->p, m, total, nranks) != 0;
  }
  if (mpisw_agree(comm, failed, &e, NULL)) goto fail_msg;
  PMPI_Bcast(m, (int)sizeof *m, MPI_BYTE, 0, comm);
  if (m->failed) {
    e = m->err;
    char inner[MPISW_MSG_MAX];
    snprintf(inner, sizeof inner, "%s", e.msg);
    snprintf(e.msg, sizeof e.msg, "rank 0: %s", inner);
    goto fail_msg;
  }
  failed = rank != 0 && open_node_storage(&w->p, m, &e) != 0;
  if (!failed && mpisw_region_map(&w->p.region, &m->layout, w->p.file.fd, w->p.shm_fd,
                                  h.access, &e))
    failed = 1;
  if (mpisw_agree(comm, failed, &e, NULL)) {
    mpisw_place_undo(&w->p);
    goto fail_msg;
  }
  mpisw_atomic_not_honoured(&h, w->p.file.path, "a shared window's ranks write one mapping "
                            "of the file, which cannot be private");
  w->p.factor = total ? (double)m->layout.sto_len / (double)total : 0.0;
  w->p.remove_at_free = rank == 0 && !w->p.file.blockdev &&
                        (h.unlink == 1 || (h.unlink == -1 && w->p.file.unique));
  if (rank == 0) {
    w->p.budget_taken = m->layout.mem_len;
    mpisw_budget_take((int64_t)w->p.budget_taken);
  }
  free(m);

  char *mybase = seg_base(w, rank); /* as the MPI's own shared windows give it */
  int rc = MPI_SUCCESS;
  /* Open MPI: the MPI's node-shared window with each segment mapped over
   * it (node_shared.c), else MPI_Win_create over the own segment */
  if (mpisw_node_shared_shared(w, info, comm, win, large)) w->user_base = mybase;
  else rc = mpisw_mpi_Win_create(mybase, size, disp_unit, info, comm, win, large);
  if (rc != MPI_SUCCESS) {
    mpisw_place_undo(&w->p);
    mpisw_win_destroy(w);
    return rc;
  }
  mpisw_win_register(w, *win);
  mpisw_remote_window_made(w, comm, disp_unit);
  pthread_mutex_lock(&mpisw_lock);
  mpisw_stats.windows_shared++;
  if (rank == 0) {
    mpisw_stats.bytes_memory += (double)w->p.region.l.mem_len;
    mpisw_stats.bytes_storage += (double)w->p.region.l.sto_len;
  }
  pthread_mutex_unlock(&mpisw_lock);
  *(void **)baseptr = mybase;
  return MPI_SUCCESS;

fail_msg:
  free(m);
fail_early:
  free(pairs);
  mpisw_win_destroy(w);
  return mpisw_raise_comm(comm, mpisw_error_code(routine, &e));
}

int mpisw_win_shared_query(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                           void *baseptr, int *handled) {
  struct mpisw_win *w = mpisw_win_lookup(win);
  *handled = w && (w->kind == MPISW_WIN_SHARED || (w->kind == MPISW_WIN_STORAGE && w->node_shared));
  if (!*handled) return MPI_SUCCESS;
  if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w->nranks)) {
    struct mpisw_error e;
    mpisw_fail(&e, MPISW_K_USAGE, "rank %d is not in the window's group of %d", rank,
               w->nranks);
    return mpisw_raise_win(win, mpisw_error_code("MPI_Win_shared_query", &e));
  }
  int first = -1; /* the first rank with bytes: what MPI_PROC_NULL answers */
  for (int r = 0; r < w->nranks && first < 0; r++)
    if (w->seg_size[r] > 0) first = r;
  if (first < 0 && w->kind == MPISW_WIN_SHARED && (rank == MPI_PROC_NULL || NONE_OWN_DISP)) {
    *size = 0;
    *disp_unit = NONE_OWN_DISP ? w->seg_disp[w->rank] : 0;
    *(void **)baseptr = NULL;
    return MPI_SUCCESS;
  }
  if (rank == MPI_PROC_NULL) rank = first < 0 ? 0 : first;
  if (w->kind == MPISW_WIN_STORAGE) return mpisw_node_shared_query(w, rank, size, disp_unit, baseptr);
  *size = seg_size_answer(w, rank);
  *disp_unit = w->seg_disp[rank];
  *(void **)baseptr = seg_base(w, rank);
  return MPI_SUCCESS;
}
