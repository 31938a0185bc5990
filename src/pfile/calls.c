/* Every MPI-IO call on an open pooled file, as MPI defines it. Reads and
 * writes go through one data path (access.c); collective variants need no
 * exchange (each rank reaches the pool alone), nonblocking ones complete at
 * once (the request is already done), split collectives do their work at
 * _begin. */
#include <stdlib.h>
#include <string.h>

#include "pfile/internal.h"

#define F(fh) pfile_of(fh)
/* The routine's name as the user called it. */
#define NAME(base, large) ((large) ? base "_c" : base)

/* ---- blocking reads and writes ---- */
#define ACCESS_AT(call, write, where)                                                        \
  int mpisw_pfile_File_##call(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,    \
                              MPI_Datatype dt, MPI_Status *status, int large) {              \
    return mpisw_pfile_access(F(fh), NAME("MPI_File_" #call, large), write, where, offset,   \
                              buf, count, dt, status);                                       \
  }
#define ACCESS_PTR(call, write, where)                                                       \
  int mpisw_pfile_File_##call(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype dt,      \
                              MPI_Status *status, int large) {                               \
    return mpisw_pfile_access(F(fh), NAME("MPI_File_" #call, large), write, where, 0, buf,   \
                              count, dt, status);                                            \
  }
ACCESS_AT(read_at, 0, PFILE_AT)
ACCESS_AT(read_at_all, 0, PFILE_AT)
ACCESS_PTR(read, 0, PFILE_INDIVIDUAL)
ACCESS_PTR(read_all, 0, PFILE_INDIVIDUAL)
ACCESS_PTR(read_shared, 0, PFILE_SHARED)

/* The write calls take a const buffer: the data path does not write it. */
#define WRITE_AT(call)                                                                        \
  int mpisw_pfile_File_##call(MPI_File fh, MPI_Offset offset, const void *buf,                \
                              MPI_Count count, MPI_Datatype dt, MPI_Status *status,           \
                              int large) {                                                    \
    return mpisw_pfile_access(F(fh), NAME("MPI_File_" #call, large), 1, PFILE_AT, offset,     \
                              (void *)buf, count, dt, status);                                \
  }
#define WRITE_PTR(call, where)                                                                \
  int mpisw_pfile_File_##call(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype dt, \
                              MPI_Status *status, int large) {                                \
    return mpisw_pfile_access(F(fh), NAME("MPI_File_" #call, large), 1, where, 0, (void *)buf, \
                              count, dt, status);                                             \
  }
WRITE_AT(write_at)
WRITE_AT(write_at_all)
WRITE_PTR(write, PFILE_INDIVIDUAL)
WRITE_PTR(write_all, PFILE_INDIVIDUAL)
WRITE_PTR(write_shared, PFILE_SHARED)

/* Ordered: in rank order from the shared pointer, which moves past all. */
static int ordered(struct mpisw_pfile *f, const char *routine, int write, void *buf,
                   MPI_Count count, MPI_Datatype dt, MPI_Status *status) {
  MPI_Count tsize = 0;
  PMPI_Type_size_x(dt, &tsize);
  long long mine = (long long)(count * tsize / f->view.etype_size), before = 0, total = mine;
  int64_t base = 0;
  struct mpisw_error e;
  if (f->size > 1) {
    PMPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, f->comm);
    if (f->rank == 0) before = 0;
    PMPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, f->comm);
  }
  int prc = MPISW_POOL_OK;
  if (f->rank == 0) prc = mpisw_pool_shared_ptr(f->pf, total, &base, &e);
  if (f->size > 1) {
    long long b[2] = {prc, base};
    PMPI_Bcast(b, 2, MPI_LONG_LONG, 0, f->comm);
    prc = (int)b[0];
    base = b[1];
  }
  if (prc != MPISW_POOL_OK) {
    if (f->rank != 0) mpisw_fail(&e, MPISW_K_IO, "the shared file pointer of %s: rank 0 failed", f->shown);
    return mpisw_pfile_pool_error(f, prc, routine, &e);
  }
  return mpisw_pfile_access(f, routine, write, PFILE_AT, base + before, buf, count, dt, status);
}

int mpisw_pfile_File_read_ordered(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype dt,
                                  MPI_Status *status, int large) {
  return ordered(F(fh), NAME("MPI_File_read_ordered", large), 0, buf, count, dt, status);
}

int mpisw_pfile_File_write_ordered(MPI_File fh, const void *buf, MPI_Count count,
                                   MPI_Datatype dt, MPI_Status *status, int large) {
  return ordered(F(fh), NAME("MPI_File_write_ordered", large), 1, (void *)buf, count, dt,
                 status);
}

