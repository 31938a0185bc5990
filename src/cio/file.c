/* The files the engine serves: those opened with a strategy (the file's
 * mpisw_cb_strategy hint, else MPISW_CB_STRATEGY). Their open agrees on the
 * hints first (one Allreduce, so ranks that disagree all fail instead of
 * entering different collectives), then the MPI opens the file as usual and
 * the engine adds its own state: a duplicate communicator, the
 * communicator's distance matrix D (cached on the communicator), its own
 * descriptor of the path, the view (types duplicated) and the last call's
 * report. Every other file is the MPI's alone.
 *
 * A pooled file (a "mem:" name or MPISW_MEM_PATHS, src/pfile/) with a
 * strategy is opened the same way, by pfile instead of the MPI: the engine
 * keeps no descriptor and no copy of the view (pfile's serves), and its
 * calls on the handle and bytes go to pfile (backend.c). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cio/engine.h"
#include "pfile/pfile.h"
#include "pmpi/pmpi.h"

/* Bytes received into place (mpisw_cb_place): on by default with Open MPI,
 * which pulls a large contiguous message by the receiver alone; off with
 * MPICH, where it was slower. Writes behind (mpisw_cb_write_behind): off
 * by default with both: the helper thread needs a core of its own, and with
 * as many ranks as cores it made the calls slower (docs/COLLECTIVE_IO.md
 * "Writes behind the shuffle"). */
#ifdef OPEN_MPI
#define CB_PLACE_DEFAULT 1
#else
#define CB_PLACE_DEFAULT 0
#endif
#define CB_WRITE_BEHIND_DEFAULT 0

int mpisw_cio_live;
static struct cio_file *files;
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;

struct cio_file *mpisw_cio_find(MPI_File fh) {
  if (!__atomic_load_n(&mpisw_cio_live, __ATOMIC_RELAXED)) return NULL;
  pthread_mutex_lock(&files_lock);
  struct cio_file *f = files;
  while (f && f->fh != fh) f = f->next;
  pthread_mutex_unlock(&files_lock);
  return f;
}

/* ---- one error for every rank ---- */
int mpisw_cio_agree(MPI_Comm comm, int cls, char *why, size_t whylen) {
  int rank, size;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  int v[2] = {cls ? rank : size, 0}, r[2];
  PMPI_Allreduce(v, r, 1, MPI_INT, MPI_MIN, comm);
  if (r[0] == size) return MPI_SUCCESS;
  int msg[1] = {cls};
  PMPI_Bcast(msg, 1, MPI_INT, r[0], comm);
  PMPI_Bcast(why, (int)whylen, MPI_CHAR, r[0], comm);
  return msg[0];
}

/* ---- D, cached on the communicator the file was opened on ---- */
static int topo_key = MPI_KEYVAL_INVALID;

static void topo_unref(struct cio_topo_ref *t) {
  if (t && __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) == 0) {
    mpisw_cio_topo_free(&t->t);
    free(t);
  }
}

static int topo_deleted(MPI_Comm comm, int key, void *val, void *extra) {
  (void)comm, (void)key, (void)extra;
  topo_unref(val);
  return MPI_SUCCESS;
}

static int topo_get(MPI_Comm comm, struct cio_topo_ref **out, struct mpisw_error *e) {
  int flag = 0;
  void *val = NULL;
  pthread_mutex_lock(&files_lock);
  if (topo_key == MPI_KEYVAL_INVALID)
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, topo_deleted, &topo_key, NULL);
  pthread_mutex_unlock(&files_lock);
  PMPI_Comm_get_attr(comm, topo_key, &val, &flag);
  /* Every rank of comm has it or none: it is set by the same collective. */
  if (flag) {
    *out = val;
    __atomic_add_fetch(&(*out)->refs, 1, __ATOMIC_ACQ_REL);
    return 0;
  }
  struct cio_topo_ref *t = calloc(1, sizeof *t);
  int bad = !t, any = 0;
  PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
  if (any) {
    free(t);
    return mpisw_fail(e, MPISW_K_NOMEM, "no memory for the distances of the communicator");
  }
  if (mpisw_cio_topo_build(comm, &t->t, e)) {
    free(t);
    return -1;
  }
  t->refs = 2; /* the attribute's and the caller's */
  PMPI_Comm_set_attr(comm, topo_key, t);
  *out = t;
  return 0;
}

/* "ufs:/path" -> "/path": ROMIO's file system prefixes. */
static const char *strip_prefix(const char *name) {
  static const char *const fs[] = {"ufs:", "nfs:", "lustre:", "gpfs:", "pvfs2:", "testfs:",
                                   "xfs:", "panfs:", "daos:", "quobytefs:", "ime:"};
  for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++)
    if (!strncmp(name, fs[i], strlen(fs[i]))) return name + strlen(fs[i]);
  return name;
}

