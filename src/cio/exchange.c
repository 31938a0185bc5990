/* Stage 5: exchange and I/O in rounds of cb_buffer_size. In round r the
 * aggregator of domain d serves the window [lo_d + r * cbs, lo_d + (r+1) *
 * cbs) of it (lo_d: the first byte any rank accesses in d, ROMIO's st_loc);
 * there are as many rounds as the largest domain needs, every rank taking
 * part in each (one Alltoall of message sizes, one Alltoallv of messages).
 * A call of one round (every domain fits cb_buffer_size: the common case)
 * needs no Alltoall: the matrix's C and N give every message's size. A rank
 * whose plan failed still sends messages of the declared sizes, marked
 * bad (a count of -1), so that the others see it without a collective
 * more; the errors meet in the one agreement at the end.
 *
 * A message from a rank to an aggregator is [n][n x (offset, length)] and,
 * when writing, the n pieces' bytes after it. An aggregator's own pieces do
 * not travel: it copies them between the user's buffer and its own. Writing, the aggregator lays
 * the pieces into its buffer (senders in rank order: with overlapping
 * writes the higher rank's bytes win) and writes each run of adjacent
 * pieces with one pwrite: only the bytes written change, holes stay as they
 * were, as ROMIO's read-modify-write leaves them. In a call of several
 * rounds on an ordinary file those writes run on a helper thread from one
 * of two buffers while the next round is exchanged into the other
 * (behind.c; hint mpisw_cb_write_behind). Reading, it reads the span
 * of the pieces asked for with one pread (zeros past the end of the file)
 * and answers each rank with the bytes of its pieces in the order asked. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cio/engine.h"

struct part {
  MPI_Offset off;
  MPI_Count len;
  MPI_Count spos; /* stream position in the user's buffer */
};

struct plan {
  int P, m;
  MPI_Offset cbs;
  const int *agg;
  int *dom_of;          /* [P]: the domain a rank aggregates, or -1 */
  MPI_Count *cursor;    /* [m]: first piece that may still meet domain d */
  MPI_Offset *maxend;   /* [n]: the largest end of pieces 0..i */
  struct part *parts;   /* this round's parts, by destination rank */
  MPI_Count nparts, cap;
  MPI_Count *dst_first; /* [P + 1]: parts of destination p: [first[p], first[p+1]) */
};

static int window(const struct cio_matrix *x, int d, int r, MPI_Offset cbs, MPI_Offset *wlo,
                  MPI_Offset *whi) {
  MPI_Offset lo = x->lo[d] + (MPI_Offset)r * cbs;
  if (lo >= x->hi[d]) return 0;
  *wlo = lo;
  *whi = x->hi[d] - lo < cbs ? x->hi[d] : lo + cbs;
  return 1;
}

static int push(struct plan *pl, MPI_Offset off, MPI_Count len, MPI_Count spos) {
  if (pl->nparts == pl->cap) {
    MPI_Count cap = pl->cap ? 2 * pl->cap : 256;
    struct part *p = realloc(pl->parts, (size_t)cap * sizeof *p);
    if (!p) return -1;
    pl->parts = p;
    pl->cap = cap;
  }
  pl->parts[pl->nparts++] = (struct part){off, len, spos};
  return 0;
}

/* This rank's parts for round r, grouped by destination in rank order. */
static int plan_round(struct plan *pl, const struct cio_access *a, const struct cio_matrix *x,
                      int r) {
  pl->nparts = 0;
  for (int p = 0; p < pl->P; p++) {
    pl->dst_first[p] = pl->nparts;
    int d = pl->dom_of[p];
    MPI_Offset wlo, whi;
    if (d < 0 || !window(x, d, r, pl->cbs, &wlo, &whi)) continue;
    MPI_Count i = pl->cursor[d];
    while (i < a->n && pl->maxend[i] <= wlo) i++;
    pl->cursor[d] = i;
    for (; i < a->n && a->off[i] < whi; i++) {
      MPI_Offset s = a->off[i], e = s + a->len[i];
      if (e <= wlo) continue;
      if (s < wlo) s = wlo;
      if (e > whi) e = whi;
      if (push(pl, s, e - s, a->pos[i] + (s - a->off[i]))) return -1;
    }
  }
  pl->dst_first[pl->P] = pl->nparts;
  return 0;
}

/* cbuf[1] and runs[1]: the second of a writer behind the rounds (behind.c);
 * send, recv and cbuf are the file's kept buffers (struct cio_buf) */
struct bufs {
  char *send, *recv, *recv1, *cbuf[2]; /* recv1: the messages the writer may still read */
  size_t send_cap, recv_cap, recv1_cap, cbuf_cap[2];
  int *scount, *sdispl, *rcount, *rdispl;
  struct cio_run *runs[2];
  MPI_Count runs_cap[2];
};

static int grow(char **b, size_t *cap, size_t need) {
  if (need <= *cap) return 0;
  char *n = realloc(*b, need);
  if (!n) return -1;
  *b = n;
  *cap = need;
  return 0;
}

