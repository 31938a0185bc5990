/* The calls on an open pooled file that move no data: sizes, pointers,
 * views, atomicity, info, group, mode. Collective ones (set_size,
 * preallocate, set_view, set_atomicity, seek_shared, set_info) act on rank
 * 0 and return when every rank sees the change. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfile/internal.h"

#define F(fh) pfile_of(fh)

/* rank 0's pool result, the same on every rank, raised as an error of routine. */
static int on_rank0(struct mpisw_pfile *f, const char *routine, int prc,
                    const struct mpisw_error *e) {
  int code = f->rank == 0 && prc != MPISW_POOL_OK ? mpisw_pfile_pool_error(f, prc, routine, e)
                                                  : MPI_SUCCESS;
  return f->size > 1 ? mpisw_pfile_agree(f, f->comm, code, routine, NULL) : code;
}

int mpisw_pfile_File_get_size(MPI_File fh, MPI_Offset *size) {
  struct mpisw_error e;
  uint64_t s = 0;
  int prc = mpisw_pool_get_size(F(fh)->pf, &s, &e);
  if (prc != MPISW_POOL_OK) return mpisw_pfile_pool_error(F(fh), prc, "MPI_File_get_size", &e);
  *size = (MPI_Offset)s;
  return MPI_SUCCESS;
}

static int sized(MPI_File fh, MPI_Offset size, int prealloc) {
  struct mpisw_pfile *f = F(fh);
  const char *routine = prealloc ? "MPI_File_preallocate" : "MPI_File_set_size";
  if (size < 0) return mpisw_pfile_error(f, MPI_ERR_ARG, routine, "size %lld is negative", (long long)size);
  if (f->amode & MPI_MODE_RDONLY)
    return mpisw_pfile_error(f, MPI_ERR_READ_ONLY, routine, "%s was opened MPI_MODE_RDONLY", f->shown);
  struct mpisw_error e = {0, ""};
  int prc = MPISW_POOL_OK;
  mpisw_pool_sync(f->pf, &e);
  if (f->size > 1) PMPI_Barrier(f->comm); /* earlier writes are in */
  if (f->rank == 0)
    prc = prealloc ? mpisw_pool_preallocate(f->pf, (uint64_t)size, &e)
                   : mpisw_pool_set_size(f->pf, (uint64_t)size, &e);
  return on_rank0(f, routine, prc, &e);
}

int mpisw_pfile_File_set_size(MPI_File fh, MPI_Offset size) { return sized(fh, size, 0); }
int mpisw_pfile_File_preallocate(MPI_File fh, MPI_Offset size) { return sized(fh, size, 1); }

int mpisw_pfile_File_sync(MPI_File fh) {
  struct mpisw_error e;
  int prc = mpisw_pool_sync(F(fh)->pf, &e);
  if (prc != MPISW_POOL_OK) return mpisw_pfile_pool_error(F(fh), prc, "MPI_File_sync", &e);
  return MPI_SUCCESS;
}

int mpisw_pfile_File_get_amode(MPI_File fh, int *amode) {
  *amode = F(fh)->amode;
  return MPI_SUCCESS;
}

int mpisw_pfile_File_get_group(MPI_File fh, MPI_Group *group) {
  return PMPI_Comm_group(F(fh)->comm, group);
}

int mpisw_pfile_File_get_atomicity(MPI_File fh, int *flag) {
  *flag = F(fh)->atomic;
  return MPI_SUCCESS;
}

int mpisw_pfile_File_set_atomicity(MPI_File fh, int flag) {
  struct mpisw_pfile *f = F(fh);
  struct mpisw_error e;
  mpisw_pool_sync(f->pf, &e);
  if (f->size > 1) PMPI_Barrier(f->comm);
  f->atomic = flag != 0;
  return MPI_SUCCESS;
}

int mpisw_pfile_File_get_type_extent(MPI_File fh, MPI_Datatype dt, MPI_Aint *extent) {
  MPI_Aint lb;
  return PMPI_Type_get_extent(dt, &lb, extent); /* "native": the memory extent */
}

