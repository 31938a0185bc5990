/* Inside the pooled-file module: one open pooled file, its view and
 * pointers, error raising, and the data path shared by every read and
 * write call. */
#ifndef MPISW_PFILE_INTERNAL_H
#define MPISW_PFILE_INTERNAL_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>

#include "core/error.h"
#include "pfile/pfile.h"
#include "pfile/typemap.h"
#include "pmpi/pmpi.h"
#include "pool/pool.h"
#include "process/process.h"

/* How a file's errors are handled (MPI_File_set_errhandler). */
struct pfile_handler {
  MPI_Errhandler eh;                  /* predefined, or the user's (see fn) */
  MPI_File_errhandler_function *fn;   /* the user's function, else NULL */
};

/* A file view (MPI_File_set_view): the data stream of etypes laid on the
 * file by filetype, from byte disp. */
struct pfile_view {
  MPI_Offset disp;
  MPI_Datatype etype, filetype;       /* the user's handles (duplicated when derived) */
  MPI_Aint etype_size;
  int contiguous;                     /* filetype covers its extent with no holes */
  MPI_Aint ft_size, ft_extent;        /* data bytes and extent of one filetype */
  char datarep[MPI_MAX_DATAREP_STRING];
  int mapped;                         /* m holds the filetype's map (not contiguous) */
  int external32;                     /* data in the file in MPI's external32 form */
  struct mpisw_view m;
};

/* Statistics for MPISW_REPORT. */
struct pfile_stats {
  double bytes_written, bytes_read, seconds;
  long ops;
};

/* A duplicate of a communicator for the collectives of one open file at a
 * time (open.c), kept on the user's communicator (an attribute) for its
 * next open when cached. */
struct pfile_dup {
  MPI_Comm comm;
  int cached;   /* an attribute of the user's communicator holds it */
  int busy;     /* an open file uses it */
  int orphan;   /* the user's communicator was freed while it was busy */
};

struct mpisw_pfile {
  uint64_t magic;                     /* PFILE_MAGIC while open */
  struct mpisw_pool_file *pf;
  char *name;                         /* its name in the pool */
  char *shown;                        /* the name the program gave (messages) */
  /* the file's own communicator, for its collectives: MPI_COMM_SELF
   * alone, else dup's duplicate of the opening communicator */
  MPI_Comm comm;
  struct pfile_dup *dup;
  int rank, size;
  int amode;
  int atomic;
  MPI_Info info;                      /* the hints the file keeps (get_info) */
  struct pfile_view view;
  MPI_Offset ptr;                     /* individual file pointer, in etypes */
  struct pfile_handler handler;
  MPI_Fint fint;                      /* its Fortran handle */
  char *drain;                        /* mpisw_drain: written there at close */
  /* a split collective in progress (one per file at a time) */
  int split_active;
  MPI_Status split_status;
  struct pfile_stats st;
  struct mpisw_pfile *next;
};

#define PFILE_MAGIC 0x6d70697377504631ull /* "mpiswPF1" */

static inline MPI_File pfile_handle(struct mpisw_pfile *f) { return (MPI_File)(void *)f; }
/* The pooled file behind fh (the caller checked mpisw_pfile_owns). */
static inline struct mpisw_pfile *pfile_of(MPI_File fh) { return (struct mpisw_pfile *)(void *)fh; }

/* ---- handle.c: registry, Fortran handles, error handlers ---- */
void mpisw_pfile_register(struct mpisw_pfile *f);
void mpisw_pfile_unregister(struct mpisw_pfile *f);
/* Calls fn for each open pooled file of this process (finalize). */
void mpisw_pfile_each(void (*fn)(struct mpisw_pfile *, void *), void *arg);
/* The handler new files get: MPI_FILE_NULL's. */
void mpisw_pfile_default_handler(struct pfile_handler *h);
/* An error of class cls with a message, raised on f (NULL: on no file, as
 * MPI does for MPI_File_open and MPI_File_delete: MPI_FILE_NULL's handler). */
int mpisw_pfile_error(struct mpisw_pfile *f, int cls, const char *routine, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A pool result (MPISW_POOL_*) as the MPI-IO error class it stands for. */
int mpisw_pfile_pool_error(struct mpisw_pfile *f, int pool_rc, const char *routine,
                           const struct mpisw_error *e);
/* Raises code on f with its handler; returns code. */
int mpisw_pfile_raise(struct mpisw_pfile *f, int code);

/* ---- open.c ---- */
/* Every rank of comm gets the result of the lowest-ranked rank whose code
 * is not MPI_SUCCESS: its own code where it failed, else an error of the
 * same class and message raised on f (NULL: on no file) for routine.
 * *flag (may be NULL) is MAX-reduced along the way. */
int mpisw_pfile_agree(struct mpisw_pfile *f, MPI_Comm comm, int code, const char *routine,
                      int *flag);

/* ---- module.c: a closed file's figures, for MPISW_REPORT ---- */
void mpisw_pfile_note_stats(struct mpisw_pfile *f);
/* stats.c: rank 0 prints every name's figures over all ranks and the pool's
 * peak use (pool_seen: the pool was made); collective. */
void mpisw_pfile_report_stats(int pool_seen, uint64_t pool_peak);

/* ---- view.c: views ---- */
/* 1 for a predefined datatype (never freed or duplicated by the module). */
int mpisw_pfile_type_named(MPI_Datatype t);
void mpisw_pfile_view_default(struct pfile_view *v);
void mpisw_pfile_view_release(struct pfile_view *v);
/* The file pieces of data-stream bytes [pos, pos+len) under v: fn(file
 * offset, stream offset relative to pos, length) in stream order; stops at
 * the first nonzero return and returns it. */
int mpisw_pfile_view_pieces(const struct pfile_view *v, uint64_t pos, uint64_t len,
                            int (*fn)(uint64_t file_off, uint64_t at, uint64_t n, void *arg),
                            void *arg);
/* The number of data-stream bytes the first size bytes of the file hold
 * (the end of the file in the view, for MPI_SEEK_END). */
uint64_t mpisw_pfile_view_stream_end(const struct pfile_view *v, uint64_t size);
/* The absolute file offset of data-stream byte pos (MPI_File_get_byte_offset). */
uint64_t mpisw_pfile_view_byte_offset(const struct pfile_view *v, uint64_t pos);

/* ---- access.c: the data path ---- */
enum { PFILE_AT, PFILE_INDIVIDUAL, PFILE_SHARED };
/* One read or write of count items of dt at buf: where says which pointer
 * (PFILE_AT: offset, in etypes). Fills status (may be MPI_STATUS_IGNORE).
 * Returns MPI_SUCCESS or an error code already raised on f. */
int mpisw_pfile_access(struct mpisw_pfile *f, const char *routine, int write, int where,
                       MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype dt,
                       MPI_Status *status);
/* A request that is complete, with the status of a done access. */
int mpisw_pfile_done_request(const MPI_Status *st, MPI_Request *request);

#endif
