#!/bin/sh
# slowfs_check.sh: tests/tools/slowfs.sh up, capped, down (ctest slowfs_updown).
#  1. bad input: a FRACTION outside (0, 1] and a bad NAME are refused (exit 2);
#  2. up with the local device given as 400 MB/s and FRACTION 0.1: a 40 MB/s
#     cap; 24 MiB written with O_DIRECT take at least 0.5 s (uncapped /var/tmp
#     takes a fraction of that) and the file system is ext4 on a loop device;
#  3. a second up of the same name fails and leaves the first one working;
#  4. down leaves nothing: no mount, no loop device on the file, no cgroup
#     rule or cgroup, no directory; a second down is harmless.
# Needs root: slowfs.sh's own SKIP (exit 77) passes through.
set -u
tool=$(dirname "$0")/slowfs.sh
name=ctest-$$
dir=/var/tmp/mpisw-slowfs-$name
fail=0
bad() { echo "FAIL: $*"; fail=1; }
trap 'sh "$tool" down "$name" >/dev/null 2>&1' EXIT

sh "$tool" up "$name" 1.5 2>/dev/null; [ $? -eq 2 ] || bad "FRACTION 1.5 was not refused"
sh "$tool" up "$name" 0 2>/dev/null; [ $? -eq 2 ] || bad "FRACTION 0 was not refused"
sh "$tool" up "../x" 0.5 2>/dev/null; [ $? -eq 2 ] || bad "NAME ../x was not refused"
[ -e "$dir" ] && bad "a refused up made $dir"

out=$(SLOWFS_DEVICE_BPS=400000000 SLOWFS_SIZE=256M sh "$tool" up "$name" 0.1)
rc=$?
[ $rc -eq 77 ] && { echo "$out"; exit 77; }
[ $rc -eq 0 ] || { echo "$out"; bad "up exited $rc"; exit 1; }
echo "$out"
cap=$(echo "$out" | sed -n 's/^cap_bps=//p')
mnt=$(echo "$out" | sed -n 's/^mount=//p')
dev=$(echo "$out" | sed -n 's/^device=//p')
kind=$(echo "$out" | sed -n 's/^kind=//p')
majmin=$(echo "$out" | sed -n 's/^majmin=//p')
[ "$cap" = 40000000 ] || bad "cap_bps=$cap, expected 40000000"
[ "$(findmnt -no SOURCE "$mnt")" = "$dev" ] || bad "$mnt is not mounted from $dev"
[ "$(findmnt -no FSTYPE "$mnt")" = ext4 ] || bad "$mnt is not ext4"
t0=$(date +%s.%N)
# shellcheck disable=SC2086
if [ "$kind" = v2 ]; then
  sh "$tool" run "$name" dd if=/dev/zero of="$mnt/f" bs=1M count=24 oflag=direct status=none
else
  dd if=/dev/zero of="$mnt/f" bs=1M count=24 oflag=direct status=none
fi
t1=$(date +%s.%N)
took=$(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }')
echo "24 MiB O_DIRECT under a 40 MB/s cap: $took s"
awk -v t="$took" 'BEGIN { exit !(t >= 0.5) }' || bad "24 MiB took $took s: the cap does not hold"

sh "$tool" up "$name" 0.5 >/dev/null 2>&1 && bad "a second up of $name succeeded"
findmnt "$mnt" >/dev/null || bad "a second up broke the first"

sh "$tool" down "$name" || bad "down exited $?"
findmnt "$mnt" >/dev/null && bad "$mnt is still mounted"
losetup -j "$dir/img" 2>/dev/null | grep -q . && bad "a loop device still backs $dir/img"
losetup "$dev" 2>/dev/null | grep -q "$dir" && bad "$dev still attached"
[ -e "$dir" ] && bad "$dir is left"
if [ "$kind" = v1 ]; then
  grep -q "^$majmin " /sys/fs/cgroup/blkio/blkio.throttle.write_bps_device && bad "throttle rule for $majmin left"
else
  [ -e "/sys/fs/cgroup/mpisw-slowfs-$name" ] && bad "cgroup left"
fi
sh "$tool" down "$name" || bad "a second down failed"
[ $fail = 0 ] && echo "slowfs_check: ok"
exit $fail
