/* The collective data calls the engine takes, and one collective call from
 * start to end: its agreement (one Allgather: the hints' and the call's
 * hash, whether the engine can take it on this rank, this rank's range and
 * bytes), then the stages. A call the engine cannot take on some rank
 * (atomic mode, an access mode that forbids it, a view or datatype our map
 * does not take, a data representation other than native) goes to the MPI
 * on every rank, which answers it (with its own error where it is one).
 *
 * As ROMIO (romio_cb_write, romio_cb_read: automatic by default), a call
 * whose ranks' ranges do not interleave (in rank order) has no two phases:
 * each rank reads or writes its own pieces (io.c).
 *
 * Nonblocking and split forms: MPI lets a collective complete in its
 * initiating call, so iwrite_all and friends do the whole call and return
 * a completed generalized request; *_begin does it and *_end returns the
 * status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cio/engine.h"
#include "pmpi/pmpi.h"

static const char *const kind_name[] = {"write_all", "write_at_all", "read_all", "read_at_all"};

/* What each rank brings to the agreement (then, when the call guesses its
 * domains, its row of the matrix). */
enum { A_HASH, A_CAN, A_FAIL, A_START, A_END, A_BYTES, A_N };

static int raise_on(struct cio_file *f, int cls, const char *routine, const char *why) {
  int code = mpisw_error_code_in(cls, routine, why);
  f->be->call_errhandler(f->fh, code);
  return code;
}

static void set_status(MPI_Status *status, MPI_Count bytes) {
  if (status == MPI_STATUS_IGNORE) return;
  PMPI_Status_set_elements_x(status, MPI_BYTE, bytes);
  PMPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  status->MPI_ERROR = MPI_SUCCESS;
}

/* The file domains' bounds and aggregators, and the matrix, for k domains:
 * 0, or -1 with nothing held. */
static int take_domains(int P, int k, MPI_Offset **start, MPI_Offset **end, int **agg,
                        struct cio_matrix *x) {
  *start = malloc(sizeof **start * (size_t)k);
  *end = malloc(sizeof **end * (size_t)k);
  *agg = malloc(sizeof **agg * (size_t)k);
  if (*start && *end && *agg && !mpisw_cio_matrix_alloc(x, P, k)) return 0;
  free(*start), free(*end), free(*agg);
  *start = *end = NULL, *agg = NULL;
  return -1;
}

static void give_domains(MPI_Offset **start, MPI_Offset **end, int **agg, struct cio_matrix *x) {
  free(*start), free(*end), free(*agg);
  *start = *end = NULL, *agg = NULL;
  mpisw_cio_matrix_free(x);
}

