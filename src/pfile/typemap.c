/* Flattening: a datatype decoded with MPI_Type_get_envelope/_contents,
 * recursively, into its type map of byte pieces; the map cached on the
 * datatype as an attribute. See typemap.h. */
#include "pfile/typemap.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfile/typemap_internal.h"

/* A map and its reference count (the cache's attribute holds one). */
struct map_box {
  struct mpisw_typemap pub;
  atomic_long refs;
};

int mpisw_typemap_fail(char *why, size_t whylen, int cls, const char *fmt, ...)
{
  if (why && whylen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
  }
  return cls;
}

/* ---- the decoded constructor of one datatype ---- */

/* What MPI_Type_get_contents gives, in one form for both MPIs: MPI-4's _c
 * calls where the MPI has them (the only way to decode a large-count type
 * in MPICH 4), else the int ones. large: the type came from a _c
 * constructor, so its counts are in c[]. */
struct contents {
  int comb, large;
  MPI_Count ni, na, nc, nd;
  int *i;
  MPI_Aint *a;
  MPI_Count *c;
  MPI_Datatype *d;
};

/* The combiner of t (the _c call where there is one: MPICH 4's int
 * MPI_Type_get_envelope fails on large-count types, fatally by default). */
static int combiner_of(MPI_Datatype t, int *comb)
{
#if MPI_VERSION >= 4
  MPI_Count ni, na, nc, nd;
  return PMPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, comb);
#else
  int ni, na, nd;
  return PMPI_Type_get_envelope(t, &ni, &na, &nd, comb);
#endif
}

static int predefined(int comb)
{
  return comb == MPI_COMBINER_NAMED || comb == MPI_COMBINER_F90_REAL ||
         comb == MPI_COMBINER_F90_COMPLEX || comb == MPI_COMBINER_F90_INTEGER;
}

static void contents_free(struct contents *k)
{
  for (MPI_Count j = 0; j < k->nd; j++) {
    int comb;
    /* Datatypes returned by get_contents are ours to free unless predefined. */
    if (combiner_of(k->d[j], &comb) == MPI_SUCCESS && !predefined(comb))
      PMPI_Type_free(&k->d[j]);
  }
  free(k->i);
  free(k->a);
  free(k->c);
  free(k->d);
  memset(k, 0, sizeof *k);
}

static int contents_get(MPI_Datatype t, struct contents *k, char *why, size_t wl)
{
  memset(k, 0, sizeof *k);
#if MPI_VERSION >= 4
  if (PMPI_Type_get_envelope_c(t, &k->ni, &k->na, &k->nc, &k->nd, &k->comb) != MPI_SUCCESS)
    return mpisw_typemap_fail(why, wl, MPI_ERR_TYPE, "MPI_Type_get_envelope_c failed");
#else
  int ni, na, nd;
  if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &k->comb) != MPI_SUCCESS)
    return mpisw_typemap_fail(why, wl, MPI_ERR_TYPE, "MPI_Type_get_envelope failed");
  k->ni = ni, k->na = na, k->nd = nd;
#endif
  if (predefined(k->comb)) {
    k->ni = k->na = k->nc = k->nd = 0;
    return MPI_SUCCESS;
  }
  k->large = k->nc > 0;
  k->i = malloc(sizeof *k->i * (size_t)(k->ni + 1));
  k->a = malloc(sizeof *k->a * (size_t)(k->na + 1));
  k->c = malloc(sizeof *k->c * (size_t)(k->nc + 1));
  k->d = malloc(sizeof *k->d * (size_t)(k->nd + 1));
  if (!k->i || !k->a || !k->c || !k->d) {
    k->nd = 0; /* nothing to free yet */
    contents_free(k);
    return mpisw_typemap_fail(why, wl, MPI_ERR_NO_MEM, "no memory to decode a datatype");
  }
#if MPI_VERSION >= 4
  int rc = PMPI_Type_get_contents_c(t, k->ni, k->na, k->nc, k->nd, k->i, k->a, k->c, k->d);
