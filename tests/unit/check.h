/* Minimal checks for the MPI-free unit tests: count, report, exit status. */
#ifndef MPISW_UNIT_CHECK_H
#define MPISW_UNIT_CHECK_H
#include <stdio.h>

static int checks_failed, checks_run;

#define CHECK(cond)                                                        \
  do {                                                                     \
    checks_run++;                                                          \
    if (!(cond)) {                                                         \
      checks_failed++;                                                     \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                      \
  } while (0)

static int check_summary(const char *name) {
  printf("%s: %d checks, %d failed\n", name, checks_run, checks_failed);
  return checks_failed ? 1 : 0;
}
#endif