#if MPI_VERSION >= 4
int mpisw_pfile_File_get_type_extent_c(MPI_File fh, MPI_Datatype dt, MPI_Count *extent) {
  MPI_Count lb;
  return PMPI_Type_get_extent_x(dt, &lb, extent);
}
#endif

/* ---- info ---- */
int mpisw_pfile_File_get_info(MPI_File fh, MPI_Info *info_used) {
  struct mpisw_pfile *f = F(fh);
  if (f->info != MPI_INFO_NULL) return PMPI_Info_dup(f->info, info_used);
  return PMPI_Info_create(info_used);
}

int mpisw_pfile_File_set_info(MPI_File fh, MPI_Info info) {
  struct mpisw_pfile *f = F(fh);
  if (info == MPI_INFO_NULL) return MPI_SUCCESS;
  if (f->info == MPI_INFO_NULL) return PMPI_Info_dup(info, &f->info);
  int n = 0;
  PMPI_Info_get_nkeys(info, &n);
  for (int i = 0; i < n; i++) {
    char key[MPI_MAX_INFO_KEY + 1], *v;
    int len = 0, flag = 0;
    PMPI_Info_get_nthkey(info, i, key);
    PMPI_Info_get_valuelen(info, key, &len, &flag);
    if (!flag || !(v = malloc((size_t)len + 1))) continue;
    PMPI_Info_get(info, key, len, v, &flag);
    v[len] = 0;
    PMPI_Info_set(f->info, key, v);
    if (!strcmp(key, "mpisw_drain")) {
      free(f->drain);
      f->drain = strdup(v);
    }
    free(v);
  }
  return MPI_SUCCESS;
}

/* ---- pointers ---- */
int mpisw_pfile_File_get_position(MPI_File fh, MPI_Offset *offset) {
  *offset = F(fh)->ptr;
  return MPI_SUCCESS;
}

int mpisw_pfile_File_get_position_shared(MPI_File fh, MPI_Offset *offset) {
  struct mpisw_error e;
  int64_t v = 0;
  int prc = mpisw_pool_shared_ptr(F(fh)->pf, 0, &v, &e);
  if (prc != MPISW_POOL_OK)
    return mpisw_pfile_pool_error(F(fh), prc, "MPI_File_get_position_shared", &e);
  *offset = v;
  return MPI_SUCCESS;
}

/* The end of the file in etypes of the view (MPI_SEEK_END). */
static int end_in_etypes(struct mpisw_pfile *f, int64_t *end, struct mpisw_error *e) {
  uint64_t size = 0;
  int prc = mpisw_pool_get_size(f->pf, &size, e);
  *end = (int64_t)(mpisw_pfile_view_stream_end(&f->view, size) / (uint64_t)f->view.etype_size);
  return prc;
}

static int new_position(struct mpisw_pfile *f, const char *routine, int64_t cur,
                        MPI_Offset offset, int whence, int64_t *out) {
  struct mpisw_error e;
  int64_t end = 0;
  if (whence == MPI_SEEK_SET) *out = offset;
  else if (whence == MPI_SEEK_CUR) *out = cur + offset;
  else if (whence == MPI_SEEK_END) {
    int prc = end_in_etypes(f, &end, &e);
    if (prc != MPISW_POOL_OK) return mpisw_pfile_pool_error(f, prc, routine, &e);
    *out = end + offset;
  } else {
    return mpisw_pfile_error(f, MPI_ERR_ARG, routine, "whence %d is not MPI_SEEK_SET, _CUR or _END", whence);
  }
  if (*out < 0)
    return mpisw_pfile_error(f, MPI_ERR_ARG, routine, "the position would be %lld, before the start",
                             (long long)*out);
  return MPI_SUCCESS;
}

