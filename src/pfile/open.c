/* Opening, closing and deleting pooled files. MPI_File_open and
 * MPI_File_close are collective: rank 0 of the communicator creates, the
 * others then open, and every rank returns the same result. A pooled file
 * outlives its close: any communicator of the job can open it again until
 * it is deleted or the job ends. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfile/internal.h"

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
  if (info == MPI_INFO_NULL) return 0;
  char v[64];
  int flag = 0;
  PMPI_Info_get(info, key, sizeof v - 1, v, &flag);
  if (!flag) return 0;
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
  if (info == MPI_INFO_NULL) return NULL;
  int len = 0, flag = 0;
  PMPI_Info_get_valuelen(info, key, &len, &flag);
  if (!flag) return NULL;
  char *v = malloc((size_t)len + 1);
  if (v) PMPI_Info_get(info, key, len, v, &flag);
  if (v) v[len] = 0;
  return v;
}

/* Every rank of comm gets the result of the lowest-ranked rank that failed:
 * its own error where it failed, else one of the same class and message,
 * raised here (codes are numbers of each process, so they are not sent). */
static int agree(MPI_Comm comm, int size, int rank, int code, const char *routine) {
  if (size == 1) return code;
  int first = code != MPI_SUCCESS ? rank : size, low = size;
  PMPI_Allreduce(&first, &low, 1, MPI_INT, MPI_MIN, comm);
  if (low == size) return MPI_SUCCESS;
  struct {
    int cls;
    char msg[MPI_MAX_ERROR_STRING];
  } what = {MPI_ERR_OTHER, ""};
  if (rank == low) {
    int len = 0;
    PMPI_Error_class(code, &what.cls);
    PMPI_Error_string(code, what.msg, &len);
  }
  PMPI_Bcast(&what, (int)sizeof what, MPI_BYTE, low, comm);
  if (code != MPI_SUCCESS) return code;
  return mpisw_pfile_error(NULL, what.cls, routine, "rank %d: %s", low, what.msg);
}

static void destroy(struct mpisw_pfile *f) {
  mpisw_pfile_view_release(&f->view);
  if (f->info != MPI_INFO_NULL) PMPI_Info_free(&f->info);
  if (f->comm != MPI_COMM_NULL) PMPI_Comm_free(&f->comm);
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
  int code = MPI_SUCCESS, prc;
  int create = (amode & MPI_MODE_CREATE) != 0, excl = (amode & MPI_MODE_EXCL) != 0;
  /* rank 0 creates (exclusively if asked); the others open what it made */
  if (rank == 0) {
    prc = mpisw_pool_open(name, create, excl, &layout, &f->pf, &e);
    if (prc != MPISW_POOL_OK) code = mpisw_pfile_pool_error(NULL, prc, OPEN, &e);
  }
  if (size > 1) {
    int r0 = code;
    PMPI_Bcast(&r0, 1, MPI_INT, 0, comm); /* rank 0's code: only success is compared */
    if (rank > 0 && r0 == MPI_SUCCESS) {
      prc = mpisw_pool_open(name, 0, 0, &layout, &f->pf, &e);
      if (prc != MPISW_POOL_OK) code = mpisw_pfile_pool_error(NULL, prc, OPEN, &e);
    }
  }
  code = agree(comm, size, rank, code, OPEN);
  /* every rank agrees now: the collective calls below are made by all or none */
  if (code == MPI_SUCCESS && PMPI_Comm_dup(comm, &f->comm) != MPI_SUCCESS)
    code = mpisw_pfile_error(NULL, MPI_ERR_OTHER, OPEN, "cannot duplicate the communicator");
  if (code == MPI_SUCCESS && info != MPI_INFO_NULL) PMPI_Info_dup(info, &f->info);
  if (code == MPI_SUCCESS) f->drain = text_hint(info, "mpisw_drain");
  if (code == MPI_SUCCESS) {
    char *stage = text_hint(info, "mpisw_stage_in");
    if (stage) code = agree(comm, size, rank, mpisw_pfile_stage_in(f, stage), OPEN);
    free(stage);
  }
  /* both pointers start at 0, or at the end with MPI_MODE_APPEND (the pool
   * keeps one shared pointer per file: the last collective open sets it) */
  if (code == MPI_SUCCESS) {
    uint64_t sz = 0;
    if (amode & MPI_MODE_APPEND) mpisw_pool_get_size(f->pf, &sz, &e);
    f->ptr = (MPI_Offset)sz;
    if (rank == 0) mpisw_pool_shared_ptr_set(f->pf, (int64_t)sz, &e);
    if (size > 1) PMPI_Barrier(f->comm);
  }
  if (code != MPI_SUCCESS) {
    if (f->pf) mpisw_pool_close(f->pf, &e);
    destroy(f);
    *fh = MPI_FILE_NULL;
    return code;
  }
  mpisw_pfile_register(f);
  *fh = pfile_handle(f);
  return MPI_SUCCESS;
}

int mpisw_pfile_close(MPI_File *fh) {
  struct mpisw_pfile *f = pfile_of(*fh);
  struct mpisw_error e;
  int code = MPI_SUCCESS, prc = mpisw_pool_sync(f->pf, &e);
  if (prc != MPISW_POOL_OK) code = mpisw_pfile_pool_error(f, prc, "MPI_File_close", &e);
  if (f->size > 1) PMPI_Barrier(f->comm); /* every rank's data is in */
  if (code == MPI_SUCCESS && f->drain)
    code = agree(f->comm, f->size, f->rank, mpisw_pfile_drain(f, f->drain), "MPI_File_close");
  prc = mpisw_pool_close(f->pf, &e);
  if (prc != MPISW_POOL_OK && code == MPI_SUCCESS)
    code = mpisw_pfile_pool_error(f, prc, "MPI_File_close", &e);
  if (f->amode & MPI_MODE_DELETE_ON_CLOSE) {
    if (f->size > 1) PMPI_Barrier(f->comm); /* closed everywhere */
    if (f->rank == 0) {
      /* still open elsewhere (another communicator's open): its last
       * closer with DELETE_ON_CLOSE deletes it; gone already: fine */
      prc = mpisw_pool_delete(f->name, &e);
      if (prc != MPISW_POOL_OK && prc != MPISW_POOL_NOENT && prc != MPISW_POOL_BUSY &&
          code == MPI_SUCCESS)
        code = mpisw_pfile_pool_error(f, prc, "MPI_File_close", &e);
    }
    if (f->size > 1) PMPI_Barrier(f->comm);
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
