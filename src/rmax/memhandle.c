/* Memory handles (paper, section 4). A handle names a region of one
 * process: (world rank, offset) in the arena window when the memory came
 * from MPI_Alloc_mem (no dynamic-window lookup at all), otherwise (world
 * rank, address) in the parent dynamic window, to which the region is
 * attached by MPIX_Memhandle_create and detached by MPIX_Memhandle_release.
 * Every handle also owns a slot in the owner's arena whose generation word
 * MPIX_Win_from_memhandle reads, so a released handle is refused. */
#include <stdlib.h>
#include <string.h>

#include "mpisw.h"
#include "rmax/api.h"
#include "rmax/keys.h"
#include "rmax/rmax.h"

#define MAGIC 0x4D50584Du /* "MPXM" */
enum { MH_ARENA = 1, MH_DYNAMIC = 2 };

struct wire {
  uint32_t magic, kind;
  int32_t owner;  /* world rank */
  uint32_t slot;  /* arena slot, UINT32_MAX without an arena */
  uint64_t gen;   /* slot generation; a local serial number without an arena */
  int64_t where;  /* arena offset or address */
  int64_t size;
};
_Static_assert(sizeof(struct wire) <= MPIX_MAX_MEMHANDLE_SIZE, "memory handle too large");

struct live {
  struct wire h;
  void *base;
  MPI_Win win;
  struct live *next;
};
static struct live *lives;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t serial;

static int world_rank(void) {
  int r = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

static int is_dynamic(MPI_Win win) {
  int *flavor = NULL, flag = 0;
  if (mpisw_next.Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag) != MPI_SUCCESS || !flag)
    return 0;
  return *flavor == MPI_WIN_FLAVOR_DYNAMIC;
}

int mpisw_rmax_memhandle_create(void *base, MPI_Aint size, MPI_Win win, void *memhandle,
                          int *memhandle_size) {
  static const char *routine = "MPIX_Memhandle_create";
  if (!memhandle || !memhandle_size) return mpisw_rmax_error(routine, win, "memhandle or memhandle_size is NULL");
  if (size < 0 || (!base && size > 0)) return mpisw_rmax_error(routine, win, "invalid region (base %p, size %ld)", base, (long)size);
  if (mpisw_rmax_lookup(win) && mpisw_rmax_lookup(win)->kind != RMAX_PLAIN)
    return mpisw_rmax_error(routine, win, "win must be the dynamic window itself, not a duplicate or memory-handle window");
  if (!is_dynamic(win)) return mpisw_rmax_error(routine, win, "win is not a dynamic window (MPI_Win_create_dynamic)");
  struct live *l = calloc(1, sizeof *l);
  if (!l) return mpisw_rmax_error(routine, win, "out of memory");
  l->h.magic = MAGIC;
  l->h.owner = world_rank();
  l->h.size = size;
  l->base = base;
  l->win = win;
  MPI_Aint off = mpisw_rmax_arena_offset(base, size);
  if (off >= 0) {
    l->h.kind = MH_ARENA;
    l->h.where = off;
  } else {
    /* through the window module: a storage range stays known to MPI_Win_sync */
    int rc = mpisw_win_attach(mpisw_rmax_sync_win(win), base, size);
    if (rc != MPI_SUCCESS) {
      free(l);
      return rc;
    }
    MPI_Aint addr;
    PMPI_Get_address(base, &addr);
    l->h.kind = MH_DYNAMIC;
    l->h.where = addr;
  }
  uint32_t slot;
  uint64_t gen;
  if (mpisw_rmax_slot_take(&slot, &gen) == 0) {
    l->h.slot = slot;
    l->h.gen = gen;
  } else if (mpisw_rmax_arena_win() != MPI_WIN_NULL) {
    if (l->h.kind == MH_DYNAMIC) mpisw_win_detach(mpisw_rmax_sync_win(win), base);
    free(l);
    return mpisw_rmax_error(routine, win, "too many live memory handles in this process (4096)");
  } else {
    l->h.slot = UINT32_MAX;
    pthread_mutex_lock(&mu);
    l->h.gen = ++serial;
    pthread_mutex_unlock(&mu);
  }
  pthread_mutex_lock(&mu);
  l->next = lives;
  lives = l;
  pthread_mutex_unlock(&mu);
  memset(memhandle, 0, MPIX_MAX_MEMHANDLE_SIZE);
  memcpy(memhandle, &l->h, sizeof l->h);
  *memhandle_size = (int)sizeof l->h;
  return MPI_SUCCESS;
}

