/* The figures of pooled files for MPISW_REPORT=1: each closed file's bytes
 * written and read, operations and time in I/O, summed per name; rank 0
 * prints one line per name over all ranks, and the pool's peak use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfile/internal.h"

#define NAME_MAX_SHOWN 200

struct record {
  char name[NAME_MAX_SHOWN];
  double written, read, seconds;
  long ops;
};

static struct record *records;
static int nrecords, caprecords;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* A closed file's figures, added to its name's record. */
void mpisw_pfile_note_stats(struct mpisw_pfile *f) {
  pthread_mutex_lock(&mu);
  int i = 0;
  while (i < nrecords && strncmp(records[i].name, f->shown, NAME_MAX_SHOWN - 1)) i++;
  if (i == nrecords) {
    if (nrecords == caprecords) {
      int cap = caprecords ? 2 * caprecords : 16;
      struct record *r = realloc(records, sizeof *r * (size_t)cap);
      if (!r) {
        pthread_mutex_unlock(&mu);
        return;
      }
      records = r;
      caprecords = cap;
    }
    memset(&records[i], 0, sizeof records[i]);
    snprintf(records[i].name, NAME_MAX_SHOWN, "%s", f->shown);
    nrecords++;
  }
  records[i].written += f->st.bytes_written;
  records[i].read += f->st.bytes_read;
  records[i].seconds += f->st.seconds;
  records[i].ops += f->st.ops;
  pthread_mutex_unlock(&mu);
}

/* Rank 0 gathers every rank's records and prints one line per name. */
void mpisw_pfile_report_stats(int pool_seen, uint64_t pool_peak) {
  int rank = 0, total = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  struct record *all = mpisw_report_gather(records, nrecords, sizeof *all, &total);
  uint64_t peak_all = 0;
  unsigned long long p = pool_peak, pa = 0;
  PMPI_Reduce(&p, &pa, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  peak_all = pa;
  if (rank == 0 && all) {
    char b1[32], b2[32], b3[32];
    for (int i = 0; i < total; i++) {
      if (!all[i].name[0]) continue;
      struct record sum = all[i];
      for (int j = i + 1; j < total; j++)
        if (!strcmp(all[j].name, sum.name)) {
          sum.written += all[j].written;
          sum.read += all[j].read;
          sum.ops += all[j].ops;
          if (all[j].seconds > sum.seconds) sum.seconds = all[j].seconds;
          all[j].name[0] = 0;
        }
      fprintf(stderr,
              "mpisw:   pooled file %s: %s written, %s read, %ld operations, %.3f s in I/O "
              "(slowest rank)\n",
              sum.name, mpisw_format_bytes(sum.written, b1, sizeof b1),
              mpisw_format_bytes(sum.read, b2, sizeof b2), sum.ops, sum.seconds);
    }
    if (pool_seen)
      fprintf(stderr, "mpisw:   pool: peak use %s\n",
              mpisw_format_bytes((double)peak_all, b3, sizeof b3));
  }
  free(all);
}