int mpisw_pfile_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  struct mpisw_pfile *f = F(fh);
  int64_t p;
  int rc = new_position(f, "MPI_File_seek", f->ptr, offset, whence, &p);
  if (rc == MPI_SUCCESS) f->ptr = p;
  return rc;
}

int mpisw_pfile_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  struct mpisw_pfile *f = F(fh);
  struct mpisw_error e = {0, ""};
  int prc = MPISW_POOL_OK, rc = MPI_SUCCESS;
  if (f->size > 1) PMPI_Barrier(f->comm); /* earlier shared accesses are done */
  if (f->rank == 0) {
    int64_t cur = 0, p = 0;
    prc = mpisw_pool_shared_ptr(f->pf, 0, &cur, &e);
    if (prc == MPISW_POOL_OK) rc = new_position(f, "MPI_File_seek_shared", cur, offset, whence, &p);
    if (prc == MPISW_POOL_OK && rc == MPI_SUCCESS) prc = mpisw_pool_shared_ptr_set(f->pf, p, &e);
    if (rc != MPI_SUCCESS) {
      prc = MPISW_POOL_USAGE;
      mpisw_fail(&e, MPISW_K_USAGE, "offset %lld with whence %d is not a valid position",
                 (long long)offset, whence);
    }
  }
  rc = on_rank0(f, "MPI_File_seek_shared", prc, &e);
  return rc;
}

/* ---- views ---- */
static MPI_Datatype keep_type(MPI_Datatype t) {
  MPI_Datatype d = t;
  if (!mpisw_pfile_type_named(t)) PMPI_Type_dup(t, &d);
  return d;
}

int mpisw_pfile_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype,
                              MPI_Datatype *filetype, char *datarep) {
  struct mpisw_pfile *f = F(fh);
  *disp = f->view.disp;
  *etype = keep_type(f->view.etype); /* derived ones are new types the caller frees */
  *filetype = keep_type(f->view.filetype);
  strcpy(datarep, f->view.datarep);
  return MPI_SUCCESS;
}

