/* The aggregator's writes behind the next round (docs/COLLECTIVE_IO.md
 * "Writes behind the shuffle"). A call of several rounds alternates two
 * collective buffers: while a helper thread writes round r's runs from one,
 * the aggregator exchanges round r + 1 into the other, so the page-cache
 * copy of the write and the shuffle's copies run side by side (OMPIO's
 * vulcan overlaps them with asynchronous writes the same way). The thread
 * only calls pwrite on the file's own descriptor, never MPI; one job at a
 * time: the aggregator waits for the previous one before handing the next,
 * which keeps the two buffers apart. After a failed write the later jobs
 * are skipped, as the rounds without write-behind go on without I/O. */
#include <pthread.h>
#include <stdlib.h>

#include "cio/engine.h"

struct cio_behind {
  struct cio_file *f;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int busy;  /* a job handed over and not yet written */
  int stop;
  int err;   /* the first failed write's errno */
  const char *cbuf;
  MPI_Offset wlo;
  struct cio_run *runs;
  MPI_Count nruns;
};

static void *writer(void *arg) {
  struct cio_behind *w = arg;
  pthread_mutex_lock(&w->mu);
  for (;;) {
    while (!w->busy && !w->stop) pthread_cond_wait(&w->cv, &w->mu);
    if (!w->busy) break;
    int skip = w->err != 0;
    pthread_mutex_unlock(&w->mu);
    int err = skip ? 0 : mpisw_cio_write_runs(w->f, w->cbuf, w->wlo, w->runs, w->nruns);
    pthread_mutex_lock(&w->mu);
    if (err && !w->err) w->err = err;
    w->busy = 0;
    pthread_cond_broadcast(&w->cv);
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

struct cio_behind *mpisw_cio_behind_start(struct cio_file *f) {
  struct cio_behind *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->f = f;
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->cv, NULL);
  if (pthread_create(&w->thread, NULL, writer, w)) {
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
    return NULL; /* the caller writes in line */
  }
  return w;
}

int mpisw_cio_behind_wait(struct cio_behind *w) {
  pthread_mutex_lock(&w->mu);
  while (w->busy) pthread_cond_wait(&w->cv, &w->mu);
  int err = w->err;
  pthread_mutex_unlock(&w->mu);
  return err;
}

void mpisw_cio_behind_submit(struct cio_behind *w, const char *cbuf, MPI_Offset wlo,
                             struct cio_run *runs, MPI_Count n) {
  pthread_mutex_lock(&w->mu);
  while (w->busy) pthread_cond_wait(&w->cv, &w->mu);
  w->cbuf = cbuf, w->wlo = wlo, w->runs = runs, w->nruns = n;
  w->busy = 1;
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

int mpisw_cio_behind_stop(struct cio_behind *w) {
  if (!w) return 0;
  int err = mpisw_cio_behind_wait(w);
  pthread_mutex_lock(&w->mu);
  w->stop = 1;
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
  pthread_join(w->thread, NULL);
  pthread_mutex_destroy(&w->mu);
  pthread_cond_destroy(&w->cv);
  free(w);
  return err;
}
