/* The drain thread of staging (stage.h): a queue of copies in ticket order,
 * one thread started on the first submit that runs them one after another
 * (each copy keeps several writes in flight itself, stage_copy.c), the state
 * and error of every ticket for done/wait, and statistics for the status
 * call and MPISW_REPORT. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt/stage.h"

/* Finished copies remembered one by one; older successful ones are
 * forgotten (a ticket below next_ticket that is not listed is done). Failed
 * copies are never forgotten: their error must reach a wait. */
#define KEEP_DONE 1024

struct job {
  mpisw_stage_ticket ticket;
  char *src, *dst;
  int state, reported;
  struct mpisw_stage_copyinfo ci; /* when done */
  struct mpisw_error err;
  struct job *next;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cv = PTHREAD_COND_INITIALIZER; /* a job queued, or stop */
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER; /* a job finished */
static struct job *jobs, *jobs_tail; /* every remembered job, ticket order */
static mpisw_stage_ticket next_ticket = 1;
static int started, stopping, stopped;
static unsigned kept_done;
static pthread_t thread;
static struct mpisw_stage_stats stats;

static struct job *find(mpisw_stage_ticket t) {
  for (struct job *j = jobs; j; j = j->next)
    if (j->ticket == t) return j;
  return NULL;
}

static struct job *first_queued(void) {
  for (struct job *j = jobs; j; j = j->next)
    if (j->state == MPISW_STAGE_QUEUED) return j;
  return NULL;
}

/* Forgets the oldest successful job once KEEP_DONE are remembered. */
static void forget_old(void) {
  if (kept_done <= KEEP_DONE) return;
  struct job **pp = &jobs, *prev = NULL;
  for (struct job *j = jobs; j; prev = j, pp = &j->next, j = j->next) {
    if (j->state != MPISW_STAGE_DONE) continue;
    *pp = j->next;
    if (jobs_tail == j) jobs_tail = prev;
    free(j->src), free(j->dst), free(j);
    kept_done--;
    return;
  }
}

static void *drain(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  for (;;) {
    struct job *j = first_queued();
    if (!j) {
      if (stopping) break;
      pthread_cond_wait(&work_cv, &mu);
      continue;
    }
    j->state = MPISW_STAGE_RUNNING;
    pthread_mutex_unlock(&mu);
    struct mpisw_stage_copyinfo ci = {0, 0, 0};
    struct mpisw_error err;
    int rc = mpisw_stage_copy(j->src, j->dst, &ci, &err);
    pthread_mutex_lock(&mu);
    stats.pending--;
    if (rc) {
      j->state = MPISW_STAGE_FAILED;
      j->err = err;
      stats.failed++;
    } else {
      j->state = MPISW_STAGE_DONE;
      j->ci = ci;
      stats.done++;
      stats.bytes += ci.bytes;
      stats.seconds += ci.seconds;
      stats.last_ticket = j->ticket;
      stats.last_bytes = ci.bytes;
      stats.last_seconds = ci.seconds;
      kept_done++;
      forget_old();
    }
    pthread_cond_broadcast(&done_cv);
  }
  pthread_mutex_unlock(&mu);
  return NULL;
}

/* The thread takes no signals: they stay the application's. */
static int start_locked(struct mpisw_error *e) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(&thread, NULL, drain, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc) return mpisw_fail(e, MPISW_K_NOMEM, "stage: cannot start the drain thread: %s", strerror(rc));
  started = 1;
  return 0;
}