int mpisw_cio_run(struct cio_file *f, int kind, MPI_Offset offset, void *buf, MPI_Count count,
                  MPI_Datatype type, MPI_Status *status, const char *routine) {
  if (f->h.strategy == CIO_ROMIO) return MPISW_CIO_PASS;
  double t0 = PMPI_Wtime();
  int writing = kind == CIO_WRITE_ALL || kind == CIO_WRITE_AT_ALL;
  int at = kind == CIO_WRITE_AT_ALL || kind == CIO_READ_AT_ALL;
  char why[MPISW_MSG_MAX] = "";
  int fail = 0, can = !f->atomic && count >= 0 && offset >= 0;
  if (writing ? (f->amode & MPI_MODE_RDONLY) : (f->amode & MPI_MODE_WRONLY)) can = 0;
  MPI_Count esize = 1;
  if (can && mpisw_cio_view(f, &esize)) can = 0;
  struct mpisw_typemap *mem = NULL;
  if (can && mpisw_typemap_get(type, &mem, why, sizeof why) != MPI_SUCCESS) can = 0;
  MPI_Count bytes = can ? count * mem->size : 0;
  if (can && bytes % esize) can = 0; /* the MPI's error */
  MPI_Offset pos = offset;
  if (can && !at && f->be->get_position(f->fh, &pos) != MPI_SUCCESS) can = 0;
  struct cio_access a;
  memset(&a, 0, sizeof a);
  a.start = INT64_MAX;
  if (can) {
    int rc = mpisw_cio_access(f, pos * esize, bytes, &a, why, sizeof why);
    if (rc == MPI_ERR_NO_MEM) fail = rc;
    else if (rc) can = 0;
  }

  /* The buffers of stages 2 and 3 when the number of domains is fixed by
   * the hints: taken now, so that the agreement's flag reports a failure */
  int P = f->size;
  int kfix = f->h.cb_nodes > 0 ? f->h.cb_nodes : f->h.cb_nodes == 0 ? f->topo->t.nnodes : -1;
  if (kfix > P) kfix = P;
  struct cio_matrix x;
  memset(&x, 0, sizeof x);
  int *agg = NULL;
  MPI_Offset *start = NULL, *end = NULL;
  if (can && !fail && kfix > 0 && take_domains(P, kfix, &start, &end, &agg, &x)) {
    fail = MPI_ERR_NO_MEM;
    snprintf(why, sizeof why, "no memory for %d file domains", kfix);
  }

  /* The speculation: the last two-phase call's range, kept alike on every
   * rank, gives this call's domains before the agreement; when the range
   * is the same (repeated calls of one pattern), this rank's row of C rides
   * on the agreement's Allgather and the call needs no other before the
   * exchange. Whether to try is decided from what every rank holds alike. */
  int spec = kfix > 0 && f->pred_k == kfix;
  size_t words = A_N + (spec ? mpisw_cio_matrix_words(kfix) : 0);
  struct cio_xchg *xs = NULL;
  int64_t *mine = calloc(words, sizeof *mine);
  int64_t *all = malloc(sizeof *all * words * (size_t)P);
  if (!mine || !all) { /* cannot even agree: the MPI's own call, on this rank alone, would hang */
    fprintf(stderr, "mpisw: %s: no memory for the collective call's agreement\n", routine);
    PMPI_Abort(f->comm, MPI_ERR_NO_MEM);
  }
  if (spec && can && !fail) {
    mpisw_cio_domains(f->pred_lo, f->pred_hi, kfix, f->h.min_fd_size, f->h.striping_unit, start,
                      end);
    char pwhy[MPISW_MSG_MAX];
    int local = mpisw_cio_exchange_prepare(f, &a, kfix, start, end, writing, &xs, pwhy,
                                           sizeof pwhy);
    mpisw_cio_matrix_row(&a, kfix, start, end, local, x.row, mine + A_N);
    if (local) snprintf(why, sizeof why, "%s", pwhy);
  }

  /* The agreement */
  mine[A_HASH] = (int64_t)(mpisw_cio_hints_hash(&f->h, kind) >> 1);
  mine[A_CAN] = can, mine[A_FAIL] = fail, mine[A_START] = a.start, mine[A_END] = a.end;
  mine[A_BYTES] = (int64_t)bytes;
  PMPI_Allgather(mine, (int)words, MPI_INT64_T, all, (int)words, MPI_INT64_T, f->comm);
  int agree = 1, any_cannot = 0, first_fail = -1, interleaved = 0;
  MPI_Offset lo = INT64_MAX, hi = -1, prev_end = -1;
  double total = 0;
  for (int p = 0; p < P; p++) {
    const int64_t *r = all + (size_t)p * words;
    if (r[A_HASH] != mine[A_HASH]) agree = 0;
    if (!r[A_CAN]) any_cannot = 1;
    if (r[A_FAIL] && first_fail < 0) first_fail = p;
    if (r[A_BYTES] > 0) {
      if (r[A_START] < lo) lo = r[A_START];
      if (r[A_END] - 1 > hi) hi = r[A_END] - 1;
      total += (double)r[A_BYTES];
      /* ROMIO's test, in rank order: a range that starts before the end of
       * the previous rank's */
      if (r[A_START] < prev_end) interleaved = 1;
      prev_end = r[A_END];
    }
  }
  free(mine);
  /* the guess held: the same range, so the same domains on every rank */
  int hit = spec && lo == f->pred_lo && hi == f->pred_hi;
  int cls = MPI_SUCCESS;
  if (!agree) { /* the library's own class: MPICH keeps its message */
    free(all);
    mpisw_cio_exchange_free(xs);
    give_domains(&start, &end, &agg, &x);
    mpisw_typemap_release(mem);
    mpisw_cio_access_free(&a);
    struct mpisw_error e;
    mpisw_fail(&e, MPISW_K_USAGE, "ranks disagree on the collective call on %s (its kind, or "
               "the hints mpisw_cb_strategy, cb_nodes, cb_buffer_size, striping_unit)", f->path);
    int code = mpisw_error_code(routine, &e);
    f->be->call_errhandler(f->fh, code);
    return code;
  }
  if (first_fail >= 0) {
    PMPI_Bcast(why, (int)sizeof why, MPI_CHAR, first_fail, f->comm);
    cls = MPI_ERR_NO_MEM;
  }
  if (cls || any_cannot) {
    free(all);
    mpisw_cio_exchange_free(xs);
    give_domains(&start, &end, &agg, &x);
    mpisw_cio_access_free(&a);
    mpisw_typemap_release(mem);
    return cls ? raise_on(f, cls, routine, why) : MPISW_CIO_PASS;
  }

  struct cio_report r;
  memset(&r, 0, sizeof r);
  snprintf(r.call, sizeof r.call, "%s", kind_name[kind]);
  r.strategy = f->h.strategy;
  r.bytes = total;
  int mode = writing ? f->h.cb_write : f->h.cb_read;
  r.independent = total > 0 && (mode == CIO_CB_DISABLE || (mode == CIO_CB_AUTO && !interleaved));
  if (r.independent) {
    r.t_meta = PMPI_Wtime() - t0;
    struct cio_op op = {f, writing, buf, count, mem, &a, NULL, NULL, &r};
    cls = mpisw_cio_independent(&op, why, sizeof why);
  } else if (total > 0) {
    /* stage 2: how many domains, and where */
    int k = kfix;
    if (k < 0) {
      cls = mpisw_cio_auto_k(f, &a, lo, hi, total, &k, why, sizeof why);
      if (!cls && take_domains(P, k, &start, &end, &agg, &x)) {
        cls = MPI_ERR_NO_MEM;
        snprintf(why, sizeof why, "no memory for %d file domains", k);
      }
      cls = mpisw_cio_agree(f->comm, cls, why, sizeof why);
      r.cb_nodes_auto = 1;
    }
    int who = -1;
    if (!cls && hit) { /* stage 3 came with the agreement */
      cls = mpisw_cio_matrix_merge(&x, k, all + A_N, words, &who);
      r.matrix_guessed = 1;
    } else if (!cls) {
      mpisw_cio_exchange_free(xs);
      xs = NULL;
      mpisw_cio_domains(lo, hi, k, f->h.min_fd_size, f->h.striping_unit, start, end);
      /* stage 3, whose Allgather carries a failure to prepare stage 5 */
      int local = mpisw_cio_exchange_prepare(f, &a, k, start, end, writing, &xs, why,
                                             sizeof why) ? MPI_ERR_NO_MEM : 0;
      cls = mpisw_cio_matrix(f->comm, &a, k, start, end, local, &x, &who);
    }
    if (cls && who >= 0) PMPI_Bcast(why, (int)sizeof why, MPI_CHAR, who, f->comm);
    if (kfix > 0) /* alike on every rank: the next call's guess */
      f->pred_k = kfix, f->pred_lo = lo, f->pred_hi = hi;
    double t1 = PMPI_Wtime();
    r.t_meta = t1 - t0;
    if (!cls) {
      /* stage 4: every rank computes the same assignment from the same C, D */
      cls = mpisw_cio_assign(f, &x, writing, agg, &r, why, sizeof why);
      r.ndomains = k;
      r.agg = agg;
      agg = NULL;
    }
    r.t_assign = PMPI_Wtime() - t1;
    if (!cls) {
      /* stage 5 */
      struct cio_op op = {f, writing, buf, count, mem, &a, &x, r.agg, &r};
      cls = mpisw_cio_exchange(&op, xs, why, sizeof why);
    }
  } else {
    r.t_meta = PMPI_Wtime() - t0;
  }
  free(all);
  mpisw_cio_exchange_free(xs);
  give_domains(&start, &end, &agg, &x);
  mpisw_cio_access_free(&a);
  mpisw_typemap_release(mem);
  if (cls) {
    mpisw_cio_report_free(&r);
    return raise_on(f, cls, routine, why);
  }
  if (!at && bytes) f->be->seek(f->fh, bytes / esize, MPI_SEEK_CUR);
  set_status(status, bytes);
  f->calls++;
  mpisw_cio_count_call(total);
  mpisw_cio_report_free(&f->last);
  f->last = r;
  mpisw_cio_report_call(f);
  return MPI_SUCCESS;
}

