/*
 * checkpoint: decoupled checkpoints on storage windows, then a restart.
 *
 * Each rank keeps its state in a window on storage. To take a checkpoint it
 * locks its own window exclusively (MPI_Win_lock(MPI_LOCK_EXCLUSIVE, myrank)),
 * updates the state and a small header (step number and checksum), calls
 * MPI_Win_sync, which returns when the file holds the data, and unlocks.
 * While it holds the lock no other rank can read a half-written state, so no
 * global MPI_Barrier is needed: between checkpoints every rank reads its
 * neighbour's state with MPI_Get and checks that it is consistent.
 *
 * Restart: the window is freed (the file stays: storage_alloc_unlink=false),
 * and a new window on the same file sees the last checkpoint. The second
 * window removes the file when it is freed.
 *
 * Run: mpiexec -n 2 ./checkpoint      (any number of ranks)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "example_util.h" /* rank, dir, CHECK, check_mpi, ... */

#define COUNT 8192 /* doubles of state per rank: 64 KiB */
#define STEPS 3
#define MAGIC UINT64_C(0x6d70697377636b70) /* "mpiswckp" */

struct header {
  uint64_t magic, step, count, checksum;
};

static double state_value(int owner, uint64_t step, int i)
{
  return owner * 1000.0 + (double)step + i * 0.5;
}

/* FNV-1a over the state and the step number. */
static uint64_t checksum(const double *data, uint64_t count, uint64_t step)
{
  uint64_t h = UINT64_C(1469598103934665603) ^ step;
  const unsigned char *p = (const unsigned char *)data;
  for (size_t i = 0; i < count * sizeof(double); i++) {
    h ^= p[i];
    h *= UINT64_C(1099511628211);
  }
  return h;
}

/* A state is consistent when its checksum matches: no half-written checkpoint. */
static int consistent(const struct header *h, const double *data)
{
  return h->magic == MAGIC && h->count == COUNT && h->checksum == checksum(data, COUNT, h->step);
}

static MPI_Win allocate(const char *filename, const char *unlink_hint, void *baseptr)
{
  MPI_Info info;
  MPI_Win win;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_type", "storage");
  MPI_Info_set(info, "storage_alloc_filename", filename);
  MPI_Info_set(info, "storage_alloc_unlink", unlink_hint);
  check_mpi(MPI_Win_allocate(sizeof(struct header) + COUNT * sizeof(double), 1, info,
                             MPI_COMM_WORLD, baseptr, &win),
            "MPI_Win_allocate");
  MPI_Info_free(&info);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  return win;
}

int main(int argc, char **argv)
{
  int size;
  example_name = "checkpoint";
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* A fresh directory for the checkpoint files, shared by all ranks. */
  make_scratch_dir("mpisw-ckpt");
  char pattern[512], mine[512];
  snprintf(pattern, sizeof pattern, "%s/state-%%r.ckpt", dir);
  snprintf(mine, sizeof mine, "%s/state-%d.ckpt", dir, rank);

  /* ---- run: STEPS checkpoints ---- */
  unsigned char *base = NULL;
  MPI_Win win = allocate(pattern, "false", &base);
  const int storage = storage_active(); /* without it: memory, nothing to restart from */
  struct header *hdr = (struct header *)base;
  double *state = (double *)(base + sizeof(struct header));

  const int next = (rank + 1) % size;
  const size_t bytes = sizeof(struct header) + COUNT * sizeof(double);
  unsigned char *peer = malloc(bytes);
  for (uint64_t step = 1; step <= STEPS; step++) {
    /* Checkpoint: exclusive lock on my own window, update, sync, unlock. */
    check_mpi(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win), "MPI_Win_lock");
    for (int i = 0; i < COUNT; i++)
      state[i] = state_value(rank, step, i);
    hdr->magic = MAGIC;
    hdr->step = step;
    hdr->count = COUNT;
    hdr->checksum = checksum(state, COUNT, step);
    double t0 = MPI_Wtime();
    check_mpi(MPI_Win_sync(win), "MPI_Win_sync");
    double t1 = MPI_Wtime();
    check_mpi(MPI_Win_unlock(rank, win), "MPI_Win_unlock");
    printf("rank %d: step %llu checkpointed: MPI_Win_sync under my exclusive lock took %.3f ms\n",
           rank, (unsigned long long)step, (t1 - t0) * 1e3);

    /* Meanwhile the neighbour's state is readable, and never half-written. */
    check_mpi(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win), "MPI_Win_lock");
    check_mpi(MPI_Get(peer, (int)bytes, MPI_BYTE, next, 0, (int)bytes, MPI_BYTE, win), "MPI_Get");
    check_mpi(MPI_Win_unlock(next, win), "MPI_Win_unlock");
    const struct header *ph = (const struct header *)peer;
    if (ph->magic != 0) /* 0: the neighbour has not taken its first checkpoint */
      CHECK(consistent(ph, (const double *)(peer + sizeof(struct header))),
            "rank %d's state read at its step %llu is inconsistent", next,
            (unsigned long long)ph->step);
  }
  free(peer);
  fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);

  /* The file already holds the last checkpoint. */
  struct header on_disk;
  memset(&on_disk, 0, sizeof on_disk);
  int fd = storage ? open(mine, O_RDONLY) : -1;
  CHECK(!storage || fd >= 0, "open %s: %s", mine, strerror(errno));
  if (fd >= 0) {
    CHECK(pread(fd, &on_disk, sizeof on_disk, 0) == (ssize_t)sizeof on_disk, "short read");
    close(fd);
  }
  CHECK(!storage || (on_disk.magic == MAGIC && on_disk.step == STEPS),
        "the file %s holds step %llu, not %d", mine, (unsigned long long)on_disk.step, STEPS);

  /* ---- restart: a new window on the same file ---- */
  check_mpi(MPI_Win_free(&win), "MPI_Win_free");
  struct stat st;
  CHECK(!storage || stat(mine, &st) == 0,
        "%s was removed at MPI_Win_free (storage_alloc_unlink=false)", mine);

  base = NULL;
  win = allocate(pattern, "true", &base);
  hdr = (struct header *)base;
  state = (double *)(base + sizeof(struct header));
  check_mpi(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win), "MPI_Win_lock");
  int ok = consistent(hdr, state) && hdr->step == STEPS;
  CHECK(ok || !storage, "after restart the window holds no consistent checkpoint of step %d "
            "(magic %llx, step %llu)",
        STEPS, (unsigned long long)hdr->magic, (unsigned long long)hdr->step);
  int bad = 0;
  for (int i = 0; i < COUNT && storage; i++)
    if (state[i] != state_value(rank, STEPS, i))
      bad++;
  CHECK(bad == 0, "after restart %d of %d values are wrong", bad, COUNT);
  check_mpi(MPI_Win_unlock(rank, win), "MPI_Win_unlock");
  if (storage)
    printf("rank %d: restarted from %s: step %llu, %d values verified\n", rank, mine,
           (unsigned long long)hdr->step, COUNT - bad);
  else
    printf("rank %d: no restart: the window was memory\n", rank);
  fflush(stdout);

  check_mpi(MPI_Win_free(&win), "MPI_Win_free");
  CHECK(stat(mine, &st) != 0, "%s still exists after MPI_Win_free (storage_alloc_unlink=true)",
        mine);

  int status = example_result(); /* collective: all ranks' failures */
  MPI_Finalize();
  return status;
}