#else
  int rc = PMPI_Type_get_contents(t, (int)k->ni, (int)k->na, (int)k->nd, k->i, k->a, k->d);
#endif
  if (rc != MPI_SUCCESS) {
    k->nd = 0;
    contents_free(k);
    return mpisw_typemap_fail(why, wl, MPI_ERR_TYPE, "MPI_Type_get_contents failed");
  }
  return MPI_SUCCESS;
}

/* ---- the builder: pieces appended in type-map order, adjacent ones merged ---- */

struct builder {
  struct mpisw_typemap_piece *p;
  MPI_Count n, cap;
  char *why;
  size_t wl;
  int have_bounds; /* 1: a struct's lb and ub by MPI's rule, from its blocks */
  MPI_Count lb, ub;
};

static int emit(struct builder *b, MPI_Count disp, MPI_Count len)
{
  if (len <= 0)
    return MPI_SUCCESS;
  if (b->n && b->p[b->n - 1].disp + b->p[b->n - 1].len == disp) {
    b->p[b->n - 1].len += len;
    return MPI_SUCCESS;
  }
  if (b->n == b->cap) {
    if (b->cap >= MPISW_TYPEMAP_MAX_PIECES)
      return mpisw_typemap_fail(b->why, b->wl, MPI_ERR_NO_MEM,
                                "datatype's type map has more than %lld contiguous pieces",
                                (long long)MPISW_TYPEMAP_MAX_PIECES);
    MPI_Count cap = b->cap ? 2 * b->cap : 16;
    struct mpisw_typemap_piece *p = realloc(b->p, sizeof *p * (size_t)cap);
    if (!p)
      return mpisw_typemap_fail(b->why, b->wl, MPI_ERR_NO_MEM,
                                "no memory for a type map of %lld pieces", (long long)cap);
    b->p = p, b->cap = cap;
  }
  b->p[b->n].disp = disp;
  b->p[b->n].len = len;
  b->n++;
  return MPI_SUCCESS;
}

/* count copies of map m, copy k at base + k * stride. */
static int emit_copies(struct builder *b, const struct mpisw_typemap *m, MPI_Count base,
                       MPI_Count count, MPI_Count stride)
{
  if (count <= 0 || m->n == 0)
    return MPI_SUCCESS;
  if (m->n == 1 && m->piece[0].len == stride) /* one run however many copies */
    return emit(b, base + m->piece[0].disp, count * stride);
  for (MPI_Count k = 0; k < count; k++)
    for (MPI_Count i = 0; i < m->n; i++) {
      int rc = emit(b, base + k * stride + m->piece[i].disp, m->piece[i].len);
      if (rc != MPI_SUCCESS)
        return rc;
    }
  return MPI_SUCCESS;
}

/* count blocks of bl copies of m (stride between blocks in bytes). */
static int emit_blocks(struct builder *b, const struct mpisw_typemap *m, MPI_Count base,
                       MPI_Count count, MPI_Count bl, MPI_Count stride)
{
  if (count <= 0 || bl <= 0 || m->n == 0)
    return MPI_SUCCESS;
  if (m->dense) { /* a block is one run */
    struct mpisw_typemap_piece blk = {m->piece[0].disp, bl * m->piece[0].len};
    struct mpisw_typemap one = {.n = 1, .piece = &blk};
    return emit_copies(b, &one, base, count, stride);
  }
  for (MPI_Count k = 0; k < count; k++) {
    int rc = emit_copies(b, m, base + k * stride, bl, m->extent);
    if (rc != MPI_SUCCESS)
      return rc;
  }
  return MPI_SUCCESS;
}

/* ---- subarray and darray: a grid of dimensions, outermost first, each
 * with the runs of indices this type holds (ascending) ---- */

struct run {
  MPI_Count start, len;
};
struct dim {
  MPI_Count gsize, stride; /* stride: bytes between consecutive indices */
  struct run *r;
  MPI_Count nr;
};

