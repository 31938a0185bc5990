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
 * The same route serves every storage window kind whose pages peers can map
 * (issue 19): a window with a memory part (its memory becomes a memfd,
 * place.c, mapped by every process like the file), a shared window (each
 * rank's segment of the node mapping over its MPI segment; the pages at
 * segment borders are mapped twice, both mappings of one file) and
 * MPI_Win_create over MPI_Alloc_mem storage (the user's buffer stays where
 * it is; peers map the same file and memfd pages). A rank's bytes need not
 * start on a page: the shift covers the offset inside the first page.
 * A pager window (storage_backend=pager) takes the route when its pager
 * pages a memfd (pager_glue.c: a storage part the pager holds whole): the
 * memfd takes the file's place, mapped like a memory part. A larger pager
 * window keeps the pager's private anonymous memory, which no other process
 * can map, and MPI_Win_create: on Open MPI osc/ucx, which with UCX_TLS=
 * ^sysv,posix (the tests' and benchmarks' setting, docs/TROUBLESHOOTING.md)
 * carries every put and get as TCP messages the target answers.
 *
 * Used by default with Open MPI only: MPICH 4.0's own MPI_Win_create path is
 * already as fast as its memory windows here, and on this route its
 * transfers fault twice on every page past the first 64 KiB, at whichever
 * side writes the bytes (the target for puts, the origin for gets), in the
 * memfd part as in the file part, every epoch, with no munmap, madvise or
 * mprotect in between (strace) and whatever UCX_RCACHE_ENABLE says: 64 KiB
 * is where MPICH leaves its eager copy for its large-message protocol. The
 * cause inside MPICH was not found; storage_node_shared=true forces it. Anything missing (ranks on several nodes, one rank,
 * a pager window larger than its memory, storage_sync=atomic, memory of a Win_create not from MPI_Alloc_mem storage, an MPI without node-shared windows, a window larger than
 * the MPI's shared-memory backing file system, a peer's file that cannot be
 * opened) returns 0 and the caller uses MPI_Win_create. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/unique.h"
#include "pager/pager.h"
#include "win/internal.h"

#ifdef OPEN_MPI
#define NODE_SHARED_DEFAULT 1
#else
#define NODE_SHARED_DEFAULT 0
#endif

/* What a rank tells its peers about its bytes: pages [0, span) from a
 * page-aligned start hold a memfd piece and a file piece (either may be
 * empty), and the rank's first byte lies lead bytes past that start. */
struct peer {
  int64_t size;       /* window bytes the rank asked for */
  int64_t disp_unit;
  uint64_t lead, span;
  uint64_t mem_at, mem_len, mem_off;
  uint64_t file_at, file_len, file_off;
  int32_t pid, mem_fd, file_fd; /* peers open /proc/<pid>/fd/<fd>: unlinked files too */
  uint32_t access;    /* access_style, applied to every mapping of the file */
  uint32_t file_is_mem; /* the storage piece is a shared pager's memfd, not the file */
};

static int wanted(const struct mpisw_hints *h) {
  return h->node_shared >= 0 ? h->node_shared : NODE_SHARED_DEFAULT;
}

/* Before placing (storage_backend=auto, pager_glue.c): will the window take
 * the route? Then it keeps the mapping the route needs. */
void mpisw_node_route_alone(struct mpisw_hints *h) {
  /* MPI_Alloc_mem: a later MPI_Win_create over the memory may take the route */
  h->node_route = wanted(h);
}

void mpisw_node_route_expect(struct mpisw_hints *h, MPI_Comm comm) {
  int n;
  PMPI_Comm_size(comm, &n);
  /* collective whatever this rank's hints say: they may differ between ranks */
  int one = n > 1 && mpisw_one_node(comm);
  h->node_route = one && wanted(h);
}

/* What holds a placement's storage part: a shared pager's memfd, else the
 * file (a private pager: -1 for the memfd, and the file is not it). */
static int pager_fd(const struct mpisw_place *p) { return mpisw_pager_shared_fd(p->pager); }
static int storage_fd(const struct mpisw_place *p) {
  return p->pager ? pager_fd(p) : p->file.fd;
}

/* A placement whose pages peers can map (the memory part becomes a memfd
 * once every rank agrees). */
