/*
 * A program with known windows, syncs and leaks, run under MPISW_REPORT=1 by
 * tests/report/report_check.py, which parses every figure of the report.
 * Each rank (DIR: an empty directory for the storage files):
 *   memory windows    M1 1000 B (freed), M2 2000 B (not freed)
 *   storage windows   S1 4096 B, its one page written and synced once, freed
 *                     without a second sync (discard); S2 12288 B, not freed
 *                     (discard: MPI_Finalize does not sync it)
 *   MPI_Alloc_mem     5000 B in memory (freed), 3000 B in memory (not freed),
 *                     8192 B on storage (not freed, discard)
 * so the report must say, summed over NP ranks: 2 NP windows in memory, 2 NP
 * on storage, NP ranges on storage; placed 3000 NP B in memory and 24576 NP B
 * on storage; written 4096 NP B in NP syncs; not freed: 2 NP windows of
 * 14288 NP B and 2 NP MPI_Alloc_mem ranges of 11192 NP B, on NP ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(int rc, const char *what) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "FAIL t_report: %s: %s\n", what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

static MPI_Info storage_info(const char *dir) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_type", "storage");
  MPI_Info_set(info, "storage_alloc_filename", dir);
  MPI_Info_set(info, "storage_alloc_discard", "true");
  return info;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (argc != 2) {
    fprintf(stderr, "usage: t_report DIR\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Info sto = storage_info(argv[1]);
  void *base;
  MPI_Win m1, m2, s1, s2;
  check(MPI_Win_allocate(1000, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &m1), "M1");
  check(MPI_Win_free(&m1), "free M1");
  check(MPI_Win_allocate(2000, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &m2), "M2");

  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  check(MPI_Win_allocate(4096, 1, sto, MPI_COMM_WORLD, &base, &s1), "S1");
  memset(base, 1 + rank, 4096);
  check(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, s1), "lock S1");
  check(MPI_Win_sync(s1), "sync S1");
  check(MPI_Win_unlock(rank, s1), "unlock S1");
  check(MPI_Win_free(&s1), "free S1");
  check(MPI_Win_allocate(12288, 1, sto, MPI_COMM_WORLD, &base, &s2), "S2");

  void *a, *b, *c;
  check(MPI_Alloc_mem(5000, MPI_INFO_NULL, &a), "alloc 5000");
  check(MPI_Alloc_mem(3000, MPI_INFO_NULL, &b), "alloc 3000");
  check(MPI_Alloc_mem(8192, sto, &c), "alloc 8192 on storage");
  check(MPI_Free_mem(a), "free 5000");
  MPI_Info_free(&sto);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize(); /* m2, s2, b and c are left for the leak report */
  return 0;
}
