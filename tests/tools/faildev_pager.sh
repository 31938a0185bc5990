#!/bin/sh
# faildev_pager.sh FREE_MB -- COMMAND...
# A block device whose writes start failing: a loop device over a sparse
# 256 MiB file on a small tmpfs. The tmpfs holds the image and a filler
# file, leaving FREE_MB MiB for the device's data; once they are used, the
# loop device fails writes (EIO) while reads still work. COMMAND runs with
#   MPISW_TEST_DEV     the loop device (use it as storage_alloc_filename)
#   MPISW_TEST_FILLER  the filler file: removing it makes the device writable
# The loop driver reports a write that the full tmpfs took only in part as
# a success (the rest is lost: a lying device, not what this simulates), so
# the room must be a multiple of the writes' size and alignment: whole MiB
# here, for writes of 256 KiB blocks at aligned offsets.
# Runs in a private mount namespace (the tmpfs vanishes with it); the loop
# device is detached and the tmpfs unmounted on any exit. Needs root;
# otherwise prints SKIP and exits 77.
set -u
free_mb=${1:-}
shift
[ "${1:-}" = "--" ] && shift
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: faildev_pager.sh needs root (mount, losetup)"
  exit 77
fi
if ! command -v losetup >/dev/null 2>&1; then
  echo "SKIP: losetup is not installed (util-linux)"
  exit 77
fi
if [ -z "${MPISW_IN_MOUNTNS:-}" ]; then
  if ! unshare --mount --propagation private true 2>/dev/null; then
    echo "SKIP: cannot make a private mount namespace (unshare --mount)"
    exit 77
  fi
  MPISW_IN_MOUNTNS=1 exec unshare --mount --propagation private /bin/sh "$0" "$free_mb" -- "$@"
fi
mnt=$(mktemp -d /tmp/mpisw-faildev-h2-XXXXXX) || exit 1
dev=""
cleanup() {
  [ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
  umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
  rmdir "$mnt" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 143' INT TERM
filler_mb=48
if ! mount -t tmpfs -o "size=$((filler_mb + free_mb))m,mode=0700" mpisw-faildev "$mnt"; then
  echo "SKIP: cannot mount a tmpfs on $mnt"
  exit 77
fi
truncate -s 256M "$mnt/image" || exit 1
# The filler takes what the device must not have; a little is left for the
# tmpfs's own bookkeeping.
head -c $((filler_mb * 1048576)) /dev/zero >"$mnt/filler" || exit 1
if ! dev=$(losetup -f --show "$mnt/image" 2>&1); then
  echo "SKIP: losetup failed: $dev"
  dev=""
  exit 77
fi
echo "faildev_pager.sh: $dev over a sparse 256 MiB image, $free_mb MiB of room"
MPISW_TEST_DEV=$dev
MPISW_TEST_FILLER=$mnt/filler
export MPISW_TEST_DEV MPISW_TEST_FILLER
# Leave the command 10 s before ctest's TIMEOUT (60 s) so cleanup runs.
timeout -k 5 45 "$@"
exit $?
