/* Opening, closing and deleting pooled files. MPI_File_open and
 * MPI_File_close are collective, with as few rounds as their semantics
 * allow: open is one agreement (every rank returns the same result, and
 * rank 0's shared file pointer slot travels in it) on a communicator
 * duplicate cached on the program's communicator; close is one barrier
 * (every rank's data in, as programs written for ROMIO expect), plus one
 * for a drain. A pooled file outlives its close: any communicator of the
 * job can open it again until it is deleted or the job ends. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfile/internal.h"
#include "win/internal.h"
#include "win/internal.h"

#define OPEN "MPI_File_open"

static int amode_error(int amode) {
  int rd = !!(amode & MPI_MODE_RDONLY), rw = !!(amode & MPI_MODE_RDWR),
      wr = !!(amode & MPI_MODE_WRONLY);
  if (rd + rw + wr != 1) return 1;
  if (rd && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL))) return 1;
  if (rw && (amode & MPI_MODE_SEQUENTIAL)) return 1;
  return 0;
}

/* A positive integer hint of info, 0 when absent; -1 when its value is not. */
static long long int_hint(MPI_Info info, const char *key, char *bad, int badlen) {
  char v[64];
  if (!mpisw_info_get(info, key, v, sizeof v)) return 0;
  char *end;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (errno || *end || end == v || x <= 0) {
    snprintf(bad, badlen, "%s", v);
    return -1;
  }
  return x;
}

/* A string hint of info, copied (NULL when absent). */
static char *text_hint(MPI_Info info, const char *key) {
  char v[MPISW_PATH_MAX + 1];
  return mpisw_info_get(info, key, v, sizeof v) ? strdup(v) : NULL;
}

int mpisw_pfile_agree(struct mpisw_pfile *f, MPI_Comm comm, int code, const char *routine,
                      int *flag) {
  struct mpisw_error e = {MPISW_K_IO, ""};
  int cls = MPI_ERR_OTHER, len = 0;
  if (code != MPI_SUCCESS) { /* codes are numbers of each process: class and text travel */
    PMPI_Error_class(code, &cls);
    PMPI_Error_string(code, e.msg, &len);
  }
  if (!mpisw_agree_class(comm, code != MPI_SUCCESS, &e, &cls, flag)) return MPI_SUCCESS;
  if (code != MPI_SUCCESS) return code;
  return mpisw_pfile_error(f, cls, routine, "%s", e.msg);
}

/* ---- the file's communicator ----
 * Its collectives need a communicator of their own (the program may free
 * its communicator, and use it meanwhile). A duplicate costs a collective
 * round, so the one made at a communicator's first open stays on that
 * communicator (an attribute) and serves its next opens, one open file at
 * a time; a second file open at once on it gets a duplicate of its own.
 * Which of the two an open takes depends only on the opens and closes on
 * that communicator so far, the same sequence on every rank. */
static pthread_mutex_t comm_mu = PTHREAD_MUTEX_INITIALIZER;
static int dup_key = MPI_KEYVAL_INVALID;

static void dup_free(struct pfile_dup *d) {
  PMPI_Comm_free(&d->comm);
  free(d);
}

/* The program frees its communicator: the duplicate goes with it, or with
 * the close of the file that uses it. */
static int dup_deleted(MPI_Comm comm, int key, void *value, void *extra) {
  (void)comm, (void)key, (void)extra;
  struct pfile_dup *d = value;
  pthread_mutex_lock(&comm_mu);
  int busy = d->busy;
  if (busy) d->orphan = 1;
  pthread_mutex_unlock(&comm_mu);
  if (!busy) dup_free(d);
  return MPI_SUCCESS;
}

/* f's duplicate of comm (size > 1): the cached one when free, else a new
 * one (cached when comm has none yet). 0, or -1 when the MPI refused. */
static int dup_take(struct mpisw_pfile *f, MPI_Comm comm) {
  struct pfile_dup *d = NULL;
  int flag = 0;
  pthread_mutex_lock(&comm_mu);
  if (dup_key == MPI_KEYVAL_INVALID)
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, dup_deleted, &dup_key, NULL);
  if (dup_key != MPI_KEYVAL_INVALID) PMPI_Comm_get_attr(comm, dup_key, &d, &flag);
  if (flag && d && !d->busy) {
    d->busy = 1;
    f->dup = d;
    f->comm = d->comm;
    pthread_mutex_unlock(&comm_mu);
    return 0;
  }
  int cache = !flag && dup_key != MPI_KEYVAL_INVALID;
  pthread_mutex_unlock(&comm_mu);
  d = calloc(1, sizeof *d);
  if (!d) return -1;
  d->busy = 1;
  /* blocking: Open MPI 4.1 hangs with two MPI_Comm_idup outstanding (its
   * context ids are allocated job-wide), and with the cache it is one
   * round per communicator, not per open */
  if (PMPI_Comm_dup(comm, &d->comm) != MPI_SUCCESS) {
    free(d);
    return -1;
  }
  if (cache && PMPI_Comm_set_attr(comm, dup_key, d) == MPI_SUCCESS) d->cached = 1;
  f->dup = d;
  f->comm = d->comm;
  return 0;
}