int mpisw_stage_submit(const char *src, const char *dst, mpisw_stage_ticket *ticket,
                       struct mpisw_error *e) {
  if (!src || !*src || !dst || !*dst)
    return mpisw_fail(e, MPISW_K_USAGE, "stage: empty source or destination path");
  if (strlen(src) >= 4000 || strlen(dst) >= 4000)
    return mpisw_fail(e, MPISW_K_USAGE, "stage: path '%s' is too long", strlen(src) >= 4000 ? src : dst);
  struct job *j = calloc(1, sizeof *j);
  if (j) j->src = strdup(src), j->dst = strdup(dst);
  if (!j || !j->src || !j->dst) {
    if (j) free(j->src), free(j->dst), free(j);
    return mpisw_fail(e, MPISW_K_NOMEM, "stage: no memory to queue '%s'", src);
  }
  pthread_mutex_lock(&mu);
  if (stopping || stopped) {
    pthread_mutex_unlock(&mu);
    free(j->src), free(j->dst), free(j);
    return mpisw_fail(e, MPISW_K_USAGE, "stage: the drain thread has stopped (after MPI_Finalize)");
  }
  if (!started && start_locked(e)) {
    pthread_mutex_unlock(&mu);
    free(j->src), free(j->dst), free(j);
    return -1;
  }
  j->ticket = next_ticket++;
  j->state = MPISW_STAGE_QUEUED;
  if (jobs_tail) jobs_tail->next = j;
  else jobs = j;
  jobs_tail = j;
  stats.submitted++;
  stats.pending++;
  *ticket = j->ticket;
  pthread_cond_signal(&work_cv);
  pthread_mutex_unlock(&mu);
  return 0;
}

/* The state of ticket t; mu held. -1 for a ticket never given out. */
static int state_locked(mpisw_stage_ticket t, struct job **jp) {
  *jp = NULL;
  if (t == 0 || t >= next_ticket) return -1;
  *jp = find(t);
  return *jp ? (*jp)->state : MPISW_STAGE_DONE;
}

int mpisw_stage_done(mpisw_stage_ticket ticket, int *state, struct mpisw_error *e) {
  struct job *j;
  pthread_mutex_lock(&mu);
  int s = state_locked(ticket, &j);
  pthread_mutex_unlock(&mu);
  if (s < 0) return mpisw_fail(e, MPISW_K_USAGE, "stage: no copy has ticket %llu", (unsigned long long)ticket);
  *state = s;
  return 0;
}

int mpisw_stage_wait(mpisw_stage_ticket ticket, struct mpisw_error *e) {
  struct job *j;
  pthread_mutex_lock(&mu);
  int s;
  while ((s = state_locked(ticket, &j)) == MPISW_STAGE_QUEUED || s == MPISW_STAGE_RUNNING)
    pthread_cond_wait(&done_cv, &mu);
  int rc = 0;
  if (s < 0) rc = mpisw_fail(e, MPISW_K_USAGE, "stage: no copy has ticket %llu", (unsigned long long)ticket);
  else if (s == MPISW_STAGE_FAILED) {
    *e = j->err;
    rc = -1;
  }
  pthread_mutex_unlock(&mu);
  return rc;
}

int mpisw_stage_info(mpisw_stage_ticket ticket, struct mpisw_stage_copyinfo *ci,
                     struct mpisw_error *e) {
  pthread_mutex_lock(&mu);
  struct job *j = ticket ? find(ticket) : NULL;
  int ok = j && j->state == MPISW_STAGE_DONE;
  if (ok) *ci = j->ci;
  pthread_mutex_unlock(&mu);
  if (!ok)
    return mpisw_fail(e, MPISW_K_USAGE, "stage: copy %llu is not done or no longer remembered",
                      (unsigned long long)ticket);
  return 0;
}

/* mu held: waits for an empty queue, reports unreported failures once. */
static int wait_all_locked(struct mpisw_error *e) {
  while (stats.pending) pthread_cond_wait(&done_cv, &mu);
  int rc = 0;
  for (struct job *j = jobs; j; j = j->next) {
    if (j->state != MPISW_STAGE_FAILED || j->reported) continue;
    if (!rc) *e = j->err, rc = -1;
    j->reported = 1;
  }
  return rc;
}

int mpisw_stage_wait_all(struct mpisw_error *e) {
  pthread_mutex_lock(&mu);
  int rc = wait_all_locked(e);
  pthread_mutex_unlock(&mu);
  return rc;
}

void mpisw_stage_stats(struct mpisw_stage_stats *s) {
  pthread_mutex_lock(&mu);
  *s = stats;
  pthread_mutex_unlock(&mu);
}

int mpisw_stage_stop(struct mpisw_error *e) {
  pthread_mutex_lock(&mu);
  int rc = wait_all_locked(e);
  int join = started && !stopping;
  stopping = 1;
  pthread_cond_broadcast(&work_cv);
  pthread_mutex_unlock(&mu);
  if (join) pthread_join(thread, NULL);
  pthread_mutex_lock(&mu);
  stopped = 1;
  pthread_mutex_unlock(&mu);
  return rc;
}
