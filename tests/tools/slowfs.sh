#!/bin/sh
# slowfs.sh -- a slower "parallel file system" for checkpoint tests and
# benchmarks: a file system whose write bandwidth is a set fraction of the
# local device's.
#
#   slowfs.sh up NAME FRACTION   make it; prints "mount=", "device=", ... lines
#   slowfs.sh info NAME          the same lines for a file system that is up
#   slowfs.sh run NAME CMD...    run CMD with its writes under the cap
#   slowfs.sh down NAME          remove everything "up" made (idempotent)
#
# How: an ext4 file system on a loop device (direct I/O to its backing file,
# so the page cache of the local disk does not hide the cap) over a sparse
# file under /var/tmp (the local disk), mounted at
# /var/tmp/mpisw-slowfs-NAME/mnt. The block I/O cgroup controller caps the
# loop device's write bandwidth at FRACTION of what fio measures on the local
# device (libaio, 1 MiB, queue depth 32, O_DIRECT, 3 s):
#   cgroup v2 with the io controller: io.max "MAJ:MIN wbps=CAP" on a cgroup
#     /sys/fs/cgroup/mpisw-slowfs-NAME; writers must run in it ("run").
#   cgroup v1 (blkio): blkio.throttle.write_bps_device of the root cgroup,
#     so every process's writes to the device are capped, the kernel's
#     write-back included (v1 cannot charge write-back to a child cgroup);
#     "run" then just runs CMD.
# Environment: SLOWFS_DEVICE_BPS skips the fio measurement (bytes/s of the
# local device), SLOWFS_SIZE the file system's size (default 4G, sparse),
# SLOWFS_READ=1 caps reads at the same fraction too.
# Exit status: 0; 77 with "SKIP: reason" when not root or a tool or kernel
# feature is missing (the caller skips); 1 on other failures (after undoing).
set -u
cmd=${1:-}
name=${2:-}
usage() { echo "usage: slowfs.sh up NAME FRACTION | info NAME | run NAME CMD... | down NAME" >&2; exit 2; }
[ -n "$cmd" ] && [ -n "$name" ] || usage
case $name in *[!A-Za-z0-9_.-]*) echo "slowfs.sh: NAME '$name' may hold only [A-Za-z0-9_.-]" >&2; exit 2 ;; esac
dir=/var/tmp/mpisw-slowfs-$name
state=$dir/state
skip() { echo "SKIP: slowfs.sh: $*"; exit 77; }