static int emit_grid(struct builder *b, const struct mpisw_typemap *m, struct dim *d, int nd,
                     MPI_Count base)
{
  if (nd == 1) {
    for (MPI_Count j = 0; j < d->nr; j++) {
      int rc = emit_copies(b, m, base + d->r[j].start * d->stride, d->r[j].len, d->stride);
      if (rc != MPI_SUCCESS)
        return rc;
    }
    return MPI_SUCCESS;
  }
  for (MPI_Count j = 0; j < d->nr; j++)
    for (MPI_Count x = d->r[j].start; x < d->r[j].start + d->r[j].len; x++) {
      int rc = emit_grid(b, m, d + 1, nd - 1, base + x * d->stride);
      if (rc != MPI_SUCCESS)
        return rc;
    }
  return MPI_SUCCESS;
}

/* Strides from the element extent, then inner dimensions held whole folded
 * into the one outside (so a run of whole rows is one loop, not one per row). */
static int grid_emit(struct builder *b, const struct mpisw_typemap *m, struct dim *d, int nd)
{
  for (int j = 0; j < nd; j++)
    if (d[j].nr == 0)
      return MPI_SUCCESS; /* this rank/subarray holds nothing */
  MPI_Count s = m->extent;
  for (int j = nd - 1; j >= 0; j--) {
    d[j].stride = s;
    s *= d[j].gsize;
  }
  while (nd > 1 && d[nd - 1].nr == 1 && d[nd - 1].r[0].start == 0 &&
         d[nd - 1].r[0].len == d[nd - 1].gsize) {
    MPI_Count g = d[nd - 1].gsize;
    for (MPI_Count j = 0; j < d[nd - 2].nr; j++)
      d[nd - 2].r[j].start *= g, d[nd - 2].r[j].len *= g;
    d[nd - 2].gsize *= g;
    d[nd - 2].stride = d[nd - 1].stride;
    nd--;
  }
  return emit_grid(b, m, d, nd, 0);
}

static void grid_free(struct dim *d, int nd)
{
  if (!d)
    return;
  for (int j = 0; j < nd; j++)
    free(d[j].r);
  free(d);
}

/* A dimension of a darray: the runs of indices that process coordinate
 * `coord` of `p` holds in a dimension of g elements. */
static int darray_runs(struct dim *d, MPI_Count g, int distrib, int darg, int p, int coord,
                       char *why, size_t wl)
{
  d->gsize = g;
  d->nr = 0;
  if (distrib == MPI_DISTRIBUTE_NONE) {
    d->r = malloc(sizeof *d->r);
    if (!d->r)
      return mpisw_typemap_fail(why, wl, MPI_ERR_NO_MEM, "no memory to decode a darray");
    d->r[0] = (struct run){0, g};
    d->nr = g > 0;
    return MPI_SUCCESS;
  }
  MPI_Count k;
  if (distrib == MPI_DISTRIBUTE_BLOCK)
    k = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
  else
    k = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
  if (k <= 0)
    return mpisw_typemap_fail(why, wl, MPI_ERR_TYPE, "darray with block size %lld",
                              (long long)k);
  /* block j of k indices belongs to coordinate j mod p (BLOCK: only j = coord) */
  MPI_Count nblocks = (g + k - 1) / k;
  MPI_Count mine = coord < nblocks ? (nblocks - 1 - coord) / p + 1 : 0;
  if (distrib == MPI_DISTRIBUTE_BLOCK && mine > 1)
    mine = 1;
  if (mine > MPISW_TYPEMAP_MAX_PIECES)
    return mpisw_typemap_fail(why, wl, MPI_ERR_NO_MEM, "darray of %lld blocks per process",
                              (long long)mine);
  d->r = malloc(sizeof *d->r * (size_t)(mine + 1));
  if (!d->r)
    return mpisw_typemap_fail(why, wl, MPI_ERR_NO_MEM, "no memory to decode a darray");
  for (MPI_Count j = coord, q = 0; q < mine; j += p, q++) {
    MPI_Count st = j * k, len = g - st < k ? g - st : k;
    if (d->nr && d->r[d->nr - 1].start + d->r[d->nr - 1].len == st)
      d->r[d->nr - 1].len += len; /* p == 1: one run */
    else
      d->r[d->nr++] = (struct run){st, len};
  }
  return MPI_SUCCESS;
}

