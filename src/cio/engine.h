/* The two-phase collective I/O engine (docs/COLLECTIVE_IO.md "The engine"):
 * the state of a file it serves and the five stages of a collective call,
 * one file each:
 *
 *   hints.c     strategy, cb_nodes, cb_buffer_size, striping_unit; the open's
 *               agreement
 *   file.c      the files the engine serves: open, close, view, info
 *   access.c    stage 1: this rank's file pieces (offset, length, stream
 *               position) from the view
 *   domains.c   stage 2: ROMIO's file domains
 *   matrix.c    stage 3: C, bytes of each rank in each domain
 *   assign.c    stage 4: OTP / LATP / TATP on C and D, hop-bytes, link load
 *   exchange.c  stage 5: rounds of cb_buffer_size: shuffle and I/O
 *   backend.c   where the calls on the file land, chosen at open: the MPI's
 *               handle and our descriptor, or a pooled file's (pfile/)
 *   io.c        writes/reads of whole ranges; the calls without two phases
 *   behind.c    an aggregator's writes on a helper thread, behind the next
 *               round's shuffle
 *   calls.c     the MPI calls (write_all, read_at_all, split and nonblocking)
 *   report.c    MPISW_REPORT lines and the info keys of the last call
 *   module.c    the module's table */
#ifndef MPISW_CIO_ENGINE_H
#define MPISW_CIO_ENGINE_H

#include <limits.h>
#include <mpi.h>
#include <sys/uio.h>
#include <stdint.h>

#include "cio/cio.h"
#include "pfile/typemap.h"


enum { CIO_ROMIO = 0, CIO_OTP, CIO_LATP, CIO_TATP, CIO_NSTRAT };
extern const char *const mpisw_cio_strategy_name[CIO_NSTRAT];

struct cio_hints {
  int strategy;             /* CIO_* */
  int cb_nodes;             /* > 0; 0: one per node; -1: auto */
  MPI_Offset cb_buffer_size;
  MPI_Offset striping_unit; /* 0: no alignment */
  MPI_Offset min_fd_size;   /* romio_min_fdomain_size */
  int cb_write, cb_read;    /* romio_cb_write/_read: CIO_CB_AUTO, _ENABLE, _DISABLE */
  int write_behind;         /* mpisw_cb_write_behind: this rank's own choice, not agreed */
  int place;                /* mpisw_cb_place: agreed (it changes the messages) */
};
enum { CIO_CB_AUTO = 0, CIO_CB_ENABLE, CIO_CB_DISABLE };

/* Reads the hints of info (may be MPI_INFO_NULL) over *h: 0, or -1 with e
 * naming the key and value. The keys the MPI reads too (cb_nodes, ...) are
 * checked only when the strategy (h's, or the info's) is the engine's. */
int mpisw_cio_hints_parse(MPI_Info info, struct cio_hints *h, struct mpisw_error *e);
/* The strategy asked for by the environment (CIO_ROMIO when unset); -1 and
 * e when MPISW_CB_STRATEGY holds a value that is not a strategy. */
int mpisw_cio_env_strategy(struct mpisw_error *e);
/* A hash of what must agree across ranks. */
uint64_t mpisw_cio_hints_hash(const struct cio_hints *h, int kind);

/* A communicator's D, shared by the files opened on it (cached on it). */
struct cio_topo_ref {
  int refs;
  struct mpisw_cio_topo t;
};

/* What the last collective call did (report.c). */
struct cio_report {
  char call[24];
  int strategy;
  int ndomains;
  int *agg;            /* [ndomains]: the rank aggregating each domain */
  double hopbytes;     /* of the chosen assignment */
  double hop[CIO_NSTRAT]; /* of each strategy on the same C */
  uint64_t max_link;   /* bytes on the busiest link direction */
  double bytes;        /* of the call, all ranks */
  int rounds;
  int rounds_behind;   /* this rank's rounds written on the helper thread (behind.c) */
  int rounds_direct;   /* this rank's rounds written from the messages, not copied */
  int rounds_placed;   /* this rank's rounds received into place (place_round) */
  double t_meta, t_assign, t_shuffle, t_io; /* this rank's seconds */
  int cb_nodes_auto;   /* cb_nodes=auto chose ndomains */
  int independent;     /* no two phases: each rank its own pieces (ROMIO's rule) */
  int matrix_guessed;  /* C came with the agreement (the last call's domains held) */
};

