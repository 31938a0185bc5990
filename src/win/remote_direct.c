/* Remote sync without the target's help at all: a target on this node
 * (same kernel, same host name) whose window is on the mmap backend keeps
 * the bytes this rank put in the shared page cache, so this process maps
 * the target's file (/proc/<pid>/fd/<n>, checked by device and inode) and
 * msyncs the written range: msync(MS_SYNC) of a shared file mapping is
 * fsync of that file range, whichever process dirtied the pages. No thread
 * of the target has to wake up. The pager, atomic sync and other nodes go
 * through the target's agent (remote_agent.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/path.h"
#include "win/remote.h"

void mpisw_direct_describe(const struct mpisw_win *w, struct mpisw_remote_peer *me) {
  const struct mpisw_place *p = &w->p;
  const struct mpisw_layout *l = &p->region.l;
  struct stat st;
  me->direct = 0;
  if (w->kind != MPISW_WIN_STORAGE || p->pager || p->h.sync_atomic || !l->map_file_len ||
      p->file.fd < 0 || p->file.blockdev || fstat(p->file.fd, &st) != 0)
    return;
  me->direct = 1;
  me->fd = p->file.fd;
  me->kernel = mpisw_kernel_id();
  me->dev = (uint64_t)st.st_dev;
  me->ino = (uint64_t)st.st_ino;
  me->map_off = l->map_file_off;
  me->map_len = l->map_file_len;
  me->map_at = (int64_t)((p->region.reserve + l->map_file_at) - (char *)p->region.base);
}

static int try_map(struct mpisw_remote *r, int target) {
  const struct mpisw_remote_peer *p = &r->peers[target], *me = &r->peers[r->me];
  if (!p->direct || p->kernel != mpisw_kernel_id() || strcmp(p->host, me->host)) return -1;
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)p->pid, (int)p->fd);
  /* read-write: a mapping of a read-only file descriptor is not VM_SHARED,
   * and msync of it writes nothing */
  int fd = open(path, O_RDWR | O_CLOEXEC);
  struct stat st;
  if (fd < 0) return -1;
  if (fstat(fd, &st) != 0 || (uint64_t)st.st_dev != p->dev || (uint64_t)st.st_ino != p->ino) {
    close(fd);
    return -1;
  }
  void *a = mmap(NULL, p->map_len, PROT_READ, MAP_SHARED, fd, (off_t)p->map_off);
  close(fd);
  if (a == MAP_FAILED) return -1;
  r->direct[target].addr = a;
  return 1;
}

int mpisw_direct_ready(struct mpisw_remote *r, int target) {
  if (!r->direct) return 0;
  struct mpisw_direct *d = &r->direct[target];
  if (d->state == 0) d->state = try_map(r, target);
  return d->state == 1;
}

int mpisw_direct_sync(struct mpisw_remote *r, int target, const struct mpisw_remote_target *t,
                      int whole, struct mpisw_error *e) {
  const struct mpisw_remote_peer *p = &r->peers[target];
  char *map = r->direct[target].addr;
  uint64_t pg = mpisw_page_size();
  struct mpisw_range all = {(uint64_t)p->map_at, p->map_len};
  int n = whole ? 1 : t->n;
  for (int i = 0; i < n; i++) {
    const struct mpisw_range *x = whole ? &all : &t->r[i];
    /* the range in the mapping: window offset minus where the file part starts */
    int64_t a = (int64_t)x->off - p->map_at, b = a + (int64_t)x->len;
    if (a < 0) a = 0;
    if (b > (int64_t)p->map_len) b = (int64_t)p->map_len;
    if (a >= b) continue;
    a &= ~(int64_t)(pg - 1);
    if (msync(map + a, (size_t)(b - a), MS_SYNC) != 0)
      return mpisw_fail(e, mpisw_errno_kind(errno),
                        "rank %d (pid %d on %s): msync of %lld bytes of its file failed: %s",
                        target, (int)p->pid, p->host, (long long)(b - a), strerror(errno));
  }
  return 0;
}

void mpisw_direct_drop(struct mpisw_remote *r) {
  for (int i = 0; r->direct && i < r->nranks; i++)
    if (r->direct[i].state == 1) munmap(r->direct[i].addr, r->peers[i].map_len);
  free(r->direct);
  r->direct = NULL;
}