/* displacements of counts; -1 when a total passes INT_MAX */
static int displs(const int *count, int *displ, int P, size_t *total) {
  size_t t = 0;
  for (int p = 0; p < P; p++) {
    if (t > INT_MAX) return -1;
    displ[p] = (int)t;
    t += (size_t)count[p];
  }
  *total = t;
  return t > INT_MAX ? -1 : 0;
}

static double now(void) { return PMPI_Wtime(); }

/* Bytes the other ranks already send here cannot be refused without one
 * more collective per round: a receive buffer that cannot be had ends the
 * job with a message (the send side's failures are reported as errors). */
static void no_room(struct cio_file *f, size_t bytes) {
  fprintf(stderr, "mpisw: collective I/O on %s: no memory for %zu bytes of a round's "
          "exchange; lower cb_buffer_size\n", f->path, bytes);
  PMPI_Abort(f->comm, MPI_ERR_NO_MEM);
}

struct cio_xchg {
  struct cio_file *f; /* whose kept buffers these are */
  struct plan pl;
  struct bufs b;
  int single; /* one round at most: message sizes from the matrix's N */
  int place;       /* writing: the pieces' bytes go to their place (place_round) */
  int data_in_msg; /* writing without place: the bytes follow the pieces' list */
  MPI_Datatype *wtype; /* place_round: [2P] send and receive types */
  int *wcount;         /* [3P]: send counts, receive counts, zero displacements */
  int *blen;           /* blocks of a type being made */
  MPI_Aint *bdisp;
  size_t bcap;
  char *hdr_ok;        /* [P]: a valid list of pieces went to rank p this round */
  char *scratch;       /* overlapping pieces' bytes */
  size_t scratch_cap;
};

/* The file's kept buffer i, taken for a call / given back after it. */
static void take(struct cio_file *f, int i, char **p, size_t *cap) {
  *p = f->keep[i].p, *cap = f->keep[i].cap;
  f->keep[i] = (struct cio_buf){NULL, 0};
}
static void give(struct cio_file *f, int i, char *p, size_t cap) {
  free(f->keep[i].p);
  f->keep[i] = (struct cio_buf){p, cap};
}

void mpisw_cio_exchange_free(struct cio_xchg *xs) {
  if (!xs) return;
  give(xs->f, CIO_BUF_SEND, xs->b.send, xs->b.send_cap);
  give(xs->f, CIO_BUF_RECV, xs->b.recv, xs->b.recv_cap);
  give(xs->f, CIO_BUF_RECV1, xs->b.recv1, xs->b.recv1_cap);
  give(xs->f, CIO_BUF_COLL0, xs->b.cbuf[0], xs->b.cbuf_cap[0]);
  give(xs->f, CIO_BUF_COLL1, xs->b.cbuf[1], xs->b.cbuf_cap[1]);
  free(xs->pl.dom_of);
  free(xs->pl.cursor);
  free(xs->pl.maxend);
  free(xs->pl.parts);
  free(xs->pl.dst_first);
  free(xs->b.scount);
  for (int i = 0; i < 2; i++) free(xs->b.runs[i]);
  free(xs->wtype), free(xs->wcount), free(xs->blen), free(xs->bdisp), free(xs->scratch);
  free(xs->hdr_ok);
  free(xs);
}

