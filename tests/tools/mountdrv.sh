#!/bin/sh
# mountdrv.sh KIND -- COMMAND...
# Prepares a file system (or block device) for a bad-input test, runs
# COMMAND with it, and always undoes it.
#   rofs     read-only tmpfs holding a 64 KiB file 'existing'  -> MPISW_TEST_MNT
#   tmpfs8m  8 MiB tmpfs                                       -> MPISW_TEST_MNT
#   loop4m   loop device over a 4 MiB file                     -> MPISW_TEST_DEV
# Mounts happen in a private mount namespace (unshare --mount) when possible,
# so they disappear with the test even if it is killed; the trap unmounts in
# any case. Exits 77 (ctest skip) with a message when not root.
set -u
kind=${1:-}
shift
[ "${1:-}" = "--" ] && shift
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: mountdrv.sh $kind needs root (mount/losetup); run the suite as root to cover it"
  exit 77
fi
# Leave the command 10 s before ctest's own TIMEOUT (60 s) so cleanup runs.
run() { timeout -k 5 45 "$@"; }

case "$kind" in
rofs | tmpfs8m)
  if [ -z "${MPISW_IN_MOUNTNS:-}" ] && unshare --mount --propagation private true 2>/dev/null; then
    MPISW_IN_MOUNTNS=1 exec unshare --mount --propagation private /bin/sh "$0" "$kind" -- "$@"
  fi
  mnt=$(mktemp -d /tmp/mpisw-mnt-XXXXXX) || exit 1
  cleanup() {
    umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
    rmdir "$mnt" 2>/dev/null
  }
  trap cleanup EXIT
  trap 'exit 143' INT TERM
  if ! mount -t tmpfs -o size=8m,mode=0777 mpisw-test "$mnt"; then
    echo "SKIP: cannot mount a tmpfs on $mnt"
    exit 77
  fi
  if [ "$kind" = rofs ]; then
    head -c 65536 /dev/zero >"$mnt/existing" && chmod 0666 "$mnt/existing"
    if ! mount -o remount,ro "$mnt"; then
      echo "FAIL: cannot remount $mnt read-only"
      exit 1
    fi
  fi
  echo "mountdrv.sh: $kind at $mnt"
  MPISW_TEST_MNT=$mnt
  export MPISW_TEST_MNT
  run "$@"
  exit $?
  ;;
loop4m)
  if ! command -v losetup >/dev/null 2>&1; then
    echo "SKIP: losetup is not installed (util-linux); block device test not run"
    exit 77
  fi
  img=$(mktemp /tmp/mpisw-loop-XXXXXX) || exit 1
  dev=""
  cleanup() {
    [ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
    rm -f "$img"
  }
  trap cleanup EXIT
  trap 'exit 143' INT TERM
  truncate -s 4M "$img" || exit 1
  if ! dev=$(losetup -f --show "$img" 2>&1); then
    echo "SKIP: losetup failed: $dev"
    dev=""
    exit 77
  fi
  echo "mountdrv.sh: loop device $dev over $img (4 MiB)"
  MPISW_TEST_DEV=$dev
  export MPISW_TEST_DEV
  run "$@"
  exit $?
  ;;
*)
  echo "usage: mountdrv.sh rofs|tmpfs8m|loop4m -- COMMAND..." >&2
  exit 2
  ;;
esac
