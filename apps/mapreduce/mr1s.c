/* MR-1S: decentralised MapReduce on RMA. Every rank is a mapper and a
 * reducer; words go to reducer hash % np. A mapper combines one task
 * locally (one table for all its tasks, as MR-2S's: a word is inserted once,
 * its count goes back to zero when sent), then in one passive-target epoch
 * to all reducers (MPI_Win_lock_all) appends to each the words it has not
 * seen from it and accumulates the task's counts straight into the
 * reducers' windows (win1s.h): map and reduce overlap, and
 * there is no shuffle step. The windows are storage windows with
 * storage_sync=atomic; a checkpoint is the reducer's own MPI_Win_sync under
 * an exclusive lock on itself (only the pages written since the last one
 * reach the file), after chosen map rounds and after the reduce. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "win1s.h"

static int mpi_fail(struct mr_job *j, const char *what, int code, int rc) {
  char s[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, s, &len);
  snprintf(j->err, sizeof j->err, "%s: %s", what, s);
  return rc;
}

static int make_window(struct mr_job *j, const char *file, uint64_t size, int storage, int ft,
                       void **base, MPI_Win *win) {
  MPI_Info info = MPI_INFO_NULL;
  if (storage) {
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_type", "storage");
    MPI_Info_set(info, "storage_alloc_filename", file);
    if (ft) MPI_Info_set(info, "storage_sync", "atomic");
  }
  int e = MPI_Win_allocate((MPI_Aint)size, 1, info, MPI_COMM_WORLD, base, win);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  if (e) return mpi_fail(j, file, e, storage ? MR_ERR_CKPT_DIR : MR_ERR_RUN);
  MPI_Win_set_errhandler(*win, MPI_ERRORS_RETURN);
  if (!ft) return MR_OK;
  /* a checkpoint must survive kill -9 in the middle of a sync: atomic syncs */
  MPI_Info got;
  char v[64] = "";
  int flag = 0;
  MPI_Win_get_info(*win, &got);
  MPI_Info_get(got, "storage_sync", (int)sizeof v - 1, v, &flag);
  MPI_Info_free(&got);
  if (!flag || strcmp(v, "atomic")) {
    snprintf(j->err, sizeof j->err, "'%s': the window has storage_sync=%s, not atomic: MR-1S "
             "checkpoints need libmpisw's storage windows (is MPISW_DISABLE set?)", file,
             flag ? v : "(none)");
    return MR_ERR_RUN;
  }
  return MR_OK;
}

static int checkpoint(struct mr_job *j, MPI_Win win, const char *what) {
  double t = mr_now();
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, j->rank, 0, win); /* waits for open mapper epochs */
  double locked = mr_now();
  int e = MPI_Win_sync(win);
  double synced = mr_now();
  MPI_Win_unlock(j->rank, win);
  j->t_ckpt += mr_now() - t;
  if (e) return mpi_fail(j, "MPI_Win_sync (checkpoint)", e, MR_ERR_RUN);
  j->nckpt++;
  if (j->o->verbose)
    fprintf(stderr, "mapreduce: rank %d: checkpoint %llu (%s) synced: lock %.1f ms, sync %.1f ms\n",
            j->rank, (unsigned long long)j->nckpt, what, 1e3 * (locked - t), 1e3 * (synced - locked));
  return MR_OK;
}

struct outbox {
  struct w1_key *newk; /* keys new to the reducer */
  uint64_t *vals;      /* this task's counts by region index, [0, used) */
  uint64_t nnew, first, lo, hi, kcap, vcap;
  struct w1_prog pr;   /* stays put until the epoch ends */
};

struct mapper {
  struct w1_layout L;
  int64_t *applied; /* per reducer: last round of ours in its durable-or-newer counts */
  uint64_t *used;   /* per reducer: keys of ours there */
  struct mr_table *mirror; /* per reducer: hash -> key index (in .count) */
  /* per task table slot: its word's index in its reducer's region for us
   * (UINT32_MAX: look it up in mirror), kept while the table keeps its size */
  uint32_t *ridx;
  uint64_t ridx_cap;
  struct outbox *out; /* per reducer: what this task sends it */
  int64_t open_round; /* the map round whose epoch is open; -1: none */
};

/* Room for need elements (twice that when it grows); out of memory
 * aborts, as the word tables do (words.c). */
static void *grow_array(void *p, uint64_t *cap, uint64_t need, size_t elem) {
  if (need <= *cap) return p;
  *cap = need * 2;
  p = realloc(p, *cap * elem);
  if (!p) abort();
  return p;
}