/* ---- the blocking calls ---- */
static struct cio_file *ours(MPI_File fh) {
  struct cio_file *f = mpisw_cio_find(fh);
  return f && f->h.strategy != CIO_ROMIO ? f : NULL;
}

int mpisw_cio_File_write_all(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status *status, int large) {
  (void)large;
  struct cio_file *f = ours(fh);
  if (!f) return MPISW_CIO_PASS;
  return mpisw_cio_run(f, CIO_WRITE_ALL, 0, (void *)buf, count, datatype, status,
                       "MPI_File_write_all");
}

int mpisw_cio_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                                MPI_Datatype datatype, MPI_Status *status, int large) {
  (void)large;
  struct cio_file *f = ours(fh);
  if (!f) return MPISW_CIO_PASS;
  return mpisw_cio_run(f, CIO_WRITE_AT_ALL, offset, (void *)buf, count, datatype, status,
                       "MPI_File_write_at_all");
}

int mpisw_cio_File_read_all(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Status *status, int large) {
  (void)large;
  struct cio_file *f = ours(fh);
  if (!f) return MPISW_CIO_PASS;
  return mpisw_cio_run(f, CIO_READ_ALL, 0, buf, count, datatype, status, "MPI_File_read_all");
}

int mpisw_cio_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                               MPI_Datatype datatype, MPI_Status *status, int large) {
  (void)large;
  struct cio_file *f = ours(fh);
  if (!f) return MPISW_CIO_PASS;
  return mpisw_cio_run(f, CIO_READ_AT_ALL, offset, buf, count, datatype, status,
                       "MPI_File_read_at_all");
}

