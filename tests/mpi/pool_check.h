/* Checks of the pool's calls in tests linked with the static library: each
 * test file defines `static struct mpisw_error e;`, which the calls fill. */
#ifndef MPISW_TEST_POOL_CHECK_H
#define MPISW_TEST_POOL_CHECK_H

#include "testlib.h"

#define OK(call)                                                                   \
  do {                                                                             \
    int rc_ = (call);                                                              \
    CHECK(rc_ == MPISW_POOL_OK, "%s returned %d: %s", #call, rc_, e.msg);          \
  } while (0)

#endif
