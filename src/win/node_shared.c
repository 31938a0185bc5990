/* Storage windows whose ranks share one node, at shared-memory speed.
 *
 * MPI_Win_create over our file mappings sends RMA down the MPI's general
 * path (Open MPI 4.1: osc/ucx, 4-15x slower than osc/sm between two ranks
 * of one node). Instead, when every rank is on one node and each rank's
 * range is wholly a file mapping, the window is the MPI's own node-shared
 * window (direct load/store, locks in shared memory) and every process maps
 * each rank's file over that rank's segment. RMA then reads and writes the
 * files' page-cache pages; the MPI's segment pages underneath are never
 * touched. Each rank's own mapping from place.c stays: sync and free use it
 * (msync works on the file, whichever mapping dirtied the pages), and the
 * MPI's free unmaps the segment with everything mapped over it.
 *
 * Open MPI's segments start 264 bytes past a page boundary, and a file can
 * only be mapped at page boundaries. So each segment is one page longer,
 * the file is mapped at the first page boundary inside it, and the RMA layer
 * (src/rmax/route.c) adds that shift to every target displacement; the MPI
 * window has displacement unit 1 and the layer multiplies by the target's.
 *
 * Used by default with Open MPI only: MPICH 4.0's own MPI_Win_create path is
 * already as fast as its memory windows here, and its shared windows made
 * the target fault on every page of every transfer (storage_node_shared=true
 * forces it). Anything missing (ranks on several nodes, one rank, a memory
 * part, the pager, an MPI without node-shared windows, a window larger than
 * the MPI's shared-memory backing file system, a peer's file that cannot be
 * opened) returns 0 and the caller uses MPI_Win_create. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/unique.h"
#include "win/internal.h"

#ifdef OPEN_MPI
#define NODE_SHARED_DEFAULT 1
#else
#define NODE_SHARED_DEFAULT 0
#endif

/* What a rank tells its peers about its file mapping. */
struct peer {
  uint64_t off, len;  /* page-aligned file offset and length of the mapping */
  int64_t size;       /* window bytes the rank asked for */
  int64_t disp_unit;
  int32_t pid, fd;    /* peers open /proc/<pid>/fd/<fd>: works for unlinked files too */
  uint32_t access;    /* access_style, applied to every mapping of the file */
  int32_t pad;
};

static int wanted(const struct mpisw_hints *h) {
  return h->node_shared >= 0 ? h->node_shared : NODE_SHARED_DEFAULT;
}

int mpisw_node_shared_wanted(const struct mpisw_hints *h) { return wanted(h); }

static int eligible(const struct mpisw_place *p) {
  const struct mpisw_layout *l = &p->region.l;
  if (!wanted(&p->h) || p->pager || p->atomic) return 0; /* atomic: a private mapping */
  if (l->size == 0) return 1;
  return l->mem_len == 0 && l->lead == 0 && l->map_file_at == 0 && p->file.fd >= 0;
}

/* Does every rank qualify, and are all on one node? */
static int all_eligible(MPI_Comm comm, const struct mpisw_place *p) {
  return !mpisw_any(comm, !eligible(p)) && mpisw_one_node(comm);
}

/* Maps rank pr's file at the first page boundary of its segment. All its
 * pages must fit in the segment (a mapping cut short would leave the end of
 * the window off the file; one reaching past it would cover the next rank's
 * first page): otherwise -1, and the window falls back. */
static int map_peer(char *seg, MPI_Aint seg_size, const struct peer *pr, int own_fd,
                    MPI_Aint *shift) {
  uint64_t page = mpisw_page_size();
  *shift = 0;
  if (pr->size <= 0) return 0;
  uint64_t len = pr->len; /* the file's mapping: size rounded up to pages */
  if (!seg) return -1;
  *shift = (MPI_Aint)((page - (uintptr_t)seg % page) % page);
  if ((uint64_t)*shift + len > (uint64_t)seg_size) return -1;
  int fd = own_fd;
  if (fd < 0) {
    fd = mpisw_unique_open_peer((int)pr->pid, (int)pr->fd, NULL, 0);
    if (fd < 0) return -1;
  }
  int rc = mpisw_map_file_fixed(seg + *shift, len, fd, pr->off, pr->access);
  if (fd != own_fd) close(fd);
  return rc;
}