/* The exchange's large buffers, kept on the file from one collective call
 * to the next (fresh pages each call cost the aggregator a page fault and a
 * zeroed page every 4 KiB) and freed at close. */
struct cio_buf {
  char *p;
  size_t cap;
};
enum { CIO_BUF_SEND, CIO_BUF_RECV, CIO_BUF_RECV1, CIO_BUF_COLL0, CIO_BUF_COLL1, CIO_NBUF };

struct cio_file;
/* What the engine does on a file's handle and bytes (backend.c). write and
 * read move whole contiguous file ranges (zeros read past the end of the
 * file): 0 or an errno value. The rest are the MPI's calls of those names
 * (for a pooled file, pfile's). */
struct cio_backend {
  const char *write_name, *read_name; /* in messages */
  int write_on_thread; /* write may run on a helper thread (it calls no MPI) */
  int (*write)(struct cio_file *f, const void *buf, size_t len, MPI_Offset off);
  /* n buffers to consecutive bytes from off (iov is scratch); NULL: none */
  int (*writev)(struct cio_file *f, struct iovec *iov, int n, MPI_Offset off);
  int (*read)(struct cio_file *f, void *buf, size_t len, MPI_Offset off);
  int (*set_view)(MPI_File, MPI_Offset, MPI_Datatype, MPI_Datatype, const char *, MPI_Info);
  int (*get_info)(MPI_File, MPI_Info *);
  int (*set_info)(MPI_File, MPI_Info);
  int (*set_atomicity)(MPI_File, int);
  int (*get_position)(MPI_File, MPI_Offset *);
  int (*seek)(MPI_File, MPI_Offset, int);
  int (*call_errhandler)(MPI_File, int);
  int (*close)(MPI_File *);
};
/* Ordinary files (ROMIO's handle, our descriptor); pooled files. */
extern const struct cio_backend mpisw_cio_fd_backend, mpisw_cio_pool_backend;

struct cio_file {
  struct cio_file *next;
  const struct cio_backend *be;
  int pooled;         /* a pooled file (pfile/): its view is pfile's, f->view unused */
  char io_msg[256];   /* the backend's last failure, when it says more than errno */
  MPI_File fh;
  MPI_Comm comm;      /* the engine's own duplicate of the file's communicator */
  int rank, size;
  int amode;
  int fd;             /* our own descriptor of the path (ordinary files) */
  char path[PATH_MAX];
  struct cio_hints h;
  struct cio_topo_ref *topo;
  int atomic;         /* MPI_File_set_atomicity(1): ROMIO's */
  /* the view, as set (types duplicated), and its map built at first use */
  MPI_Offset disp;
  MPI_Datatype etype, ftype;
  struct mpisw_view view;
  int view_state;     /* 0 not built, 1 ready, -1 ours cannot take it */
  /* split collectives: the begin did the work */
  int split_pending;
  int split_rc;
  MPI_Status split_status;
  long calls;
  /* the last two-phase call's domains (k, and the range they cut), alike
   * on every rank: the next call's guess (calls.c); pred_k 0: none */
  int pred_k;
  MPI_Offset pred_lo, pred_hi;
  struct cio_report last;
  struct cio_buf keep[CIO_NBUF]; /* exchange.c's buffers between calls */
};

/* ---- file.c ---- */
struct cio_file *mpisw_cio_find(MPI_File fh);
/* One result for every rank of comm: 0, or the class of the lowest rank
 * whose cls is not 0, with its why (broadcast). */
int mpisw_cio_agree(MPI_Comm comm, int cls, char *why, size_t whylen);
/* The view's map, built on first use (a pooled file's is pfile's): 0 with
 * *esize the etype's size, or -1 when ours cannot map it. */
int mpisw_cio_view(struct cio_file *f, MPI_Count *esize);

