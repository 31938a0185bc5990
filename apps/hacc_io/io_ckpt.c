/* The checkpoint API (mpisw_ckpt_*, docs/CHECKPOINTS.md): a set named "hacc"
 * whose LOCAL level is the directory PATH.ckpt.d protects a small record of
 * what was written (struct meta) and the 9 particle arrays of each rank; a
 * checkpoint is mpisw_ckpt_take (durable when it returns), a restart
 * mpisw_ckpt_restart. The images are the API's own files, one per rank and
 * slot (PATH.ckpt.d/hacc.r<rank>.s<slot>.ckpt), not the shared file: the
 * API's layout, checksums and incremental writes, with the same particles.
 * A restart needs the rank count and particle count of the checkpoint. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpisw.h>

#include "hacc_io.h"

#define SET_NAME "hacc"

struct meta { /* the first protected region */
  char magic[8];
  uint64_t total, first, n;
  uint32_t ranks, step;
  char pad[24];
};

static mpisw_ckpt *set;  /* one set per job, made at the first use */
static struct meta meta;
static char dir[4096];

static int open_set(const struct hacc_options *o, struct hacc_particles *pt, char *why,
                    size_t n) {
  if (set) return 0;
  snprintf(dir, sizeof dir, "%s.ckpt.d", o->path);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "ckpt_local", dir);
  int err = mpisw_ckpt_create(SET_NAME, MPI_COMM_WORLD, info, &set);
  MPI_Info_free(&info);
  if (err != MPI_SUCCESS) {
    hacc_mpi_why(err, "cannot make the checkpoint set", why, n);
    set = NULL;
    return HACC_IO_ERROR;
  }
  err = mpisw_ckpt_protect_mem(set, &meta, sizeof meta);
  for (int a = 0; a < HACC_ARRAYS && err == MPI_SUCCESS; a++)
    err = mpisw_ckpt_protect_mem(set, pt->array[a], pt->n * hacc_array_size[a]);
  if (err != MPI_SUCCESS) {
    hacc_mpi_why(err, "cannot protect the particle arrays", why, n);
    return HACC_IO_ERROR;
  }
  return 0;
}

int hacc_ckpt_checkpoint(const struct hacc_options *o, struct hacc_particles *pt, int step,
                         struct hacc_io_result *res) {
  int rc = hacc_agree(open_set(o, pt, res->why, sizeof res->why));
  if (rc) return rc;
  memcpy(meta.magic, HACC_MAGIC, 8);
  meta.total = o->particles, meta.first = pt->first, meta.n = pt->n;
  meta.ranks = (uint32_t)hacc_nranks(), meta.step = (uint32_t)step;
  int v, err = mpisw_ckpt_take(set, &v);
  if (err != MPI_SUCCESS) {
    hacc_mpi_why(err, "mpisw_ckpt_take failed", res->why, sizeof res->why);
    return HACC_IO_ERROR;
  }
  return 0;
}

int hacc_ckpt_restart(const struct hacc_options *o, struct hacc_particles *pt, int *step,
                      struct hacc_io_result *res) {
  int rc = hacc_agree(open_set(o, pt, res->why, sizeof res->why));
  if (rc) return rc;
  memset(&meta, 0, sizeof meta);
  int v, err = mpisw_ckpt_restart(set, &v);
  if (err != MPI_SUCCESS) {
    /* Regions of other sizes: a checkpoint of another particle count. */
    hacc_mpi_why(err, "mpisw_ckpt_restart failed (a checkpoint of another particle or rank "
                 "count?)", res->why, sizeof res->why);
    return HACC_BAD_FILE;
  }
  if (v < 0) {
    snprintf(res->why, sizeof res->why, "no complete checkpoint of %llu particles on %d "
             "ranks in %s", (unsigned long long)o->particles, hacc_nranks(), dir);
    return HACC_BAD_FILE;
  }
  if (memcmp(meta.magic, HACC_MAGIC, 8) || meta.total != o->particles ||
      meta.first != pt->first || meta.n != pt->n || (int)meta.ranks != hacc_nranks()) {
    snprintf(res->why, sizeof res->why, "version %d holds another run's particles "
             "(%llu on %u ranks)", v, (unsigned long long)meta.total, meta.ranks);
    return HACC_BAD_FILE;
  }
  *step = (int)meta.step;
  return 0;
}

/* Each rank's own images: dropped from the page cache, or removed. */
static void each_image(int drop) {
  char prefix[64];
  snprintf(prefix, sizeof prefix, SET_NAME ".r%d.", hacc_rank());
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strncmp(e->d_name, prefix, strlen(prefix))) continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (drop) hacc_cache_drop(path, 0, 0);
    else unlink(path);
  }
  closedir(d);
}

void hacc_ckpt_drop_cache(void) { each_image(1); }

void hacc_ckpt_remove(const struct hacc_options *o) {
  (void)o;
  if (set) mpisw_ckpt_free(&set);
  set = NULL;
  each_image(0);
  MPI_Barrier(MPI_COMM_WORLD);
  if (hacc_rank() == 0) rmdir(dir);
}

void hacc_ckpt_close(void) {
  if (set) mpisw_ckpt_free(&set);
  set = NULL;
}