int mpisw_rmax_memhandle_release(void *memhandle, MPI_Win win) {
  static const char *routine = "MPIX_Memhandle_release";
  struct wire h;
  if (!memhandle) return mpisw_rmax_error(routine, win, "memhandle is NULL");
  memcpy(&h, memhandle, sizeof h);
  struct live *found = NULL;
  pthread_mutex_lock(&mu);
  for (struct live **pp = &lives; *pp; pp = &(*pp)->next)
    if (!memcmp(&(*pp)->h, &h, sizeof h)) {
      found = *pp;
      *pp = found->next;
      break;
    }
  pthread_mutex_unlock(&mu);
  if (!found)
    return mpisw_rmax_error(routine, win,
                      "not a live memory handle of this process (released already, or never created here)");
  if (found->h.slot != UINT32_MAX) mpisw_rmax_slot_release(found->h.slot);
  int rc = MPI_SUCCESS;
  if (found->h.kind == MH_DYNAMIC) rc = mpisw_win_detach(mpisw_rmax_sync_win(found->win), found->base);
  free(found);
  return rc;
}

static int group_to_world(MPI_Win win, int rank, int *world) {
  MPI_Group g, wg;
  if (mpisw_next.Win_get_group(win, &g) != MPI_SUCCESS) return -1;
  PMPI_Comm_group(MPI_COMM_WORLD, &wg);
  int rc = PMPI_Group_translate_ranks(g, 1, &rank, wg, world);
  PMPI_Group_free(&g);
  PMPI_Group_free(&wg);
  return rc == MPI_SUCCESS && *world != MPI_UNDEFINED ? 0 : -1;
}

int mpisw_rmax_win_from_memhandle(const void *memhandle, MPI_Aint size, int disp_unit, MPI_Info info,
                            int target, MPI_Win win, MPI_Win *newwin) {
  static const char *routine = "MPIX_Win_from_memhandle";
  struct wire h;
  if (!memhandle || !newwin) return mpisw_rmax_error(routine, win, "memhandle or newwin is NULL");
  memcpy(&h, memhandle, sizeof h);
  if (h.magic != MAGIC || (h.kind != MH_ARENA && h.kind != MH_DYNAMIC))
    return mpisw_rmax_error(routine, win, "not a memory handle made by MPIX_Memhandle_create");
  if (disp_unit <= 0) return mpisw_rmax_error(routine, win, "disp_unit %d is not positive", disp_unit);
  int bad = mpisw_rmax_keys_check(routine, win, info);
  if (bad != MPI_SUCCESS) return bad;
  if (size < 0 || size > h.size)
    return mpisw_rmax_error(routine, win, "size %ld exceeds the memory handle's region of %ld bytes",
                      (long)size, (long)h.size);
  struct rmax_win *pw = mpisw_rmax_lookup(win);
  if (pw && pw->kind != RMAX_PLAIN)
    return mpisw_rmax_error(routine, win, "win must be the parent dynamic window");
  if (!is_dynamic(win)) return mpisw_rmax_error(routine, win, "win is not a dynamic window");
  int world;
  if (group_to_world(win, target, &world) || world != h.owner)
    return mpisw_rmax_error(routine, win, "target %d of the window is not the process that made the handle",
                      target);
  if (h.slot != UINT32_MAX) {
    uint64_t gen = 0;
    if (mpisw_rmax_slot_read(h.owner, h.slot, &gen))
      return mpisw_rmax_error(routine, win, "cannot check the memory handle at its owner");
    if (gen != h.gen)
      return mpisw_rmax_error(routine, win, "the memory handle was released (MPIX_Memhandle_release)");
  }
  if (h.kind == MH_ARENA && mpisw_rmax_arena_win() == MPI_WIN_NULL)
    return mpisw_rmax_error(routine, win, "the handle is in an arena, but this process has none (MPISW_ARENA_SIZE must agree)");
  struct rmax_win *root = mpisw_rmax_root_of(win);
  if (!root) return mpisw_rmax_error(routine, win, "out of memory");
  MPI_Win nw;
  int rc = mpisw_rmax_local_handle(routine, win, &nw);
  if (rc != MPI_SUCCESS) return rc;
  struct rmax_win *m = mpisw_rmax_new(nw, RMAX_MEMH);
  if (m) {
    m->root = root;
    m->target = target;
    m->from_arena = h.kind == MH_ARENA;
    m->via = m->from_arena ? mpisw_rmax_arena_win() : win;
    m->via_rank = m->from_arena ? h.owner : target;
    m->base_disp = (MPI_Aint)h.where;
    m->disp_unit = disp_unit;
    m->disp_unit_int = disp_unit;
    m->size = size;
    m->keys = root->keys;
    mpisw_rmax_keys_apply(m, info);
    m->nranks = 1;
    m->pending = calloc(1, 1);
  }
  if (!m || !m->pending || mpisw_rmax_insert(m)) {
    mpisw_rmax_destroy(m);
    mpisw_next.Win_free(&nw);
    return mpisw_rmax_error(routine, win, "out of memory");
  }
  __atomic_add_fetch(&root->refs, 1, __ATOMIC_SEQ_CST);
  *newwin = nw;
  return MPI_SUCCESS;
}
