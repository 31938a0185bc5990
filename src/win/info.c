/* What a window reports about itself: MPI_Win_get_info shows the effective
 * placement; MPI_WIN_CREATE_FLAVOR shows the flavor the user asked for,
 * not the MPI_Win_create that mpisw used underneath. */
#include <stdio.h>
#include <string.h>

#include "win/internal.h"

static void set(MPI_Info info, const char *key, const char *value) {
  PMPI_Info_set(info, (char *)key, (char *)value);
}

static void put_placement(MPI_Info info, const struct mpisw_place *p) {
  char buf[64];
  const struct mpisw_layout *l = &p->region.l;
  int on_storage = p->h.storage && l->sto_len > 0;
  set(info, "alloc_type", on_storage ? "storage" : "memory");
  if (!p->h.storage) return;
  if (p->file.path[0]) set(info, "storage_alloc_filename", p->file.path);
  snprintf(buf, sizeof buf, "%llu", (unsigned long long)p->h.offset);
  set(info, "storage_alloc_offset", buf);
  snprintf(buf, sizeof buf, "%.6g", p->factor);
  set(info, "storage_alloc_factor", buf);
  set(info, "storage_alloc_order", p->h.storage_first ? "storage_first" : "memory_first");
  set(info, "storage_alloc_unlink", p->remove_at_free ? "true" : "false");
  set(info, "storage_alloc_discard", p->h.discard ? "true" : "false");
  snprintf(buf, sizeof buf, "%04o", p->h.file_perm >= 0 ? p->h.file_perm : 0600);
  set(info, "file_perm", buf);
  if (p->h.access) {
    mpisw_access_format(p->h.access, buf, sizeof buf);
    set(info, "access_style", buf);
  }
  set(info, "storage_backend", p->pager ? "pager" : "mmap");
  if (!p->pager && p->backend_why[0]) set(info, "storage_backend_reason", p->backend_why);
  set(info, "storage_sync", p->atomic ? "atomic" : "plain");
  set(info, "storage_sync_scope", p->h.sync_remote ? "remote" : "local");
  if (p->pager) {
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)p->pager_memory);
    set(info, "storage_pager_memory", buf);
  }
  if (p->h.striping_factor) {
    snprintf(buf, sizeof buf, "%ld", p->h.striping_factor);
    set(info, "striping_factor", buf);
  }
  if (p->h.striping_unit) {
    snprintf(buf, sizeof buf, "%ld", p->h.striping_unit);
    set(info, "striping_unit", buf);
  }
}

int mpisw_win_get_info(MPI_Win win, MPI_Info *info_used) {
  int rc = mpisw_next.Win_get_info(win, info_used);
  if (rc != MPI_SUCCESS) return rc;
  struct mpisw_win *w = mpisw_win_lookup(win);
  if (!w) return MPI_SUCCESS;
  if (w->kind == MPISW_WIN_MEMORY) {
    set(*info_used, "alloc_type", "memory");
  } else if (w->kind == MPISW_WIN_STORAGE || w->kind == MPISW_WIN_SHARED) {
    put_placement(*info_used, &w->p);
    char v[8];
    if (w->kind == MPISW_WIN_SHARED)
      set(*info_used, "alloc_shared_noncontig", w->noncontig ? "true" : "false");
    else
      set(*info_used, "storage_node_shared", w->node_shared ? "true" : "false");
    /* the MPI window underneath has unit 1 and slack pages: not the user's */
    if (w->node_shared && mpisw_info_get(*info_used, "alloc_shared_noncontig", v, sizeof v))
      PMPI_Info_delete(*info_used, "alloc_shared_noncontig");
  }
  return MPI_SUCCESS;
}

int mpisw_win_flavor(MPI_Win win, int **flavor) {
  static const int flavors[] = {MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE,
                                MPI_WIN_FLAVOR_DYNAMIC, MPI_WIN_FLAVOR_SHARED};
  struct mpisw_win *w = mpisw_win_lookup(win);
  if (!w || w->flavor < 0) return 0;
  for (int i = 0; i < 4; i++)
    if (flavors[i] == w->flavor) {
      *flavor = (int *)&flavors[i];
      return 1;
    }
  return 0;
}

int mpisw_win_get_attr(MPI_Win win, int keyval, void *value, int *flag) {
  if (mpisw_node_shared_attr(win, keyval, value, flag)) return MPI_SUCCESS;
  int *flavor;
  if (keyval == MPI_WIN_CREATE_FLAVOR && mpisw_win_flavor(win, &flavor)) {
    *(int **)value = flavor;
    *flag = 1;
    return MPI_SUCCESS;
  }
  return mpisw_next.Win_get_attr(win, keyval, value, flag);
}
