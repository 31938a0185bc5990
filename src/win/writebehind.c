/* Write-behind and drop-behind for the mmap backend out of core
 * (docs/DURABILITY.md "Write-behind" has the measurements). Under a memory
 * cgroup's limit the window's pages are reclaimed at the page fault that
 * charges over the limit. Two things made that erratic: dirty pages waited
 * for reclaim to wake the flusher (cgroup v1 has no dirty limit of its own
 * and the global ones are far away), and reclaim either evicted finished
 * pages in large batches or, once it had evicted pages still in use, paid
 * one major fault per 4 KiB page. One thread per process starts the
 * write-back of every served window's dirty pages every 10 ms with
 * sync_file_range(SYNC_FILE_RANGE_WRITE) and, every 100 ms, marks its
 * mapping MADV_COLD, so reclaim meets pages already written and takes the
 * ones not touched since first, in large batches.
 *
 * Durability is unchanged: MPI_Win_sync still msyncs (MS_SYNC) and waits.
 * Only SYNC_FILE_RANGE_WRITE is used: it waits for nothing and does not
 * consume a write-back error, which the next msync reports as before. */
#include "win/writebehind.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/mman.h>

#include "core/warn.h"
#include "core/config.h"
#include "core/memlimit.h"
#include "win/internal.h"

enum { PERIOD_MS = 10, DROP_EVERY = 10 };

struct served {
  const struct mpisw_place *p;
  int fd;
  uint64_t off, len; /* the storage part's bytes of the file */
  char *addr;        /* where they are mapped */
  struct served *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static struct served *list;
static pthread_t thread;
static int running;         /* a thread serves the list (joined when it empties) */
static unsigned generation; /* a thread runs while it is the current one */

enum mode { MODE_AUTO, MODE_ON, MODE_OFF };

/* MPISW_WRITEBEHIND (the configuration table checks the value: another
 * one warns once and means auto). */
static enum mode mode(void) {
  const char *v = mpisw_cfg_text(MPISW_CFG_WRITEBEHIND);
  if (v && !strcmp(v, "on")) return MODE_ON;
  if (v && !strcmp(v, "off")) return MODE_OFF;
  return MODE_AUTO;
}

/* auto: a storage part that a quarter of the cgroup's limit cannot hold is
 * the case where dirty pages reach the limit before anything writes them. */
static int wanted(uint64_t len) {
  switch (mode()) {
  case MODE_ON: return 1;
  case MODE_OFF: return 0;
  default: break;
  }
  uint64_t limit = mpisw_cgroup_limit();
  return limit != UINT64_MAX && len >= limit / 4;
}

/* One pass: start the write-back of every served window's dirty pages; every
 * DROP_EVERY passes also the drop-behind: MADV_COLD clears the pages'
 * accessed bits and puts them at the reclaim end of the LRU, so reclaim
 * takes them at first sight instead of after a second round (a page still
 * in use is touched again, and so kept). The lock is held: a window cannot
 * go (detach waits) while its fd or mapping is used. */
static void pass(unsigned n) {
  for (struct served *s = list; s; s = s->next) {
    if (sync_file_range(s->fd, (off64_t)s->off, (off64_t)s->len, SYNC_FILE_RANGE_WRITE) != 0) {
      /* EIO and the like: the next msync reports it; nothing to do here */
    }
    if (n % DROP_EVERY == 0 && madvise(s->addr, s->len, MADV_COLD) != 0) {
      /* before Linux 5.4: no drop-behind */
    }
  }
}

static void *loop(void *arg) {
  unsigned mine = (unsigned)(uintptr_t)arg, n = 0;
  pthread_mutex_lock(&lock);
  while (list && mine == generation) {
    pass(++n);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += PERIOD_MS * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&wake, &lock, &until);
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

/* The thread takes no signals: the program's handlers run on its own threads. */
static int start_thread(void) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(&thread, NULL, loop, (void *)(uintptr_t)generation);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc == 0) pthread_setname_np(thread, "mpisw-wbehind"); /* ps, tests */
  return rc;
}

void mpisw_writebehind_attach(struct mpisw_place *p) {
  const struct mpisw_layout *l = &p->region.l;
  if (p->pager || p->atomic || p->file.fd < 0 || !l->map_file_len || !p->region.reserve ||
      !wanted(l->map_file_len))
    return;
  struct served *s = calloc(1, sizeof *s);
  if (!s) return;
  *s = (struct served){p, p->file.fd, l->map_file_off, l->map_file_len,
                      p->region.reserve + l->map_file_at, NULL};
  pthread_mutex_lock(&lock);
  s->next = list;
  list = s;
  if (!running) {
    if (start_thread() == 0) running = 1;
    else { /* no thread: the window works as without write-behind */
      list = s->next;
      free(s);
      s = NULL;
    }
  }
  pthread_mutex_unlock(&lock);
  /* served: the advice for such a range (core/storage.c) */
  if (s) mpisw_region_advise_served(s->addr, s->len, p->h.access);
}

void mpisw_writebehind_detach(struct mpisw_place *p) {
  pthread_mutex_lock(&lock);
  struct served **at = &list;
  while (*at && (*at)->p != p) at = &(*at)->next;
  struct served *s = *at;
  if (s) *at = s->next;
  int join = s && !list && running;
  pthread_t old = thread;
  if (join) { /* a thread started by a later attach is of the next generation */
    running = 0;
    generation++;
    pthread_cond_broadcast(&wake);
  }
  pthread_mutex_unlock(&lock);
  free(s);
  if (join) pthread_join(old, NULL); /* no thread outlives the last window */
}

int mpisw_writebehind_serves(const struct mpisw_place *p) {
  pthread_mutex_lock(&lock);
  struct served *s = list;
  while (s && s->p != p) s = s->next;
  pthread_mutex_unlock(&lock);
  return s != NULL;
}