int mpisw_pfile_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                              MPI_Datatype filetype, const char *datarep, MPI_Info info) {
  static const char *R = "MPI_File_set_view";
  struct mpisw_pfile *f = F(fh);
  if (etype == MPI_DATATYPE_NULL || filetype == MPI_DATATYPE_NULL)
    return mpisw_pfile_error(f, MPI_ERR_TYPE, R, "etype or filetype is MPI_DATATYPE_NULL");
  int external32 = datarep && !strcmp(datarep, "external32");
  if (!datarep || (strcmp(datarep, "native") && strcmp(datarep, "internal") && !external32))
    return mpisw_pfile_error(f, MPI_ERR_UNSUPPORTED_DATAREP, R,
                             "data representation \"%s\": pooled files keep \"native\", "
                             "\"internal\" (the same here) and \"external32\"",
                             datarep ? datarep : "(null)");
  /* external32: the values are converted (big-endian, MPI's sizes); the
   * file layout is the view's own, so its types must have the same size in
   * both forms (all but long, unsigned long, long double, wchar_t here) */
  MPI_Aint ext_e = 0, ext_f = 0;
  MPI_Count nat_e = 0, nat_f = 0;
  if (external32) {
    PMPI_Pack_external_size("external32", 1, etype, &ext_e);
    PMPI_Pack_external_size("external32", 1, filetype, &ext_f);
    PMPI_Type_size_x(etype, &nat_e);
    PMPI_Type_size_x(filetype, &nat_f);
    if (ext_e != nat_e || ext_f != nat_f)
      return mpisw_pfile_error(f, MPI_ERR_UNSUPPORTED_DATAREP, R,
                               "external32 with an etype or filetype whose external32 size "
                               "differs from its native size (long, long double, ...)");
  }
  if (disp < 0 && disp != MPI_DISPLACEMENT_CURRENT)
    return mpisw_pfile_error(f, MPI_ERR_ARG, R, "disp %lld is negative", (long long)disp);
  if (disp == MPI_DISPLACEMENT_CURRENT) {
    /* a sequential file's new view starts where its shared pointer is */
    if (!(f->amode & MPI_MODE_SEQUENTIAL))
      return mpisw_pfile_error(f, MPI_ERR_ARG, R,
                               "MPI_DISPLACEMENT_CURRENT is for files opened MPI_MODE_SEQUENTIAL");
    struct mpisw_error e0;
    int64_t sp = 0;
    if (f->size > 1) PMPI_Barrier(f->comm); /* shared accesses before are done */
    if (f->rank == 0) mpisw_pool_shared_ptr(f->pf, 0, &sp, &e0);
    if (f->size > 1) PMPI_Bcast(&sp, 1, MPI_INT64_T, 0, f->comm);
    disp = (MPI_Offset)mpisw_pfile_view_byte_offset(&f->view,
                                                     (uint64_t)sp * (uint64_t)f->view.etype_size);
  }
  MPI_Count esize = 0, fsize = 0;
  MPI_Aint flb, fext, tlb, text;
  PMPI_Type_size_x(etype, &esize);
  PMPI_Type_size_x(filetype, &fsize);
  PMPI_Type_get_extent(filetype, &flb, &fext);
  PMPI_Type_get_true_extent(filetype, &tlb, &text);
  if (esize <= 0) return mpisw_pfile_error(f, MPI_ERR_TYPE, R, "the etype has size 0");
  if (fsize % esize)
    return mpisw_pfile_error(f, MPI_ERR_TYPE, R,
                             "the filetype (%lld bytes) is not a whole number of etypes (%lld bytes)",
                             (long long)fsize, (long long)esize);
  int contiguous = fsize == fext && fext == text && flb == 0 && tlb == 0;
  /* every view is checked (etype in the filetype, monotone, no overlap for
   * writing); a filetype with holes is then mapped through its pieces */
  struct mpisw_view m;
  char why[256] = "";
  int cls = mpisw_view_init(&m, disp, etype, filetype, !(f->amode & MPI_MODE_RDONLY), why,
                            sizeof why);
  /* a view against MPI-IO's rules is MPI_ERR_IO, as ROMIO (and MPICH's own
   * tests) have it; no memory is its own class */
  if (cls != MPI_SUCCESS)
    return mpisw_pfile_error(f, cls == MPI_ERR_NO_MEM ? cls : MPI_ERR_IO, R, "%s", why);
  struct mpisw_error e;
  mpisw_pool_sync(f->pf, &e);
  mpisw_pfile_view_release(&f->view);
  if (contiguous) mpisw_view_free(&m);
  else f->view.m = m;
  f->view.mapped = !contiguous;
  f->view.disp = disp;
  f->view.etype = keep_type(etype);
  f->view.filetype = keep_type(filetype);
  f->view.etype_size = (MPI_Aint)esize;
  f->view.contiguous = contiguous;
  f->view.ft_size = (MPI_Aint)fsize;
  f->view.ft_extent = fext;
  snprintf(f->view.datarep, sizeof f->view.datarep, "%s", datarep);
  f->view.external32 = external32;
  if (info != MPI_INFO_NULL) mpisw_pfile_File_set_info(fh, info);
  /* both pointers go to 0 */
  f->ptr = 0;
  int prc = MPISW_POOL_OK;
  if (f->size > 1) PMPI_Barrier(f->comm);
  if (f->rank == 0) prc = mpisw_pool_shared_ptr_set(f->pf, 0, &e);
  return on_rank0(f, R, prc, &e);
}

int mpisw_pfile_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp) {
  struct mpisw_pfile *f = F(fh);
  if (offset < 0)
    return mpisw_pfile_error(f, MPI_ERR_ARG, "MPI_File_get_byte_offset", "offset %lld is negative",
                             (long long)offset);
  *disp = (MPI_Offset)mpisw_pfile_view_byte_offset(&f->view,
                                                   (uint64_t)offset * (uint64_t)f->view.etype_size);
  return MPI_SUCCESS;
}