/* Index of table slot i's word in reducer q's region for us; a word new to
 * q is appended to its keys (UINT64_MAX: the region is full). */
static uint64_t region_index(struct mapper *m, int q, uint64_t i, const struct mr_rec *e) {
  struct outbox *o = &m->out[q];
  if (m->ridx[i] != UINT32_MAX) return m->ridx[i];
  struct mr_rec *s = mr_table_find(&m->mirror[q], e->hash);
  if (!s) {
    if (m->used[q] == m->L.slots) return UINT64_MAX;
    s = mr_table_get(&m->mirror[q], e->hash, NULL);
    s->count = m->used[q]++;
    o->newk = grow_array(o->newk, &o->kcap, o->nnew + 1, sizeof *o->newk);
    o->newk[o->nnew].hash = e->hash;
    memcpy(o->newk[o->nnew].word, e->word, sizeof e->word);
    o->nnew++;
    o->vals = grow_array(o->vals, &o->vcap, m->used[q], sizeof *o->vals);
  }
  return m->ridx[i] = (uint32_t)s->count;
}

/* Takes this task's counts out of the table (one pass over it; the words
 * stay for the next task, their counts go back to zero) into each
 * reducer's outbox, by region index. A reducer whose checkpoint already
 * has this round (restart) gets nothing. The counts go as one contiguous
 * MPI_Accumulate (MPI_SUM) of the span of region slots the task touched,
 * zeros between: one operation whatever the MPI does with accumulates
 * (Open MPI's osc/ucx makes a get and a put of each contiguous piece; an
 * indexed datatype of single counts cost one round trip each). */
static int collect(struct mr_job *j, struct mapper *m, struct mr_table *t, int64_t round) {
  uint64_t np = (uint64_t)j->np;
  if (t->cap != m->ridx_cap) { /* the table grew: its words moved */
    m->ridx = realloc(m->ridx, t->cap * sizeof *m->ridx);
    if (!m->ridx) abort(); /* as grow_array */
    m->ridx_cap = t->cap;
    memset(m->ridx, 0xff, m->ridx_cap * sizeof *m->ridx); /* UINT32_MAX: not known */
  }
  for (uint64_t q = 0; q < np; q++) {
    struct outbox *o = &m->out[q];
    o->first = m->used[q], o->nnew = 0, o->lo = UINT64_MAX, o->hi = 0;
    o->vals = grow_array(o->vals, &o->vcap, m->used[q] + 1, sizeof *o->vals);
    memset(o->vals, 0, m->used[q] * sizeof *o->vals);
  }
  for (uint64_t i = 0; i < t->cap; i++) {
    struct mr_rec *e = &t->slot[i];
    if (!e->count) continue;
    uint64_t c = e->count, q = e->hash % np;
    e->count = 0;
    if (m->applied[q] >= round) continue;
    uint64_t at = region_index(m, (int)q, i, e);
    if (at == UINT64_MAX) {
      snprintf(j->err, sizeof j->err, "reducer %d's region for this mapper is full (%llu "
               "words): raise --slots", (int)q, (unsigned long long)m->L.slots);
      return MR_ERR_FULL;
    }
    struct outbox *o = &m->out[q];
    o->vals[at] = c;
    if (at < o->lo) o->lo = at;
    if (at > o->hi) o->hi = at;
  }
  return MR_OK;
}

/* One epoch to every reducer (MPI_Win_lock_all: shared locks, so a
 * reducer's checkpoint, an exclusive lock on itself, still sees all of a
 * task or none of it): the reducers' completions are awaited together, not
 * one reducer after another. post_open starts it and issues the task's
 * operations; post_close (MPI_Win_unlock_all) completes it, a quarter into
 * the map of the next task (see `due`), by when the targets have had their
 * pokes: the mapper does not wait for them. */