# The cgroup mechanism of this machine: v2 (io controller) or v1 (blkio throttle).
cg_kind() {
  if [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw io /sys/fs/cgroup/cgroup.controllers; then
    echo v2
  elif [ -f /sys/fs/cgroup/blkio/blkio.throttle.write_bps_device ]; then
    echo v1
  else
    echo none
  fi
}

down() {
  [ -f "$state" ] && . "$state"
  if mountpoint -q "$dir/mnt" 2>/dev/null; then
    umount "$dir/mnt" 2>/dev/null || umount -l "$dir/mnt"
  fi
  # v1: a rule of 0 removes the device's line; the loop device may go first.
  if [ -n "${majmin:-}" ] && [ "${kind:-}" = v1 ]; then
    echo "$majmin 0" >/sys/fs/cgroup/blkio/blkio.throttle.write_bps_device 2>/dev/null
    echo "$majmin 0" >/sys/fs/cgroup/blkio/blkio.throttle.read_bps_device 2>/dev/null
  fi
  if [ -n "${cgroup:-}" ] && [ "${kind:-}" = v2 ] && [ -d "$cgroup" ]; then
    # processes still in it go back to the root before it can be removed
    for p in $(cat "$cgroup/cgroup.procs" 2>/dev/null); do echo "$p" >/sys/fs/cgroup/cgroup.procs 2>/dev/null; done
    rmdir "$cgroup" 2>/dev/null
  fi
  # the loop device: by its recorded name, else whatever still backs our file
  if [ -n "${device:-}" ] && losetup "$device" 2>/dev/null | grep -q "$dir/img"; then
    losetup -d "$device"
  fi
  for d in $(losetup -j "$dir/img" -O NAME -n 2>/dev/null); do losetup -d "$d"; done
  rm -rf "$dir"
  return 0
}

case $cmd in
up)
  frac=${3:-}
  [ -n "$frac" ] || usage
  if ! awk -v f="$frac" 'BEGIN { exit !(f + 0 > 0 && f + 0 <= 1) }'; then
    echo "slowfs.sh: FRACTION '$frac' must be a number in (0, 1]" >&2
    exit 2
  fi
  [ "$(id -u)" = 0 ] || skip "needs root (losetup, mount, cgroup files)"
  for t in losetup mkfs.ext4 mountpoint; do
    command -v $t >/dev/null 2>&1 || skip "$t is not installed"
  done
  kind=$(cg_kind)
  [ "$kind" != none ] || skip "no block I/O cgroup controller (cgroup v2 io or v1 blkio throttle)"
  [ -e "$dir" ] && { echo "slowfs.sh: $dir exists: run 'slowfs.sh down $name' first" >&2; exit 1; }
  mkdir -p "$dir/mnt" || exit 1
  trap 'down; exit 1' INT TERM
  fail() { echo "slowfs.sh: $*" >&2; down; exit 1; }
  skip_undo() { down; skip "$@"; }
  if [ -n "${SLOWFS_DEVICE_BPS:-}" ]; then
    dev_bps=$SLOWFS_DEVICE_BPS
  else
    command -v fio >/dev/null 2>&1 || skip_undo "fio is not installed (or set SLOWFS_DEVICE_BPS)"
    dev_bps=$(fio --name=slowfs-probe --filename="$dir/fio.tmp" --rw=write --bs=1M --iodepth=32 \
                --ioengine=libaio --direct=1 --size=1G --runtime=3 --time_based \
                --output-format=terse --terse-version=3 2>/dev/null |
              awk -F';' '{ printf "%.0f\n", $48 * 1024 }')
    rm -f "$dir/fio.tmp"
    [ -n "$dev_bps" ] && [ "$dev_bps" -gt 0 ] 2>/dev/null || fail "fio could not measure $dir"
  fi
  cap=$(awk -v b="$dev_bps" -v f="$frac" 'BEGIN { printf "%.0f\n", b * f }')
  truncate -s "${SLOWFS_SIZE:-4G}" "$dir/img" || fail "cannot make $dir/img"
  device=$(losetup -f --show --direct-io=on "$dir/img" 2>/dev/null || losetup -f --show "$dir/img" 2>&1) ||
    skip_undo "losetup failed: $device"
  majmin=$(lsblk -dno MAJ:MIN "$device" 2>/dev/null | tr -d ' ')
  [ -n "$majmin" ] || majmin=$(printf '%d:%d' "0x$(stat -c %t "$device")" "0x$(stat -c %T "$device")")
  cgroup=""
  printf 'kind=%s\ndevice=%s\nmajmin=%s\ncgroup=%s\n' "$kind" "$device" "$majmin" "" >"$state"
  mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$device" >/dev/null 2>&1 || fail "mkfs.ext4 $device failed"
  mount -o noatime "$device" "$dir/mnt" || fail "cannot mount $device on $dir/mnt"
  chmod 1777 "$dir/mnt"
  if [ "$kind" = v2 ]; then
    cgroup=/sys/fs/cgroup/mpisw-slowfs-$name
    grep -qw io /sys/fs/cgroup/cgroup.subtree_control || echo +io >/sys/fs/cgroup/cgroup.subtree_control ||
      skip_undo "cannot enable the io controller in /sys/fs/cgroup"
    mkdir "$cgroup" || fail "cannot make $cgroup"
    printf 'kind=%s\ndevice=%s\nmajmin=%s\ncgroup=%s\n' "$kind" "$device" "$majmin" "$cgroup" >"$state"
    rule="$majmin wbps=$cap"
    [ "${SLOWFS_READ:-0}" = 1 ] && rule="$rule rbps=$cap"
    echo "$rule" >"$cgroup/io.max" || fail "cannot write io.max of $cgroup"
  else
    echo "$majmin $cap" >/sys/fs/cgroup/blkio/blkio.throttle.write_bps_device ||
      skip_undo "cannot set blkio.throttle.write_bps_device (kernel without CONFIG_BLK_DEV_THROTTLING?)"
    [ "${SLOWFS_READ:-0}" = 1 ] && echo "$majmin $cap" >/sys/fs/cgroup/blkio/blkio.throttle.read_bps_device
  fi
  printf 'mount=%s\ndevice_bps=%s\ncap_bps=%s\nfraction=%s\n' "$dir/mnt" "$dev_bps" "$cap" "$frac" >>"$state"
  cat "$state"
  ;;
info)
  [ -f "$state" ] || { echo "slowfs.sh: '$name' is not up" >&2; exit 1; }
  cat "$state"
  ;;
run)
  [ -f "$state" ] || { echo "slowfs.sh: '$name' is not up" >&2; exit 1; }
  . "$state"
  shift 2
  [ $# -gt 0 ] || usage
  if [ "$kind" = v2 ]; then
    echo $$ >"$cgroup/cgroup.procs" || { echo "slowfs.sh: cannot enter $cgroup" >&2; exit 1; }
  fi
  exec "$@"
  ;;
down)
  [ "$(id -u)" = 0 ] || skip "needs root"
  down
  ;;
*) usage ;;
esac
