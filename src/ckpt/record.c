/* MPISW_REPORT's figures of each checkpoint set (versions, bytes written
 * and skipped, time, images rejected), kept after the set is freed, and
 * the report's line per set at MPI_Finalize. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt/internal.h"

struct record {
  char name[MPISW_CKPT_NAME_MAX];
  long versions, rejected;
  double written, skipped, seconds;
};
static struct record *records;
static int nrecords, caprecords;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

int mpisw_ckpt_record_new(const char *name) {
  pthread_mutex_lock(&mu);
  int i = -1;
  if (nrecords == caprecords) {
    int cap = caprecords ? 2 * caprecords : 8;
    void *p = realloc(records, sizeof *records * (size_t)cap);
    if (p) {
      records = p;
      caprecords = cap;
    }
  }
  if (nrecords < caprecords) {
    i = nrecords++;
    memset(&records[i], 0, sizeof records[i]);
    snprintf(records[i].name, sizeof records[i].name, "%s", name);
  }
  pthread_mutex_unlock(&mu);
  return i;
}

void mpisw_ckpt_record_take(int rec, uint64_t written, uint64_t skipped, double seconds) {
  if (rec < 0) return;
  pthread_mutex_lock(&mu);
  records[rec].versions++;
  records[rec].written += (double)written;
  records[rec].skipped += (double)skipped;
  records[rec].seconds += seconds;
  pthread_mutex_unlock(&mu);
}

void mpisw_ckpt_record_rejected(int rec) {
  if (rec < 0) return;
  pthread_mutex_lock(&mu);
  records[rec].rejected++;
  pthread_mutex_unlock(&mu);
}

/* Sets are collective, so every rank has the same ones; rank 0 sums them
 * by name (versions: the most any rank took; time: the slowest rank). */
void mpisw_ckpt_report(void) {
  int rank = 0, total = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  struct record *all = mpisw_report_gather(records, nrecords, sizeof *all, &total);
  if (rank == 0 && all) {
    for (int i = 0; i < total; i++) {
      if (!all[i].name[0]) continue;
      struct record s = all[i];
      for (int j = i + 1; j < total; j++)
        if (!strcmp(all[j].name, s.name)) {
          if (all[j].versions > s.versions) s.versions = all[j].versions;
          if (all[j].seconds > s.seconds) s.seconds = all[j].seconds;
          s.written += all[j].written;
          s.skipped += all[j].skipped;
          s.rejected += all[j].rejected;
          all[j].name[0] = 0;
        }
      char b1[32], b2[32];
      double whole = s.written + s.skipped;
      fprintf(stderr,
              "mpisw:   checkpoint %s: %ld versions, %s written, %s unchanged not written "
              "(incremental saved %.0f%%), %.3f s writing (slowest rank), %ld images rejected "
              "at restart\n",
              s.name, s.versions, mpisw_format_bytes(s.written, b1, sizeof b1),
              mpisw_format_bytes(s.skipped, b2, sizeof b2),
              whole > 0 ? 100.0 * s.skipped / whole : 0.0, s.seconds, s.rejected);
    }
  }
  free(all);
}
