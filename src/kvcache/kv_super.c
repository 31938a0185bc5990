/* The superblock: two 512-byte copies at the start of the file, written one
 * after the other, each with its CRC and a generation number; the newest
 * good copy is the store's header. Both backends keep their geometry here. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "kvcache/kv_file.h"
#include "kvcache/kv_store.h"

static uint32_t super_crc(const struct kv_super *sb) {
  struct kv_super t = *sb;
  t.crc = 0;
  return mpisw__kv_crc32c(0, &t, sizeof t);
}

int mpisw__kv_super_read(const char *base, struct kv_super *sb) {
  int found = 0;
  for (int i = 0; i < 2; i++) {
    struct kv_super t;
    memcpy(&t, base + i * 512, sizeof t);
    if (t.magic != KV_MAGIC || t.version != KV_VERSION || t.crc != super_crc(&t)) continue;
    if (!found || t.gen > sb->gen) *sb = t;
    found++;
  }
  return found ? 2 - found : -1;
}

int mpisw__kv_super_check(const struct kv_super *sb, const char *path, struct mpisw_error *e) {
  const char *what = NULL;
  unsigned long long v = 0;
  if (sb->backend != KV_BACKEND_CACHE && sb->backend != KV_BACKEND_NAIVE)
    what = "backend", v = sb->backend;
  else if (sb->backend == KV_BACKEND_CACHE &&
           (sb->log_size < 64 * 1024 || sb->log_size > (1ull << 40) || sb->log_size % KV_BLOCK))
    what = "log size", v = sb->log_size;
  else if (sb->backend == KV_BACKEND_CACHE && sb->active > 1)
    what = "active region", v = sb->active;
  else if (sb->backend == KV_BACKEND_NAIVE && (sb->slots < 1 || sb->slots > (1ull << 32)))
    what = "slot count", v = sb->slots;
  else if (sb->backend == KV_BACKEND_NAIVE &&
           (sb->slot_size < 64 || sb->slot_size > (1ull << 24) || sb->slot_size % 8))
    what = "slot size", v = sb->slot_size;
  if (!what) return 0;
  return mpisw_fail(e, MPISW_K_IO, "%s: the store's header is damaged: %s %llu is out of range",
                    path, what, v);
}

int mpisw__kv_super_peek(const char *path, struct kv_super *sb, int *damaged, struct mpisw_error *e) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return 0;   /* missing (or unusable: the window says why) */
  char buf[KV_BLOCK];
  ssize_t n = pread(fd, buf, sizeof buf, 0);
  close(fd);
  if (n <= 0) return 0;
  int r = mpisw__kv_super_read(buf, sb);
  if (r >= 0) {
    *damaged = r;
    return mpisw__kv_super_check(sb, path, e) ? -1 : 1;
  }
  for (int i = 0; i < 2 && n >= 512 * (i + 1); i++) {
    struct kv_super t;
    memcpy(&t, buf + 512 * i, sizeof t);
    if (t.magic == KV_MAGIC && t.version != KV_VERSION)
      return mpisw_fail(e, MPISW_K_IO, "%s is an mpisw_kv store of format version %u; this "
                        "library reads version %d", path, t.version, KV_VERSION);
    if (t.magic == KV_MAGIC)
      return mpisw_fail(e, MPISW_K_IO, "%s: the store's header is damaged (CRC)", path);
  }
  for (ssize_t i = 0; i < n; i++)
    if (buf[i]) return mpisw_fail(e, MPISW_K_IO, "%s is not an mpisw_kv store (no valid header)", path);
  return 0;
}

/* A store id no other store is likely to have: it seeds the CRCs. */
static uint64_t new_id(void) {
  uint64_t id = 0;
  if (getrandom(&id, sizeof id, GRND_NONBLOCK) != (ssize_t)sizeof id) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    id = ((uint64_t)ts.tv_sec * 1000000007ull) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 40);
  }
  return id;
}

void mpisw__kv_super_new(struct kv_super *sb, const struct kv_options *o) {
  memset(sb, 0, sizeof *sb);
  sb->id = new_id();
  sb->backend = (uint32_t)o->backend;
  sb->log_size = o->log_size;
  sb->start_seq = 1;
  sb->slots = o->slots;
  sb->slot_size = o->slot_size;
}

int mpisw__kv_super_write(struct mpisw_kv *kv, struct mpisw_error *e) {
  kv->sb.gen++;
  kv->sb.magic = KV_MAGIC;
  kv->sb.version = KV_VERSION;
  kv->sb.crc = super_crc(&kv->sb);
  memcpy(kv->file_base + (kv->sb.gen % 2) * 512, &kv->sb, sizeof kv->sb);
  return mpisw__kv_file_sync(kv->log_win, kv->path, e);
}

/* Both copies, one after the other (each synced, so a torn write still
 * leaves one good copy): where the older copy would name a region that is
 * gone (after a compaction), damage to the newer one must not send an open
 * there. */
int mpisw__kv_super_write_both(struct mpisw_kv *kv, struct mpisw_error *e) {
  return mpisw__kv_super_write(kv, e) ? -1 : mpisw__kv_super_write(kv, e);
}

int mpisw__kv_super_mend(struct mpisw_kv *kv, struct mpisw_error *e) {
  if (!kv->sb_damaged) return 0;
  fprintf(stderr, "mpisw: mpisw_kv_open: %s: one of the two copies of the store's header "
          "was damaged; the other was used and both are rewritten\n", kv->path);
  return mpisw__kv_super_write_both(kv, e);
}