/* Open MPI backs its shared windows with a sparse file in /dev/shm and
 * refuses (with a warning, then a hang or abort) a window larger than that
 * file system's free space, although its pages are never touched here: a
 * storage window larger than that keeps the MPI_Win_create path. */
static int backing_has_room(const struct peer *all, int n) {
#ifdef OPEN_MPI
  const char *dir = getenv("OMPI_MCA_osc_sm_backing_directory");
  struct statvfs st;
  if (statvfs(dir && *dir ? dir : "/dev/shm", &st) != 0) return 0;
  uint64_t need = 1 << 20, page = mpisw_page_size();
  for (int r = 0; r < n; r++) need += (uint64_t)all[r].size + page;
  return need <= (uint64_t)st.f_bavail * st.f_frsize;
#else
  (void)all;
  (void)n;
  return 1;
#endif
}

/* The MPI's node-shared window, one slack page per rank; errors returned,
 * not raised. A shared window because MPIs answer MPI_Win_shared_query only
 * for those (Open MPI 4.1, MPICH 4.0); MPI_WIN_CREATE_FLAVOR still reports
 * ALLOCATE (info.c). */
static int allocate(MPI_Aint size, MPI_Info info, MPI_Comm comm, void *base, MPI_Win *win,
                    int large) {
  MPI_Info inf;
  if (info == MPI_INFO_NULL) PMPI_Info_create(&inf);
  else PMPI_Info_dup(info, &inf);
  PMPI_Info_set(inf, "alloc_shared_noncontig", "true");
  MPI_Errhandler eh = mpisw_comm_errors_return(comm);
  MPI_Aint want = size > 0 ? size + (MPI_Aint)mpisw_page_size() : 0;
  int rc = mpisw_mpi_Win_allocate_shared(want, 1, inf, comm, base, win, large);
  mpisw_comm_errors_restore(comm, eh);
  PMPI_Info_free(&inf);
  return rc;
}

/* Maps every rank's file into its segment of win; 0 when all are mapped. */
static int map_all(struct mpisw_win *w, MPI_Win win, int n, const struct peer *all) {
  MPI_Errhandler eh = mpisw_win_errors_return(win);
  int failed = 0;
  for (int r = 0; r < n && !failed; r++) {
    MPI_Aint sz = 0;
    int du = 0;
    char *b = NULL;
    if (mpisw_next.Win_shared_query(win, r, &sz, &du, &b) != MPI_SUCCESS) failed = 1;
    else failed = map_peer(b, sz, &all[r], r == w->rank ? w->p.file.fd : -1, &w->seg_off[r]);
    w->seg_size[r] = (MPI_Aint)all[r].size;
    w->seg_disp[r] = (MPI_Aint)all[r].disp_unit;
    if (r == w->rank) w->user_base = b ? b + w->seg_off[r] : NULL;
  }
  mpisw_win_errors_restore(win, eh);
  return failed;
}

