/* Storage windows: each rank's section of the shared file is the storage of
 * its own window (storage_alloc_filename = the file, storage_alloc_offset =
 * the section). The first checkpoint makes the window and the run keeps it
 * for its later checkpoints (as an application keeps its file open: a new
 * window per step had the pager read the file back in before each
 * overwrite); each checkpoint copies the particle arrays in (--fill store)
 * or puts them (--fill put) and makes them durable with MPI_Win_sync.
 *
 * Hints: storage_node_shared=false (nothing here needs RMA between ranks;
 * the node-shared form would map every rank's section in every process),
 * storage_backend from --backend (mmap: the kernel's page cache; pager:
 * mpisw's user-level pager, O_DIRECT block I/O; auto: the library's choice,
 * read back from MPI_Win_get_info), access_style from --access;
 * the restart's window is storage_alloc_discard=true (it wrote nothing).
 * The restart makes the same window over the existing file and does not
 * copy: the particles live in the window from then on (the arrays point into
 * it) until hacc_win_close, after the timed phase and the verification, as
 * an application that keeps its state in a storage window would. The timed
 * restart brings every page into memory, so the data is in the process's
 * memory when it returns, as after a read: --readers threads each call
 * MADV_POPULATE_READ on a part (its faults read ahead as the kernel does
 * for a sequential read; MADV_WILLNEED first, in read_ahead_kb pieces, was
 * slower: 0.43-0.59 s against 0.30-0.31 s for 797 MB at 2 ranks), on the
 * mmap backend after MADV_HUGEPAGE (large folios); the pager reads ahead by
 * itself. README "HACC-IO" has the measurements. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hacc_io.h"

/* The backend the library chose for the last window (auto decides). */
static char backend_used[16] = "none";

static void note_backend(MPI_Win win) {
  MPI_Info info;
  int flag = 0;
  if (MPI_Win_get_info(win, &info) != MPI_SUCCESS) return;
  MPI_Info_get(info, "storage_backend", (int)sizeof backend_used - 1, backend_used, &flag);
  if (!flag) snprintf(backend_used, sizeof backend_used, "?");
  MPI_Info_free(&info);
}

const char *hacc_win_backend(void) { return backend_used; }

