#!/bin/sh
# cgroupdrv.sh LIMIT_BYTES -- COMMAND...
# Runs COMMAND inside a fresh memory cgroup limited to LIMIT_BYTES (cgroup v2
# memory.max, or v1 memory.limit_in_bytes), exports MPISW_TEST_CGROUP_LIMIT,
# and removes the cgroup afterwards. Exits 77 (ctest skip) with a message
# when not root or when no memory controller can be used.
set -u
limit=$1
shift
[ "${1:-}" = "--" ] && shift
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: cgroupdrv.sh needs root to make a memory cgroup"
  exit 77
fi
name="mpisw-test-$$"
if [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
  dir=/sys/fs/cgroup/$name
  mkdir "$dir" && echo "$limit" >"$dir/memory.max" || { echo "SKIP: cannot make $dir"; exit 77; }
elif [ -d /sys/fs/cgroup/memory ]; then
  dir=/sys/fs/cgroup/memory/$name
  mkdir "$dir" && echo "$limit" >"$dir/memory.limit_in_bytes" || { echo "SKIP: cannot make $dir"; exit 77; }
else
  echo "SKIP: no memory cgroup controller here"
  exit 77
fi
cleanup() {
  # move ourselves out so the directory can go
  if [ -f /sys/fs/cgroup/cgroup.procs ] && [ "${dir#/sys/fs/cgroup/memory}" = "$dir" ]; then
    echo $$ >/sys/fs/cgroup/cgroup.procs 2>/dev/null
  else
    echo $$ >/sys/fs/cgroup/memory/cgroup.procs 2>/dev/null
  fi
  rmdir "$dir" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 143' INT TERM
echo $$ >"$dir/cgroup.procs" || { echo "SKIP: cannot enter $dir"; exit 77; }
echo "cgroupdrv.sh: running in $dir (limit $limit bytes)"
MPISW_TEST_CGROUP_LIMIT=$limit timeout -k 5 45 "$@"