static int post_open(struct mr_job *j, struct mapper *m, MPI_Win win, int64_t round) {
  uint64_t slots = m->L.slots;
  MPI_Aint me = j->rank;
  double t0 = mr_now();
  int e = MPI_Win_lock_all(0, win);
  if (e) return mpi_fail(j, "MPI_Win_lock_all on the reducers' windows", e, MR_ERR_RUN);
  m->open_round = round;
  for (int q = 0; q < j->np && !e; q++) {
    struct outbox *o = &m->out[q];
    if (m->applied[q] >= round) continue; /* its checkpoint has this round (restart) */
    o->pr = (struct w1_prog){round, m->used[q]};
    if (o->nnew)
      e = MPI_Put(o->newk, (int)(o->nnew * sizeof *o->newk), MPI_BYTE, q,
                  (MPI_Aint)(m->L.keys + ((uint64_t)me * slots + o->first) * sizeof *o->newk),
                  (int)(o->nnew * sizeof *o->newk), MPI_BYTE, win);
    if (!e && o->lo <= o->hi) {
      int span = (int)(o->hi - o->lo + 1);
      e = MPI_Accumulate(o->vals + o->lo, span, MPI_UINT64_T, q,
                         (MPI_Aint)(m->L.counts + ((uint64_t)me * slots + o->lo) * 8), span,
                         MPI_UINT64_T, MPI_SUM, win);
    }
    if (!e)
      e = MPI_Put(&o->pr, sizeof o->pr, MPI_BYTE, q,
                  (MPI_Aint)(sizeof(struct w1_head) + (uint64_t)me * sizeof o->pr),
                  sizeof o->pr, MPI_BYTE, win);
  }
  j->t_comm += mr_now() - t0;
  return e ? mpi_fail(j, "RMA into the reducers' windows", e, MR_ERR_RUN) : MR_OK;
}

static int post_close(struct mr_job *j, struct mapper *m, MPI_Win win) {
  double t0 = mr_now();
  int e = MPI_Win_unlock_all(win);
  j->t_comm += mr_now() - t0;
  int64_t round = m->open_round;
  m->open_round = -1;
  if (e) return mpi_fail(j, "MPI_Win_unlock_all on the reducers' windows", e, MR_ERR_RUN);
  for (int q = 0; q < j->np; q++)
    if (m->applied[q] < round) m->applied[q] = round;
  return MR_OK;
}

/* What is due while the next task is mapped: the open epoch's completion a
 * quarter in, then the checkpoint of the round before half way, when the
 * other mappers, whose tasks are as long, are mapping too and hold no
 * epoch that the checkpoint's exclusive lock would wait for. poke() runs
 * them, settle() runs what is left (a short task, the last round). */
static struct {
  struct mr_job *j;
  struct mapper *m;
  MPI_Win win;
  int ckpt;          /* a checkpoint due (after m->open_round's epoch is closed) */
  int failed;
  uint64_t pokes, close_at, ckpt_at;
} due;

static void settle(void) {
  if (due.m->open_round >= 0) {
    int rc = post_close(due.j, due.m, due.win);
    if (!due.failed) due.failed = rc;
  }
  if (due.ckpt && !due.failed) due.failed = checkpoint(due.j, due.win, "map");
  due.ckpt = 0;
}

static void poke(void) { /* lets the MPI progress RMA aimed at this rank */
  int flag;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  due.pokes++;
  if (due.m->open_round >= 0 && due.pokes >= due.close_at) {
    int rc = post_close(due.j, due.m, due.win);
    if (!due.failed) due.failed = rc;
  }
  if (due.ckpt && due.m->open_round < 0 && due.pokes >= due.ckpt_at) settle();
}

/* After --restart: what of ours each reducer's checkpoint holds. */
static int resume(struct mr_job *j, struct mapper *m, MPI_Win win) {
  int64_t lo = INT64_MAX;
  for (int q = 0; q < j->np; q++) {
    struct w1_prog pr;
    uint64_t reduced;
    MPI_Win_lock(MPI_LOCK_SHARED, q, 0, win);
    MPI_Get(&pr, sizeof pr, MPI_BYTE, q,
            (MPI_Aint)(sizeof(struct w1_head) + (uint64_t)j->rank * sizeof pr), sizeof pr,
            MPI_BYTE, win);
    MPI_Get(&reduced, 1, MPI_UINT64_T, q, (MPI_Aint)offsetof(struct w1_head, reduced), 1,
            MPI_UINT64_T, win);
    MPI_Win_unlock(q, win);
    if (pr.used > m->L.slots) {
      snprintf(j->err, sizeof j->err, "reducer %d's checkpoint is damaged", q);
      return MR_ERR_CKPT;
    }
    m->applied[q] = pr.applied, m->used[q] = pr.used;
    if (pr.applied < lo) lo = pr.applied;
    /* reduced: its result lies over the regions, and it has every task of ours */
    if (!pr.used || reduced) continue;
    struct w1_key *k = malloc(pr.used * sizeof *k);
    MPI_Win_lock(MPI_LOCK_SHARED, q, 0, win);
    MPI_Get(k, (int)(pr.used * sizeof *k), MPI_BYTE, q,
            (MPI_Aint)(m->L.keys + (uint64_t)j->rank * m->L.slots * sizeof *k),
            (int)(pr.used * sizeof *k), MPI_BYTE, win);
    MPI_Win_unlock(q, win);
    for (uint64_t i = 0; i < pr.used; i++) mr_table_get(&m->mirror[q], k[i].hash, NULL)->count = i;
    free(k);
  }
  j->resumed_round = (uint64_t)(lo + 1);
  return MR_OK;
}

