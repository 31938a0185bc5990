#include "core/warn.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static FILE *warn_stream;

void mpisw_set_warn_stream(FILE *f) { warn_stream = f; }

FILE *mpisw_warn_stream(void) { return warn_stream ? warn_stream : stderr; }

int mpisw_config_speaker(void) {
  const char *names[] = {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID", NULL};
  for (int i = 0; names[i]; i++) {
    const char *v = getenv(names[i]);
    if (v && *v) return strcmp(v, "0") == 0;
  }
  return 1;
}

void mpisw_warn(const char *fmt, ...) {
  if (!mpisw_config_speaker()) return;
  FILE *f = mpisw_warn_stream();
  char text[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  fprintf(f, "mpisw: %s\n", text);
  fflush(f);
}
