/* The asking side of remote sync: at a storage window's creation every
 * rank learns the others' sync agents (one allgather); at MPI_Win_sync
 * with storage_sync_scope=remote, and at MPIX_Win_sync_target, this rank
 * completes its RMA to the targets (flush, when in a passive epoch), then
 * asks every target it wrote into, all at once, to make those bytes
 * durable, and waits for their answers, never longer than
 * MPISW_REMOTE_SYNC_TIMEOUT. The targets call nothing (remote_agent.c). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/config.h"
#include "core/path.h"
#include "win/remote.h"

void mpisw_remote_window_made(struct mpisw_win *w, MPI_Comm comm, MPI_Aint disp_unit) {
  int n = 0, me = 0;
  PMPI_Comm_size(comm, &n);
  PMPI_Comm_rank(comm, &me);
  if (n <= 0) return;
  struct mpisw_remote *r = calloc(1, sizeof *r);
  struct mpisw_remote_peer mine;
  memset(&mine, 0, sizeof mine);
  mine.pid = (int32_t)getpid();
  mine.disp_unit = disp_unit;
  mpisw_path_hostname(mine.host, sizeof mine.host);
  if (r) {
    r->peers = calloc((size_t)n, sizeof *r->peers);
    r->t = calloc((size_t)n, sizeof *r->t);
    r->dirty = calloc((size_t)n, sizeof *r->dirty);
  }
  int ok = r && r->peers && r->t && r->dirty;
  if (ok) r->direct = calloc((size_t)n, sizeof *r->direct); /* none: always the agent */
  if (ok) mpisw_direct_describe(w, &mine);
  if (ok && n > 1) mpisw_agent_add(w, &mine); /* alone: nobody to ask it */
  else snprintf(mine.why, sizeof mine.why, "out of memory for the remote sync's state");
  /* every rank takes part, whatever it has: a rank without an agent says why */
  struct mpisw_remote_peer *all = ok ? r->peers : calloc((size_t)n, sizeof *all);
  int rc = all ? PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, comm)
               : PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, NULL, 0, MPI_BYTE, comm);
  if (!ok || rc != MPI_SUCCESS) {
    if (ok && n > 1) mpisw_agent_remove(w);
    if (!ok) free(all);
    if (r) {
      free(r->direct);
      free(r->peers);
      free(r->t);
      free(r->dirty);
    }
    free(r);
    return;
  }
  r->nranks = n;
  r->me = me;
  pthread_mutex_init(&r->mu, NULL);
  w->remote = r;
  if (w->p.h.sync_remote) __atomic_add_fetch(&mpisw_remote_windows, 1, __ATOMIC_RELAXED);
}

void mpisw_remote_window_gone(struct mpisw_win *w) {
  struct mpisw_remote *r = w->remote;
  if (!r) return;
  mpisw_agent_remove(w);
  if (w->p.h.sync_remote) __atomic_sub_fetch(&mpisw_remote_windows, 1, __ATOMIC_RELAXED);
  w->remote = NULL;
  mpisw_direct_drop(r);
  pthread_mutex_destroy(&r->mu);
  free(r->peers);
  free(r->t);
  free(r->dirty);
  free(r);
}

/* MPI requires this rank's RMA to target be complete before its bytes can
 * be synced there. In a passive epoch a flush does it; outside one
 * (fence, PSCW, after unlock) the MPI refuses the flush and the user's
 * closing of the epoch already did it. */
static int complete_rma(MPI_Win win, int target) {
  MPI_Errhandler eh = mpisw_win_errors_return(win);
  int rc = mpisw_next.Win_flush(target, win);
  mpisw_win_errors_restore(win, eh);
  if (rc == MPI_SUCCESS) return rc;
  int cls = MPI_ERR_OTHER;
  PMPI_Error_class(rc, &cls);
  return cls == MPI_ERR_RMA_SYNC ? MPI_SUCCESS : rc;
}

struct ask {
  int rank, fd, sent;
  int direct;                  /* synced from here (remote_direct.c), not asked */
  struct mpisw_remote_target ranges;
  int whole;
};

static int who(char *buf, size_t len, const struct mpisw_remote *r, int rank) {
  const struct mpisw_remote_peer *p = &r->peers[rank];
  return snprintf(buf, len, "rank %d (pid %d on %s)", rank, (int)p->pid, p->host);
}