static int mappable(const struct mpisw_place *p) {
  /* atomic: a private mapping; a pager: only with shared pages */
  return wanted(&p->h) && (!p->pager || pager_fd(p) >= 0) && !p->atomic;
}

/* Intersection of [lo, hi) with a piece of the layout [at, at+len). */
static void cut(uint64_t lo, uint64_t hi, uint64_t at, uint64_t len, uint64_t *out_at,
                uint64_t *out_len, uint64_t *skip) {
  uint64_t a = lo > at ? lo : at, b = hi < at + len ? hi : at + len;
  *out_at = a - lo;
  *out_len = b > a ? b - a : 0;
  *skip = a - at;
}

/* The peer record of bytes [from, from+len) of a placement's reservation
 * (from counted from the reservation's start). */
static void describe(struct peer *pr, const struct mpisw_place *p, uint64_t from, uint64_t len,
                     MPI_Aint size, MPI_Aint disp_unit) {
  const struct mpisw_layout *l = &p->region.l;
  uint64_t page = mpisw_page_size(), skip;
  memset(pr, 0, sizeof *pr);
  pr->size = size;
  pr->disp_unit = disp_unit;
  pr->pid = (int32_t)getpid();
  pr->mem_fd = p->shm_fd;
  pr->file_fd = storage_fd(p);
  pr->file_is_mem = p->pager != NULL;
  pr->access = p->h.access;
  if (size <= 0) return;
  uint64_t lo = from / page * page, hi = (from + len + page - 1) / page * page;
  pr->lead = from - lo;
  pr->span = hi - lo;
  cut(lo, hi, l->map_mem_at, l->map_mem_len, &pr->mem_at, &pr->mem_len, &skip);
  pr->mem_off = skip;
  cut(lo, hi, l->map_file_at, l->map_file_len, &pr->file_at, &pr->file_len, &skip);
  pr->file_off = (pr->file_is_mem ? 0 : l->map_file_off) + skip; /* the memfd: from the range */
}

/* Maps one piece of a peer's bytes at addr: its own descriptor when this
 * process has the object open, else the peer's through /proc. */
static int map_piece(char *addr, uint64_t len, int pid, int fd, int own_fd, uint64_t off,
                     unsigned access, int is_file) {
  if (!len) return 0;
  int f = own_fd;
  if (f < 0) {
    f = mpisw_unique_open_peer(pid, fd, NULL, 0);
    if (f < 0) return -1;
  }
  int rc = is_file ? mpisw_map_file_fixed(addr, len, f, off, access)
                   : (mmap(addr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, f,
                           (off_t)off) == MAP_FAILED ? -1 : 0);
  if (f != own_fd) close(f);
  return rc;
}

/* Maps rank pr's pages at the first page boundary of its segment. All must
 * fit in the segment (a mapping cut short would leave the end of the
 * window off the file; one reaching past it would cover the next rank's
 * first page): otherwise -1, and the window falls back. own_file/own_mem:
 * this process's descriptors of the same objects, or -1. */
