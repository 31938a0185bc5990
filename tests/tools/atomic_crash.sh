#!/bin/sh
# atomic_crash.sh MPIEXEC... PROG: runs "PROG crash DIR" (every rank killed
# after a sync and further writes), then "PROG recreate DIR" (a new window on
# the same files holds the synced state). DIR is made here and removed.
set -u
last=""
for a in "$@"; do last=$a; done
dir=$(mktemp -d "${TMPDIR:-/tmp}/mpisw-atomic-crash.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
"$@" crash "$dir" >"$dir/crash.log" 2>&1
rc=$?
if [ $rc -eq 0 ]; then
  cat "$dir/crash.log"
  echo "FAIL: the crash run exited 0, it should have been killed"
  exit 1
fi
ls "$dir"/crash-r* >/dev/null 2>&1 || { cat "$dir/crash.log"; echo "FAIL: no window file"; exit 1; }
"$@" recreate "$dir"
