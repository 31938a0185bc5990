/* Finds the MPI's own implementation of each call mpisw takes over. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "pmpi/next.h"

struct mpisw_next_calls mpisw_next;

static int missing(const char *symbol) {
  fprintf(stderr, "mpisw: the MPI library has no %s; the call fails with MPI_ERR_OTHER\n",
          symbol);
  return MPI_ERR_OTHER;
}

/* Stand-ins for calls the MPI lacks: a clear error instead of a crash. */
#define MPISW_COUNT int
#define MPISW_DISP int
#define MPISW_CALL(name, params, args) \
  static int missing_##name params { return missing("PMPI_" #name); }
#define MPISW_CALL_C MPISW_CALL
#define MPISW_CALL4(name, params, args)
#define MPISW_CALL_T(type, name, params, args)                       \
  static type missing_##name params {                                \
    missing("PMPI_" #name);                                          \
    return (type){0};                                                \
  }
#include "pmpi/calls.def"
#define MPISW_CALL_C(name, params, args) \
  static int missing_##name##_c params { return missing("PMPI_" #name "_c"); }
#define MPISW_CALL4(name, params, args) \
  static int missing_##name params { return missing("PMPI_" #name); }
#include "pmpi/calls_c.def"

/* The MPI library itself, found through a call mpisw does not take over:
 * the fallback when nothing follows mpisw in the link order (RTLD_NEXT
 * finds nothing when the library was loaded in an unusual order). */
static void *mpi_library(void) {
  static void *handle;
  Dl_info info;
  if (!handle && dladdr((void *)&PMPI_Comm_rank, &info) && info.dli_fname)
    handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  return handle;
}

static void *find(const char *symbol) {
  void *f = dlsym(RTLD_NEXT, symbol);
  if (!f && mpi_library()) f = dlsym(mpi_library(), symbol);
  return f;
}

/* Function pointers from void *: POSIX guarantees the conversion. */
#define SET(member, symbol, fallback)                  \
  do {                                                 \
    void *f_ = find(symbol);                           \
    if (f_) memcpy(&mpisw_next.member, &f_, sizeof f_); \
    else mpisw_next.member = fallback;                 \
  } while (0)

/* Before any other constructor of the library (its identity check runs
 * when loaded) and before the program's first MPI call. */
__attribute__((constructor(101))) static void find_next_calls(void) {
#define MPISW_CALL(name, params, args) SET(name, "PMPI_" #name, missing_##name);
#define MPISW_CALL_C MPISW_CALL
#define MPISW_CALL4(name, params, args)
#define MPISW_CALL_T(type, name, params, args) MPISW_CALL(name, params, args)
#include "pmpi/calls.def"
#define MPISW_CALL_C(name, params, args) SET(name##_c, "PMPI_" #name "_c", missing_##name##_c);
#define MPISW_CALL4(name, params, args) SET(name, "PMPI_" #name, missing_##name);
#include "pmpi/calls_c.def"
}
