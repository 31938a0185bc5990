#!/bin/sh
# faildev.sh -- COMMAND...
# Runs COMMAND with a block device whose writes can be made to fail and to
# heal again (fault injection for durability tests), and always undoes it.
#
#   The device is a loop device over a sparse 64 MiB file on a tmpfs that is
#   mounted in a private mount namespace. It reads zeros at first. "Break"
#   shrinks the tmpfs to what it holds: from then on every write to a device
#   block never written before fails (the loop device turns the tmpfs's
#   ENOSPC into a write error: msync/fsync report EIO or ENOSPC), while
#   blocks written before still take writes. "Heal" gives the tmpfs room
#   again: every write succeeds. So a test writes fresh blocks after a break.
#
# Exported to COMMAND:
#   MPISW_FAILDEV        the device, e.g. /dev/loop3 (64 MiB, healthy at start)
#   MPISW_FAILDEV_BREAK  a shell command: break the device as above
#   MPISW_FAILDEV_HEAL   a shell command: heal it
# Run the two commands with system(3) from one process (they are idempotent)
# and let the others wait at a barrier. Exit status: COMMAND's; 77 (ctest
# skip) with a "SKIP: ..." line when not root or without loop devices.
set -u
[ "${1:-}" = "--" ] && shift
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: faildev.sh needs root (mount, losetup); run the suite as root to cover it"
  exit 77
fi
if ! command -v losetup >/dev/null 2>&1; then
  echo "SKIP: losetup is not installed (util-linux); device failure test not run"
  exit 77
fi
if [ -z "${MPISW_IN_MOUNTNS:-}" ]; then
  if ! unshare --mount --propagation private true 2>/dev/null; then
    echo "SKIP: cannot make a private mount namespace (unshare --mount)"
    exit 77
  fi
  MPISW_IN_MOUNTNS=1 exec unshare --mount --propagation private /bin/sh "$0" -- "$@"
fi
# Leave the command 10 s before ctest's own TIMEOUT (60 s) so cleanup runs.
run() { timeout -k 5 45 "$@"; }

mnt=$(mktemp -d /tmp/mpisw-faildev-XXXXXX) || exit 1
dev=""
cleanup() {
  [ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
  umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
  rmdir "$mnt" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 143' INT TERM
if ! mount -t tmpfs -o size=80m,mode=0700 mpisw-faildev "$mnt"; then
  echo "SKIP: cannot mount a tmpfs on $mnt"
  exit 77
fi
# The marker keeps the tmpfs non-empty: size=0 would mean "no limit".
head -c 4096 /dev/zero >"$mnt/marker" && truncate -s 64M "$mnt/img" || exit 1
if ! dev=$(losetup -f --show "$mnt/img" 2>&1); then
  echo "SKIP: losetup failed: $dev"
  dev=""
  exit 77
fi
MPISW_FAILDEV=$dev
MPISW_FAILDEV_BREAK="mount -o remount,size=\$(df -k --output=used '$mnt' | tail -n 1 | tr -d ' ')k '$mnt'"
MPISW_FAILDEV_HEAL="mount -o remount,size=80m '$mnt'"
export MPISW_FAILDEV MPISW_FAILDEV_BREAK MPISW_FAILDEV_HEAL
echo "faildev.sh: $dev over a sparse 64 MiB file on a tmpfs at $mnt"
run "$@"
exit $?
