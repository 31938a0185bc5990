/* Staging's module (src/ckpt/stage_module.c) in a real MPI job: drains
 * queued just before MPI_Finalize are complete when it returns (byte-exact,
 * none pending), and with MPISW_REPORT=1 the summary has the staging line;
 * a drain that failed is said at MPI_Finalize. Linked with libmpisw.a: the
 * drain engine's calls are internal.
 *   t_stage finalize   8 copies of 4 MiB per rank queued, then MPI_Finalize
 *   t_stage report     the same plus one copy of a missing file per rank */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt/stage.h"

#define NFILES 8
#define FSIZE (4u << 20)

static void fill(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)((i * 131 + seed * 7) ^ (i >> 12));
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "finalize";
  int report = !strcmp(mode, "report");
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char dir[256];
  snprintf(dir, sizeof dir, "/tmp/mpisw-t-stage-%d", (int)getpid());
  if (mkdir(dir, 0700) != 0) {
    perror(dir);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  unsigned char *buf = malloc(FSIZE), *back = malloc(FSIZE);
  struct mpisw_error e;
  for (int i = 0; i < NFILES; i++) {
    char src[512], dst[512];
    snprintf(src, sizeof src, "%s/local%d", dir, i);
    snprintf(dst, sizeof dst, "%s/pfs/img%d", dir, i);
    fill(buf, FSIZE, (unsigned)(rank * 100 + i));
    FILE *f = fopen(src, "wb");
    if (!f || fwrite(buf, 1, FSIZE, f) != FSIZE || fclose(f) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
    mpisw_stage_ticket t;
    if (mpisw_stage_submit(src, dst, &t, &e)) {
      fprintf(stderr, "rank %d: submit: %s\n", rank, e.msg);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  if (report) {
    char src[512], dst[512];
    mpisw_stage_ticket t;
    snprintf(src, sizeof src, "%s/missing", dir);
    snprintf(dst, sizeof dst, "%s/pfs/missing", dir);
    if (mpisw_stage_submit(src, dst, &t, &e)) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize(); /* must wait for the drains */
  struct mpisw_stage_stats s;
  mpisw_stage_stats(&s);
  int bad = 0;
  if (s.pending != 0 || s.done != NFILES) {
    fprintf(stderr, "rank %d: after MPI_Finalize: %llu drains pending, %llu done (want 0, %d)\n",
            rank, (unsigned long long)s.pending, (unsigned long long)s.done, NFILES);
    bad = 1;
  }
  for (int i = 0; i < NFILES; i++) {
    char dst[512];
    snprintf(dst, sizeof dst, "%s/pfs/img%d", dir, i);
    fill(buf, FSIZE, (unsigned)(rank * 100 + i));
    FILE *f = fopen(dst, "rb");
    size_t got = f ? fread(back, 1, FSIZE, f) : 0;
    if (f) fclose(f);
    if (got != FSIZE || memcmp(buf, back, FSIZE) != 0) {
      fprintf(stderr, "rank %d: %s is not complete after MPI_Finalize\n", rank, dst);
      bad = 1;
    }
  }
  if (mpisw_stage_submit(dir, dir, &(mpisw_stage_ticket){0}, &e) == 0 || e.kind != MPISW_K_USAGE) {
    fprintf(stderr, "rank %d: a submit after MPI_Finalize was not refused\n", rank);
    bad = 1;
  }
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) bad = 1;
  free(buf), free(back);
  if (!bad) printf("rank %d: OK\n", rank);
  return bad;
}
