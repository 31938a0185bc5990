/* The two windows of a rank: local volume and overflow heap, with the hints
 * of the chosen kind, zeroed (a reused file may hold an old table). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dht.h"
#include "mpisw.h"

static void set_hints(MPI_Info info, const struct dht_options *o, const char *suffix) {
  if (o->kind == DHT_MEMORY) return;
  char file[4096];
  struct stat st;
  MPI_Info_set(info, "alloc_type", "storage");
  if (stat(o->path, &st) == 0 && S_ISDIR(st.st_mode)) {
    /* a directory: a unique new file per window, removed at free */
    MPI_Info_set(info, "storage_alloc_filename", (char *)o->path);
  } else {
    /* a file name: one per rank (%r), or the ranks would share one file */
    snprintf(file, sizeof file, strstr(o->path, "%r") ? "%s.%s" : "%s.%%r.%s", o->path,
             suffix);
    MPI_Info_set(info, "storage_alloc_filename", file);
    MPI_Info_set(info, "storage_alloc_unlink", "true");
  }
  /* The table is scratch: nothing has to reach the file at free. */
  MPI_Info_set(info, "storage_alloc_discard", "true");
  if (o->access) MPI_Info_set(info, "access_style", (char *)o->access);
  if (o->kind == DHT_AUTO) {
    MPI_Info_set(info, "storage_alloc_factor", "auto");
  } else if (o->kind == DHT_COMBINED) {
    char f[32];
    snprintf(f, sizeof f, "%.17g", o->factor);
    MPI_Info_set(info, "storage_alloc_factor", f);
    MPI_Info_set(info, "storage_alloc_order", (char *)o->order);
  }
}

/* The share on storage as the library placed it (MPI_Win_get_info). */
static uint64_t storage_part(MPI_Win win, uint64_t bytes) {
  MPI_Info info;
  char v[64];
  int flag;
  uint64_t out = 0;
  if (MPI_Win_get_info(win, &info) != MPI_SUCCESS) return 0;
  MPI_Info_get(info, "alloc_type", sizeof v - 1, v, &flag);
  if (flag && !strcmp(v, "storage")) {
    MPI_Info_get(info, "storage_alloc_factor", sizeof v - 1, v, &flag);
    double f = flag ? atof(v) : 1.0;
    out = (uint64_t)(f * (double)bytes + 0.5);
  }
  MPI_Info_free(&info);
  return out;
}

static int allocate(struct dht_window *w, uint64_t bytes, const struct dht_options *o,
                    const char *suffix, int rank) {
  MPI_Info info;
  MPI_Info_create(&info);
  set_hints(info, o, suffix);
  int rc = MPI_Win_allocate((MPI_Aint)bytes, (int)sizeof(uint64_t), info, MPI_COMM_WORLD, &w->base,
                            &w->win);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) {
    int cls, nomem;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    int over = mpisw_error_class(MPISW_ERR_NOMEM, &nomem) == MPI_SUCCESS && cls == nomem;
    char size[32];
    dht_human(size, sizeof size, (double)bytes);
    if (rank == 0)
      fprintf(stderr, "dht: allocating the %s window (%s per rank) failed: %s\n%s",
              suffix, size, msg,
              over ? "dht: over the memory budget (MPISW_MEMORY_LIMIT): nothing was "
                     "allocated past it. Use --kind auto to put the excess on storage.\n"
                   : "");
    w->win = MPI_WIN_NULL;
    return over ? DHT_OVER_BUDGET : DHT_ALLOC_ERROR;
  }
  w->bytes = bytes;
  w->storage_bytes = storage_part(w->win, bytes);
  return DHT_OK;
}

void dht_table_size(struct dht *t, const struct dht_options *o) {
  t->elements = o->elements;
  t->heap_elements = (uint64_t)(o->heap_factor * (double)o->elements);
  t->inserts_per_rank = (uint64_t)(o->fill * (double)o->elements);
}

static uint64_t volume_bytes(const struct dht *t) { return t->elements * DHT_ENTRY; }
/* Entry 0 of the heap is its allocation counter. */
static uint64_t heap_bytes(const struct dht *t) { return (t->heap_elements + 1) * DHT_ENTRY; }

uint64_t dht_table_bytes(const struct dht *t) { return volume_bytes(t) + heap_bytes(t); }

int dht_table_create(struct dht *t, const struct dht_options *o) {
  t->vol.win = t->heap.win = MPI_WIN_NULL;
  /* The volume first: with auto it gets the memory budget before the heap,
   * and it takes most of the accesses. */
  assert(t->elements > 0); /* dht_table_size first */
  int rc = allocate(&t->vol, volume_bytes(t), o, "volume", t->rank);
  if (rc == DHT_OK) rc = allocate(&t->heap, heap_bytes(t), o, "heap", t->rank);
  if (rc != DHT_OK) {
    dht_table_free(t);
    return rc;
  }
  /* Empty table: every key 0, every chain empty, heap counter 0. Local
   * stores inside a fence epoch are visible to RMA after the closing fence. */
  MPI_Win wins[2] = {t->vol.win, t->heap.win};
  for (int i = 0; i < 2; i++) MPI_Win_fence(MPI_MODE_NOPRECEDE, wins[i]);
  memset(t->vol.base, 0, t->vol.bytes);
  memset(t->heap.base, 0, DHT_ENTRY);
  for (int i = 0; i < 2; i++) MPI_Win_fence(MPI_MODE_NOSUCCEED, wins[i]);
  return DHT_OK;
}

void dht_table_free(struct dht *t) {
  if (t->heap.win != MPI_WIN_NULL) MPI_Win_free(&t->heap.win);
  if (t->vol.win != MPI_WIN_NULL) MPI_Win_free(&t->vol.win);
}