static int fail_rank(struct mpisw_error *e, const struct mpisw_remote *r, int rank, int kind,
                     const char *fmt, const char *detail) {
  char name[96];
  who(name, sizeof name, r, rank);
  return mpisw_fail(e, kind, fmt, name, detail);
}

static int open_to(const struct mpisw_remote_peer *p) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = p->port};
  sa.sin_addr.s_addr = p->ip;
  if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 && errno != EINPROGRESS) {
    int err = errno;
    close(fd);
    errno = err;
    return -1;
  }
  return fd;
}

/* Sends the request once connected; blocking with a deadline from then. */
static int send_request(struct ask *a, const struct mpisw_remote_peer *p, int secs) {
  int err = 0;
  socklen_t el = sizeof err;
  if (getsockopt(a->fd, SOL_SOCKET, SO_ERROR, &err, &el) || err) {
    errno = err ? err : errno;
    return -1;
  }
  fcntl(a->fd, F_SETFL, fcntl(a->fd, F_GETFL) & ~O_NONBLOCK);
  struct timeval tv = {secs, 0};
  setsockopt(a->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  setsockopt(a->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  struct mpisw_agent_req q = {MPISW_AGENT_MAGIC, p->win_id, p->token,
                              (uint32_t)a->ranges.n, (uint32_t)a->whole};
  if (mpisw_remote_io_all(a->fd, &q, sizeof q, 1)) return -1;
  if (a->ranges.n &&
      mpisw_remote_io_all(a->fd, a->ranges.r, (size_t)a->ranges.n * sizeof a->ranges.r[0], 1))
    return -1;
  a->sent = 1;
  return 0;
}

static int read_answer(struct ask *a, const struct mpisw_remote *r, struct mpisw_error *e) {
  struct mpisw_agent_rep rep;
  if (mpisw_remote_io_all(a->fd, &rep, sizeof rep, 0))
    return fail_rank(e, r, a->rank, MPISW_K_IO,
                     "%s: its sync agent closed the connection without an answer%s",
                     " (the process died?)");
  if (rep.status == 0) return 0;
  char msg[MPISW_MSG_MAX] = "";
  uint32_t len = rep.len < sizeof msg - 1 ? rep.len : (uint32_t)sizeof msg - 1;
  if (mpisw_remote_io_all(a->fd, msg, len, 0)) len = 0;
  msg[len] = 0;
  int kind = rep.kind >= 0 && rep.kind < MPISW_K_COUNT ? rep.kind : MPISW_K_IO;
  return fail_rank(e, r, a->rank, kind, "%s: %s", msg);
}

/* Asks every target at once; the first failure (in rank order of the
 * list) is the call's. Targets that failed get their ranges back, so the
 * next sync asks again. */
struct meanwhile {
  void (*fn)(void *);
  void *arg;
};

static int ask_all(struct mpisw_remote *r, struct ask *as, int n, struct meanwhile *mw,
                   struct mpisw_error *e) {
  if (n <= 0) {
    if (mw && mw->fn) mw->fn(mw->arg);
    if (mw) mw->fn = NULL;
    return 0;
  }
  int secs = (int)mpisw_cfg_int(MPISW_CFG_REMOTE_SYNC_TIMEOUT);
  double deadline = mpisw_now() + secs;
  int rc = 0, left = 0;
  struct mpisw_error e1;
  int *done = calloc((size_t)n, sizeof *done);
  struct pollfd *pf = calloc((size_t)n, sizeof *pf);
  if (!done || !pf) {
    free(done);
    free(pf);
    return mpisw_fail(e, MPISW_K_NOMEM, "out of memory for the remote sync");
  }
  for (int i = 0; i < n; i++) {
    const struct mpisw_remote_peer *p = &r->peers[as[i].rank];
    as[i].fd = -1;
    if (as[i].direct) {
      done[i] = 1;
      continue;
    }
    if (!p->port) {
      done[i] = 1;
      if (!rc) rc = fail_rank(e, r, as[i].rank, MPISW_K_IO, "%s has no sync agent: %s", p->why);
      continue;
    }
    as[i].fd = open_to(p);
    if (as[i].fd < 0) {
      done[i] = 1;
      if (!rc) rc = fail_rank(e, r, as[i].rank, MPISW_K_IO,
                              "%s: cannot reach its sync agent: %s (the process is gone?)",
                              strerror(errno));
      continue;
    }
    left++;
  }
  for (;;) {
    /* every request out: the caller's own work overlaps the targets' */
    int unsent = 0;
    for (int i = 0; i < n; i++) unsent += !done[i] && !as[i].sent;
    if (!unsent && mw && mw->fn) {
      mw->fn(mw->arg);
      mw->fn = NULL;
    }
    if (left <= 0) break;
    int m = 0, idx[n];
    for (int i = 0; i < n; i++)
      if (!done[i]) {
        pf[m] = (struct pollfd){as[i].fd, as[i].sent ? POLLIN : POLLOUT, 0};
        idx[m++] = i;
      }
    int ms = (int)((deadline - mpisw_now()) * 1000);
    int k = ms > 0 ? poll(pf, (nfds_t)m, ms) : 0;
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) { /* time is up: every target still silent fails */
      for (int j = 0; j < m; j++) {
        done[idx[j]] = 1;
        if (!rc) {
          char t[64];
          snprintf(t, sizeof t, "%d", secs);
          rc = fail_rank(e, r, as[idx[j]].rank, MPISW_K_IO,
                         "%s: its sync agent did not answer within %s s "
                         "(MPISW_REMOTE_SYNC_TIMEOUT): the process is stopped, hung or gone",
                         t);
        }
      }
      break;
    }
    for (int j = 0; j < m; j++) {
      struct ask *a = &as[idx[j]];
      if (!pf[j].revents) continue;
      int bad = 0;
      if (!a->sent) {
        int left_s = (int)(deadline - mpisw_now()) + 1;
        if (send_request(a, &r->peers[a->rank], left_s)) {
          bad = fail_rank(&e1, r, a->rank, MPISW_K_IO,
                          "%s: cannot reach its sync agent: %s (the process is gone?)",
                          strerror(errno));
        } else continue;
      } else {
        bad = read_answer(a, r, &e1);
      }
      done[idx[j]] = 1;
      left--;
      if (bad && !rc) {
        *e = e1;
        rc = -1;
      }
      if (!bad) a->ranges.n = 0; /* durable now */
    }
  }
  for (int i = 0; i < n; i++) {
    if (as[i].fd >= 0) close(as[i].fd);
    if (!as[i].sent || as[i].ranges.n) { /* not confirmed: keep for the next sync */
      pthread_mutex_lock(&r->mu);
      for (int j = 0; j < as[i].ranges.n; j++)
        mpisw_remote_add(r, as[i].rank, as[i].ranges.r[j].off, as[i].ranges.r[j].len);
      pthread_mutex_unlock(&r->mu);
    }
  }
  free(done);
  free(pf);
  return rc;
}

/* While the agents work: the caller's own work, then the targets this
 * process syncs itself. */
struct directs {
  struct mpisw_remote *r;
  struct ask *as;
  int n;
  struct meanwhile *user;
  int rc;
  struct mpisw_error e;
};

static void run_directs(void *arg) {
  struct directs *d = arg;
  if (d->user && d->user->fn) {
    d->user->fn(d->user->arg);
    d->user->fn = NULL;
  }
  for (int i = 0; i < d->n; i++) {
    struct ask *a = &d->as[i];
    if (!a->direct) continue;
    struct mpisw_error e1;
    if (mpisw_direct_sync(d->r, a->rank, &a->ranges, a->whole, &e1)) {
      if (!d->rc) {
        d->rc = -1;
        d->e = e1;
      }
      continue; /* ranges kept: ask_all gives them back */
    }
    a->ranges.n = 0;
  }
}

/* Completes RMA to each target, then asks them; mw (may be NULL) runs
 * while they work. whole: the targets' entire storage part
 * (MPIX_Win_sync_target without noted ranges). */
static int sync_targets(const char *routine, MPI_Win win, struct mpisw_remote *r,
                        const int *targets, int n, int whole, struct meanwhile *mw) {
  for (int i = 0; i < n; i++) {
    int rc = complete_rma(win, targets[i]);
    if (rc != MPI_SUCCESS) return mpisw_raise_win(win, rc);
  }
  struct ask *as = n ? calloc((size_t)n, sizeof *as) : NULL;
  struct mpisw_error e;
  if (n && !as) {
    mpisw_fail(&e, MPISW_K_NOMEM, "out of memory for the remote sync");
    return mpisw_raise_win(win, mpisw_error_code(routine, &e));
  }
  pthread_mutex_lock(&r->mu);
  for (int i = 0; i < n; i++) {
    as[i].rank = targets[i];
    mpisw_remote_take(r, targets[i], &as[i].ranges);
    as[i].whole = whole && as[i].ranges.n == 0;
    as[i].direct = mpisw_direct_ready(r, targets[i]);
  }
  pthread_mutex_unlock(&r->mu);
  struct directs d = {r, as, n, mw, 0, {0, ""}};
  struct meanwhile both = {run_directs, &d};
  int rc = ask_all(r, as, n, &both, &e);
  if (both.fn) run_directs(&d); /* no request went out */
  free(as);
  if (!rc && d.rc) {
    rc = -1;
    e = d.e;
  }
  if (rc) return mpisw_raise_win(win, mpisw_error_code(routine, &e));
  return MPI_SUCCESS;
}

struct local {
  struct mpisw_win *w;
  int rc;
  struct mpisw_error e;
};

static void local_sync(void *arg) {
  struct local *l = arg;
  l->rc = mpisw_win_sync_storage(l->w, &l->e);
}

int mpisw_remote_win_sync(MPI_Win win, struct mpisw_win *w) {
  struct mpisw_remote *r = w->remote;
  struct local l = {w, 0, {0, ""}};
  struct meanwhile mw = {local_sync, &l};
  pthread_mutex_lock(&r->mu);
  int n = r->ndirty;
  int *targets = n ? malloc((size_t)n * sizeof *targets) : NULL;
  if (targets) memcpy(targets, r->dirty, (size_t)n * sizeof *targets);
  pthread_mutex_unlock(&r->mu);
  int rc = MPI_SUCCESS;
  if (n && !targets) {
    mpisw_fail(&l.e, MPISW_K_NOMEM, "out of memory for the remote sync");
    return mpisw_raise_win(win, mpisw_error_code("MPI_Win_sync", &l.e));
  }
  rc = sync_targets("MPI_Win_sync", win, r, targets, n, 0, &mw);
  free(targets);
  if (mw.fn) local_sync(&l); /* not run: the flush failed */
  /* this rank's own storage first: its error is the one to report */
  if (l.rc) return mpisw_raise_win(win, mpisw_error_code("MPI_Win_sync", &l.e));
  return rc;
}

int mpisw_remote_sync_target(MPI_Win win, int rank) {
  const char *routine = "MPIX_Win_sync_target";
  struct mpisw_error e;
  if (win == MPI_WIN_NULL) {
    mpisw_fail(&e, MPISW_K_USAGE, "the window is MPI_WIN_NULL");
    return mpisw_raise_noobj(mpisw_error_code(routine, &e));
  }
  MPI_Group g;
  int n = 0;
  if (mpisw_next.Win_get_group(win, &g) == MPI_SUCCESS) {
    PMPI_Group_size(g, &n);
    PMPI_Group_free(&g);
  }
  if (rank < 0 || rank >= n) {
    char msg[128];
    snprintf(msg, sizeof msg, "rank %d is not in the window's group (of %d ranks)", rank, n);
    return mpisw_raise_win(win, mpisw_error_code_in(MPI_ERR_RANK, routine, msg));
  }
  struct mpisw_win *w = mpisw_win_lookup(win);
  if (w && w->kind == MPISW_WIN_USER) {
    mpisw_fail(&e, MPISW_K_USAGE,
               "windows made with MPI_Win_create or MPI_Win_create_dynamic over storage "
               "memory have no remote sync; make the window with MPI_Win_allocate");
    return mpisw_raise_win(win, mpisw_error_code(routine, &e));
  }
  if (!w || !w->remote) {
    /* a window in memory: nothing to make durable, the RMA is completed */
    int rc = complete_rma(win, rank);
    return rc == MPI_SUCCESS ? rc : mpisw_raise_win(win, rc);
  }
  if (rank == w->remote->me) { /* this rank's own storage: a local sync */
    if (mpisw_win_sync_storage(w, &e)) return mpisw_raise_win(win, mpisw_error_code(routine, &e));
    return MPI_SUCCESS;
  }
  return sync_targets(routine, win, w->remote, &rank, 1, 1, NULL);
}