/* ---- one constructor ---- */

static int get_locked(MPI_Datatype t, struct map_box **out, char *why, size_t wl);

/* Count argument j of a constructor: c[] for a large type, else i[]. */
#define CNT(k, j, ij) ((k)->large ? (k)->c[(j)] : (MPI_Count)(k)->i[(ij)])

static int build_derived(struct builder *b, struct contents *k, char *why, size_t wl)
{
  struct map_box **child = calloc((size_t)k->nd + 1, sizeof *child);
  struct dim *grid = NULL;
  int ngrid = 0;
  int rc = child ? MPI_SUCCESS : MPI_ERR_NO_MEM;
  for (MPI_Count j = 0; rc == MPI_SUCCESS && j < k->nd; j++)
    rc = get_locked(k->d[j], &child[j], why, wl);
  if (rc != MPI_SUCCESS)
    goto out;
  const struct mpisw_typemap *m = k->nd ? &child[0]->pub : NULL;
  switch (k->comb) {
  case MPI_COMBINER_DUP:
  case MPI_COMBINER_RESIZED:
    rc = emit_copies(b, m, 0, 1, m->extent);
    break;
  case MPI_COMBINER_CONTIGUOUS:
    rc = emit_copies(b, m, 0, CNT(k, 0, 0), m->extent);
    break;
  case MPI_COMBINER_VECTOR:
    rc = emit_blocks(b, m, 0, CNT(k, 0, 0), CNT(k, 1, 1), CNT(k, 2, 2) * m->extent);
    break;
  case MPI_COMBINER_HVECTOR:
#ifdef MPICH
  case MPI_COMBINER_HVECTOR_INTEGER:
#endif
    rc = emit_blocks(b, m, 0, CNT(k, 0, 0), CNT(k, 1, 1),
                     k->large ? k->c[2] : k->na ? (MPI_Count)k->a[0] : (MPI_Count)k->i[2]);
    break;
  case MPI_COMBINER_INDEXED:
  case MPI_COMBINER_HINDEXED:
#ifdef MPICH
  case MPI_COMBINER_HINDEXED_INTEGER:
#endif
  {
    MPI_Count n = CNT(k, 0, 0);
    for (MPI_Count j = 0; rc == MPI_SUCCESS && j < n; j++) {
      MPI_Count bl = CNT(k, 1 + j, 1 + j), disp;
      if (k->large)
        disp = k->c[1 + n + j];
      else if (k->na)
        disp = k->a[j];
      else
        disp = k->i[1 + n + j];
      if (k->comb == MPI_COMBINER_INDEXED)
        disp *= m->extent;
      rc = emit_copies(b, m, disp, bl, m->extent);
    }
    break;
  }
  case MPI_COMBINER_INDEXED_BLOCK:
  case MPI_COMBINER_HINDEXED_BLOCK: {
    MPI_Count n = CNT(k, 0, 0), bl = CNT(k, 1, 1);
    for (MPI_Count j = 0; rc == MPI_SUCCESS && j < n; j++) {
      MPI_Count disp = k->large ? k->c[2 + j] : k->na ? (MPI_Count)k->a[j] : k->i[2 + j];
      if (k->comb == MPI_COMBINER_INDEXED_BLOCK)
        disp *= m->extent;
      rc = emit_copies(b, m, disp, bl, m->extent);
    }
    break;
  }
  case MPI_COMBINER_STRUCT:
#ifdef MPICH
  case MPI_COMBINER_STRUCT_INTEGER:
#endif
  {
    MPI_Count n = CNT(k, 0, 0);
    for (MPI_Count j = 0; rc == MPI_SUCCESS && j < n; j++) {
      MPI_Count bl = CNT(k, 1 + j, 1 + j);
      MPI_Count disp = k->large ? k->c[1 + n + j] : k->na ? (MPI_Count)k->a[j] : k->i[1 + n + j];
      const struct mpisw_typemap *c = &child[j]->pub;
      rc = emit_copies(b, c, disp, bl, c->extent);
      /* lb = min(disp + lb(type)), ub = max(disp + lb(type) + bl * extent(type)),
       * over the blocks of at least one copy */
      MPI_Count lo = disp + c->lb, hi = lo + bl * c->extent;
      if (c->extent < 0 || b->have_bounds < 0)
        b->have_bounds = -1; /* negative extents: leave the bounds to MPI */
      else if (bl > 0) {
        if (!b->have_bounds || lo < b->lb)
          b->lb = lo;
        if (!b->have_bounds || hi > b->ub)
          b->ub = hi;
        b->have_bounds = 1;
      }
    }
    break;
  }
  case MPI_COMBINER_SUBARRAY: {
    /* i: ndims, [sizes, subsizes, starts,] order; large: c = sizes, subsizes, starts */
    int nd = k->i[0];
    int order = k->large ? k->i[1] : k->i[1 + 3 * nd];
    grid = calloc((size_t)nd + 1, sizeof *grid);
    if (!grid) {
      rc = mpisw_typemap_fail(why, wl, MPI_ERR_NO_MEM, "no memory to decode a subarray");
      break;
    }
    ngrid = nd;
    for (int j = 0; j < nd; j++) {
      /* grid is outermost first: C order as given, Fortran order reversed */
      struct dim *g = &grid[order == MPI_ORDER_C ? j : nd - 1 - j];
      g->gsize = CNT(k, j, 1 + j);
      MPI_Count sub = CNT(k, nd + j, 1 + nd + j), st = CNT(k, 2 * nd + j, 1 + 2 * nd + j);
      g->r = malloc(sizeof *g->r);
      if (!g->r) {
        rc = mpisw_typemap_fail(why, wl, MPI_ERR_NO_MEM, "no memory to decode a subarray");
        break;
      }
      g->r[0] = (struct run){st, sub};
      g->nr = sub > 0;
    }
    if (rc == MPI_SUCCESS)
      rc = grid_emit(b, m, grid, nd);
    break;
  }
  case MPI_COMBINER_DARRAY: {
    /* i: size, rank, ndims, [gsizes,] distribs, dargs, psizes, order;
     * large: c = gsizes */
    int rank = k->i[1], nd = k->i[2];
    int off = k->large ? 3 : 3 + nd; /* where distribs start in i */
    int order = k->i[off + 3 * nd];
    grid = calloc((size_t)nd + 1, sizeof *grid);
    int *coord = calloc((size_t)nd + 1, sizeof *coord);
    if (!grid || !coord) {
      free(coord);
      rc = mpisw_typemap_fail(why, wl, MPI_ERR_NO_MEM, "no memory to decode a darray");
      break;
    }
    ngrid = nd;
    /* the process grid is row-major whatever the array's order */
    for (int j = nd - 1, r = rank; j >= 0; j--) {
      int p = k->i[off + 2 * nd + j];
      coord[j] = r % p;
      r /= p;
    }
    for (int j = 0; rc == MPI_SUCCESS && j < nd; j++)
      rc = darray_runs(&grid[order == MPI_ORDER_C ? j : nd - 1 - j],
                       k->large ? k->c[j] : k->i[3 + j], k->i[off + j], k->i[off + nd + j],
                       k->i[off + 2 * nd + j], coord[j], why, wl);
    free(coord);
    if (rc == MPI_SUCCESS)
      rc = grid_emit(b, m, grid, nd);
    break;
  }
  default:
    rc = mpisw_typemap_fail(why, wl, MPI_ERR_TYPE, "datatype combiner %d is not supported",
                            k->comb);
  }
out:
  grid_free(grid, ngrid);
  if (child)
    for (MPI_Count j = 0; j < k->nd; j++)
      mpisw_typemap_release(child[j] ? &child[j]->pub : NULL);
  free(child);
  return rc;
}