int mpisw_cio_exchange_prepare(struct cio_file *f, const struct cio_access *a, int m,
                               const MPI_Offset *start, const MPI_Offset *end, int writing,
                               struct cio_xchg **out, char *why, size_t whylen) {
  int P = f->size;
  struct cio_xchg *xs = calloc(1, sizeof *xs);
  *out = xs;
  if (!xs) goto nomem;
  xs->f = f;
  take(f, CIO_BUF_SEND, &xs->b.send, &xs->b.send_cap);
  take(f, CIO_BUF_RECV, &xs->b.recv, &xs->b.recv_cap);
  take(f, CIO_BUF_RECV1, &xs->b.recv1, &xs->b.recv1_cap);
  take(f, CIO_BUF_COLL0, &xs->b.cbuf[0], &xs->b.cbuf_cap[0]);
  take(f, CIO_BUF_COLL1, &xs->b.cbuf[1], &xs->b.cbuf_cap[1]);
  struct plan *pl = &xs->pl;
  pl->P = P;
  pl->m = m;
  pl->cbs = f->h.cb_buffer_size;
  /* one round when every domain fits the buffer; its messages (at most
   * 17 bytes a byte of data) must stay far from INT_MAX */
  xs->single = pl->cbs <= INT_MAX / 64;
  for (int d = 0; d < m; d++)
    if (start[d] >= 0 && end[d] - start[d] + 1 > pl->cbs) xs->single = 0;
  pl->dom_of = malloc(sizeof *pl->dom_of * (size_t)P);
  pl->cursor = calloc((size_t)(m ? m : 1), sizeof *pl->cursor);
  pl->maxend = malloc(sizeof *pl->maxend * (size_t)(a->n ? a->n : 1));
  pl->dst_first = malloc(sizeof *pl->dst_first * (size_t)(P + 1));
  xs->b.scount = malloc(sizeof(int) * 4 * (size_t)P);
  xs->wtype = writing ? malloc(sizeof *xs->wtype * 2 * (size_t)P) : NULL;
  xs->wcount = writing ? malloc(sizeof *xs->wcount * 3 * (size_t)P) : NULL;
  xs->hdr_ok = writing ? calloc((size_t)P, 1) : NULL;
  if (!pl->dom_of || !pl->cursor || !pl->maxend || !pl->dst_first || !xs->b.scount ||
      (writing && (!xs->wtype || !xs->wcount || !xs->hdr_ok)))
    goto nomem;
  xs->b.sdispl = xs->b.scount + P, xs->b.rcount = xs->b.scount + 2 * P;
  xs->b.rdispl = xs->b.scount + 3 * P;
  for (MPI_Count i = 0; i < a->n; i++) {
    MPI_Offset e = a->off[i] + a->len[i];
    pl->maxend[i] = i && pl->maxend[i - 1] > e ? pl->maxend[i - 1] : e;
  }
  if (xs->single) { /* the round's parts and messages: room taken now */
    size_t parts = (size_t)a->n + (size_t)m;
    size_t send = 8 * (size_t)m + 16 * parts + (writing ? (size_t)a->bytes : 0);
    pl->parts = malloc(sizeof *pl->parts * parts);
    pl->cap = (MPI_Count)parts;
    if (!pl->parts || grow(&xs->b.send, &xs->b.send_cap, send)) goto nomem;
  }
  return 0;
nomem:
  snprintf(why, whylen, "no memory for the exchange's plan");
  return -1;
}

/* The size of the message of this rank to rank p for the round: as
 * planned, or (one round) as the matrix declared it, which every receiver
 * computes alike. *ok: the plan agrees with the declaration. */
static size_t message_size(const struct cio_xchg *xs, const struct cio_op *op, int p, int local,
                           int *ok) {
  const struct plan *pl = &xs->pl;
  int me = op->f->rank;
  MPI_Count n = local || p == me ? 0 : pl->dst_first[p + 1] - pl->dst_first[p];
  size_t data = 0;
  for (MPI_Count i = pl->dst_first[p]; n && xs->data_in_msg && i < pl->dst_first[p + 1]; i++)
    data += (size_t)pl->parts[i].len;
  *ok = !local;
  if (!xs->single) return n ? 8 + 16 * (size_t)n + data : 0;
  int d = pl->dom_of[p], m = op->x->m;
  MPI_Offset dn = p == me || d < 0 ? 0 : op->x->N[(size_t)me * m + d];
  size_t ddata = xs->data_in_msg && dn ? (size_t)op->x->C[(size_t)me * m + d] : 0;
  if (dn != n || ddata != data) *ok = 0;
  return dn ? 8 + 16 * (size_t)dn + ddata : 0;
}

/* What rank p sends here in a round of its own (one round): from N. */
static size_t declared_from(const struct cio_xchg *xs, const struct cio_op *op, int p,
                            int my_dom) {
  int m = op->x->m;
  if (my_dom < 0 || p == op->f->rank) return 0;
  MPI_Offset n = op->x->N[(size_t)p * m + my_dom];
  size_t data = xs->data_in_msg && n ? (size_t)op->x->C[(size_t)p * m + my_dom] : 0;
  return n ? 8 + 16 * (size_t)n + data : 0;
}

/* Pieces at least this long on average are written from where they lie
 * (pwritev); shorter ones are copied into the collective buffer first. */
#define DIRECT_MIN 1024

static int cmp_seq(const void *x, const void *y) {
  const struct cio_run *a = x, *b = y;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Pair i of a sender's piece list as received (a count, then (offset,
 * length) pairs of int64). */
static void list_pair(const char *rd, int64_t i, int64_t pair[2]) {
  memcpy(pair, rd + 8 + 16 * i, 16);
}

/* Room for n runs in runs[slot]: 0, or -1. */
static int grow_runs(struct bufs *b, int slot, MPI_Count n) {
  if (n <= b->runs_cap[slot]) return 0;
  struct cio_run *nr = realloc(b->runs[slot], (size_t)(n * 2) * sizeof *nr);
  if (!nr) return -1;
  b->runs[slot] = nr;
  b->runs_cap[slot] = n * 2;
  return 0;
}

/* The aggregator's runs of one round (window from wlo) in runs[slot]: each
 * piece where it lies, in a received message or (contiguous in memory) in
 * the user's buffer; this rank's pieces of a noncontiguous buffer packed
 * into cbuf[slot]. Written from there (no copy: one less pass over the data
 * on the busiest rank) when the backend writes vectors, pieces average
 * DIRECT_MIN bytes and none overlaps another; otherwise every piece is
 * copied into cbuf[slot] in rank order (overlapping bytes: the higher rank's
 * win) and the runs' src cleared. 0, or -1: no memory. */
