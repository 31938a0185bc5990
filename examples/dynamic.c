/*
 * dynamic: storage memory from MPI_Alloc_mem, attached to a dynamic window.
 *
 * MPI_Alloc_mem takes the same hints as MPI_Win_allocate, so the memory it
 * returns can be a mapping of a file. That memory is attached to a window
 * made with MPI_Win_create_dynamic; every rank puts into the next rank's
 * attached memory, and the target calls MPI_Win_sync on the dynamic window,
 * which makes the attached storage durable. MPI_Free_mem removes the file
 * (storage_alloc_unlink=true).
 *
 * Run: mpiexec -n 2 ./dynamic      (any number of ranks: a ring)
 * Exit status 0 when every rank received its neighbour's data, in memory and
 * in its file.
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

#define COUNT 16384 /* integers: 64 KiB per rank */

static int value(int sender, int i) { return sender * 1000000 + i; }

int main(int argc, char **argv)
{
  int size;
  example_name = "dynamic";
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* A fresh directory for the files, shared by all ranks. */
  make_scratch_dir("mpisw-dynamic");

  /* Storage memory: a file per rank, removed by MPI_Free_mem. */
  char filename[512];
  snprintf(filename, sizeof filename, "%s/attached-%d.dat", dir, rank);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_type", "storage");
  MPI_Info_set(info, "storage_alloc_filename", filename);
  MPI_Info_set(info, "storage_alloc_unlink", "true");
  int *buf = NULL;
  check_mpi(MPI_Alloc_mem(COUNT * sizeof(int), info, &buf), "MPI_Alloc_mem");
  MPI_Info_free(&info);
  for (int i = 0; i < COUNT; i++)
    buf[i] = -1;

  const int storage = storage_active();
  struct stat st;
  CHECK(!storage || stat(filename, &st) == 0, "MPI_Alloc_mem made no file %s", filename);

  MPI_Win win;
  check_mpi(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win),
            "MPI_Win_create_dynamic");
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  check_mpi(MPI_Win_attach(win, buf, COUNT * sizeof(int)), "MPI_Win_attach");

  /* Dynamic windows address remote memory by absolute address. */
  MPI_Aint mine, *addr = malloc(size * sizeof(MPI_Aint));
  MPI_Get_address(buf, &mine);
  MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);

  int to = (rank + 1) % size, from = (rank + size - 1) % size;
  int *src = malloc(COUNT * sizeof(int));
  for (int i = 0; i < COUNT; i++)
    src[i] = value(rank, i);
  check_mpi(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, to, 0, win), "MPI_Win_lock");
  check_mpi(MPI_Put(src, COUNT, MPI_INT, to, addr[to], COUNT, MPI_INT, win), "MPI_Put");
  check_mpi(MPI_Win_unlock(to, win), "MPI_Win_unlock");
  free(src);
  MPI_Barrier(MPI_COMM_WORLD);

  /* The target makes the attached storage durable and checks it. */
  check_mpi(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win), "MPI_Win_lock");
  check_mpi(MPI_Win_sync(win), "MPI_Win_sync");
  int bad = 0;
  for (int i = 0; i < COUNT; i++)
    if (buf[i] != value(from, i))
      bad++;
  CHECK(bad == 0, "%d of %d integers from rank %d are wrong", bad, COUNT, from);
  int *file = malloc(COUNT * sizeof(int));
  int fd = storage ? open(filename, O_RDONLY) : -1;
  CHECK(!storage || fd >= 0, "open %s: %s", filename, strerror(errno));
  if (fd >= 0) {
    ssize_t n = pread(fd, file, COUNT * sizeof(int), 0);
    CHECK(n == (ssize_t)(COUNT * sizeof(int)), "short read from %s", filename);
    if (n == (ssize_t)(COUNT * sizeof(int)))
      CHECK(memcmp(file, buf, COUNT * sizeof(int)) == 0, "the file %s differs from the memory",
            filename);
    close(fd);
  }
  free(file);
  check_mpi(MPI_Win_unlock(rank, win), "MPI_Win_unlock");
  printf("rank %d: rank %d put %d integers into my attached storage memory (%d ... %d), "
         "synced to %s\n",
         rank, from, COUNT, buf[0], buf[COUNT - 1], storage ? filename : "(memory)");
  fflush(stdout);

  MPI_Barrier(MPI_COMM_WORLD); /* nobody accesses the memory any more */
  check_mpi(MPI_Win_detach(win, buf), "MPI_Win_detach");
  check_mpi(MPI_Win_free(&win), "MPI_Win_free");
  check_mpi(MPI_Free_mem(buf), "MPI_Free_mem");
  CHECK(stat(filename, &st) != 0, "%s still exists after MPI_Free_mem", filename);
  free(addr);

  int status = example_result(); /* collective: all ranks' failures */
  MPI_Finalize();
  return status;
}