/* A predefined type: one run, except the pair types with a hole between
 * the value and the int (MPI_SHORT_INT: short, 2 bytes of padding, int). */
static int build_named(struct builder *b, struct mpisw_typemap *t, char *why, size_t wl)
{
  if (t->size == 0)
    return MPI_SUCCESS;
  if (t->size == t->true_extent)
    return emit(b, t->true_lb, t->size);
  if (t->size > (MPI_Count)sizeof(int) && t->size < t->true_extent) {
    /* {value; int}: the int ends the true extent */
    int rc = emit(b, t->true_lb, t->size - (MPI_Count)sizeof(int));
    if (rc == MPI_SUCCESS)
      rc = emit(b, t->true_lb + t->true_extent - (MPI_Count)sizeof(int), sizeof(int));
    return rc;
  }
  return mpisw_typemap_fail(why, wl, MPI_ERR_TYPE,
                            "predefined datatype of size %lld and true extent %lld not understood",
                            (long long)t->size, (long long)t->true_extent);
}

static void finish(struct map_box *box, struct builder *b, MPI_Count *before)
{
  struct mpisw_typemap *t = &box->pub;
  t->n = b->n;
  t->piece = b->p;
  t->before = before;
  t->monotone = t->disjoint = 1;
  before[0] = 0;
  for (MPI_Count i = 0; i < b->n; i++) {
    before[i + 1] = before[i] + b->p[i].len;
    if (i && b->p[i].disp < b->p[i - 1].disp)
      t->monotone = 0;
    if (i && b->p[i].disp < b->p[i - 1].disp + b->p[i - 1].len)
      t->disjoint = 0;
  }
  t->dense = b->n == 1 && b->p[0].len == t->extent;
}