static int map_peer(char *seg, MPI_Aint seg_size, const struct peer *pr, int own_file,
                    int own_mem, MPI_Aint *shift) {
  uint64_t page = mpisw_page_size();
  *shift = 0;
  if (pr->size <= 0) return 0;
  if (!seg) return -1;
  uint64_t pad = (page - (uintptr_t)seg % page) % page;
  *shift = (MPI_Aint)(pad + pr->lead);
  if (pad + pr->span > (uint64_t)seg_size) return -1;
  char *start = seg + pad;
  if (map_piece(start + pr->mem_at, pr->mem_len, pr->pid, pr->mem_fd, own_mem, pr->mem_off,
                0, 0))
    return -1;
  return map_piece(start + pr->file_at, pr->file_len, pr->pid, pr->file_fd, own_file,
                   pr->file_off, pr->access, !pr->file_is_mem);
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
  for (int r = 0; r < n; r++) need += all[r].span + page;
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
 * what the user made (info.c). */
static int allocate(MPI_Aint want, MPI_Info info, MPI_Comm comm, void *base, MPI_Win *win,
                    int large) {
  MPI_Info inf;
  if (info == MPI_INFO_NULL) PMPI_Info_create(&inf);
  else PMPI_Info_dup(info, &inf);
  PMPI_Info_set(inf, "alloc_shared_noncontig", "true");
  MPI_Errhandler eh = mpisw_comm_errors_return(comm);
  int rc = mpisw_mpi_Win_allocate_shared(want, 1, inf, comm, base, win, large);
  mpisw_comm_errors_restore(comm, eh);
  PMPI_Info_free(&inf);
  return rc;
}

/* Maps every rank's pages into its segment of win; 0 when all are mapped.
 * same_files: every process has the same file and memfd open (a shared
 * window's node mapping), so its own descriptors serve for every rank. */
static int map_all(struct mpisw_win *w, MPI_Win win, int n, const struct peer *all,
                   const struct mpisw_place *own, int same_files) {
  MPI_Errhandler eh = mpisw_win_errors_return(win);
  int failed = 0;
  for (int r = 0; r < n && !failed; r++) {
    MPI_Aint sz = 0;
    int du = 0;
    char *b = NULL;
    int mine = same_files || r == w->rank;
    if (mpisw_next.Win_shared_query(win, r, &sz, &du, &b) != MPI_SUCCESS) failed = 1;
    else failed = map_peer(b, sz, &all[r], mine && own ? storage_fd(own) : -1,
                           mine && own ? own->shm_fd : -1, &w->ns_shift[r]);
    w->seg_size[r] = (MPI_Aint)all[r].size;
    w->seg_disp[r] = (MPI_Aint)all[r].disp_unit;
    if (r == w->rank) w->user_base = b && all[r].size > 0 ? b + w->ns_shift[r] : NULL;
  }
  mpisw_win_errors_restore(win, eh);
  return failed;
}

/* The route for one rank's description me (ok: it can take it; prepare,
 * when given, runs on every rank once all can, and may still fail). */
static int make(struct mpisw_win *w, struct peer *me, int ok,
                int (*prepare)(struct mpisw_place *, struct peer *, void *), void *arg,
                struct mpisw_place *own, int same_files, MPI_Info info, MPI_Comm comm,
                MPI_Win *win, int large) {
  int n;
  PMPI_Comm_size(comm, &n);
  PMPI_Comm_rank(comm, &w->rank);
  if (n < 2 || mpisw_any(comm, !ok) || !mpisw_one_node(comm)) return 0;
  if (mpisw_any(comm, prepare && prepare(own, me, arg) != 0)) return 0;

  struct peer *all = malloc((size_t)n * sizeof *all);
  MPI_Aint *shift = calloc((size_t)n, sizeof *shift);
  MPI_Aint *sizes = w->seg_size ? w->seg_size : calloc((size_t)n, sizeof *sizes);
  MPI_Aint *units = w->seg_disp ? w->seg_disp : calloc((size_t)n, sizeof *units);
  if (mpisw_any(comm, !all || !shift || !sizes || !units)) goto fallback;
  PMPI_Allgather(me, (int)sizeof *me, MPI_BYTE, all, (int)sizeof *me, MPI_BYTE, comm);
  if (mpisw_any(comm, !backing_has_room(all, n))) goto fallback;

  void *smbase = NULL;
  MPI_Win smwin = MPI_WIN_NULL;
  MPI_Aint want = me->size > 0 ? (MPI_Aint)(me->span + mpisw_page_size()) : 0;
  if (mpisw_any(comm, allocate(want, info, comm, &smbase, &smwin, large) != MPI_SUCCESS))
    goto fallback; /* a window some ranks have and others not cannot be freed
                    * collectively: an MPI failing unevenly leaves it */
  MPI_Aint *keep_size = w->seg_size, *keep_disp = w->seg_disp;
  w->seg_size = sizes;
  w->seg_disp = units;
  w->ns_shift = shift;
  if (mpisw_any(comm, map_all(w, smwin, n, all, own, same_files))) {
    mpisw_next.Win_free(&smwin); /* unmaps the segment, with whatever we mapped over it */
    w->seg_size = keep_size;
    w->seg_disp = keep_disp;
    w->ns_shift = NULL;
    goto fallback;
  }
  free(all);
  w->ns_route = 1;
  w->nranks = n;
  w->user_disp_int = (int)me->disp_unit;
  *win = smwin;
  return 1;

fallback:
  free(all);
  free(shift);
  if (sizes != w->seg_size) free(sizes);
  if (units != w->seg_disp) free(units);
  return 0;
}

/* ---- MPI_Win_allocate: the whole placement ---- */

static int share_fresh_memory(struct mpisw_place *p, struct peer *me, void *arg) {
  (void)arg;
  if (mpisw_place_share_memory(p, 0)) return -1; /* nothing written in it yet */
  me->mem_fd = p->shm_fd;
  return 0;
}

int mpisw_node_shared_create(struct mpisw_win *w, MPI_Aint size, MPI_Aint disp_unit,
                             MPI_Info info, MPI_Comm comm, MPI_Win *win, void **base,
                             int large) {
  struct peer me;
  const struct mpisw_layout *l = &w->p.region.l;
  describe(&me, &w->p, l->lead, l->size, size, disp_unit);
  if (!make(w, &me, mappable(&w->p), share_fresh_memory, NULL, &w->p, 0, info, comm, win,
            large))
    return 0;
  w->node_shared = 1;
  *base = w->user_base;
  return 1;
}

/* ---- MPI_Win_allocate_shared: each rank's segment of the node range ---- */

int mpisw_node_shared_shared(struct mpisw_win *w, MPI_Info info, MPI_Comm comm, MPI_Win *win,
                             int large) {
  struct peer me;
  int r = w->rank;
  const struct mpisw_layout *l = &w->p.region.l;
  describe(&me, &w->p, l->lead + (uint64_t)w->seg_off[r], (uint64_t)w->seg_size[r],
           w->seg_size[r], w->seg_disp[r]);
  /* shared.c's own segment table stays: MPI_Win_shared_query answers from it */
  return make(w, &me, mappable(&w->p) && w->p.region.reserve, NULL, NULL, &w->p, 1, info,
              comm, win, large);
}

/* ---- MPI_Win_create over MPI_Alloc_mem storage ---- */

static int share_user_memory(struct mpisw_place *p, struct peer *me, void *arg) {
  (void)arg;
  if (!p) return 0; /* no bytes here */
  if (mpisw_place_share_memory(p, 1)) return -1; /* the program may have written it */
  me->mem_fd = p->shm_fd;
  return 0;
}

int mpisw_node_shared_over(struct mpisw_win *w, int usable, struct mpisw_place *p, void *base,
                           MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                           MPI_Win *win, int large) {
  struct peer me;
  struct mpisw_place none;
  int ok = 1;
  if (size > 0 && p) {
    describe(&me, p, (uint64_t)((char *)base - p->region.reserve), (uint64_t)size, size,
             disp_unit);
    ok = mappable(p);
  } else {
    memset(&none, 0, sizeof none);
    none.shm_fd = none.file.fd = -1;
    describe(&me, &none, 0, 0, 0, disp_unit);
    ok = size <= 0;
  }
  if (!make(w, &me, ok && usable, share_user_memory, NULL, size > 0 ? p : NULL, 0, info, comm, win,
            large))
    return 0;
  w->user_base = base; /* the program's own buffer, the same pages */
  return 1;
}

int64_t mpisw_node_shared_bytes(const struct mpisw_win *w, int target, MPI_Aint disp) {
  if (!w->ns_route || target < 0 || target >= w->nranks) return -1;
  return (int64_t)disp - (int64_t)w->ns_shift[target];
}

static struct mpisw_win *node_shared_win(MPI_Win win) {
  struct mpisw_win *w = mpisw_win_lookup(win);
  return w && w->ns_route ? w : NULL;
}

int mpisw_win_disp_map(MPI_Win win, int *nranks, const MPI_Aint **shift,
                       const MPI_Aint **disp_unit) {
  struct mpisw_win *w = node_shared_win(win);
  if (!w) return 0;
  *nranks = w->nranks;
  *shift = w->ns_shift;
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
  *addr = b && w->seg_size[rank] > 0 ? b + w->ns_shift[rank] : NULL;
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
  *(void **)baseptr = b && *size > 0 ? b + w->ns_shift[rank] : NULL;
  return MPI_SUCCESS;
}

const char *mpisw_win_route(MPI_Win win) {
  struct mpisw_win *w = mpisw_win_lookup(win);
  if (!w || w->kind == MPISW_WIN_MEMORY) return NULL;
  if (w->kind == MPISW_WIN_USER && !w->nallocs) return NULL; /* no storage exposed */
  return w->ns_route ? "node_shared" : "win_create";
}