/* ROMIO's effective value of a key (its default when the info did not say). */
static MPI_Offset mpi_hint(const struct cio_file *f, const char *key, MPI_Offset dflt) {
  MPI_Info info;
  if (f->be->get_info(f->fh, &info) != MPI_SUCCESS) return dflt;
  char v[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag);
  PMPI_Info_free(&info);
  long long n = flag ? atoll(v) : 0;
  return n > 0 ? n : dflt;
}

static void file_free(struct cio_file *f) {
  if (!f) return;
  if (f->fd >= 0) close(f->fd);
  if (f->comm != MPI_COMM_NULL) PMPI_Comm_free(&f->comm);
  mpisw_view_free(&f->view);
  int comb, ni, na, nt;
  if (f->ftype != MPI_DATATYPE_NULL &&
      PMPI_Type_get_envelope(f->ftype, &ni, &na, &nt, &comb) == MPI_SUCCESS &&
      comb != MPI_COMBINER_NAMED)
    PMPI_Type_free(&f->ftype);
  if (f->etype != MPI_DATATYPE_NULL &&
      PMPI_Type_get_envelope(f->etype, &ni, &na, &nt, &comb) == MPI_SUCCESS &&
      comb != MPI_COMBINER_NAMED)
    PMPI_Type_free(&f->etype);
  topo_unref(f->topo);
  mpisw_cio_report_free(&f->last);
  for (int i = 0; i < CIO_NBUF; i++) free(f->keep[i].p);
  free(f);
}

/* The engine's state of a file the MPI just opened; 0 or -1 with e. */
static int file_make(MPI_Comm comm, const char *name, int pooled, int amode,
                     const struct cio_hints *h, MPI_File fh, struct cio_file **out,
                     struct mpisw_error *e) {
  struct cio_file *f = calloc(1, sizeof *f);
  if (!f) return mpisw_fail(e, MPISW_K_NOMEM, "no memory for the engine's state of %s", name);
  f->fh = fh;
  f->pooled = pooled;
  f->be = pooled ? &mpisw_cio_pool_backend : &mpisw_cio_fd_backend;
  f->fd = -1;
  f->comm = MPI_COMM_NULL;
  f->etype = f->ftype = MPI_BYTE;
  f->disp = 0;
  f->amode = amode;
  f->h = *h;
  *out = f;
  snprintf(f->path, sizeof f->path, "%s", pooled ? name : strip_prefix(name));
  if (PMPI_Comm_dup(comm, &f->comm) != MPI_SUCCESS)
    return mpisw_fail(e, MPISW_K_USAGE, "MPI_Comm_dup of the file's communicator failed");
  PMPI_Comm_set_errhandler(f->comm, MPI_ERRORS_RETURN);
  PMPI_Comm_rank(f->comm, &f->rank);
  PMPI_Comm_size(f->comm, &f->size);
  if (f->h.cb_buffer_size <= 0) f->h.cb_buffer_size = mpi_hint(f, "cb_buffer_size", 16777216);
  if (f->h.striping_unit < 0) f->h.striping_unit = mpi_hint(f, "striping_unit", 0);
  if (pooled) return topo_get(comm, &f->topo, e);
  int flags = (amode & MPI_MODE_RDONLY) ? O_RDONLY : (amode & MPI_MODE_WRONLY) ? O_WRONLY : O_RDWR;
  f->fd = open(f->path, flags | O_CLOEXEC);
  if (f->fd < 0)
    return mpisw_fail(e, mpisw_errno_kind(errno), "cannot open %s for the collective I/O "
                      "engine: %s", f->path, strerror(errno));
  return topo_get(comm, &f->topo, e);
}

/* An open's error, raised on MPI_FILE_NULL's handler (the one MPI-IO gives
 * opens). */
static int open_error(const struct mpisw_error *e) {
  int code = mpisw_error_code("MPI_File_open", e);
  mpisw_next.File_call_errhandler(MPI_FILE_NULL, code);
  return code;
}

/* Opens filename through the MPI, or the pooled file pool_name (not NULL)
 * through pfile, with the engine's state when a strategy is asked for. */