static int lay_round(struct cio_op *op, struct cio_xchg *xs, int slot, MPI_Offset wlo,
                     MPI_Count *nout) {
  struct plan *pl = &xs->pl;
  struct bufs *b = &xs->b;
  int me = op->f->rank;
  char *cbuf = b->cbuf[slot];
  const char *ubase = mpisw_cio_user_bytes(op);
  MPI_Count nruns = 0, bytes = 0, self_first = 0;
  for (int p = 0; p < pl->P; p++) {
    int self = p == me;
    if (self) self_first = nruns;
    if (!self && !b->rcount[p]) continue;
    const char *rd = self ? NULL : b->recv + b->rdispl[p];
    int64_t n = self ? pl->dst_first[me + 1] - pl->dst_first[me] : 0;
    if (!self) memcpy(&n, rd, 8);
    const char *data = self ? NULL : rd + 8 + 16 * n;
    if (grow_runs(b, slot, nruns + n)) return -1;
    for (int64_t i = 0; i < n; i++) {
      struct cio_run *q = &b->runs[slot][nruns];
      if (self) {
        const struct part *o = &pl->parts[pl->dst_first[me] + i];
        q->off = o->off, q->len = o->len;
        q->src = ubase ? ubase + o->spos : NULL; /* NULL: packed below */
      } else {
        int64_t pair[2];
        list_pair(rd, i, pair);
        q->off = pair[0], q->len = pair[1], q->src = data;
        data += pair[1];
      }
      q->seq = nruns++;
      bytes += q->len;
    }
  }
  *nout = nruns;
  struct cio_run *runs = b->runs[slot];
  int direct = op->f->be->writev && nruns && bytes / nruns >= DIRECT_MIN;
  if (direct && mpisw_cio_runs_sort(runs, nruns)) { /* overlaps: copied, in rank order */
    direct = 0;
    qsort(runs, (size_t)nruns, sizeof *runs, cmp_seq);
  }
  for (MPI_Count i = 0; i < nruns; i++) {
    char *to = cbuf + (runs[i].off - wlo);
    if (!runs[i].src) { /* this rank's, from a noncontiguous buffer */
      const struct part *o = &pl->parts[pl->dst_first[me] + (runs[i].seq - self_first)];
      mpisw_typemap_pack(op->mem, op->buf, op->count, o->spos, o->len, to);
      runs[i].src = to;
    } else if (!direct) {
      memcpy(to, runs[i].src, (size_t)runs[i].len);
    }
    if (!direct) runs[i].src = NULL;
  }
  if (!direct) mpisw_cio_runs_sort(runs, nruns); /* by offset, for the writes */
  op->r->rounds_direct += direct;
  return 0;
}

/* A sender's piece list as received (a count, then (offset, length)
 * pairs of int64): the bytes it lists; its count in *n. */
static int64_t list_bytes(const char *rd, int64_t *n) {
  int64_t sum = 0;
  memcpy(n, rd, 8);
  for (int64_t i = 0; i < *n; i++) {
    int64_t pair[2];
    list_pair(rd, i, pair);
    sum += pair[1];
  }
  return sum;
}

/* A datatype of n blocks at absolute addresses (MPI_BOTTOM), or MPI_BYTE
 * with *count 0 when n is 0. -1 when the MPI cannot make it. */
static int blocks_type(int n, const int *len, const MPI_Aint *disp, MPI_Datatype *t,
                       int *count) {
  *t = MPI_BYTE, *count = 0;
  if (!n) return 0;
  if (PMPI_Type_create_hindexed(n, len, disp, MPI_BYTE, t) != MPI_SUCCESS ||
      PMPI_Type_commit(t) != MPI_SUCCESS)
    return -1;
  *count = 1;
  return 0;
}

static int grow_blocks(struct cio_xchg *xs, MPI_Count n) {
  if ((size_t)n <= xs->bcap) return 0;
  int *l = realloc(xs->blen, sizeof *l * (size_t)n);
  if (l) xs->blen = l;
  MPI_Aint *d = realloc(xs->bdisp, sizeof *d * (size_t)n);
  if (d) xs->bdisp = d;
  if (!l || !d) return -1;
  xs->bcap = (size_t)n;
  return 0;
}

/* Placement (writing; hint mpisw_cb_place). After the round's Alltoallv
 * carried only the pieces' lists, one Alltoallw moves their bytes: each
 * sender straight from the user's buffer (contiguous in memory; packed
 * otherwise), each aggregator into the place of every piece in its
 * collective buffer (derived datatypes at absolute addresses). The MPI's
 * transport then copies each byte once, the senders sharing the work (with
 * Open MPI a contiguous message is instead pulled by the receiver alone, a
 * single-copy read of every byte by the aggregator), and the aggregator has
 * nothing left to lay out. Pieces that overlap (an erroneous program) go to
 * a scratch buffer and are laid in rank order, the higher rank's bytes
 * last. Collective. runs[slot]: the aggregator's pieces, in cbuf[slot].
 * 0, or -1: no memory for the round (the others' bytes were taken). */
