/* Info keys beyond the storage hints, checked strictly (info_keys.h). */
#include "win/info_keys.h"

#include "core/hints.h"
#include "win/internal.h"

int mpisw_info_bool(MPI_Info info, const char *key, int *out, struct mpisw_error *e) {
  char v[MPI_MAX_INFO_VAL + 1];
  if (!mpisw_info_get(info, key, v, sizeof v)) return 0;
  return mpisw_hint_bool(key, v, out, e) ? -1 : 1;
}

int mpisw_info_rma_check(MPI_Info info, struct mpisw_error *e) {
  char v[MPI_MAX_INFO_VAL + 1];
  int out;
  for (int i = 0; mpisw_rma_keys[i]; i++)
    if (mpisw_info_get(info, mpisw_rma_keys[i], v, sizeof v) &&
        mpisw_rma_key_parse(mpisw_rma_keys[i], v, &out, e))
      return -1;
  return 0;
}

int mpisw_win_keys_agree(const char *routine, MPI_Info info, MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return MPI_SUCCESS; /* the MPI's own error follows */
  struct mpisw_error e;
  int failed = mpisw_info_rma_check(info, &e) != 0;
  if (mpisw_agree(comm, failed, &e, NULL))
    return mpisw_raise_comm(comm, mpisw_error_code(routine, &e));
  return MPI_SUCCESS;
}