static int open_file(MPI_Comm comm, const char *filename, const char *pool_name, int amode,
                     MPI_Info info, MPI_File *fh) {
  struct mpisw_error e = {0, ""};
  struct cio_hints h = {CIO_ROMIO, 0, 0, -1, 0, CIO_CB_AUTO, CIO_CB_AUTO,
                        CB_WRITE_BEHIND_DEFAULT, CB_PLACE_DEFAULT};
  int failed = 0;
  int s = mpisw_cio_env_strategy(&e);
  if (s < 0) failed = 1;
  else h.strategy = s;
  if (!failed && mpisw_cio_hints_parse(info, &h, &e)) failed = 1;
  if (amode & MPI_MODE_SEQUENTIAL) h.strategy = CIO_ROMIO; /* the MPI's alone */
  int want = !failed && h.strategy != CIO_ROMIO;

  /* The agreement: the lowest failing rank, and the hints' hash at both ends. */
  int rank, size, inter = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter ||
      PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS || PMPI_Comm_size(comm, &size) != MPI_SUCCESS)
    return pool_name ? mpisw_pfile_open(comm, pool_name, amode, info, fh)
                     : mpisw_next.File_open(comm, filename, amode, info, fh); /* its error */
  long long hash = want ? (long long)(mpisw_cio_hints_hash(&h, 0) >> 1) : 0;
  long long v[3] = {failed ? rank : size, hash, -hash}, r[3];
  PMPI_Allreduce(v, r, 3, MPI_LONG_LONG, MPI_MIN, comm);
  if (r[0] < size) {
    PMPI_Bcast(&e, (int)sizeof e, MPI_BYTE, (int)r[0], comm);
    return open_error(&e);
  }
  if (r[1] != -r[2]) {
    mpisw_fail(&e, MPISW_K_HINT, "ranks disagree on the collective I/O hints of %s "
               "(mpisw_cb_strategy or MPISW_CB_STRATEGY, cb_nodes, cb_buffer_size, "
               "striping_unit, romio_min_fdomain_size, mpisw_cb_place)", filename);
    return open_error(&e);
  }

  /* ROMIO reads cb_nodes as a number: it does not see "auto". */
  MPI_Info mine = MPI_INFO_NULL;
  if (want && h.cb_nodes < 0) {
    PMPI_Info_dup(info, &mine);
    PMPI_Info_delete(mine, "cb_nodes");
  }
  MPI_Info use = mine != MPI_INFO_NULL ? mine : info;
  int rc = pool_name ? mpisw_pfile_open(comm, pool_name, amode, use, fh)
                     : mpisw_next.File_open(comm, filename, amode, use, fh);
  if (mine != MPI_INFO_NULL) PMPI_Info_free(&mine);
  if (rc != MPI_SUCCESS || !want) return rc;

  struct cio_file *f = NULL;
  failed = file_make(comm, filename, pool_name != NULL, amode, &h, *fh, &f, &e) != 0;
  int any = 0;
  PMPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm);
  if (any) {
    int first = 0, mine_rank = failed ? rank : size;
    PMPI_Allreduce(&mine_rank, &first, 1, MPI_INT, MPI_MIN, comm);
    PMPI_Bcast(&e, (int)sizeof e, MPI_BYTE, first, comm);
    const struct cio_backend *be = pool_name ? &mpisw_cio_pool_backend : &mpisw_cio_fd_backend;
    file_free(f);
    be->close(fh);
    return open_error(&e);
  }
  pthread_mutex_lock(&files_lock);
  f->next = files;
  files = f;
  __atomic_add_fetch(&mpisw_cio_live, 1, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&files_lock);
  return MPI_SUCCESS;
}

int mpisw_cio_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info,
                        MPI_File *fh) {
  return open_file(comm, filename, NULL, amode, info, fh);
}

int mpisw_cio_pfile_open(MPI_Comm comm, const char *filename, const char *pool_name, int amode,
                         MPI_Info info, MPI_File *fh) {
  return open_file(comm, filename, pool_name, amode, info, fh);
}

int mpisw_cio_File_close(MPI_File *fh) {
  struct cio_file *f = fh ? mpisw_cio_find(*fh) : NULL;
  if (!f) return MPISW_CIO_PASS;
  pthread_mutex_lock(&files_lock);
  struct cio_file **p = &files;
  while (*p && *p != f) p = &(*p)->next;
  if (*p) *p = f->next;
  __atomic_sub_fetch(&mpisw_cio_live, 1, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&files_lock);
  const struct cio_backend *be = f->be;
  file_free(f);
  return be->close(fh);
}

/* ---- the view ---- */
static MPI_Datatype keep_type(MPI_Datatype t) {
  int comb, ni, na, nt;
  if (PMPI_Type_get_envelope(t, &ni, &na, &nt, &comb) != MPI_SUCCESS) return MPI_DATATYPE_NULL;
  if (comb == MPI_COMBINER_NAMED) return t;
  MPI_Datatype d;
  return PMPI_Type_dup(t, &d) == MPI_SUCCESS ? d : MPI_DATATYPE_NULL;
}

