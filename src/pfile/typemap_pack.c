/* Memory side of the datatype engine: a window [pos, pos + len) of the data
 * stream of count instances of a map, copied out (pack), in (unpack) or
 * walked piece by piece. No allocation: a binary search finds pos, then the
 * loop touches only the pieces of the window. See typemap.h. */
#include <stdint.h>
#include <string.h>

#include "pfile/typemap_internal.h"

MPI_Count mpisw_typemap_find(const struct mpisw_typemap *map, MPI_Count r)
{
  MPI_Count lo = 0, hi = map->n - 1; /* before[lo] <= r < before[hi + 1] */
  while (lo < hi) {
    MPI_Count mid = lo + (hi - lo + 1) / 2;
    if (map->before[mid] <= r)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

static int window_ok(const struct mpisw_typemap *m, MPI_Count count, MPI_Count pos, MPI_Count len)
{
  if (count < 0 || pos < 0 || len < 0)
    return 0;
  /* pos + len <= count * size, without overflowing */
  return m->size == 0 ? pos + len == 0 : count >= (pos + len + m->size - 1) / m->size;
}

enum op { PACK, UNPACK };

/* The one loop: each contiguous run of the window, in stream order. */
static int copy(const struct mpisw_typemap *m, uintptr_t buf, MPI_Count count, MPI_Count pos,
                MPI_Count len, char *data, enum op op, mpisw_typemap_mem_fn fn, void *ctx)
{
  if (!window_ok(m, count, pos, len))
    return MPI_ERR_ARG;
  if (len == 0)
    return MPI_SUCCESS;
  MPI_Count k = pos / m->size, r = pos % m->size, done = 0;
  if (m->dense) { /* instances follow each other: one run */
    uintptr_t at = buf + (uintptr_t)(m->piece[0].disp + pos);
    if (fn)
      return fn(ctx, (void *)at, 0, len);
    if (op == PACK)
      memcpy(data, (const void *)at, (size_t)len);
    else
      memcpy((void *)at, data, (size_t)len);
    return MPI_SUCCESS;
  }
  MPI_Count i = mpisw_typemap_find(m, r), skip = r - m->before[i];
  uintptr_t inst = buf + (uintptr_t)(k * m->extent);
  while (done < len) {
    MPI_Count n = m->piece[i].len - skip;
    if (n > len - done)
      n = len - done;
    uintptr_t at = inst + (uintptr_t)(m->piece[i].disp + skip);
    if (fn) {
      int rc = fn(ctx, (void *)at, done, n);
      if (rc)
        return rc;
    } else if (op == PACK)
      memcpy(data + done, (const void *)at, (size_t)n);
    else
      memcpy((void *)at, data + done, (size_t)n);
    done += n;
    skip = 0;
    if (++i == m->n)
      i = 0, inst += (uintptr_t)m->extent;
  }
  return MPI_SUCCESS;
}

int mpisw_typemap_pack(const struct mpisw_typemap *map, const void *buf, MPI_Count count,
                       MPI_Count pos, MPI_Count len, void *out)
{
  return copy(map, (uintptr_t)buf, count, pos, len, out, PACK, NULL, NULL);
}

int mpisw_typemap_unpack(const struct mpisw_typemap *map, const void *in, MPI_Count pos,
                         MPI_Count len, void *buf, MPI_Count count)
{
  return copy(map, (uintptr_t)buf, count, pos, len, (char *)in, UNPACK, NULL, NULL);
}

int mpisw_typemap_walk(const struct mpisw_typemap *map, const void *buf, MPI_Count count,
                       MPI_Count pos, MPI_Count len, mpisw_typemap_mem_fn fn, void *ctx)
{
  return copy(map, (uintptr_t)buf, count, pos, len, NULL, PACK, fn, ctx);
}
