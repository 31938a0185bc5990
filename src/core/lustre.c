#include "core/lustre.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>

#include "core/path.h"

/* Lustre's user ABI (lustre_user.h), restated: we cannot depend on its headers. */
#define LUSTRE_SUPER_MAGIC 0x0BD00BD0
#define LOV_USER_MAGIC_V1 0x0BD10BD0
#define LOV_PATTERN_RAID0 0x001
#define LL_IOC_LOV_SETSTRIPE _IOW('f', 154, long)

struct lov_user_md_v1 {
  uint32_t magic;
  uint32_t pattern;
  uint64_t object_id;
  uint64_t object_seq;
  uint32_t stripe_size;
  uint16_t stripe_count;
  uint16_t stripe_offset;
} __attribute__((packed));

static int on_lustre_fd(int fd) {
  struct statfs s;
  return fstatfs(fd, &s) == 0 && (uint32_t)s.f_type == LUSTRE_SUPER_MAGIC;
}

int mpisw_lustre_open_flags(const char *path) {
  char dir[4096];
  struct statfs s;
  mpisw_path_parent(path, dir, sizeof dir);
  if (statfs(dir, &s) == 0 && (uint32_t)s.f_type == LUSTRE_SUPER_MAGIC)
    return O_NOCTTY | FASYNC; /* O_LOV_DELAY_CREATE */
  return 0;
}

int mpisw_lustre_set_striping(int fd, const char *path, long count, long unit,
                              struct mpisw_error *e) {
  if (!on_lustre_fd(fd)) return 0; /* other file systems do not stripe */
  struct lov_user_md_v1 md;
  memset(&md, 0, sizeof md);
  md.magic = LOV_USER_MAGIC_V1;
  md.pattern = LOV_PATTERN_RAID0;
  md.stripe_size = (uint32_t)unit;        /* 0: file system default */
  md.stripe_count = (uint16_t)count;      /* 0: file system default */
  md.stripe_offset = 0xFFFF;              /* any OST */
  if (ioctl(fd, LL_IOC_LOV_SETSTRIPE, &md) != 0)
    return mpisw_fail(e, MPISW_K_IO,
                      "striping_factor/striping_unit: cannot stripe '%s' over %ld OSTs of "
                      "%ld bytes: %s",
                      path, count, unit, strerror(errno));
  /* Drop the delayed-create flags again. */
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) fcntl(fd, F_SETFL, fl & ~FASYNC);
  return 0;
}
