/* The sync agent of this process: one thread, started with the first
 * storage window and stopped with the last one (or at MPI_Finalize), that
 * makes ranges of this process's windows durable when another rank asks
 * over TCP (remote_sync.c is the asking side). It never calls MPI: the
 * program may be single-threaded in MPI's eyes, and busy computing. Only
 * the owner of a placement can write it back in every case (the pager's
 * dirty blocks live in this process's memory; a rank on another node
 * shares no page cache), hence a thread here and not a peer's syscall. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "win/remote.h"

#define MAX_RANGES 4096       /* a request holds at most this many */
#define PEER_SECONDS 5        /* an origin that stalls mid-request is dropped */

struct entry {
  uint32_t id;
  struct mpisw_win *w;
};

static struct {
  pthread_mutex_t mu;         /* the table; held while a window is synced */
  pthread_t th;
  int running, lfd, stop[2];
  uint32_t ip;
  uint16_t port;
  uint64_t token;
  uint32_t next_id;
  struct entry *tab;
  int n, cap;
} A = {.mu = PTHREAD_MUTEX_INITIALIZER, .lfd = -1, .stop = {-1, -1}};

/* The address other nodes reach this one by: the host name's IPv4 address
 * when it is not a loopback one, else the first interface's that is up,
 * else the loopback (one node). */
static uint32_t my_address(void) {
  char host[256];
  struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res = NULL;
  uint32_t ip = htonl(INADDR_LOOPBACK);
  if (gethostname(host, sizeof host) == 0 && getaddrinfo(host, NULL, &hints, &res) == 0) {
    for (struct addrinfo *a = res; a; a = a->ai_next) {
      uint32_t x = ((struct sockaddr_in *)a->ai_addr)->sin_addr.s_addr;
      if ((ntohl(x) >> 24) != 127) {
        freeaddrinfo(res);
        return x;
      }
    }
    freeaddrinfo(res);
  }
  struct ifaddrs *ifs = NULL;
  if (getifaddrs(&ifs) == 0) {
    for (struct ifaddrs *i = ifs; i; i = i->ifa_next)
      if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && !(i->ifa_flags & 0x8) /* LOOPBACK */
          && (i->ifa_flags & 0x1) /* UP */) {
        ip = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
        break;
      }
    freeifaddrs(ifs);
  }
  return ip;
}

/* mmap backend: msync of exactly the named pages that are file pages
 * (whatever mapping dirtied them, the page cache is the file's). Anything
 * else (the pager, shared windows, atomic sync) syncs the placement whole,
 * as the target's own MPI_Win_sync would. */
static int sync_ranges(struct mpisw_win *w, const struct mpisw_range *rg, uint32_t n, int whole,
                       struct mpisw_error *e) {
  struct mpisw_place *p = &w->p;
  if (whole || w->kind != MPISW_WIN_STORAGE || p->pager || p->h.sync_atomic || p->sync_failed)
    return mpisw_place_sync(p, e);
  const struct mpisw_layout *l = &p->region.l;
  if (!l->map_file_len) return 0;
  uintptr_t lo = (uintptr_t)p->region.reserve + l->map_file_at, hi = lo + l->map_file_len;
  uintptr_t pg = mpisw_page_size();
  double t0 = mpisw_now();
  for (uint32_t i = 0; i < n; i++) {
    uintptr_t a = (uintptr_t)p->region.base + rg[i].off, b = a + rg[i].len;
    if (a < lo) a = lo;
    if (b > hi) b = hi;
    if (a >= b) continue;
    a &= ~(pg - 1);
    if (msync((void *)a, b - a, MS_SYNC) != 0)
      return mpisw_fail(e, mpisw_errno_kind(errno), "'%s': msync of %llu bytes failed: %s",
                        p->file.path, (unsigned long long)(b - a), strerror(errno));
  }
  pthread_mutex_lock(&mpisw_lock);
  mpisw_stats.sync_seconds += mpisw_now() - t0;
  mpisw_stats.syncs++;
  pthread_mutex_unlock(&mpisw_lock);
  return 0;
}