static int place_round(struct cio_op *op, struct cio_xchg *xs, int slot, int mine, MPI_Offset wlo,
                       int self_ok, MPI_Count *nout) {
  struct plan *pl = &xs->pl;
  struct bufs *b = &xs->b;
  struct cio_file *f = op->f;
  int P = pl->P, me = f->rank;
  MPI_Datatype *st = xs->wtype, *rt = xs->wtype + P;
  int *sc = xs->wcount, *rc = xs->wcount + P, *zero = xs->wcount + 2 * P;
  const char *ubase = mpisw_cio_user_bytes(op);
  for (int p = 0; p < P; p++) st[p] = rt[p] = MPI_BYTE, sc[p] = rc[p] = zero[p] = 0;
  /* sending: this rank's bytes for each other aggregator */
  size_t packed = 0;
  for (int p = 0; p < P && !ubase; p++)
    for (MPI_Count i = pl->dst_first[p]; xs->hdr_ok[p] && i < pl->dst_first[p + 1]; i++)
      packed += (size_t)pl->parts[i].len;
  if (packed && grow(&b->send, &b->send_cap, packed)) no_room(f, packed);
  char *w = b->send;
  for (int p = 0; p < P; p++) {
    MPI_Count first = pl->dst_first[p], n = pl->dst_first[p + 1] - first;
    if (!xs->hdr_ok[p] || !n) continue; /* only where a valid list went */
    if (ubase) {
      if (grow_blocks(xs, n)) no_room(f, (size_t)n * 16);
      for (MPI_Count i = 0; i < n; i++) {
        xs->blen[i] = (int)pl->parts[first + i].len;
        xs->bdisp[i] = (MPI_Aint)(uintptr_t)(ubase + pl->parts[first + i].spos);
      }
    } else {
      int len = 0;
      for (MPI_Count i = first; i < first + n; i++) {
        mpisw_typemap_pack(op->mem, op->buf, op->count, pl->parts[i].spos, pl->parts[i].len,
                           w + len);
        len += (int)pl->parts[i].len;
      }
      if (grow_blocks(xs, 1)) no_room(f, 16);
      xs->blen[0] = len, xs->bdisp[0] = (MPI_Aint)(uintptr_t)w;
      w += len, n = 1;
    }
    if (blocks_type((int)n, xs->blen, xs->bdisp, &st[p], &sc[p])) no_room(f, 0);
  }
  /* receiving: the aggregator's pieces of this round, from every rank */
  char *cbuf = b->cbuf[slot];
  MPI_Count nruns = 0;
  int overlap = 0;
  if (mine) {
    if (!cbuf) no_room(f, (size_t)pl->cbs); /* the others send: no refusing */
    MPI_Count total = 0;
    for (int p = 0; p < P; p++) {
      int64_t n = 0;
      if (p == me) n = self_ok ? pl->dst_first[me + 1] - pl->dst_first[me] : 0;
      else if (b->rcount[p]) memcpy(&n, b->recv + b->rdispl[p], 8);
      total += n;
    }
    if (grow_runs(b, slot, total)) no_room(f, sizeof(struct cio_run) * (size_t)total);
    struct cio_run *runs = b->runs[slot];
    for (int p = 0; p < P; p++) {
      if (p == me) {
        for (MPI_Count i = pl->dst_first[me]; self_ok && i < pl->dst_first[me + 1]; i++)
          runs[nruns++] = (struct cio_run){pl->parts[i].off, pl->parts[i].len, NULL, p};
        continue;
      }
      if (!b->rcount[p]) continue;
      const char *rd = b->recv + b->rdispl[p];
      int64_t n;
      memcpy(&n, rd, 8);
      for (int64_t i = 0; i < n; i++) {
        int64_t pair[2];
        list_pair(rd, i, pair);
        runs[nruns++] = (struct cio_run){pair[0], pair[1], NULL, p};
      }
    }
    overlap = mpisw_cio_runs_sort(runs, nruns);
    size_t at = 0; /* scratch bytes of the senders so far (overlap) */
    for (int p = 0; p < P; p++) {
      if (p == me || !b->rcount[p]) continue;
      const char *rd = b->recv + b->rdispl[p];
      int64_t n, sum = list_bytes(rd, &n);
      if (overlap) { /* all of p's bytes in a row of the scratch buffer */
        if (grow(&xs->scratch, &xs->scratch_cap, at + (size_t)sum)) no_room(f, at + (size_t)sum);
        at += (size_t)sum; /* its type made below, once the scratch stops moving */
        rc[p] = -1; /* a mark: p's bytes go to the scratch */
        continue;
      }
      if (grow_blocks(xs, n)) no_room(f, (size_t)n * 16);
      for (int64_t i = 0; i < n; i++) {
        int64_t pair[2];
        list_pair(rd, i, pair);
        xs->blen[i] = (int)pair[1];
        xs->bdisp[i] = (MPI_Aint)(uintptr_t)(cbuf + (pair[0] - wlo));
      }
      if (blocks_type((int)n, xs->blen, xs->bdisp, &rt[p], &rc[p])) no_room(f, 0);
    }
    if (overlap) { /* the scratch has its final size: types at its addresses */
      size_t off = 0;
      for (int p = 0; p < P; p++) {
        if (rc[p] != -1) continue;
        int64_t n, sum = list_bytes(b->recv + b->rdispl[p], &n);
        int len = (int)sum;
        MPI_Aint disp = (MPI_Aint)(uintptr_t)(xs->scratch + off);
        off += (size_t)sum;
        if (blocks_type(1, &len, &disp, &rt[p], &rc[p])) no_room(f, 0);
      }
    }
  }
  PMPI_Alltoallw(MPI_BOTTOM, sc, zero, st, MPI_BOTTOM, rc, zero, rt, f->comm);
  for (int p = 0; p < P; p++) {
    if (st[p] != MPI_BYTE) PMPI_Type_free(&st[p]);
    if (rt[p] != MPI_BYTE) PMPI_Type_free(&rt[p]);
  }
  if (!mine) return 0;
  op->r->rounds_placed += !overlap;
  /* this rank's own pieces, and with overlaps everyone's in rank order */
  size_t off = 0;
  for (int p = 0; p < P; p++) {
    if (p == me) {
      for (MPI_Count i = pl->dst_first[me]; self_ok && i < pl->dst_first[me + 1]; i++)
        mpisw_typemap_pack(op->mem, op->buf, op->count, pl->parts[i].spos, pl->parts[i].len,
                           cbuf + (pl->parts[i].off - wlo));
      continue;
    }
    if (!overlap || !b->rcount[p]) continue;
    const char *rd = b->recv + b->rdispl[p];
    int64_t n;
    memcpy(&n, rd, 8);
    for (int64_t i = 0; i < n; i++) {
      int64_t pair[2];
      list_pair(rd, i, pair);
      memcpy(cbuf + (pair[0] - wlo), xs->scratch + off, (size_t)pair[1]);
      off += (size_t)pair[1];
    }
  }
  *nout = nruns;
  return 0;
}