/* f is done with its duplicate: back to the cache, or freed. */
static void dup_give(struct mpisw_pfile *f) {
  struct pfile_dup *d = f->dup;
  if (!d) return;
  f->dup = NULL;
  f->comm = MPI_COMM_NULL;
  pthread_mutex_lock(&comm_mu);
  d->busy = 0;
  int keep = d->cached && !d->orphan;
  pthread_mutex_unlock(&comm_mu);
  if (!keep) dup_free(d);
}

static void destroy(struct mpisw_pfile *f) {
  mpisw_pfile_view_release(&f->view);
  if (f->info != MPI_INFO_NULL) PMPI_Info_free(&f->info);
  dup_give(f);
  free(f->name);
  free(f->shown);
  free(f->drain);
  f->magic = 0;
  free(f);
}

int mpisw_pfile_stage_in(struct mpisw_pfile *f, const char *path);
int mpisw_pfile_drain(struct mpisw_pfile *f, const char *path);

int mpisw_pfile_open(MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh) {
  int size = 1, rank = 0;
  if (comm == MPI_COMM_NULL || PMPI_Comm_size(comm, &size) != MPI_SUCCESS)
    return mpisw_pfile_error(NULL, MPI_ERR_COMM, OPEN, "the communicator is not valid");
  PMPI_Comm_rank(comm, &rank);
  if (amode_error(amode))
    return mpisw_pfile_error(NULL, MPI_ERR_AMODE, OPEN,
                             "amode %#x of mem:%s: exactly one of RDONLY, RDWR, WRONLY; no "
                             "CREATE or EXCL with RDONLY; no SEQUENTIAL with RDWR",
                             amode, name);
  if (!mpisw_pool_ready())
    return mpisw_pfile_error(NULL, MPI_ERR_IO, OPEN,
                             "mem:%s: there is no pool (MPISW_POOL_SIZE=0, or it could not be "
                             "made at MPI_Init)", name);
  char bad[64] = "";
  long long unit = int_hint(info, "striping_unit", bad, sizeof bad);
  if (unit < 0)
    return mpisw_pfile_error(NULL, MPI_ERR_INFO_VALUE, OPEN,
                             "hint striping_unit=%s of mem:%s is not a positive integer", bad, name);
  long long factor = int_hint(info, "striping_factor", bad, sizeof bad);
  if (factor < 0)
    return mpisw_pfile_error(NULL, MPI_ERR_INFO_VALUE, OPEN,
                             "hint striping_factor=%s of mem:%s is not a positive integer", bad,
                             name);
  struct mpisw_pool_layout layout = {(uint64_t)unit, (int)factor};
  struct mpisw_pfile *f = calloc(1, sizeof *f);
  if (!f) return mpisw_pfile_error(NULL, MPI_ERR_NO_MEM, OPEN, "no memory for mem:%s", name);
  f->magic = PFILE_MAGIC;
  f->comm = MPI_COMM_NULL;
  f->dup = NULL;
  f->info = MPI_INFO_NULL;
  f->name = strdup(name);
  f->shown = malloc(strlen(name) + 5);
  if (f->shown) sprintf(f->shown, "mem:%s", name);
  f->amode = amode;
  f->rank = rank;
  f->size = size;
  mpisw_pfile_view_default(&f->view);
  mpisw_pfile_default_handler(&f->handler);
  struct mpisw_error e;
  int code = MPI_SUCCESS, prc, slot = -1;
  int create = (amode & MPI_MODE_CREATE) != 0, excl = (amode & MPI_MODE_EXCL) != 0;
  /* The file's own communicator: alone none is needed (no collective
   * has anything to do); else a duplicate (the communicator's cached one). */
  if (size == 1) f->comm = MPI_COMM_SELF;
  else if (dup_take(f, comm))
    code = mpisw_pfile_error(NULL, MPI_ERR_OTHER, OPEN, "cannot duplicate the communicator");
  /* Every rank opens at once (of racing creates the pool makes one file);
   * only an exclusive create goes first on rank 0, the others after it. */
  int rank0_first = excl && size > 1;
  if (code == MPI_SUCCESS && (rank == 0 || !rank0_first)) {
    prc = mpisw_pool_open(name, create, rank == 0 && excl, &layout, &f->pf, &e);
    if (prc != MPISW_POOL_OK) code = mpisw_pfile_pool_error(NULL, prc, OPEN, &e);
  }
  if (rank0_first) {
    int r0 = code;
    PMPI_Bcast(&r0, 1, MPI_INT, 0, comm); /* rank 0's code: only success is compared */
    if (rank > 0 && r0 == MPI_SUCCESS && code == MPI_SUCCESS) {
      prc = mpisw_pool_open(name, 0, 0, &layout, &f->pf, &e);
      if (prc != MPISW_POOL_OK) code = mpisw_pfile_pool_error(NULL, prc, OPEN, &e);
    }
  }
  /* The open's shared file pointer (MPI-4 14.4.4: one per collective
   * open, at 0 or at the end with MPI_MODE_APPEND): rank 0 takes a slot
   * for all ranks, and its number reaches them in the agreement. */
  if (rank == 0 && code == MPI_SUCCESS) {
    uint64_t sz = 0;
    if (amode & MPI_MODE_APPEND) mpisw_pool_get_size(f->pf, &sz, &e);
    prc = mpisw_pool_shared_ptr_take(name, size, (int64_t)sz, &slot, &e);
    if (prc != MPISW_POOL_OK) code = mpisw_pfile_pool_error(NULL, prc, OPEN, &e);
  }
  int flag = slot + 1;
  code = mpisw_pfile_agree(NULL, comm, code, OPEN, &flag);
  slot = flag - 1;
  if (code != MPI_SUCCESS && rank == 0 && slot >= 0)
    mpisw_pool_shared_ptr_release(slot, size); /* nobody attached it */
  if (code == MPI_SUCCESS) mpisw_pool_shared_ptr_attach(f->pf, slot);
  /* every rank agrees now: the collective calls below are made by all or none */
  if (code == MPI_SUCCESS && info != MPI_INFO_NULL) PMPI_Info_dup(info, &f->info);
  if (code == MPI_SUCCESS) f->drain = text_hint(info, "mpisw_drain");
  if (code == MPI_SUCCESS) {
    char *stage = text_hint(info, "mpisw_stage_in");
    if (stage) code = mpisw_pfile_agree(NULL, comm, mpisw_pfile_stage_in(f, stage), OPEN, NULL);
    free(stage);
  }
  if (code == MPI_SUCCESS && (amode & MPI_MODE_APPEND)) { /* the individual pointer too */
    uint64_t sz = 0;
    mpisw_pool_get_size(f->pf, &sz, &e);
    f->ptr = (MPI_Offset)sz;
  }
  if (code != MPI_SUCCESS) {
    if (f->pf) mpisw_pool_close(f->pf, &e); /* drops its slot when attached */
    destroy(f);
    *fh = MPI_FILE_NULL;
    return code;
  }
  mpisw_pfile_register(f);
  *fh = pfile_handle(f);
  return MPI_SUCCESS;
}