int mpisw_cio_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                            MPI_Datatype filetype, const char *datarep, MPI_Info info) {
  struct cio_file *f = mpisw_cio_find(fh);
  if (!f) return MPISW_CIO_PASS;
  int rc = f->be->set_view(fh, disp, etype, filetype, datarep, info);
  if (rc != MPI_SUCCESS || f->pooled) return rc; /* pfile keeps a pooled file's view */
  MPI_Datatype old_e = f->etype, old_f = f->ftype;
  f->etype = keep_type(etype);
  f->ftype = keep_type(filetype);
  f->disp = disp;
  mpisw_view_free(&f->view);
  /* external32 and the like: the bytes are converted, ours are native */
  f->view_state = datarep && strcmp(datarep, "native") ? -1 : 0;
  if (f->etype == MPI_DATATYPE_NULL || f->ftype == MPI_DATATYPE_NULL) f->view_state = -1;
  MPI_Datatype olds[2] = {old_e, old_f};
  for (int i = 0; i < 2; i++) {
    int comb, ni, na, nt;
    if (olds[i] != MPI_DATATYPE_NULL &&
        PMPI_Type_get_envelope(olds[i], &ni, &na, &nt, &comb) == MPI_SUCCESS &&
        comb != MPI_COMBINER_NAMED)
      PMPI_Type_free(&olds[i]);
  }
  return rc;
}

int mpisw_cio_view(struct cio_file *f, MPI_Count *esize) {
  if (f->pooled) return mpisw_pfile_view_esize(f->fh, esize);
  if (f->view_state == 0) {
    char why[256];
    int writing = !(f->amode & MPI_MODE_RDONLY);
    f->view_state =
        mpisw_view_init(&f->view, f->disp, f->etype, f->ftype, writing, why, sizeof why) ==
                MPI_SUCCESS
            ? 1
            : -1;
  }
  *esize = f->view.esize;
  return f->view_state == 1 ? 0 : -1;
}

/* ---- info, atomicity ---- */
int mpisw_cio_File_set_info(MPI_File fh, MPI_Info info) {
  struct cio_file *f = mpisw_cio_find(fh);
  if (!f) return MPISW_CIO_PASS;
  struct cio_hints h = f->h;
  struct mpisw_error e = {0, ""};
  int cls = mpisw_cio_hints_parse(info, &h, &e) ? MPI_ERR_INFO_VALUE : 0;
  char why[MPISW_MSG_MAX];
  snprintf(why, sizeof why, "%s", e.msg);
  cls = mpisw_cio_agree(f->comm, cls, why, sizeof why);
  if (cls) {
    snprintf(e.msg, sizeof e.msg, "%s", why);
    e.kind = MPISW_K_HINT;
    int code = mpisw_error_code("MPI_File_set_info", &e);
    f->be->call_errhandler(fh, code);
    return code;
  }
  long long hash = (long long)(mpisw_cio_hints_hash(&h, 0) >> 1);
  long long v[2] = {hash, -hash}, r[2];
  PMPI_Allreduce(v, r, 2, MPI_LONG_LONG, MPI_MIN, f->comm);
  if (r[0] != -r[1]) {
    mpisw_fail(&e, MPISW_K_HINT, "ranks disagree on the collective I/O hints given to "
               "MPI_File_set_info for %s", f->path);
    int code = mpisw_error_code("MPI_File_set_info", &e);
    f->be->call_errhandler(fh, code);
    return code;
  }
  MPI_Info mine = MPI_INFO_NULL;
  if (info != MPI_INFO_NULL) {
    char v2[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    PMPI_Info_get(info, "cb_nodes", MPI_MAX_INFO_VAL, v2, &flag);
    if (flag && h.cb_nodes < 0) {
      PMPI_Info_dup(info, &mine);
      PMPI_Info_delete(mine, "cb_nodes");
    }
  }
  int rc = f->be->set_info(fh, mine != MPI_INFO_NULL ? mine : info);
  if (mine != MPI_INFO_NULL) PMPI_Info_free(&mine);
  if (rc == MPI_SUCCESS) f->h = h;
  return rc;
}

int mpisw_cio_File_get_info(MPI_File fh, MPI_Info *info_used) {
  struct cio_file *f = mpisw_cio_find(fh);
  if (!f) return MPISW_CIO_PASS;
  int rc = f->be->get_info(fh, info_used);
  if (rc == MPI_SUCCESS) mpisw_cio_report_info(f, *info_used);
  return rc;
}

int mpisw_cio_File_set_atomicity(MPI_File fh, int flag) {
  struct cio_file *f = mpisw_cio_find(fh);
  if (!f) return MPISW_CIO_PASS;
  int rc = f->be->set_atomicity(fh, flag);
  if (rc == MPI_SUCCESS) f->atomic = flag != 0;
  return rc;
}