/* Header of a fresh window, or the check of a checkpoint's (under the
 * caller's exclusive lock on its own window). */
static int open_head(struct mr_job *j, const struct w1_layout *L, void *base, int storage) {
  struct w1_head *h = base;
  struct w1_prog *pr = (struct w1_prog *)(h + 1);
  if (!j->o->restart) {
    memset(base, 0, L->head);
    if (!storage) memset((char *)base + L->counts, 0, (size_t)j->np * L->slots * 8);
    *h = (struct w1_head){W1_MAGIC, j->in.fingerprint, (uint64_t)j->np, L->slots, 0, {0}};
    for (int p = 0; p < j->np; p++) pr[p].applied = -1;
    return MR_OK;
  }
  if (h->magic != W1_MAGIC) {
    snprintf(j->err, sizeof j->err, "--restart: '%s/mr1s-r%d.win' holds no MR-1S checkpoint",
             j->o->path, j->rank);
    return MR_ERR_CKPT;
  }
  if (h->fingerprint != j->in.fingerprint || h->nprocs != (uint64_t)j->np ||
      h->slots != L->slots) {
    snprintf(j->err, sizeof j->err, "--restart: the checkpoint '%s/mr1s-r%d.win' is of another "
             "input or task size, or of %llu ranks with --slots %llu (now %d ranks, --slots %llu)",
             j->o->path, j->rank, (unsigned long long)h->nprocs, (unsigned long long)h->slots,
             j->np, (unsigned long long)L->slots);
    return MR_ERR_CKPT;
  }
  return MR_OK;
}

/* After every map: merge the np regions into the reducer's words and write
 * them, packed, over the regions (no longer needed), with reduced = 1 +
 * their number in the header; the checkpoint after the reduce is one atomic
 * sync, so the file holds either the regions or the result, never a mix. */
static int reduce(struct mr_job *j, const struct w1_layout *L, void *base, MPI_Win win, int ft,
                  struct mr_rec **out, uint64_t *nout) {
  struct w1_head *h = base;
  struct w1_prog *pr = (struct w1_prog *)(h + 1);
  const uint64_t *counts = (const uint64_t *)((char *)base + L->counts);
  const struct w1_key *keys = (const struct w1_key *)((char *)base + L->keys);
  struct mr_rec *res = (struct mr_rec *)((char *)base + L->counts);
  uint64_t room = (L->size - L->counts) / sizeof *res; /* >= np * slots: every key fits */
  int rc = MR_OK;
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, j->rank, 0, win);
  MPI_Win_sync(win); /* every mapper's epoch is closed: see their bytes */
  uint64_t done = h->reduced, n = done ? done - 1 : 0;
  if (n > room) {
    snprintf(j->err, sizeof j->err, "--restart: '%s/mr1s-r%d.win' holds a damaged result",
             j->o->path, j->rank);
    rc = MR_ERR_CKPT;
  } else if (!done) {
    struct mr_table red;
    mr_table_init(&red, 1 << 16);
    for (int p = 0; p < j->np; p++)
      for (uint64_t i = 0; i < pr[p].used; i++) {
        uint64_t at = (uint64_t)p * L->slots + i;
        mr_table_get(&red, keys[at].hash, keys[at].word)->count += counts[at];
      }
    n = mr_table_pack(&red, res); /* the regions are read: overwrite them */
    mr_table_free(&red);
    h->reduced = n + 1;
  }
  MPI_Win_unlock(j->rank, win);
  if (!rc && !done && ft) rc = checkpoint(j, win, "reduce");
  *out = res, *nout = n;
  return mr_agree(j, rc);
}

static uint64_t auto_slots(const struct mr_job *j) {
  uint64_t s = j->in.size / 16 / (uint64_t)j->np;
  return s < 4096 ? 4096 : s > (1u << 20) ? (1u << 20) : s;
}