int mpisw_cio_exchange(struct cio_op *op, struct cio_xchg *xs, char *why, size_t whylen) {
  struct cio_file *f = op->f;
  const struct cio_access *a = op->a;
  const struct cio_matrix *x = op->x;
  int P = f->size, m = x->m, me = f->rank;
  struct plan *pl = &xs->pl;
  struct bufs *b = &xs->b;
  int cls = MPI_SUCCESS, nrounds = 0, my_dom = -1;
  char local_why[MPISW_MSG_MAX] = "";
  pl->agg = op->agg;
  for (int p = 0; p < P; p++) pl->dom_of[p] = -1;
  for (int d = 0; d < m; d++) {
    pl->dom_of[op->agg[d]] = d;
    if (x->hi[d] > x->lo[d]) {
      int nr = (int)((x->hi[d] - x->lo[d] + pl->cbs - 1) / pl->cbs);
      if (nr > nrounds) nrounds = nr;
    }
  }
  my_dom = pl->dom_of[me];
  xs->place = op->writing && f->h.place;
  xs->data_in_msg = op->writing && !xs->place;
  int io_err = 0, local = 0; /* local: this rank's plan or buffers failed */
  struct cio_behind *behind = NULL; /* writes round r while round r + 1 is exchanged */
  int next_slot = 0; /* the buffer to fill next: the other one is the writer's */
  if (my_dom >= 0) {
    MPI_Offset span = x->hi[my_dom] - x->lo[my_dom];
    size_t need = (size_t)(span < pl->cbs ? span : pl->cbs);
    if (grow(&b->cbuf[0], &b->cbuf_cap[0], need ? need : 1)) {
      local = MPI_ERR_NO_MEM;
      snprintf(local_why, sizeof local_why, "no memory for the collective buffer "
               "(cb_buffer_size=%lld)", (long long)pl->cbs);
    } else if (op->writing && nrounds > 1 && f->h.write_behind && f->be->write_on_thread &&
               !grow(&b->cbuf[1], &b->cbuf_cap[1], need ? need : 1)) {
      behind = mpisw_cio_behind_start(f); /* NULL: no thread, the writes stay in line */
    }
  }
  for (int r = 0; r < nrounds; r++) {
    double t0 = now();
    if (!local && plan_round(pl, a, x, r)) local = MPI_ERR_NO_MEM;
    /* sizes of the messages to each rank */
    size_t total = 0;
    for (int p = 0; p < P; p++) {
      /* this rank's own parts never travel: copied where they go below */
      int ok;
      size_t bytes = message_size(xs, op, p, local, &ok);
      if (!ok && bytes == 0 && !local) local = MPI_ERR_INTERN; /* declared none, planned some */
      if (bytes > INT_MAX) local = MPI_ERR_INTERN, bytes = 0;
      b->scount[p] = (int)bytes;
    }
    if (local && !xs->single) memset(b->scount, 0, sizeof(int) * (size_t)P);
    if (displs(b->scount, b->sdispl, P, &total) || grow(&b->send, &b->send_cap, total ? total : 1)) {
      /* one round: the receivers wait for the declared sizes */
      if (xs->single) no_room(f, total);
      if (!local) local = MPI_ERR_NO_MEM;
      memset(b->scount, 0, sizeof(int) * (size_t)P);
      displs(b->scount, b->sdispl, P, &total);
    }
    if (local == MPI_ERR_INTERN && !local_why[0])
      snprintf(local_why, sizeof local_why, "the exchange's plan differs from the matrix "
               "(an internal error)");
    else if (local && !local_why[0])
      snprintf(local_why, sizeof local_why, "no memory for a round of the exchange "
               "(cb_buffer_size=%lld)", (long long)pl->cbs);
    for (int p = 0; xs->hdr_ok && p < P; p++) xs->hdr_ok[p] = 0;
    for (int p = 0; p < P; p++) {
      if (!b->scount[p]) continue;
      char *w = b->send + b->sdispl[p];
      int ok;
      message_size(xs, op, p, local, &ok);
      if (!ok) { /* one round, this rank failed: the declared size, marked bad */
        int64_t bad = -1;
        memset(w, 0, (size_t)b->scount[p]);
        memcpy(w, &bad, 8);
        if (!local) local = MPI_ERR_INTERN;
        continue;
      }
      int64_t n = pl->dst_first[p + 1] - pl->dst_first[p];
      memcpy(w, &n, 8);
      w += 8;
      if (xs->hdr_ok) xs->hdr_ok[p] = 1; /* its bytes follow (place_round) */
      for (MPI_Count i = pl->dst_first[p]; i < pl->dst_first[p + 1]; i++) {
        int64_t pair[2] = {pl->parts[i].off, pl->parts[i].len};
        memcpy(w, pair, 16);
        w += 16;
      }
      if (xs->data_in_msg)
        for (MPI_Count i = pl->dst_first[p]; i < pl->dst_first[p + 1]; i++) {
          mpisw_typemap_pack(op->mem, op->buf, op->count, pl->parts[i].spos, pl->parts[i].len, w);
          w += pl->parts[i].len;
        }
    }
    if (xs->single) /* the sizes are known: no Alltoall */
      for (int p = 0; p < P; p++) b->rcount[p] = (int)declared_from(xs, op, p, my_dom);
    else
      PMPI_Alltoall(b->scount, 1, MPI_INT, b->rcount, 1, MPI_INT, f->comm);
    size_t rtotal = 0;
    if (displs(b->rcount, b->rdispl, P, &rtotal) || grow(&b->recv, &b->recv_cap, rtotal ? rtotal : 1))
      no_room(f, rtotal);
    PMPI_Alltoallv(b->send, b->scount, b->sdispl, MPI_BYTE, b->recv, b->rcount, b->rdispl, MPI_BYTE,
                   f->comm);
    /* a sender that failed marked its messages: nothing of them is used */
    for (int p = 0; p < P; p++) {
      int64_t n = 0;
      if (b->rcount[p]) memcpy(&n, b->recv + b->rdispl[p], 8);
      if (n < 0) {
        b->rcount[p] = 0;
        if (!local) local = MPI_ERR_INTERN;
        if (!local_why[0])
          snprintf(local_why, sizeof local_why, "rank %d could not take part in the exchange", p);
      }
    }
    /* the aggregator's part */
    MPI_Offset wlo = 0, whi = 0;
    int mine = my_dom >= 0 && window(x, my_dom, r, pl->cbs, &wlo, &whi);
    int slot = behind ? next_slot : 0; /* not the buffers of the write in hand */
    MPI_Count nruns = 0;
    if (xs->place && place_round(op, xs, slot, mine, wlo, !local, &nruns) && !local)
      local = MPI_ERR_NO_MEM;
    op->r->t_shuffle += now() - t0;
    if (op->writing) {
      if (mine && !local) {
        t0 = now();
        if (!xs->place && lay_round(op, xs, slot, wlo, &nruns)) local = MPI_ERR_NO_MEM;
        op->r->t_shuffle += now() - t0;
        t0 = now();
        if (behind) { /* the previous round's write is done: hand this one over */
          if (!io_err) io_err = mpisw_cio_behind_wait(behind);
          if (!local && !io_err && nruns) {
            mpisw_cio_behind_submit(behind, b->cbuf[slot], wlo, b->runs[slot], nruns);
            op->r->rounds_behind++;
            next_slot ^= 1;
            char *t = b->recv; /* the writer may read the messages: receive elsewhere */
            size_t tc = b->recv_cap;
            b->recv = b->recv1, b->recv_cap = b->recv1_cap;
            b->recv1 = t, b->recv1_cap = tc;
          }
        } else if (!local && !io_err && nruns) {
          io_err = mpisw_cio_write_runs(f, b->cbuf[slot], wlo, b->runs[slot], nruns);
        }
        op->r->t_io += now() - t0;
      }
      continue;
    }

    /* reading: the span asked for, read once, the answers sent back */
    int *bcount = b->rcount, *bdispl = b->rdispl; /* reused: answers' sizes */
    int *acount = malloc(sizeof(int) * 2 * (size_t)P), *adispl = acount ? acount + P : NULL;
    char *answer = NULL;
    size_t atotal = 0;
    if (!acount) no_room(f, sizeof(int) * 2 * (size_t)P);
    {
      MPI_Offset smin = INT64_MAX, smax = 0;
      for (int p = 0; p < P; p++) {
        acount[p] = 0;
        if (!mine || !b->rcount[p]) continue; /* asked: always answered */
        const char *rd = b->recv + b->rdispl[p];
        int64_t n;
        memcpy(&n, rd, 8);
        size_t sum = 0;
        for (int64_t i = 0; i < n; i++) {
          int64_t pair[2];
          list_pair(rd, i, pair);
          if (pair[0] < smin) smin = pair[0];
          if (pair[0] + pair[1] > smax) smax = pair[0] + pair[1];
          sum += (size_t)pair[1];
        }
        acount[p] = (int)sum;
      }
      for (MPI_Count i = pl->dst_first[me]; mine && !local && i < pl->dst_first[me + 1]; i++) {
        const struct part *q = &pl->parts[i]; /* this rank's own: not sent */
        if (q->off < smin) smin = q->off;
        if (q->off + q->len > smax) smax = q->off + q->len;
      }
      if (displs(acount, adispl, P, &atotal) || !(answer = calloc(atotal ? atotal : 1, 1)))
        no_room(f, atotal);
      if (mine && smin < smax && !local) { /* local: cbuf may be missing */
        t0 = now();
        if (!io_err) io_err = mpisw_cio_read(f, b->cbuf[0], (size_t)(smax - smin), smin);
        op->r->t_io += now() - t0;
        t0 = now();
        for (int p = 0; p < P && !io_err; p++) {
          if (!acount[p]) continue;
          const char *rd = b->recv + b->rdispl[p];
          int64_t n;
          memcpy(&n, rd, 8);
          char *w = answer + adispl[p];
          for (int64_t i = 0; i < n; i++) {
            int64_t pair[2];
            list_pair(rd, i, pair);
            memcpy(w, b->cbuf[0] + (pair[0] - smin), (size_t)pair[1]);
            w += pair[1];
          }
        }
        for (MPI_Count i = pl->dst_first[me]; !local && !io_err && i < pl->dst_first[me + 1]; i++) {
          const struct part *q = &pl->parts[i];
          mpisw_typemap_unpack(op->mem, b->cbuf[0] + (q->off - smin), q->spos, q->len, op->buf,
                               op->count);
        }
        op->r->t_shuffle += now() - t0;
      }
    }
    t0 = now();
    /* what this rank gets back from each aggregator: the bytes it asked for */
    size_t btotal = 0;
    for (int p = 0; p < P; p++) {
      size_t sum = 0;
      for (MPI_Count i = pl->dst_first[p]; !local && p != me && i < pl->dst_first[p + 1]; i++)
        sum += (size_t)pl->parts[i].len;
      bcount[p] = (int)sum;
    }
    if (displs(bcount, bdispl, P, &btotal) || grow(&b->recv, &b->recv_cap, btotal ? btotal : 1))
      no_room(f, btotal);
    PMPI_Alltoallv(answer, acount, adispl, MPI_BYTE, b->recv, bcount, bdispl, MPI_BYTE, f->comm);
    if (!local)
      for (int p = 0; p < P; p++) {
        if (p == me) continue;
        const char *rd = b->recv + bdispl[p];
        for (MPI_Count i = pl->dst_first[p]; i < pl->dst_first[p + 1]; i++) {
          mpisw_typemap_unpack(op->mem, rd, pl->parts[i].spos, pl->parts[i].len, op->buf,
                               op->count);
          rd += pl->parts[i].len;
        }
      }
    free(answer);
    free(acount);
    op->r->t_shuffle += now() - t0;
  }
  if (behind) { /* the last round's write */
    double t0 = now();
    int err = mpisw_cio_behind_stop(behind);
    if (!io_err) io_err = err;
    op->r->t_io += now() - t0;
  }
  op->r->rounds = nrounds;
  if (local) {
    cls = local;
    snprintf(why, whylen, "%s", local_why);
  } else if (io_err) {
    cls = mpisw_cio_io_error(f, op->writing, io_err, why, whylen);
  }
  cls = mpisw_cio_agree(f->comm, cls, why, whylen);
  return cls;
}
