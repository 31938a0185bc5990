/* MPI error classes of the library and codes carrying readable messages.
 * Codes come from a small ring per class whose strings are replaced, since
 * MPI implementations cap the number of user codes. */
#include <stdio.h>
#include <string.h>

#include "mpisw.h"
#include "pmpi/pmpi.h"

#define CODES_PER_CLASS 16

_Static_assert((int)MPISW_ERR_HINT == (int)MPISW_K_HINT && (int)MPISW_ERR_NOFILE == (int)MPISW_K_NOFILE &&
                   (int)MPISW_ERR_ACCESS == (int)MPISW_K_ACCESS && (int)MPISW_ERR_NOSPACE == (int)MPISW_K_NOSPACE &&
                   (int)MPISW_ERR_IO == (int)MPISW_K_IO && (int)MPISW_ERR_NOMEM == (int)MPISW_K_NOMEM &&
                   (int)MPISW_ERR_USAGE == (int)MPISW_K_USAGE && (int)MPISW_ERR_KIND_COUNT == (int)MPISW_K_COUNT,
               "error kinds of mpisw.h and core/error.h differ");

static const char *class_text[MPISW_K_COUNT] = {
    "mpisw: invalid hint value",
    "mpisw: file or directory does not exist",
    "mpisw: access denied to the storage",
    "mpisw: no space left on the storage",
    "mpisw: storage I/O error",
    "mpisw: memory budget exceeded",
    "mpisw: call cannot be done as asked",
};

/* Codes of one class, reused in turn (-1: not made yet). */
struct code_ring {
  int cls;
  int codes[CODES_PER_CLASS];
  int next;
};

static void ring_init(struct code_ring *r, int cls) {
  r->cls = cls;
  r->next = 0;
  for (int i = 0; i < CODES_PER_CLASS; i++) r->codes[i] = -1;
}

/* The ring's next code, carrying text (the class itself when the MPI has
 * no more codes). Caller holds mpisw_lock. */
static int ring_code(struct code_ring *r, const char *text) {
  int slot = r->next++ % CODES_PER_CLASS;
  if (r->codes[slot] < 0 && PMPI_Add_error_code(r->cls, &r->codes[slot]) != MPI_SUCCESS)
    r->codes[slot] = r->cls;
  int code = r->codes[slot];
  if (code != r->cls) PMPI_Add_error_string(code, (char *)text);
  return code;
}

static int classes_ready;
static int classes[MPISW_K_COUNT];
static struct code_ring rings[MPISW_K_COUNT];

/* Caller holds mpisw_lock. */
static void make_classes(void) {
  if (classes_ready) return;
  for (int k = 0; k < MPISW_K_COUNT; k++) {
    if (PMPI_Add_error_class(&classes[k]) != MPI_SUCCESS) classes[k] = MPI_ERR_OTHER;
    else PMPI_Add_error_string(classes[k], (char *)class_text[k]);
    ring_init(&rings[k], classes[k]);
  }
  classes_ready = 1;
}

MPISW_EXPORT int mpisw_error_class(int kind, int *errclass) {
  if (kind < 0 || kind >= MPISW_K_COUNT || !errclass) return MPI_ERR_ARG;
  pthread_mutex_lock(&mpisw_lock);
  make_classes();
  *errclass = classes[kind];
  pthread_mutex_unlock(&mpisw_lock);
  return MPI_SUCCESS;
}

MPISW_EXPORT int mpisw_active(void) { return !mpisw_disabled; }

int mpisw_error_code(const char *routine, const struct mpisw_error *e) {
  char text[MPI_MAX_ERROR_STRING];
  int kind = e->kind >= 0 && e->kind < MPISW_K_COUNT ? e->kind : MPISW_K_IO;
  snprintf(text, sizeof text, "mpisw: %s: %s", routine, e->msg);
  pthread_mutex_lock(&mpisw_lock);
  make_classes();
  int code = ring_code(&rings[kind], text);
  pthread_mutex_unlock(&mpisw_lock);
  return code;
}

int mpisw_raise_comm(MPI_Comm comm, int code) {
  PMPI_Comm_call_errhandler(comm, code);
  return code;
}

int mpisw_raise_win(MPI_Win win, int code) {
  PMPI_Win_call_errhandler(win, code);
  return code;
}

int mpisw_raise_noobj(int code) {
#if MPI_VERSION >= 4
  return mpisw_raise_comm(MPI_COMM_SELF, code);
#else
  return mpisw_raise_comm(MPI_COMM_WORLD, code);
#endif
}

/* Predefined handlers are not freed (MPI-3 calls that erroneous). */
void mpisw_errhandler_release(MPI_Errhandler *eh) {
  if (*eh != MPI_ERRHANDLER_NULL && *eh != MPI_ERRORS_RETURN && *eh != MPI_ERRORS_ARE_FATAL)
    PMPI_Errhandler_free(eh);
  *eh = MPI_ERRHANDLER_NULL;
}

MPI_Errhandler mpisw_win_errors_return(MPI_Win win) {
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  PMPI_Win_get_errhandler(win, &eh);
  PMPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  return eh;
}

void mpisw_win_errors_restore(MPI_Win win, MPI_Errhandler eh) {
  PMPI_Win_set_errhandler(win, eh);
  mpisw_errhandler_release(&eh);
}

MPI_Errhandler mpisw_comm_errors_return(MPI_Comm comm) {
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  PMPI_Comm_get_errhandler(comm, &eh);
  PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  return eh;
}

void mpisw_comm_errors_restore(MPI_Comm comm, MPI_Errhandler eh) {
  PMPI_Comm_set_errhandler(comm, eh);
  mpisw_errhandler_release(&eh);
}

/* ---- codes under the MPI's own classes (MPI-IO prescribes them) ---- */
#define OWN_CLASSES 16
static struct code_ring own[OWN_CLASSES];
static int nown;
/* -1 unknown, 0 the MPI keeps a code's string under its own classes, 1 it
 * does not (MPICH 4.0 shows another text): then the class code itself. */
static int own_strings_lost = -1;

/* Caller holds mpisw_lock. */
static int strings_lost(void) {
  if (own_strings_lost >= 0) return own_strings_lost;
  int code, len = 0;
  char probe[] = "mpisw: probe", back[MPI_MAX_ERROR_STRING] = "";
  own_strings_lost = 1;
  if (PMPI_Add_error_code(MPI_ERR_OTHER, &code) == MPI_SUCCESS &&
      PMPI_Add_error_string(code, probe) == MPI_SUCCESS &&
      PMPI_Error_string(code, back, &len) == MPI_SUCCESS)
    own_strings_lost = strcmp(back, probe) != 0;
  return own_strings_lost;
}

int mpisw_error_code_in(int cls, const char *routine, const char *msg) {
  char text[MPI_MAX_ERROR_STRING];
  snprintf(text, sizeof text, "mpisw: %s: %s", routine, msg);
  pthread_mutex_lock(&mpisw_lock);
  int code = cls;
  if (!strings_lost()) {
    int i = 0;
    while (i < nown && own[i].cls != cls) i++;
    if (i == nown && nown < OWN_CLASSES) ring_init(&own[nown++], cls);
    if (i < nown) code = ring_code(&own[i], text);
  }
  pthread_mutex_unlock(&mpisw_lock);
  return code;
}
