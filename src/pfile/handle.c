/* Pooled files' handles: which MPI_File values are ours, their Fortran
 * integers, their error handlers, and error codes of the classes MPI-IO
 * prescribes. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfile/internal.h"

volatile int mpisw_pfile_live;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct mpisw_pfile *open_files;

/* Fortran handles: well above the small integers the MPIs hand out. */
#define FINT_BASE 0x40000000
#define FINT_SLOTS 4096
static struct mpisw_pfile *fint_slot[FINT_SLOTS];

void mpisw_pfile_register(struct mpisw_pfile *f) {
  pthread_mutex_lock(&mu);
  f->next = open_files;
  open_files = f;
  f->fint = -1;
  for (int i = 0; i < FINT_SLOTS; i++)
    if (!fint_slot[i]) {
      fint_slot[i] = f;
      f->fint = FINT_BASE + i;
      break;
    }
  __atomic_add_fetch(&mpisw_pfile_live, 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&mu);
}

void mpisw_pfile_unregister(struct mpisw_pfile *f) {
  pthread_mutex_lock(&mu);
  for (struct mpisw_pfile **p = &open_files; *p; p = &(*p)->next)
    if (*p == f) {
      *p = f->next;
      break;
    }
  if (f->fint >= FINT_BASE && f->fint < FINT_BASE + FINT_SLOTS) fint_slot[f->fint - FINT_BASE] = NULL;
  __atomic_sub_fetch(&mpisw_pfile_live, 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&mu);
}

int mpisw_pfile_owns(MPI_File fh) {
  if (!__atomic_load_n(&mpisw_pfile_live, __ATOMIC_ACQUIRE) || fh == MPI_FILE_NULL) return 0;
  int found = 0;
  pthread_mutex_lock(&mu);
  for (struct mpisw_pfile *f = open_files; f && !found; f = f->next) found = pfile_handle(f) == fh;
  pthread_mutex_unlock(&mu);
  return found;
}

void mpisw_pfile_each(void (*fn)(struct mpisw_pfile *, void *), void *arg) {
  pthread_mutex_lock(&mu);
  struct mpisw_pfile *list = open_files;
  pthread_mutex_unlock(&mu);
  for (struct mpisw_pfile *f = list, *n; f; f = n) {
    n = f->next;
    fn(f, arg);
  }
}

MPI_Fint mpisw_pfile_c2f(MPI_File fh) { return pfile_of(fh)->fint; }

MPI_File mpisw_pfile_f2c(MPI_Fint i) {
  if (i < FINT_BASE || i >= FINT_BASE + FINT_SLOTS) return MPI_FILE_NULL;
  pthread_mutex_lock(&mu);
  struct mpisw_pfile *f = fint_slot[i - FINT_BASE];
  pthread_mutex_unlock(&mu);
  return f ? pfile_handle(f) : MPI_FILE_NULL;
}

/* ---- error handlers ---- */
/* The functions behind the file error handlers the program made: a pooled
 * file must call them itself (the MPI cannot: the file is not its own). */
#define MADE_MAX 256
static struct {
  MPI_Errhandler eh;
  MPI_File_errhandler_function *fn;
} made[MADE_MAX];
static int nmade;

void mpisw_pfile_errhandler_made(MPI_Errhandler eh, MPI_File_errhandler_function *fn) {
  pthread_mutex_lock(&mu);
  if (nmade < MADE_MAX) {
    made[nmade].eh = eh;
    made[nmade].fn = fn;
    nmade++;
  }
  pthread_mutex_unlock(&mu);
}

static MPI_File_errhandler_function *function_of(MPI_Errhandler eh) {
  MPI_File_errhandler_function *fn = NULL;
  pthread_mutex_lock(&mu);
  for (int i = nmade - 1; i >= 0 && !fn; i--)
    if (made[i].eh == eh) fn = made[i].fn;
  pthread_mutex_unlock(&mu);
  return fn;
}