/* ---- nonblocking: done at once, a completed generalized request ---- */
struct done {
  MPI_Count bytes;
};

static int done_query(void *extra, MPI_Status *status) {
  set_status(status, ((struct done *)extra)->bytes);
  return MPI_SUCCESS;
}
static int done_free(void *extra) {
  free(extra);
  return MPI_SUCCESS;
}
static int done_cancel(void *extra, int complete) {
  (void)extra, (void)complete;
  return MPI_SUCCESS;
}

static int nonblocking(MPI_File fh, int kind, MPI_Offset offset, void *buf, MPI_Count count,
                       MPI_Datatype datatype, MPI_Request *request, const char *routine) {
  struct cio_file *f = ours(fh);
  if (!f) return MPISW_CIO_PASS;
  MPI_Status st;
  int rc = mpisw_cio_run(f, kind, offset, buf, count, datatype, &st, routine);
  if (rc != MPI_SUCCESS) return rc;
  struct done *d = malloc(sizeof *d);
  if (!d) {
    struct mpisw_error e;
    mpisw_fail(&e, MPISW_K_NOMEM, "no memory for the request (the call itself is done)");
    return mpisw_error_code(routine, &e);
  }
  PMPI_Get_elements_x(&st, MPI_BYTE, &d->bytes);
  rc = PMPI_Grequest_start(done_query, done_free, done_cancel, d, request);
  if (rc != MPI_SUCCESS) {
    free(d);
    return rc;
  }
  return PMPI_Grequest_complete(*request);
}

