/* MPI_Init / MPI_Init_thread / MPI_Finalize: check that the process runs
 * the MPI this library was built for, let the modules work around the MPI's
 * bugs before it starts and set up after; at the end, the modules sync and
 * release before the MPI finalizes, and MPISW_REPORT's summary. */
#include "dispatch/dispatch.h"
#include "process/process.h"

int mpisw_do_Init(int *argc, char ***argv) {
  mpisw_identity_check();
  mpisw_modules_before_init();
  int rc = mpisw_next.Init(argc, argv);
  if (rc != MPI_SUCCESS) return rc;
  mpisw_modules_after_init();
  mpisw_report_init(); /* says "disabled" when it is */
  return rc;
}

int mpisw_do_Init_thread(int *argc, char ***argv, int required, int *provided) {
  mpisw_identity_check();
  mpisw_modules_before_init();
  int rc = mpisw_next.Init_thread(argc, argv, required, provided);
  if (rc != MPI_SUCCESS) return rc;
  mpisw_modules_after_init();
  mpisw_report_init();
  return rc;
}

int mpisw_do_Finalize(void) {
  mpisw_modules_before_finalize();
  if (!mpisw_disabled) mpisw_report_finalize(); /* counts what was not freed */
  if (!mpisw_disabled && mpisw_report_enabled()) mpisw_modules_report();
  return mpisw_next.Finalize();
}