/* All n bytes sent (out) or received, or -1. */
int mpisw_remote_io_all(int fd, void *buf, size_t n, int out) {
  char *p = buf;
  while (n) {
    ssize_t k = out ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

static void answer(int fd, int rc, const struct mpisw_error *e) {
  struct mpisw_agent_rep rep = {rc ? -1 : 0, rc ? e->kind : 0, 0, 0};
  if (rc) rep.len = (uint32_t)strlen(e->msg);
  if (mpisw_remote_io_all(fd, &rep, sizeof rep, 1) == 0 && rep.len)
    mpisw_remote_io_all(fd, (void *)e->msg, rep.len, 1);
}

static void serve(int fd) {
  struct mpisw_agent_req q;
  struct mpisw_error e;
  if (mpisw_remote_io_all(fd, &q, sizeof q, 0) || q.magic != MPISW_AGENT_MAGIC ||
      q.token != A.token || q.nranges > MAX_RANGES)
    return; /* not one of ours: no answer */
  struct mpisw_range *rg = q.nranges ? malloc(q.nranges * sizeof *rg) : NULL;
  if (q.nranges && (!rg || mpisw_remote_io_all(fd, rg, q.nranges * sizeof *rg, 0))) {
    free(rg);
    return;
  }
  pthread_mutex_lock(&A.mu);
  struct mpisw_win *w = NULL;
  for (int i = 0; i < A.n; i++)
    if (A.tab[i].id == q.win_id) w = A.tab[i].w;
  int rc = w ? sync_ranges(w, rg, q.nranges, (int)q.whole, &e)
             : mpisw_fail(&e, MPISW_K_USAGE, "the window was freed on this rank");
  pthread_mutex_unlock(&A.mu);
  free(rg);
  answer(fd, rc, &e);
}

/* The thread's own descriptors: a window made while an agent stops starts
 * a new one, which must not pull them from under the old. */
struct fds {
  int lfd, stop;
};

static void *agent_main(void *arg) {
  struct fds f = *(struct fds *)arg;
  free(arg);
  for (;;) {
    struct pollfd pf[2] = {{f.lfd, POLLIN, 0}, {f.stop, POLLIN, 0}};
    if (poll(pf, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (pf[1].revents) break;
    int fd = accept4(f.lfd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0) continue;
    struct timeval tv = {PEER_SECONDS, 0};
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    serve(fd);
    close(fd);
  }
  return NULL;
}

/* Listening socket, token, thread; the reason when any of it fails. */
static int start(char *why, size_t len) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
  socklen_t sl = sizeof sa;
  if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) || listen(fd, 128) ||
      getsockname(fd, (struct sockaddr *)&sa, &sl)) {
    snprintf(why, len, "no TCP socket for the sync agent: %s", strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  if (pipe2(A.stop, O_CLOEXEC)) {
    snprintf(why, len, "no pipe for the sync agent: %s", strerror(errno));
    close(fd);
    return -1;
  }
  if (getrandom(&A.token, sizeof A.token, 0) != sizeof A.token)
    A.token = (uint64_t)getpid() << 32 ^ (uint64_t)(mpisw_now() * 1e9);
  A.lfd = fd;
  A.port = sa.sin_port;
  A.ip = my_address();
  /* the thread takes no signal of the program's */
  sigset_t all, old;
  sigfillset(&all);
  struct fds *f = malloc(sizeof *f);
  int rc = ENOMEM;
  if (f) {
    *f = (struct fds){fd, A.stop[0]};
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&A.th, NULL, agent_main, f);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) free(f);
    else pthread_setname_np(A.th, "mpisw-sync"); /* for ps, top, gdb */
  }
  if (rc) {
    snprintf(why, len, "no thread for the sync agent: %s", strerror(rc));
    close(fd);
    close(A.stop[0]);
    close(A.stop[1]);
    A.lfd = A.stop[0] = A.stop[1] = -1;
    return -1;
  }
  A.running = 1;
  return 0;
}

static void stop_locked(void) {
  if (!A.running) return;
  pthread_t th = A.th;
  int lfd = A.lfd, s0 = A.stop[0], s1 = A.stop[1];
  A.lfd = A.stop[0] = A.stop[1] = -1;
  A.running = 0;
  char c = 0;
  if (write(s1, &c, 1) < 0) { /* cannot happen on a fresh pipe; join would wait */ }
  pthread_mutex_unlock(&A.mu); /* it may wait for the table to answer a request */
  pthread_join(th, NULL);
  pthread_mutex_lock(&A.mu);
  close(lfd);
  close(s0);
  close(s1);
}

void mpisw_agent_add(struct mpisw_win *w, struct mpisw_remote_peer *me) {
  pthread_mutex_lock(&A.mu);
  if (!A.running && start(me->why, sizeof me->why)) {
    pthread_mutex_unlock(&A.mu);
    me->port = 0;
    return;
  }
  if (A.n == A.cap) {
    int cap = A.cap ? 2 * A.cap : 8;
    struct entry *t = realloc(A.tab, (size_t)cap * sizeof *t);
    if (!t) {
      pthread_mutex_unlock(&A.mu);
      me->port = 0;
      snprintf(me->why, sizeof me->why, "out of memory for the sync agent's table");
      return;
    }
    A.tab = t;
    A.cap = cap;
  }
  A.tab[A.n++] = (struct entry){++A.next_id, w};
  me->win_id = A.next_id;
  me->ip = A.ip;
  me->port = A.port;
  me->token = A.token;
  pthread_mutex_unlock(&A.mu);
}

void mpisw_agent_remove(struct mpisw_win *w) {
  pthread_mutex_lock(&A.mu);
  for (int i = 0; i < A.n; i++)
    if (A.tab[i].w == w) A.tab[i] = A.tab[--A.n];
  if (A.n == 0) stop_locked();
  pthread_mutex_unlock(&A.mu);
}

void mpisw_agent_stop(void) {
  pthread_mutex_lock(&A.mu);
  A.n = 0;
  stop_locked();
  pthread_mutex_unlock(&A.mu);
}