int mpisw_node_shared_create(struct mpisw_win *w, MPI_Aint size, MPI_Aint disp_unit,
                             MPI_Info info, MPI_Comm comm, MPI_Win *win, void **base,
                             int large) {
  int n;
  PMPI_Comm_size(comm, &n);
  PMPI_Comm_rank(comm, &w->rank);
  if (n < 2 || !all_eligible(comm, &w->p)) return 0;

  struct peer me = {0}, *all = malloc((size_t)n * sizeof *all);
  w->seg_off = calloc((size_t)n, sizeof *w->seg_off);
  w->seg_size = calloc((size_t)n, sizeof *w->seg_size);
  w->seg_disp = calloc((size_t)n, sizeof *w->seg_disp);
  const struct mpisw_layout *l = &w->p.region.l;
  me.off = l->map_file_off;
  me.len = l->map_file_len;
  me.size = size;
  me.disp_unit = disp_unit;
  me.pid = (int32_t)getpid();
  me.fd = w->p.file.fd;
  me.access = w->p.h.access;
  if (mpisw_any(comm, !all || !w->seg_off || !w->seg_size || !w->seg_disp)) goto fallback;
  PMPI_Allgather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, comm);
  if (mpisw_any(comm, !backing_has_room(all, n))) goto fallback;

  void *smbase = NULL;
  MPI_Win smwin = MPI_WIN_NULL;
  if (mpisw_any(comm, allocate(size, info, comm, &smbase, &smwin, large) != MPI_SUCCESS))
    goto fallback; /* a window some ranks have and others not cannot be freed
                    * collectively: an MPI failing unevenly leaves it */
  if (mpisw_any(comm, map_all(w, smwin, n, all))) {
    mpisw_next.Win_free(&smwin); /* unmaps the segment, with whatever we mapped over it */
    goto fallback;
  }
  free(all);
  w->node_shared = 1;
  w->nranks = n;
  w->user_disp_int = (int)disp_unit;
  *win = smwin;
  *base = w->user_base;
  return 1;

fallback:
  free(all);
  free(w->seg_off);
  free(w->seg_size);
  free(w->seg_disp);
  w->seg_off = w->seg_size = w->seg_disp = NULL;
  return 0;
}

static struct mpisw_win *node_shared_win(MPI_Win win) {
  struct mpisw_win *w = mpisw_win_lookup(win);
  return w && w->kind == MPISW_WIN_STORAGE && w->node_shared ? w : NULL;
}

int mpisw_win_disp_map(MPI_Win win, int *nranks, const MPI_Aint **shift,
                       const MPI_Aint **disp_unit) {
  struct mpisw_win *w = node_shared_win(win);
  if (!w) return 0;
  *nranks = w->nranks;
  *shift = w->seg_off;
  *disp_unit = w->seg_disp;
  return 1;
}

int mpisw_win_node_segment(MPI_Win win, int rank, void **addr, MPI_Aint *size) {
  struct mpisw_win *w = node_shared_win(win);
  if (!w || rank < 0 || rank >= w->nranks) return 0;
  MPI_Aint sz;
  int du;
  char *b = NULL;
  if (mpisw_next.Win_shared_query(w->win, rank, &sz, &du, &b) != MPI_SUCCESS) return 0;
  /* map_all mapped rank's file here, in this process too */
  *addr = b && w->seg_size[rank] > 0 ? b + w->seg_off[rank] : NULL;
  *size = w->seg_size[rank];
  return 1;
}

int mpisw_node_shared_attr(MPI_Win win, int keyval, void *value, int *flag) {
  if (keyval != MPI_WIN_BASE && keyval != MPI_WIN_SIZE && keyval != MPI_WIN_DISP_UNIT) return 0;
  struct mpisw_win *w = node_shared_win(win);
  if (!w) return 0;
  if (keyval == MPI_WIN_BASE) *(void **)value = w->user_base;
  else if (keyval == MPI_WIN_SIZE) *(MPI_Aint **)value = &w->seg_size[w->rank];
  else *(int **)value = &w->user_disp_int;
  *flag = 1;
  return 1;
}

/* MPI_Win_shared_query on such a window (rank already resolved by
 * shared.c): the user's view of rank's part. */
int mpisw_node_shared_query(struct mpisw_win *w, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                            void *baseptr) {
  MPI_Aint sz;
  int du;
  char *b = NULL;
  int rc = mpisw_next.Win_shared_query(w->win, rank, &sz, &du, &b);
  if (rc != MPI_SUCCESS) return rc;
  *size = w->seg_size[rank];
  *disp_unit = w->seg_disp[rank];
  *(void **)baseptr = b && *size > 0 ? b + w->seg_off[rank] : NULL;
  return MPI_SUCCESS;
}