/* ---- access.c: stage 1 ---- */
struct cio_access {
  MPI_Count n, cap;
  MPI_Offset *off; /* sorted by offset (stream order of a view is file order) */
  MPI_Count *len;
  MPI_Count *pos;  /* stream position, counted from the call's first byte */
  MPI_Count bytes;
  MPI_Offset start, end; /* first byte and one past the last; start > end: none */
};
/* The pieces of stream bytes [spos, spos + bytes) of f's view (after
 * mpisw_cio_view). MPI error class or MPI_SUCCESS; why says what. */
int mpisw_cio_access(struct cio_file *f, MPI_Count spos, MPI_Count bytes,
                     struct cio_access *a, char *why, size_t whylen);
void mpisw_cio_access_free(struct cio_access *a);

/* ---- domains.c: stage 2 ---- */
/* ROMIO's file domains of [lo, hi] (inclusive) among k aggregators:
 * start[d], end[d] inclusive; an empty domain has start = end = -1. */
void mpisw_cio_domains(MPI_Offset lo, MPI_Offset hi, int k, MPI_Offset min_fd_size,
                       MPI_Offset striping_unit, MPI_Offset *start, MPI_Offset *end);
/* The domain holding offset off (binary search); -1 outside them all. */
int mpisw_cio_domain_of(const MPI_Offset *start, const MPI_Offset *end, int k, MPI_Offset off);

/* ---- matrix.c: stage 3 ---- */
struct cio_matrix {
  int P, m;
  double *C;            /* P x m bytes */
  MPI_Offset *N;        /* P x m pieces (as the exchange cuts them at domain ends) */
  MPI_Offset *lo, *hi;  /* [m]: first byte and one past the last accessed in d */
  double *row;          /* [m] scratch: this rank's bytes */
  int64_t *gather;      /* the Allgather's buffers */
};
/* The buffers for P ranks and m domains, taken before the collective that
 * can report their failure: 0, or -1 (nothing held). */
int mpisw_cio_matrix_alloc(struct cio_matrix *x, int P, int m);
/* Fills x (allocated for at least m domains) by one Allgather that also
 * carries this rank's fail flag: MPI_SUCCESS, or MPI_ERR_NO_MEM with *who
 * the lowest rank whose flag was set (its why is the one to tell). */
int mpisw_cio_matrix(MPI_Comm comm, const struct cio_access *a, int m, const MPI_Offset *start,
                     const MPI_Offset *end, int fail, struct cio_matrix *x, int *who);
void mpisw_cio_matrix_free(struct cio_matrix *x);
/* The parts of mpisw_cio_matrix, for a call that gathers the row along
 * with its agreement: the words of a row, this rank's row (scratch[m]),
 * and C, N, lo, hi from every rank's row (at all + p * stride). */
size_t mpisw_cio_matrix_words(int m);
void mpisw_cio_matrix_row(const struct cio_access *a, int m, const MPI_Offset *start,
                          const MPI_Offset *end, int fail, double *scratch, int64_t *out);
int mpisw_cio_matrix_merge(struct cio_matrix *x, int m, const int64_t *all, size_t stride,
                           int *who);
/* This rank's bytes in each of the k domains (row[k]). */
void mpisw_cio_row(const struct cio_access *a, int k, const MPI_Offset *start,
                   const MPI_Offset *end, double *row);

/* ---- assign.c: stage 4 ---- */
/* agg[m]: the rank aggregating each domain for f's strategy; fills the
 * report's hop-bytes of all strategies and the maximum link load (writing:
 * data flows to the aggregators; reading: from them). 0, or an MPI class
 * with why. */
int mpisw_cio_assign(struct cio_file *f, const struct cio_matrix *x, int writing, int *agg,
                     struct cio_report *r, char *why, size_t whylen);
/* cb_nodes=auto: the number of domains of least modelled time. */
int mpisw_cio_auto_k(struct cio_file *f, const struct cio_access *a, MPI_Offset lo,
                     MPI_Offset hi, double bytes, int *k, char *why, size_t whylen);

/* ---- exchange.c: stage 5 ---- */
struct cio_op {
  struct cio_file *f;
  int writing;
  void *buf;            /* the user's buffer */
  MPI_Count count;
  struct mpisw_typemap *mem; /* the memory datatype's map */
  const struct cio_access *a;
  const struct cio_matrix *x;
  const int *agg;       /* [m] */
  struct cio_report *r;
};
/* What the exchange needs before C is known (its plan, and the send
 * buffer of a call of one round), taken before the matrix's Allgather so
 * that a failure rides on its flag: 0, or -1 with why. A call has one
 * round (its message sizes known from N, no Alltoall) when every domain
 * fits in cb_buffer_size. */
