/* File side of the datatype engine: views (disp, etype, filetype) checked
 * as MPI_File_set_view requires, and data-stream ranges mapped to file byte
 * ranges and back. The filetype tiles the file from disp, one copy per
 * extent; a binary search finds where a range starts, so mapping costs
 * O(pieces touched), not O(file). See typemap.h. */
#include <string.h>

#include "pfile/typemap_internal.h"

/* Is every etype instance of the filetype's stream laid out in the file as
 * the etype is in memory ("a filetype built from etypes")? */
static int built_from(const struct mpisw_typemap *f, const struct mpisw_typemap *e)
{
  if (e->n == 1) { /* a contiguous etype: no instance may straddle two pieces */
    for (MPI_Count i = 1; i < f->n; i++)
      if (f->before[i] % e->size)
        return 0;
    return 1;
  }
  MPI_Count i = 0, skip = 0;
  for (MPI_Count done = 0; done < f->size; done += e->size) {
    MPI_Count base = 0;
    for (MPI_Count q = 0; q < e->n; q++) {
      MPI_Count at = f->piece[i].disp + skip;
      if (q == 0)
        base = at - e->piece[0].disp;
      else if (at != base + e->piece[q].disp)
        return 0;
      if (f->piece[i].len - skip < e->piece[q].len)
        return 0; /* this etype piece is split in the file */
      skip += e->piece[q].len;
      if (skip == f->piece[i].len)
        i++, skip = 0;
    }
  }
  return 1;
}

int mpisw_view_init(struct mpisw_view *v, MPI_Offset disp, MPI_Datatype etype,
                    MPI_Datatype filetype, int writing, char *why, size_t wl)
{
  memset(v, 0, sizeof *v);
  if (disp < 0)
    return mpisw_typemap_fail(why, wl, MPI_ERR_ARG, "displacement %lld is negative",
                              (long long)disp);
  if (etype == MPI_DATATYPE_NULL)
    return mpisw_typemap_fail(why, wl, MPI_ERR_TYPE, "etype is MPI_DATATYPE_NULL");
  if (filetype == MPI_DATATYPE_NULL)
    return mpisw_typemap_fail(why, wl, MPI_ERR_TYPE, "filetype is MPI_DATATYPE_NULL");
  struct mpisw_typemap *e = NULL, *f = NULL;
  char sub[160] = "";
  int rc = mpisw_typemap_get(etype, &e, sub, sizeof sub);
  if (rc != MPI_SUCCESS) {
    mpisw_typemap_fail(why, wl, rc, "etype: %s", sub);
    return rc;
  }
  rc = mpisw_typemap_get(filetype, &f, sub, sizeof sub);
  if (rc != MPI_SUCCESS) {
    mpisw_typemap_release(e);
    mpisw_typemap_fail(why, wl, rc, "filetype: %s", sub);
    return rc;
  }
  /* Copies of the filetype step by its extent. For writing, by the extent
   * MPI's rule gives when the MPI's own bounds are wrong (typemap.h,
   * rule_bounds) and would make the copies overlap where the rule's do not:
   * what HDF5 writes on Open MPI. A read-only view steps by the MPI's
   * extent, as the MPI's own MPI-IO and MPI_Unpack do (overlapping copies
   * are legal for reading). */
  MPI_Count extent = f->extent;
  MPI_Count span = f->n ? f->piece[f->n - 1].disp + f->piece[f->n - 1].len - f->piece[0].disp : 0;
  if (writing && f->rule_bounds && span > f->extent && span <= f->rule_extent)
    extent = f->rule_extent;
  if (e->size == 0)
    rc = mpisw_typemap_fail(why, wl, MPI_ERR_TYPE, "etype has size 0");
  else if (f->size % e->size)
    rc = mpisw_typemap_fail(why, wl, MPI_ERR_ARG,
                            "filetype size %lld is not a multiple of etype size %lld",
                            (long long)f->size, (long long)e->size);
  else if (writing && !e->disjoint)
    rc = mpisw_typemap_fail(why, wl, MPI_ERR_TYPE,
                            "etype holds overlapping bytes (the file is open for writing)");
  else if (!f->monotone)
    rc = mpisw_typemap_fail(why, wl, MPI_ERR_TYPE,
                            "filetype displacements are not monotonically non-decreasing");
  else if (f->n && f->piece[0].disp < 0)
    rc = mpisw_typemap_fail(why, wl, MPI_ERR_TYPE,
                            "filetype has a negative displacement (%lld)",
                            (long long)f->piece[0].disp);
  else if (writing && !f->disjoint)
    rc = mpisw_typemap_fail(why, wl, MPI_ERR_TYPE,
                            "filetype holds overlapping bytes (the file is open for writing)");
  else if (f->size > 0 && extent <= 0)
    rc = mpisw_typemap_fail(why, wl, MPI_ERR_TYPE,
                            "filetype holds data but its extent is %lld", (long long)extent);
  else if (writing && f->n && span > extent)
    rc = mpisw_typemap_fail(why, wl, MPI_ERR_TYPE,
                            "copies of the filetype overlap: its data spans %lld bytes, its "
                            "extent is %lld (the file is open for writing)",
                            (long long)span, (long long)extent);
  else if (!built_from(f, e))
    rc = mpisw_typemap_fail(why, wl, MPI_ERR_TYPE,
                            "filetype is not built from the etype (an etype of the filetype "
                            "is not laid out as the etype)");
  if (rc == MPI_SUCCESS) {
    v->disp = disp;
    v->esize = e->size;
    v->ftype = f;
    v->extent = extent;
    v->writable = writing != 0;
  } else
    mpisw_typemap_release(f);
  mpisw_typemap_release(e);
  return rc;
}