/* ---- nonblocking: done now, the request complete ---- */
#define IACCESS_AT(call, write)                                                               \
  int mpisw_pfile_File_i##call(MPI_File fh, MPI_Offset offset, MPISW_BUF buf,                 \
                               MPI_Count count, MPI_Datatype dt, MPI_Request *req,            \
                               int large) {                                                   \
    MPI_Status st;                                                                            \
    int rc = mpisw_pfile_access(F(fh), NAME("MPI_File_i" #call, large), write, PFILE_AT,      \
                                offset, (void *)buf, count, dt, &st);                         \
    return rc != MPI_SUCCESS ? rc : mpisw_pfile_done_request(&st, req);                       \
  }
#define IACCESS_PTR(call, write, where)                                                       \
  int mpisw_pfile_File_i##call(MPI_File fh, MPISW_BUF buf, MPI_Count count, MPI_Datatype dt,  \
                               MPI_Request *req, int large) {                                 \
    MPI_Status st;                                                                            \
    int rc = mpisw_pfile_access(F(fh), NAME("MPI_File_i" #call, large), write, where, 0,      \
                                (void *)buf, count, dt, &st);                                 \
    return rc != MPI_SUCCESS ? rc : mpisw_pfile_done_request(&st, req);                       \
  }
#define MPISW_BUF void *
IACCESS_AT(read_at, 0)
IACCESS_AT(read_at_all, 0)
IACCESS_PTR(read, 0, PFILE_INDIVIDUAL)
IACCESS_PTR(read_all, 0, PFILE_INDIVIDUAL)
IACCESS_PTR(read_shared, 0, PFILE_SHARED)
#undef MPISW_BUF
#define MPISW_BUF const void *
IACCESS_AT(write_at, 1)
IACCESS_AT(write_at_all, 1)
IACCESS_PTR(write, 1, PFILE_INDIVIDUAL)
IACCESS_PTR(write_all, 1, PFILE_INDIVIDUAL)
IACCESS_PTR(write_shared, 1, PFILE_SHARED)
#undef MPISW_BUF

/* ---- split collectives: the work at _begin, its status at _end ---- */
static int split_begin(struct mpisw_pfile *f, const char *routine, int write, int where,
                       MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype dt) {
  if (f->split_active)
    return mpisw_pfile_error(f, MPI_ERR_OTHER, routine,
                             "a split collective is already active on %s", f->shown);
  int rc = where == -1 ? ordered(f, routine, write, buf, count, dt, &f->split_status)
                       : mpisw_pfile_access(f, routine, write, where, offset, buf, count, dt,
                                            &f->split_status);
  if (rc == MPI_SUCCESS) f->split_active = 1;
  return rc;
}

static int split_end(struct mpisw_pfile *f, const char *routine, MPI_Status *status) {
  if (!f->split_active)
    return mpisw_pfile_error(f, MPI_ERR_OTHER, routine, "no split collective is active on %s",
                             f->shown);
  f->split_active = 0;
  if (status != MPI_STATUS_IGNORE) *status = f->split_status;
  return MPI_SUCCESS;
}

#define SPLIT(op, write, where, BUF)                                                          \
  int mpisw_pfile_File_##op##_begin(MPI_File fh, BUF buf, MPI_Count count, MPI_Datatype dt,   \
                                    int large) {                                              \
    return split_begin(F(fh), NAME("MPI_File_" #op "_begin", large), write, where, 0,         \
                       (void *)buf, count, dt);                                               \
  }                                                                                           \
  int mpisw_pfile_File_##op##_end(MPI_File fh, BUF buf, MPI_Status *status) {                 \
    return split_end(F(fh), "MPI_File_" #op "_end", status);                                  \
  }
SPLIT(read_all, 0, PFILE_INDIVIDUAL, void *)
SPLIT(write_all, 1, PFILE_INDIVIDUAL, const void *)
SPLIT(read_ordered, 0, -1, void *)
SPLIT(write_ordered, 1, -1, const void *)

int mpisw_pfile_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf,
                                       MPI_Count count, MPI_Datatype dt, int large) {
  return split_begin(F(fh), NAME("MPI_File_read_at_all_begin", large), 0, PFILE_AT, offset, buf,
                     count, dt);
}
int mpisw_pfile_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status) {
  return split_end(F(fh), "MPI_File_read_at_all_end", status);
}
int mpisw_pfile_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf,
                                        MPI_Count count, MPI_Datatype dt, int large) {
  return split_begin(F(fh), NAME("MPI_File_write_at_all_begin", large), 1, PFILE_AT, offset,
                     (void *)buf, count, dt);
}
int mpisw_pfile_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status) {
  return split_end(F(fh), "MPI_File_write_at_all_end", status);
}