int mr_run_1s(struct mr_job *j) {
  const struct mr_opts *o = j->o;
  int np = j->np, ft = o->checkpoints != 0, rc = MR_OK;
  int storage = o->window ? !strcmp(o->window, "storage") : ft;
  struct w1_layout L;
  w1_layout(&L, np, o->slots ? o->slots : auto_slots(j));
  char file[4200];
  snprintf(file, sizeof file, "%s/mr1s-r%d.win", o->path ? o->path : ".", j->rank);
  if (storage && o->restart && access(file, F_OK)) {
    snprintf(j->err, sizeof j->err, "--restart: no MR-1S checkpoint '%s' (run without "
             "--restart first, with the same --path)", file);
    rc = MR_ERR_CKPT;
  } else if (storage && !o->restart) {
    char prefix[64];
    snprintf(prefix, sizeof prefix, "mr1s-r%d.", j->rank); /* files and journals */
    mr_remove_prefix(o->path ? o->path : ".", prefix);
  }
  if ((rc = mr_agree(j, rc))) return rc;
  void *base;
  MPI_Win win;
  if ((rc = mr_agree(j, make_window(j, file, L.size, storage, ft, &base, &win)))) return rc;
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, j->rank, 0, win);
  rc = open_head(j, &L, base, storage);
  MPI_Win_unlock(j->rank, win);
  if (!rc && ft && !o->restart) rc = checkpoint(j, win, "start"), j->nckpt--;
  struct mapper m = {.L = L, .open_round = -1};
  m.applied = calloc((size_t)np, sizeof *m.applied);
  m.used = calloc((size_t)np, sizeof *m.used);
  m.mirror = calloc((size_t)np, sizeof *m.mirror);
  m.out = calloc((size_t)np, sizeof *m.out);
  for (int q = 0; q < np; q++) mr_table_init(&m.mirror[q], 1024), m.applied[q] = -1;
  struct mr_table t;
  mr_table_init(&t, 1 << 16);
  struct mr_rec *r = NULL;
  uint64_t n = 0;
  if ((rc = mr_agree(j, rc))) goto out; /* every window ready before any RMA */
  if (o->restart) {
    j->restarted = 1;
    if ((rc = mr_agree(j, resume(j, &m, win)))) goto out;
  }
  double t0 = mr_now();
  uint64_t pokes_per_task = j->in.task_size >> 15; /* mr_map_task pokes every ~32 KiB */
  due.j = j, due.m = &m, due.win = win, due.ckpt = 0, due.failed = MR_OK;
  due.close_at = pokes_per_task / 4, due.ckpt_at = pokes_per_task / 2;
  for (uint64_t round = 0; round < j->rounds; round++) {
    uint64_t task = round * (uint64_t)np + (uint64_t)j->rank;
    int need = 0;
    for (int q = 0; q < np; q++) need |= m.applied[q] < (int64_t)round;
    if (!due.failed && need && task < j->in.ntasks) {
      due.pokes = 0;
      int rc1 = mr_map_task(j, task, &t, poke); /* runs what is due on the way */
      settle();
      if (!due.failed) due.failed = rc1;
      if (!due.failed) due.failed = collect(j, &m, &t, (int64_t)round);
      if (!due.failed) due.failed = post_open(j, &m, win, (int64_t)round);
    } else {
      settle();
    }
    if (o->task_delay_ms) mr_msleep(o->task_delay_ms);
    if (ft && mr_ckpt_after(o, round, j->rounds)) due.ckpt = 1;
  }
  settle(); /* the last round's epoch and checkpoint */
  if ((rc = mr_agree(j, due.failed))) goto out; /* also: every mapper's epochs are closed */
  j->t_map = mr_now() - t0;
  if (getenv("MAPREDUCE_TEST_STOP_BEFORE_REDUCE")) goto out; /* tests: windows left mapped, not reduced */
  t0 = mr_now();
  rc = reduce(j, &L, base, win, ft, &r, &n);
  j->t_reduce = mr_now() - t0;
  if (rc) goto out;
  j->ckpt_bytes = ft ? L.size : 0;
  uint64_t words = 0, mine[2], all[2];
  for (uint64_t i = 0; i < n; i++) words += r[i].count;
  mine[0] = words, mine[1] = n;
  MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  /* the records live in the window: copy before writing out */
  struct mr_rec *copy = malloc((n + 1) * sizeof *copy);
  memcpy(copy, r, n * sizeof *r);
  rc = mr_write_counts(j, copy, n);
  free(copy);
  if (!rc) mr_report(j, "1s", storage ? "storage" : "memory", all[1], all[0]);
out:
  MPI_Win_free(&win);
  for (int q = 0; q < np; q++) mr_table_free(&m.mirror[q]);
  free(m.applied), free(m.used), free(m.mirror);
  for (int q = 0; q < np; q++) free(m.out[q].newk), free(m.out[q].vals);
  free(m.out), free(m.ridx);
  mr_table_free(&t);
  return rc;
}