int mpisw_cio_File_iwrite_all(MPI_File fh, const void *buf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Request *request, int large) {
  (void)large;
  return nonblocking(fh, CIO_WRITE_ALL, 0, (void *)buf, count, datatype, request,
                     "MPI_File_iwrite_all");
}
int mpisw_cio_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf,
                                 MPI_Count count, MPI_Datatype datatype, MPI_Request *request,
                                 int large) {
  (void)large;
  return nonblocking(fh, CIO_WRITE_AT_ALL, offset, (void *)buf, count, datatype, request,
                     "MPI_File_iwrite_at_all");
}
int mpisw_cio_File_iread_all(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Request *request, int large) {
  (void)large;
  return nonblocking(fh, CIO_READ_ALL, 0, buf, count, datatype, request, "MPI_File_iread_all");
}
int mpisw_cio_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                MPI_Datatype datatype, MPI_Request *request, int large) {
  (void)large;
  return nonblocking(fh, CIO_READ_AT_ALL, offset, buf, count, datatype, request,
                     "MPI_File_iread_at_all");
}

/* ---- split collectives: the begin does the call, the end gives its status ---- */
enum { SPLIT_NONE, SPLIT_OURS, SPLIT_MPI };

static int begin(MPI_File fh, int kind, MPI_Offset offset, void *buf, MPI_Count count,
                 MPI_Datatype datatype, const char *routine) {
  struct cio_file *f = ours(fh);
  if (!f) return MPISW_CIO_PASS;
  if (f->split_pending != SPLIT_NONE) return MPISW_CIO_PASS; /* the MPI's error */
  int rc = mpisw_cio_run(f, kind, offset, buf, count, datatype, &f->split_status, routine);
  f->split_pending = rc == MPISW_CIO_PASS ? SPLIT_MPI : SPLIT_OURS;
  f->split_rc = rc;
  return rc;
}

static int end(MPI_File fh, MPI_Status *status) {
  struct cio_file *f = mpisw_cio_find(fh);
  if (!f || f->split_pending != SPLIT_OURS) {
    if (f) f->split_pending = SPLIT_NONE;
    return MPISW_CIO_PASS;
  }
  f->split_pending = SPLIT_NONE;
  if (status != MPI_STATUS_IGNORE) *status = f->split_status;
  return MPI_SUCCESS;
}

int mpisw_cio_File_write_all_begin(MPI_File fh, const void *buf, MPI_Count count,
                                   MPI_Datatype datatype, int large) {
  (void)large;
  return begin(fh, CIO_WRITE_ALL, 0, (void *)buf, count, datatype, "MPI_File_write_all_begin");
}
int mpisw_cio_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf,
                                      MPI_Count count, MPI_Datatype datatype, int large) {
  (void)large;
  return begin(fh, CIO_WRITE_AT_ALL, offset, (void *)buf, count, datatype,
               "MPI_File_write_at_all_begin");
}
int mpisw_cio_File_read_all_begin(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                                  int large) {
  (void)large;
  return begin(fh, CIO_READ_ALL, 0, buf, count, datatype, "MPI_File_read_all_begin");
}
int mpisw_cio_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                     MPI_Datatype datatype, int large) {
  (void)large;
  return begin(fh, CIO_READ_AT_ALL, offset, buf, count, datatype, "MPI_File_read_at_all_begin");
}
int mpisw_cio_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status) {
  (void)buf;
  return end(fh, status);
}
int mpisw_cio_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status) {
  (void)buf;
  return end(fh, status);
}
int mpisw_cio_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status) {
  (void)buf;
  return end(fh, status);
}
int mpisw_cio_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status) {
  (void)buf;
  return end(fh, status);
}