int mpisw_pfile_close(MPI_File *fh) {
  static const char *R = "MPI_File_close";
  struct mpisw_pfile *f = pfile_of(*fh);
  struct mpisw_error e;
  int code = MPI_SUCCESS, prc = mpisw_pool_sync(f->pf, &e);
  if (prc != MPISW_POOL_OK) code = mpisw_pfile_pool_error(f, prc, R, &e);
  if (f->drain) {
    /* the drain copies every rank's data: all of it in first */
    if (f->size > 1) PMPI_Barrier(f->comm);
    if (code == MPI_SUCCESS)
      code = mpisw_pfile_agree(f, f->comm, mpisw_pfile_drain(f, f->drain), R, NULL);
  }
  prc = mpisw_pool_close(f->pf, &e); /* the last rank's close frees the shared pointer */
  if (prc != MPISW_POOL_OK && code == MPI_SUCCESS) code = mpisw_pfile_pool_error(f, prc, R, &e);
  /* One barrier: every rank's writes are in and its handle closed when
   * close returns. MPI-4 14.6.1 would leave the first to the program, but
   * programs read after a close without a barrier of their own (ROMIO's
   * close has one; MPICH's io test i_types_with_zeros relies on it). */
  if (f->size > 1) PMPI_Barrier(f->comm);
  if (f->amode & MPI_MODE_DELETE_ON_CLOSE) {
    /* every rank has closed: the first to try deletes, the others find it
     * gone; a file still open by another communicator's open stays, for
     * that open's last closer with DELETE_ON_CLOSE */
    prc = mpisw_pool_delete(f->name, &e);
    if (prc != MPISW_POOL_OK && prc != MPISW_POOL_NOENT && prc != MPISW_POOL_BUSY &&
        code == MPI_SUCCESS)
      code = mpisw_pfile_pool_error(f, prc, R, &e);
  }
  mpisw_pfile_note_stats(f);
  mpisw_pfile_unregister(f);
  destroy(f);
  *fh = MPI_FILE_NULL;
  return code;
}

int mpisw_pfile_unlink(const char *name) {
  struct mpisw_error e;
  return mpisw_pool_ready() && mpisw_pool_delete(name, &e) == MPISW_POOL_OK;
}

int mpisw_pfile_delete(const char *name, MPI_Info info) {
  struct mpisw_error e;
  if (!mpisw_pool_ready())
    return mpisw_pfile_error(NULL, MPI_ERR_NO_SUCH_FILE, "MPI_File_delete",
                             "mem:%s: there is no pool", name);
  int prc = mpisw_pool_delete(name, &e);
  if (prc != MPISW_POOL_OK) return mpisw_pfile_pool_error(NULL, prc, "MPI_File_delete", &e);
  return MPI_SUCCESS;
}