static int make_window(const struct hacc_options *o, uint64_t off, uint64_t bytes, int reading,
                       MPI_Win *win, char **base, char *why, size_t n) {
  MPI_Info info;
  char offs[32];
  snprintf(offs, sizeof offs, "%llu", (unsigned long long)off);
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_type", "storage");
  MPI_Info_set(info, "storage_alloc_filename", o->path);
  MPI_Info_set(info, "storage_alloc_offset", offs);
  MPI_Info_set(info, "storage_alloc_unlink", "false");
  MPI_Info_set(info, "storage_node_shared", "false");
  MPI_Info_set(info, "storage_backend", o->backend);
  /* a restart only reads the section: says so (with auto, the library then
   * keeps the page cache, which reads a cold file fastest here). read_mostly,
   * not read_once: read_once would bring MADV_SEQUENTIAL, a trap here (see
   * the README) */
  if (o->access) MPI_Info_set(info, "access_style", o->access);
  else if (reading) MPI_Info_set(info, "access_style", "read_mostly");
  if (reading) MPI_Info_set(info, "storage_alloc_discard", "true");
  int err = MPI_Win_allocate((MPI_Aint)bytes, 1, info, MPI_COMM_WORLD, base, win);
  MPI_Info_free(&info);
  if (err != MPI_SUCCESS) {
    hacc_mpi_why(err, "cannot make the storage window over the checkpoint file", why, n);
    *win = MPI_WIN_NULL;
    return HACC_IO_ERROR;
  }
  MPI_Win_set_errhandler(*win, MPI_ERRORS_RETURN);
  note_backend(*win);
  return 0;
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif

/* madvise over the whole pages of [base, base + bytes): its result, 0 for
 * an empty range. */
static int advise(char *base, uint64_t bytes, int advice) {
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t b = (uintptr_t)base / page * page;
  return bytes ? madvise((void *)b, (uintptr_t)base - b + bytes, advice) : 0;
}

struct part {
  char *base;
  uint64_t bytes;
};

/* Maps every page of a part in one call (no fault per page), or, where the
 * kernel cannot (older than 5.14), reads a byte of each page. (For the
 * checkpoint's writes MADV_POPULATE_WRITE was tried: twice as slow as the
 * faults.) */
static void *populate_part(void *arg) {
  struct part *pa = arg;
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  if (advise(pa->base, pa->bytes, MADV_POPULATE_READ) != 0) {
    volatile char sum = 0;
    for (uint64_t off = 0; off < pa->bytes; off += page) sum += pa->base[off];
    (void)sum;
  }
  return NULL;
}

/* The section brought in by k threads at once, each a contiguous part of
 * whole pages: k sequential streams, so k read-aheads in flight where one
 * faulting thread keeps one. */
static void populate(char *base, uint64_t bytes, int k) {
  enum { MAX_READERS = 64 };
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  uint64_t each = (bytes / (uint64_t)k + page - 1) / page * page;
  struct part parts[MAX_READERS];
  pthread_t tid[MAX_READERS];
  int started[MAX_READERS] = {0};
  for (int i = 0; i < k; i++) {
    uint64_t at = each * (uint64_t)i < bytes ? each * (uint64_t)i : bytes;
    uint64_t end = i == k - 1 || at + each > bytes ? bytes : at + each;
    parts[i] = (struct part){base + at, end - at};
    if (i > 0) started[i] = pthread_create(&tid[i], NULL, populate_part, &parts[i]) == 0;
  }
  populate_part(&parts[0]);
  for (int i = 1; i < k; i++) {
    if (started[i]) pthread_join(tid[i], NULL);
    else populate_part(&parts[i]); /* no thread: this one does it */
  }
}

/* A file mapping's faults read around in 4 KiB folios; with MADV_HUGEPAGE
 * (transparent huge pages "madvise" or "always", a file system with large
 * folios: ext4, xfs) they read in 2 MiB folios, and a fault maps more than
 * one page: 0.27-0.45 s against 0.40-0.56 s for 797 MB at 1 rank. Only
 * for the file mapping (the pager's memory is its own); no effect where
 * the kernel says no. */
static void large_folios(char *base, uint64_t bytes) { advise(base, bytes, MADV_HUGEPAGE); }

int hacc_win_readers_auto(void) {
  MPI_Comm node;
  int local = 1;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
      MPI_SUCCESS) {
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  long k = cores > 0 ? cores / local : 1;
  return k < 1 ? 1 : k > 4 ? 4 : (int)k;
}

/* The arrays into the window, array after array. */
static void copy_in(struct hacc_particles *pt, char *base) {
  for (int a = 0; a < HACC_ARRAYS; a++)
    memcpy(base + hacc_array_offset(pt->n, a), pt->array[a], pt->n * hacc_array_size[a]);
}

/* The arrays into the window by MPI_Put to this rank's own window, inside
 * the checkpoint's epoch: a put that covers whole blocks of a pager window
 * tells the pager they are overwritten (not read; its workers bring them in
 * while the put fills the first). Pieces of at most 1 GiB (int counts). */
static int put_in(struct hacc_particles *pt, MPI_Win win, int me) {
  const uint64_t piece = 1ull << 30;
  for (int a = 0; a < HACC_ARRAYS; a++) {
    uint64_t at = hacc_array_offset(pt->n, a), len = pt->n * hacc_array_size[a];
    for (uint64_t done = 0; done < len; done += piece) {
      int n = (int)(len - done < piece ? len - done : piece);
      int err = MPI_Put((char *)pt->array[a] + done, n, MPI_BYTE, me, (MPI_Aint)(at + done), n,
                        MPI_BYTE, win);
      if (err != MPI_SUCCESS) return err;
    }
  }
  return MPI_Win_flush(me, win);
}

/* The restart's window, which holds the particles until hacc_win_close. */
static MPI_Win restart_win = MPI_WIN_NULL;
static void *saved_array[HACC_ARRAYS];

/* The checkpoints' window: made at the first checkpoint and kept for the
 * run's later ones (an application keeps its checkpoint window as it keeps
 * a file open), freed by hacc_win_close_checkpoint outside the timed phase. */
static MPI_Win ckpt_win = MPI_WIN_NULL;
static char *ckpt_base;

int hacc_win_checkpoint(const struct hacc_options *o, struct hacc_particles *pt, int step,
                        struct hacc_io_result *res) {
  (void)step;
  int p = hacc_nranks(), r = hacc_rank(), rc = 0;
  if (ckpt_win == MPI_WIN_NULL) {
    rc = make_window(o, hacc_section_offset(o->particles, p, r), hacc_section_bytes(pt->n), 0,
                     &ckpt_win, &ckpt_base, res->why, sizeof res->why);
    if (rc) return rc; /* MPI_Win_allocate failed on every rank alike */
  }
  MPI_Win win = ckpt_win;
  if (!o->fill_put) copy_in(pt, ckpt_base);
  /* Durable before it counts (Open MPI's osc/ucx wants a passive epoch). */
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  int err = o->fill_put ? put_in(pt, win, r) : MPI_SUCCESS;
  if (err != MPI_SUCCESS) {
    hacc_mpi_why(err, "MPI_Put of the particles into the window failed", res->why,
                 sizeof res->why);
    rc = HACC_IO_ERROR;
  }
  err = MPI_Win_sync(win);
  MPI_Win_unlock_all(win);
  if (!rc && err != MPI_SUCCESS) {
    hacc_mpi_why(err, "MPI_Win_sync could not make the particles durable", res->why,
                 sizeof res->why);
    rc = HACC_IO_ERROR;
  }
  return rc;
}

int hacc_win_close_checkpoint(char *why, size_t n) {
  if (ckpt_win == MPI_WIN_NULL) return 0;
  int err = MPI_Win_free(&ckpt_win); /* synced already: nothing left to write */
  if (err != MPI_SUCCESS) {
    hacc_mpi_why(err, "MPI_Win_free could not write the particles back", why, n);
    return HACC_IO_ERROR;
  }
  return 0;
}

int hacc_win_restart(const struct hacc_options *o, struct hacc_particles *pt, int *step,
                     struct hacc_io_result *res) {
  struct hacc_header h;
  int rc = hacc_agree(hacc_file_header(o, &h, res->why, sizeof res->why));
  if (rc) return rc;
  int p = hacc_nranks(), r = hacc_rank();
  if ((int)h.ranks != p) {
    snprintf(res->why, sizeof res->why, "--method win restarts at the rank count that wrote "
             "the file (%u; this job has %d): each rank's window is one writer's section; "
             "--method indep or coll read it at any rank count", h.ranks, p);
    return HACC_BAD_OPTION;
  }
  if (h.total != o->particles) {
    snprintf(res->why, sizeof res->why, "the file holds %llu particles, not %llu",
             (unsigned long long)h.total, (unsigned long long)o->particles);
    return HACC_BAD_FILE;
  }
  *step = (int)h.step;
  int k = o->readers > 0 ? o->readers : 1;
  MPI_Win win;
  char *base;
  rc = make_window(o, hacc_section_offset(h.total, p, r), hacc_section_bytes(pt->n), 1, &win,
                   &base, res->why, sizeof res->why);
  if (rc) return rc;
  if (!strcmp(hacc_win_backend(), "mmap")) large_folios(base, hacc_section_bytes(pt->n));
  populate(base, hacc_section_bytes(pt->n), k);
  for (int a = 0; a < HACC_ARRAYS; a++) {
    saved_array[a] = pt->array[a];
    pt->array[a] = base + hacc_array_offset(pt->n, a);
  }
  restart_win = win;
  return 0;
}

void hacc_win_close(struct hacc_particles *pt) {
  if (restart_win == MPI_WIN_NULL) return;
  MPI_Win_free(&restart_win); /* storage_alloc_discard: nothing to write back */
  for (int a = 0; a < HACC_ARRAYS; a++) pt->array[a] = saved_array[a];
}