struct cio_xchg;
int mpisw_cio_exchange_prepare(struct cio_file *f, const struct cio_access *a, int m,
                               const MPI_Offset *start, const MPI_Offset *end, int writing,
                               struct cio_xchg **out, char *why, size_t whylen);
void mpisw_cio_exchange_free(struct cio_xchg *xs);
/* The rounds. Collective; every rank returns the same result: MPI_SUCCESS
 * or an MPI error class, why filled on the failing ranks. */
int mpisw_cio_exchange(struct cio_op *op, struct cio_xchg *xs, char *why, size_t whylen);

/* The call without two phases: every rank reads or writes its own pieces
 * through a buffer of cb_buffer_size bytes; then one agreement on errors. */
int mpisw_cio_independent(struct cio_op *op, char *why, size_t whylen);

/* ---- io.c ---- */
/* Writes len bytes at off from buf / reads them (zeros past the end of the
 * file), through f's backend. 0 or an errno value. */
int mpisw_cio_write(struct cio_file *f, const void *buf, size_t len, MPI_Offset off);
int mpisw_cio_read(struct cio_file *f, void *buf, size_t len, MPI_Offset off);
/* The user's buffer when its bytes are contiguous in memory (byte 0 of
 * the stream there), else NULL: they must be packed. */
char *mpisw_cio_user_bytes(const struct cio_op *op);
/* The MPI class of a failed write/read (errno err), its message in why. */
int mpisw_cio_io_error(struct cio_file *f, int writing, int err, char *why, size_t whylen);
/* A file range an aggregator writes: from src (a received message, the
 * user's buffer), or when src is NULL from its collective buffer. */
struct cio_run {
  MPI_Offset off;
  MPI_Count len;
  const char *src;
  MPI_Count seq; /* the order laid (senders in rank order) */
};
/* Sorts the runs by file offset: 1 when two of them overlap, else 0. */
int mpisw_cio_runs_sort(struct cio_run *runs, MPI_Count n);
/* Writes the runs, sorted by offset (mpisw_cio_runs_sort): each stretch of
 * adjacent or overlapping runs in cbuf (byte 0 at file offset wlo) with one
 * write, of runs with a src (never overlapping) with writev: 0 or errno. */
int mpisw_cio_write_runs(struct cio_file *f, const char *cbuf, MPI_Offset wlo,
                         struct cio_run *runs, MPI_Count n);

/* ---- behind.c: an aggregator's writes behind the next round ---- */
struct cio_behind;
/* A writer thread for f's rounds, or NULL (no thread: the caller writes). */
struct cio_behind *mpisw_cio_behind_start(struct cio_file *f);
/* Hands over the runs of cbuf, after the previous job is written; cbuf and
 * runs stay untouched until the next wait returns. */
void mpisw_cio_behind_submit(struct cio_behind *w, const char *cbuf, MPI_Offset wlo,
                             struct cio_run *runs, MPI_Count n);
/* Waits for the job in hand: 0, or the errno of the first failed write
 * (the jobs after it are not written). */
int mpisw_cio_behind_wait(struct cio_behind *w);
/* Waits, ends the thread (NULL: nothing): the first failure, as wait. */
int mpisw_cio_behind_stop(struct cio_behind *w);

/* ---- calls.c: one collective call on f ---- */
enum { CIO_WRITE_ALL, CIO_WRITE_AT_ALL, CIO_READ_ALL, CIO_READ_AT_ALL };
int mpisw_cio_run(struct cio_file *f, int kind, MPI_Offset offset, void *buf, MPI_Count count,
                  MPI_Datatype type, MPI_Status *status, const char *routine);

/* ---- module.c ---- */
void mpisw_cio_count_call(double bytes);

/* ---- report.c ---- */
void mpisw_cio_report_call(struct cio_file *f);
/* Adds the mpisw_cb_* keys of f's last call to info. */
void mpisw_cio_report_info(struct cio_file *f, MPI_Info info);
void mpisw_cio_report_free(struct cio_report *r);

#endif
