/*
 * preload: an ordinary MPI program that knows nothing about mpisw.
 *
 * It allocates a window with MPI_INFO_NULL, exchanges data with MPI_Put, and
 * reports where the kernel placed the window (/proc/self/maps) and what
 * MPI_Win_get_info says about alloc_type. It is built without libmpisw; the
 * library reaches it only through LD_PRELOAD, with the placement given by
 * MPISW_HINTS:
 *
 *   mpiexec.mpich -genv LD_PRELOAD /path/libmpisw.so \
 *       -genv MPISW_HINTS "alloc_type=storage;storage_alloc_filename=/tmp" -n 2 ./preload
 *   mpiexec.openmpi -x LD_PRELOAD=/path/libmpisw.so \
 *       -x MPISW_HINTS="alloc_type=storage;storage_alloc_filename=/tmp" -n 2 ./preload
 *
 * With "--expect storage" (or "--expect memory") it exits non-zero when the
 * window is not where it should be.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "example_util.h" /* rank, CHECK, example_result */

#define COUNT 16384

/* The file name mapped at addr, "" for anonymous memory. */
static void mapping_of(const void *addr, char *path, size_t len)
{
  FILE *f = fopen("/proc/self/maps", "r");
  char line[1024];
  path[0] = '\0';
  if (!f)
    return;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi, inode;
    int pos = 0;
    if (sscanf(line, "%lx-%lx %*s %*x %*x:%*x %lu %n", &lo, &hi, &inode, &pos) < 3)
      continue;
    if ((uintptr_t)addr < lo || (uintptr_t)addr >= hi)
      continue;
    line[strcspn(line, "\n")] = '\0';
    if (inode != 0 && pos > 0)
      snprintf(path, len, "%s", line + pos);
    break;
  }
  fclose(f);
}

int main(int argc, char **argv)
{
  int size;
  const char *expect = NULL;
  example_name = "preload";
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc == 3 && strcmp(argv[1], "--expect") == 0)
    expect = argv[2];

  int *base = NULL;
  MPI_Win win;
  MPI_Win_allocate(COUNT * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                   &win);

  /* Ring: each rank writes into the next one. */
  int *src = malloc(COUNT * sizeof(int));
  for (int i = 0; i < COUNT; i++)
    src[i] = rank * 1000000 + i;
  int to = (rank + 1) % size, from = (rank + size - 1) % size;
  MPI_Win_fence(0, win);
  MPI_Put(src, COUNT, MPI_INT, to, 0, COUNT, MPI_INT, win);
  MPI_Win_fence(0, win);
  int bad = 0;
  for (int i = 0; i < COUNT; i++)
    if (base[i] != from * 1000000 + i)
      bad++;
  CHECK(bad == 0, "%d of %d integers are wrong", bad, COUNT);

  char path[512], type[MPI_MAX_INFO_VAL + 1] = "(not set)";
  mapping_of(base, path, sizeof path);
  MPI_Info info;
  int flag = 0;
  MPI_Win_get_info(win, &info);
  MPI_Info_get(info, "alloc_type", MPI_MAX_INFO_VAL, type, &flag);
  MPI_Info_free(&info);
  printf("rank %d: window of %d integers is %s; MPI_Win_get_info alloc_type = %s\n", rank,
         COUNT, path[0] ? path : "anonymous memory", type);
  fflush(stdout);

  /* Memory windows can be shared memory (/dev/shm/..., /SYSV...): not storage.
   * A window in a directory is a file without a name there: "/tmp/#123 (deleted)". */
  int on_file = path[0] == '/' && strncmp(path, "/dev/", 5) != 0 &&
                strncmp(path, "/SYSV", 5) != 0;
  if (expect && strcmp(expect, "storage") == 0)
    CHECK(on_file && !strcmp(type, "storage"), "the window is not on storage");
  if (expect && strcmp(expect, "memory") == 0)
    CHECK(strcmp(type, "storage"), "the window is on storage");

  MPI_Win_free(&win);
  free(src);
  int status = example_result(); /* collective: all ranks' failures */
  MPI_Finalize();
  return status;
}
