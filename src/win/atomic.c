/* storage_sync=atomic on a placed range (docs/DURABILITY.md "Atomic sync"):
 * recovery of a journal left by a crash before the range is mapped, the
 * storage part mapped privately (core/privmap.c) with its redo journal
 * (core/journal.c), the sync, and the windows that cannot have it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/journal.h"
#include "core/privmap.h"
#include "pager/pager.h"
#include "win/internal.h"

struct mpisw_atomic {
  struct mpisw_privmap pm; /* mmap backend */
  struct mpisw_journal j;
  int on_pager;            /* the pager writes through j (pager/pager_io.c) */
  int pending;             /* a sync failed after its commit: the journal must stay */
};

void mpisw_atomic_not_honoured(const struct mpisw_hints *h, const char *path,
                               const char *why) {
  if (!h->sync_atomic || !mpisw_report_enabled()) return;
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "mpisw: rank %d: storage_sync=atomic is not honoured for '%s': %s; its "
          "syncs are plain (MPI_Win_get_info shows storage_sync=plain)\n",
          rank, path && path[0] ? path : "(no file)", why);
}

int mpisw_atomic_recover(const struct mpisw_file *f, const struct mpisw_layout *l,
                         struct mpisw_error *e) {
  if (!l->sto_len || f->fd < 0 || f->unique || f->blockdev) return 0;
  char jp[MPISW_PATH_MAX];
  if (mpisw_journal_name(f->path, l->file_off, jp, sizeof jp, e)) return 0; /* none can exist */
  int what;
  uint64_t seq;
  if (mpisw_journal_recover(jp, f->fd, l->file_off, l->sto_len, &what, &seq, e)) return -1;
  if (mpisw_report_enabled() && (what == MPISW_JOURNAL_REPLAYED || what == MPISW_JOURNAL_DISCARDED)) {
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (what == MPISW_JOURNAL_REPLAYED)
      fprintf(stderr, "mpisw: rank %d: '%s': recovered the atomic sync #%llu that a crash "
              "interrupted (journal replayed)\n", rank, f->path, (unsigned long long)seq);
    else
      fprintf(stderr, "mpisw: rank %d: '%s': an atomic sync that a crash interrupted before "
              "its journal was complete was dropped: the file holds the sync before it\n",
              rank, f->path);
  }
  return 0;
}

int mpisw_atomic_attach(struct mpisw_place *p, struct mpisw_error *e) {
  const struct mpisw_layout *l = &p->region.l;
  p->atomic = NULL;
  if (!p->h.sync_atomic || !l->map_file_len) return 0;
  if (p->file.blockdev) {
    mpisw_atomic_not_honoured(&p->h, p->file.path, "a block device has no directory to keep "
                              "the journal in");
    return 0;
  }
  struct mpisw_atomic *a = calloc(1, sizeof *a);
  if (!a) return mpisw_fail(e, MPISW_K_NOMEM, "storage_sync=atomic: out of memory");
  char jp[MPISW_PATH_MAX];
  /* a file without a name is gone after a crash: nothing to recover, no journal file */
  int named = !p->file.unique;
  if ((named && mpisw_journal_name(p->file.path, l->file_off, jp, sizeof jp, e)) ||
      mpisw_journal_open(&a->j, named ? jp : NULL, l->file_off, l->sto_len, 0, e)) {
    free(a);
    return -1;
  }
  mpisw_journal_direct(&a->j, p->file.fd); /* none: buffered writes, which are correct too */
  if (p->h.backend != MPISW_BACKEND_MMAP) { /* pager or auto */
    mpisw_pager_attach(p); /* a pager that cannot run leaves the file mapping: mmap below */
    if (p->pager) {
      mpisw_pager_set_atomic(p->pager, &a->j);
      if (!mpisw_pager_is_atomic(p->pager)) {
        mpisw_pager_detach(p);
        mpisw_journal_close(&a->j, 1);
        free(a);
        return mpisw_fail(e, MPISW_K_NOMEM, "storage_sync=atomic: out of memory");
      }
      a->on_pager = 1;
      p->atomic = a;
      return 0;
    }
  }
  if (mpisw_privmap_start(&a->pm, p->region.reserve + l->map_file_at, l->map_file_len,
                          p->file.fd, l->map_file_off, l->file_off, l->file_off + l->sto_len,
                          p->h.access, MPISW_PRIVMAP_AUTO, e)) {
    mpisw_journal_close(&a->j, 1);
    free(a);
    return -1;
  }
  p->atomic = a;
  return 0;
}

int mpisw_atomic_on_pager(const struct mpisw_place *p) {
  return p->atomic && p->atomic->on_pager;
}

int mpisw_atomic_sync(struct mpisw_place *p, uint64_t *written, struct mpisw_error *e) {
  struct mpisw_atomic *a = p->atomic;
  int rc = mpisw_privmap_sync(&a->pm, &a->j, p->file.fd, written, e);
  a->pending = rc != 0;
  return rc;
}

void mpisw_atomic_sync_done(struct mpisw_place *p, int rc) {
  if (p->atomic) p->atomic->pending = rc != 0;
}

void mpisw_atomic_detach(struct mpisw_place *p) {
  struct mpisw_atomic *a = p->atomic;
  if (!a) return;
  mpisw_privmap_stop(&a->pm);
  mpisw_journal_close(&a->j, !a->pending);
  free(a);
  p->atomic = NULL;
}