void mpisw_view_free(struct mpisw_view *v)
{
  mpisw_typemap_release(v->ftype);
  memset(v, 0, sizeof *v);
}

int mpisw_view_iter_start(struct mpisw_view_iter *it, const struct mpisw_view *v, MPI_Count pos,
                          MPI_Count len)
{
  const struct mpisw_typemap *f = v->ftype;
  memset(it, 0, sizeof *it);
  it->v = v;
  if (pos < 0 || len < 0)
    return MPI_ERR_ARG;
  if (len == 0)
    return MPI_SUCCESS;
  if (f->size == 0)
    return MPI_ERR_ARG;
  it->len = len;
  it->tile = pos / f->size;
  MPI_Count r = pos % f->size;
  it->i = mpisw_typemap_find(f, r);
  it->skip = r - f->before[it->i];
  return MPI_SUCCESS;
}

int mpisw_view_iter_next(struct mpisw_view_iter *it, MPI_Offset *file_off, MPI_Count *data_off,
                         MPI_Count *len)
{
  if (it->done >= it->len)
    return 0;
  const struct mpisw_typemap *f = it->v->ftype;
  MPI_Offset base = it->v->disp;
  if (f->dense && it->v->extent == f->extent) { /* copies follow each other: one run */
    *file_off = base + f->piece[0].disp + it->tile * f->extent + it->skip;
    *data_off = it->done;
    *len = it->len - it->done;
    it->done = it->len;
    return 1;
  }
  *data_off = it->done;
  *len = 0;
  *file_off = -1;
  while (it->done < it->len) {
    MPI_Offset at = base + it->tile * it->v->extent + f->piece[it->i].disp + it->skip;
    if (*len && at != *file_off + *len)
      break; /* not adjacent in the file: the next call's piece */
    MPI_Count n = f->piece[it->i].len - it->skip;
    if (n > it->len - it->done)
      n = it->len - it->done;
    if (!*len)
      *file_off = at;
    *len += n;
    it->done += n;
    it->skip += n;
    if (it->skip == f->piece[it->i].len) {
      it->skip = 0;
      if (++it->i == f->n)
        it->i = 0, it->tile++;
    }
  }
  return 1;
}

int mpisw_view_map(const struct mpisw_view *v, MPI_Count pos, MPI_Count len,
                   mpisw_view_piece_fn fn, void *ctx)
{
  struct mpisw_view_iter it;
  int rc = mpisw_view_iter_start(&it, v, pos, len);
  if (rc != MPI_SUCCESS)
    return rc;
  MPI_Offset off;
  MPI_Count d, n;
  while (mpisw_view_iter_next(&it, &off, &d, &n))
    if ((rc = fn(ctx, off, d, n)) != 0)
      return rc;
  return MPI_SUCCESS;
}

int mpisw_view_byte_offset(const struct mpisw_view *v, MPI_Count pos, MPI_Offset *off)
{
  const struct mpisw_typemap *f = v->ftype;
  if (pos < 0 || (f->size == 0 && pos > 0))
    return MPI_ERR_ARG;
  if (f->size == 0) {
    *off = v->disp;
    return MPI_SUCCESS;
  }
  MPI_Count tile = pos / f->size, r = pos % f->size;
  MPI_Count i = mpisw_typemap_find(f, r);
  *off = v->disp + tile * v->extent + f->piece[i].disp + (r - f->before[i]);
  return MPI_SUCCESS;
}

/* Data bytes of one filetype copy whose displacement is below y. */
static MPI_Count below(const struct mpisw_typemap *f, MPI_Count y)
{
  /* pieces are monotone (checked at init): those starting below y are a prefix */
  MPI_Count lo = 0, hi = f->n; /* first piece with disp >= y */
  while (lo < hi) {
    MPI_Count mid = lo + (hi - lo) / 2;
    if (f->piece[mid].disp < y)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return 0;
  if (f->disjoint) { /* only the last of them may reach past y */
    MPI_Count j = lo - 1, part = y - f->piece[j].disp;
    return f->before[j] + (part < f->piece[j].len ? part : f->piece[j].len);
  }
  MPI_Count sum = 0;
  for (MPI_Count j = 0; j < lo; j++) {
    MPI_Count part = y - f->piece[j].disp;
    sum += part < f->piece[j].len ? part : f->piece[j].len;
  }
  return sum;
}

int mpisw_view_stream_pos(const struct mpisw_view *v, MPI_Offset file_off, MPI_Count *pos)
{
  const struct mpisw_typemap *f = v->ftype;
  if (file_off < 0)
    return MPI_ERR_ARG;
  *pos = 0;
  MPI_Count x = file_off - v->disp;
  if (f->size == 0 || x <= 0)
    return MPI_SUCCESS;
  /* the data of one copy spans [lo, hi); disjoint pieces: the last ends last */
  MPI_Count lo = f->piece[0].disp, hi = f->piece[f->n - 1].disp + f->piece[f->n - 1].len;
  for (MPI_Count i = 0; !f->disjoint && i < f->n; i++)
    if (f->piece[i].disp + f->piece[i].len > hi)
      hi = f->piece[i].disp + f->piece[i].len;
  /* copies wholly below x, then the few that straddle it */
  MPI_Count k = x - hi < 0 ? 0 : (x - hi) / v->extent + 1;
  MPI_Count sum = k * f->size;
  for (; k * v->extent + lo < x; k++)
    sum += below(f, x - k * v->extent);
  *pos = sum;
  return MPI_SUCCESS;
}