static int build(MPI_Datatype t, struct map_box **out, int *cacheable, char *why, size_t wl)
{
  struct map_box *box = calloc(1, sizeof *box);
  if (!box)
    return mpisw_typemap_fail(why, wl, MPI_ERR_NO_MEM, "no memory for a type map");
  atomic_init(&box->refs, 1);
  struct mpisw_typemap *m = &box->pub;
  if (PMPI_Type_size_x(t, &m->size) != MPI_SUCCESS ||
      PMPI_Type_get_extent_x(t, &m->lb, &m->extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent_x(t, &m->true_lb, &m->true_extent) != MPI_SUCCESS ||
      m->size == MPI_UNDEFINED) {
    free(box);
    return mpisw_typemap_fail(why, wl, MPI_ERR_TYPE, "datatype size or extent not available");
  }
  struct contents k;
  int rc = contents_get(t, &k, why, wl);
  if (rc != MPI_SUCCESS) {
    free(box);
    return rc;
  }
  struct builder b = {.why = why, .wl = wl};
  *cacheable = !predefined(k.comb);
  rc = *cacheable ? build_derived(&b, &k, why, wl) : build_named(&b, m, why, wl);
  contents_free(&k);
  MPI_Count *before = NULL;
  if (rc == MPI_SUCCESS) {
    if (b.n && b.n < b.cap) { /* give back the slack of the doubling */
      struct mpisw_typemap_piece *p = realloc(b.p, sizeof *p * (size_t)b.n);
      if (p)
        b.p = p;
    }
    before = malloc(sizeof *before * (size_t)(b.n + 1));
    if (!before)
      rc = mpisw_typemap_fail(why, wl, MPI_ERR_NO_MEM, "no memory for a type map");
  }
  if (rc != MPI_SUCCESS) {
    free(b.p);
    free(box);
    return rc;
  }
  /* Open MPI 4.1.4 gets some structs' bounds wrong: HDF5's collective
   * chunk filetype (63 blocks, some resized) comes back with lb 170496 and
   * extent 127872 where MPI's rule (and MPICH) gives 1480 and 296888, so
   * copies of it overlap. Bounds that do not even hold the blocks' own are
   * wrong by the standard (the alignment padding only widens them): keep
   * the rule's beside them. lb and extent stay the MPI's: packing memory
   * must step as the MPI does. */
  if (b.have_bounds > 0 && (b.lb < m->lb || b.ub > m->lb + m->extent)) {
    m->rule_bounds = 1;
    m->rule_lb = b.lb;
    m->rule_extent = b.ub - b.lb;
  }
  finish(box, &b, before);
  if (before[b.n] != m->size) {
    MPI_Count got = before[b.n], want = m->size;
    mpisw_typemap_release(m);
    return mpisw_typemap_fail(why, wl, MPI_ERR_TYPE,
                              "flattened map holds %lld bytes, MPI_Type_size says %lld",
                              (long long)got, (long long)want);
  }
  *out = box;
  return MPI_SUCCESS;
}

/* ---- the cache: an attribute on the datatype holding one reference ---- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* written once under the lock, read without it */
static atomic_int keyval = MPI_KEYVAL_INVALID;

static int attr_copy(MPI_Datatype old, int kv, void *extra, void *in, void *out, int *flag)
{
  (void)old, (void)kv, (void)extra;
  atomic_fetch_add(&((struct map_box *)in)->refs, 1); /* a dup has the same map */
  *(void **)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

static int attr_delete(MPI_Datatype t, int kv, void *val, void *extra)
{
  (void)t, (void)kv, (void)extra;
  mpisw_typemap_release(&((struct map_box *)val)->pub);
  return MPI_SUCCESS;
}

static int cache_lookup(MPI_Datatype t, struct map_box **out)
{
  void *val;
  int flag = 0, kv = atomic_load(&keyval);
  if (kv == MPI_KEYVAL_INVALID || PMPI_Type_get_attr(t, kv, &val, &flag) != MPI_SUCCESS || !flag)
    return 0;
  atomic_fetch_add(&((struct map_box *)val)->refs, 1);
  *out = val;
  return 1;
}

/* Called with the lock held (children are built under their parent's lock). */
static int get_locked(MPI_Datatype t, struct map_box **out, char *why, size_t wl)
{
  if (t == MPI_DATATYPE_NULL)
    return mpisw_typemap_fail(why, wl, MPI_ERR_TYPE, "datatype is MPI_DATATYPE_NULL");
  if (cache_lookup(t, out))
    return MPI_SUCCESS;
  int cacheable = 0;
  int rc = build(t, out, &cacheable, why, wl);
  if (rc != MPI_SUCCESS || !cacheable)
    return rc;
  int kv = atomic_load(&keyval);
  if (kv == MPI_KEYVAL_INVALID) {
    if (PMPI_Type_create_keyval(attr_copy, attr_delete, &kv, NULL) != MPI_SUCCESS)
      kv = MPI_KEYVAL_INVALID; /* no cache: still correct, only slower */
    atomic_store(&keyval, kv);
  }
  if (kv != MPI_KEYVAL_INVALID) {
    atomic_fetch_add(&(*out)->refs, 1); /* the attribute's reference */
    if (PMPI_Type_set_attr(t, kv, *out) != MPI_SUCCESS)
      atomic_fetch_sub(&(*out)->refs, 1);
  }
  return MPI_SUCCESS;
}

int mpisw_typemap_get(MPI_Datatype type, struct mpisw_typemap **map, char *why, size_t whylen)
{
  struct map_box *box = NULL;
  if (type == MPI_DATATYPE_NULL)
    return mpisw_typemap_fail(why, whylen, MPI_ERR_TYPE, "datatype is MPI_DATATYPE_NULL");
  /* Hits need no lock: only a miss sets the attribute, under the lock, once. */
  if (!cache_lookup(type, &box)) {
    pthread_mutex_lock(&lock);
    int rc = get_locked(type, &box, why, whylen);
    pthread_mutex_unlock(&lock);
    if (rc != MPI_SUCCESS)
      return rc;
  }
  *map = &box->pub;
  return MPI_SUCCESS;
}

void mpisw_typemap_release(struct mpisw_typemap *map)
{
  if (!map)
    return;
  struct map_box *box = (struct map_box *)map; /* pub is the first member */
  if (atomic_fetch_sub(&box->refs, 1) == 1) {
    free((void *)map->piece);
    free((void *)map->before);
    free(box);
  }
}