static int predefined(MPI_Errhandler eh) {
  return eh == MPI_ERRORS_RETURN || eh == MPI_ERRORS_ARE_FATAL
#if MPI_VERSION >= 4
         || eh == MPI_ERRORS_ABORT
#endif
      ;
}

/* A handler as a file keeps it: predefined ones by handle; a user's by its
 * function, so the program may free its handle after setting it. */
static void keep(struct pfile_handler *h, MPI_Errhandler eh) {
  h->eh = predefined(eh) ? eh : MPI_ERRHANDLER_NULL;
  h->fn = predefined(eh) ? NULL : function_of(eh);
  if (!predefined(eh) && !h->fn) h->eh = MPI_ERRORS_RETURN; /* made before mpisw saw it */
}

void mpisw_pfile_default_handler(struct pfile_handler *h) {
  MPI_Errhandler eh = MPI_ERRORS_RETURN;
  mpisw_next.File_get_errhandler(MPI_FILE_NULL, &eh);
  keep(h, eh);
  mpisw_errhandler_release(&eh);
}

int mpisw_pfile_File_set_errhandler(MPI_File fh, MPI_Errhandler eh) {
  keep(&pfile_of(fh)->handler, eh);
  return MPI_SUCCESS;
}

/* A user's handler comes back as a new handle on the same function, which
 * the program frees as MPI asks. */
int mpisw_pfile_File_get_errhandler(MPI_File fh, MPI_Errhandler *eh) {
  struct pfile_handler *h = &pfile_of(fh)->handler;
  if (!h->fn) {
    *eh = h->eh;
    return MPI_SUCCESS;
  }
  int rc = mpisw_next.File_create_errhandler(h->fn, eh);
  if (rc == MPI_SUCCESS) mpisw_pfile_errhandler_made(*eh, h->fn);
  return rc;
}

int mpisw_pfile_raise(struct mpisw_pfile *f, int code) {
  struct pfile_handler h;
  if (f) h = f->handler;
  else mpisw_pfile_default_handler(&h);
  if (h.fn) {
    MPI_File fh = f ? pfile_handle(f) : MPI_FILE_NULL;
    h.fn(&fh, &code);
    return code;
  }
  if (h.eh == MPI_ERRORS_RETURN) return code;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  PMPI_Error_string(code, text, &len);
  fprintf(stderr, "mpisw: an error on pooled file %s, whose error handler is fatal: %s\n",
          f ? f->shown : "(none)", text);
  PMPI_Abort(f ? f->comm : MPI_COMM_WORLD, code);
  return code;
}

int mpisw_pfile_File_call_errhandler(MPI_File fh, int code) {
  mpisw_pfile_raise(pfile_of(fh), code);
  return MPI_SUCCESS;
}

int mpisw_pfile_error(struct mpisw_pfile *f, int cls, const char *routine, const char *fmt, ...) {
  char msg[MPISW_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  mpisw_msg_shorten(msg, MPISW_MSG_FIT);
  return mpisw_pfile_raise(f, mpisw_error_code_in(cls, routine, msg));
}

int mpisw_pfile_pool_error(struct mpisw_pfile *f, int pool_rc, const char *routine,
                           const struct mpisw_error *e) {
  int cls = MPI_ERR_IO;
  switch (pool_rc) {
  case MPISW_POOL_NOENT: cls = MPI_ERR_NO_SUCH_FILE; break;
  case MPISW_POOL_EXISTS: cls = MPI_ERR_FILE_EXISTS; break;
  case MPISW_POOL_NOSPACE: cls = MPI_ERR_NO_SPACE; break;
  case MPISW_POOL_BUSY: cls = MPI_ERR_FILE_IN_USE; break;
  case MPISW_POOL_USAGE: cls = MPI_ERR_ARG; break;
  default: cls = MPI_ERR_IO;
  }
  return mpisw_pfile_error(f, cls, routine, "%s", e->msg);
}
