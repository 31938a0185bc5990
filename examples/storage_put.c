/*
 * storage_put: even ranks write into the storage windows of odd ranks.
 *
 * The shape of the first listing of "MPI Windows on Storage for HPC
 * Applications" (Rivas-Gomez et al.; README, Sources): every rank allocates
 * an MPI window on storage through three MPI_Info hints, even rank r puts a
 * block of integers into the window of rank r+1 inside a passive-target epoch
 * (MPI_Win_lock / MPI_Win_unlock), and each odd rank then calls MPI_Win_sync,
 * which returns when the window's file holds what is in memory.
 *
 * The files live in a fresh directory under $TMPDIR (or /tmp); the hint
 * storage_alloc_unlink=true removes each file at MPI_Win_free.
 *
 * Run: mpiexec -n 2 ./storage_put      (any even or odd number of ranks)
 * Exit status 0 when every odd rank received exactly what was sent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "example_util.h" /* rank, dir, CHECK, check_mpi, ... */

#define COUNT 16384 /* integers per window: 64 KiB */

static int value(int sender, int i) { return sender * 1000000 + i; }

int main(int argc, char **argv)
{
  int size;
  example_name = "storage_put";
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* Rank 0 makes a private directory for the window files. */
  make_scratch_dir("mpisw-put");

  /* The hints that put the window on storage. %r becomes the rank. */
  char filename[512];
  snprintf(filename, sizeof filename, "%s/window-%%r.dat", dir);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_type", "storage");
  MPI_Info_set(info, "storage_alloc_filename", filename);
  MPI_Info_set(info, "storage_alloc_offset", "0");
  MPI_Info_set(info, "storage_alloc_unlink", "true");

  int *base = NULL;
  MPI_Win win;
  check_mpi(MPI_Win_allocate(COUNT * sizeof(int), sizeof(int), info, MPI_COMM_WORLD,
                             &base, &win),
            "MPI_Win_allocate");
  MPI_Info_free(&info);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

  /* The file actually used, as the library reports it. */
  char used[MPI_MAX_INFO_VAL + 1] = "";
  MPI_Info got;
  int flag = 0;
  check_mpi(MPI_Win_get_info(win, &got), "MPI_Win_get_info");
  MPI_Info_get(got, "storage_alloc_filename", MPI_MAX_INFO_VAL, used, &flag);
  MPI_Info_free(&got);
  const int storage = storage_active();
  if (!storage)
    used[0] = '\0'; /* no file: whatever the MPI says about an unknown key */
  CHECK(!storage || (flag && used[0]), "MPI_Win_get_info has no storage_alloc_filename");

  /* Even ranks write into the window of the next (odd) rank. */
  if (rank % 2 == 0 && rank + 1 < size) {
    int *src = malloc(COUNT * sizeof(int));
    for (int i = 0; i < COUNT; i++)
      src[i] = value(rank, i);
    check_mpi(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank + 1, 0, win), "MPI_Win_lock");
    check_mpi(MPI_Put(src, COUNT, MPI_INT, rank + 1, 0, COUNT, MPI_INT, win), "MPI_Put");
    check_mpi(MPI_Win_unlock(rank + 1, win), "MPI_Win_unlock");
    free(src);
    printf("rank %d: put %d integers into the storage window of rank %d\n", rank, COUNT,
           rank + 1);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  /* Odd ranks: make the received data durable, then check memory and file. */
  if (rank % 2 == 1) {
    check_mpi(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win), "MPI_Win_lock");
    check_mpi(MPI_Win_sync(win), "MPI_Win_sync");
    int bad = 0;
    for (int i = 0; i < COUNT; i++)
      if (base[i] != value(rank - 1, i))
        bad++;
    check_mpi(MPI_Win_unlock(rank, win), "MPI_Win_unlock");
    CHECK(bad == 0, "%d of %d integers in the window are wrong", bad, COUNT);

    int *file = malloc(COUNT * sizeof(int));
    int fd = storage ? open(used, O_RDONLY) : -1;
    CHECK(!storage || fd >= 0, "open %s: %s", used, strerror(errno));
    if (fd >= 0) {
      ssize_t n = pread(fd, file, COUNT * sizeof(int), 0);
      CHECK(n == (ssize_t)(COUNT * sizeof(int)), "short read from %s", used);
      if (n == (ssize_t)(COUNT * sizeof(int)))
        CHECK(memcmp(file, base, COUNT * sizeof(int)) == 0,
              "the file %s differs from the window", used);
      close(fd);
    }
    free(file);
    printf("rank %d: received %d integers from rank %d (%d ... %d), synced to %s\n", rank,
           COUNT, rank - 1, base[0], base[COUNT - 1], storage ? used : "(memory)");
  }
  fflush(stdout);

  check_mpi(MPI_Win_free(&win), "MPI_Win_free");
  /* storage_alloc_unlink=true: the file is gone. */
  struct stat st;
  CHECK(used[0] == '\0' || stat(used, &st) != 0, "%s still exists after MPI_Win_free", used);

  int status = example_result(); /* collective: all ranks' failures */
  MPI_Finalize();
  return status;
}
