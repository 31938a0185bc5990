/* Effective hints of one call: MPISW_HINTS supplies what MPI_Info does not. */
#include <string.h>

#include "win/internal.h"

int mpisw_info_get(MPI_Info info, const char *key, char *value, int len) {
  int flag = 0;
  if (info == MPI_INFO_NULL) return 0;
  if (PMPI_Info_get(info, (char *)key, len - 1, value, &flag) != MPI_SUCCESS) return 0;
  if (flag) value[len - 1] = 0;
  return flag;
}

static int set_in_info(const char *key, void *arg) {
  char v[8];
  return mpisw_info_get(*(MPI_Info *)arg, key, v, sizeof v);
}

int mpisw_hints_from_info(MPI_Info info, struct mpisw_hints *h, struct mpisw_error *e) {
  static __thread char buf[MPISW_PATH_MAX + 1];
  mpisw_hints_init(h);
  const char *env = mpisw_env_hints();
  if (env && mpisw_hints_parse_env(h, env, set_in_info, &info, e)) return -1;
  for (int i = 0; mpisw_hint_keys[i]; i++)
    if (mpisw_info_get(info, mpisw_hint_keys[i], buf, sizeof buf) &&
        mpisw_hints_set(h, mpisw_hint_keys[i], buf, e))
      return -1;
  return mpisw_hints_check(h, e);
}
