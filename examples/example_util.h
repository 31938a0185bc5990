/*
 * example_util.h: bookkeeping shared by the example programs.
 *
 * Nothing here is about storage windows; it only keeps each example's .c file
 * down to the MPI code of its listing. Each program sets example_name at the
 * top of main (it prefixes every message) and then uses:
 *
 *   rank                   this process's rank in MPI_COMM_WORLD (set by main)
 *   make_scratch_dir(tag)  rank 0 makes $TMPDIR/<tag>-XXXXXX (or /tmp/...) and
 *                          broadcasts its name into dir; aborts if it cannot
 *   cleanup_dir()          rank 0 removes dir and the files left in it
 *   check_mpi(rc, what)    on an MPI error: prints it, cleans up, MPI_Abort(2)
 *   CHECK(cond, fmt, ...)  on a false condition: prints the message and counts
 *                          a failure; the program goes on
 *   storage_active()       whether libmpisw is loaded and active, so that the
 *                          storage hints take effect; rank 0 says once when
 *                          not (MPISW_DISABLE=1, or a program without the
 *                          library): the example then checks what MPI
 *                          promises and leaves out the checks of files
 *   example_result()       sums the failures of all ranks, cleans up, prints
 *                          "<name>: ok" or "<name>: FAILED" on rank 0 and
 *                          returns the exit status (0 or 1) for after
 *                          MPI_Finalize
 *
 * Every message has the form "<name>: rank <r>: <what>" on stderr.
 * The functions are static: each example is a single file including this.
 */
#ifndef MPISW_EXAMPLE_UTIL_H
#define MPISW_EXAMPLE_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *example_name = "example";
static int rank;       /* in MPI_COMM_WORLD */
static int failures;   /* CHECKs that failed on this rank */
static char dir[256];  /* the scratch directory, "" when there is none */

#define CHECK(cond, ...)                                                  \
  do {                                                                    \
    if (!(cond)) {                                                        \
      char msg_[600];                                                     \
      snprintf(msg_, sizeof msg_, __VA_ARGS__);                           \
      fprintf(stderr, "%s: rank %d: %s\n", example_name, rank, msg_);     \
      failures++;                                                         \
    }                                                                     \
  } while (0)

/* Rank 0 makes a private directory for the files; every rank gets its name. */
static inline void make_scratch_dir(const char *tag)
{
  if (rank == 0) {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", tag);
    if (!mkdtemp(dir)) {
      fprintf(stderr, "%s: mkdtemp %s: %s\n", example_name, dir, strerror(errno));
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* Rank 0 removes the directory and whatever is left in it. */
static inline void cleanup_dir(void)
{
  if (rank != 0 || dir[0] == '\0')
    return;
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    char path[600];
    while ((e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
      }
    }
    closedir(d);
  }
  rmdir(dir);
  dir[0] = '\0';
}

/* mpisw_active() of libmpisw (mpisw.h); weak, so that an example also links
 * and runs without the library: every MPI call in it is correct MPI either
 * way, only the files are the library's. */
int mpisw_active(void) __attribute__((weak));

static inline int storage_active(void)
{
  int on = mpisw_active && mpisw_active();
  if (!on && rank == 0)
    fprintf(stderr, "%s: libmpisw is not active (MPISW_DISABLE=1, or not loaded): the storage "
            "hints are ignored and the windows are memory; checking the MPI results only\n",
            example_name);
  return on;
}

/* The examples set MPI_ERRORS_RETURN, so MPI calls report errors here. */
static inline void check_mpi(int rc, const char *what)
{
  if (rc == MPI_SUCCESS)
    return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  fprintf(stderr, "%s: rank %d: %s failed: %s\n", example_name, rank, what, msg);
  cleanup_dir();
  MPI_Abort(MPI_COMM_WORLD, 2);
}

/* Collective: the verdict of all ranks, printed by rank 0; the exit status. */
static inline int example_result(void)
{
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  cleanup_dir();
  if (rank == 0)
    printf("%s: %s\n", example_name, total ? "FAILED" : "ok");
  return total ? 1 : 0;
}

#endif
