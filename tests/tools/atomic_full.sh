#!/bin/sh
# atomic_full.sh -- COMMAND...
# Runs COMMAND with a 1 MiB tmpfs (in a private mount namespace, unmounted
# afterwards) for an atomic window whose journal will not fit, and a way to
# give it room.
# Exported: MPISW_FULL_DIR (the tmpfs), MPISW_FULL_HEAL (a shell command:
# grow it to 8 MiB). 77 with "SKIP: ..." when not root or without mounts.
set -u
[ "${1:-}" = "--" ] && shift
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: atomic_full.sh needs root (a tmpfs mount); run the suite as root to cover it"
  exit 77
fi
if [ -z "${MPISW_IN_MOUNTNS:-}" ]; then
  if ! unshare --mount --propagation private true 2>/dev/null; then
    echo "SKIP: cannot make a private mount namespace (unshare --mount)"
    exit 77
  fi
  MPISW_IN_MOUNTNS=1 exec unshare --mount --propagation private /bin/sh "$0" -- "$@"
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/mpisw-atomic-full.XXXXXX") || exit 1
if ! mount -t tmpfs -o size=1M,mode=0700 mpisw-atomic-full "$dir"; then
  rmdir "$dir"
  echo "SKIP: cannot mount a tmpfs"
  exit 77
fi
export MPISW_FULL_DIR="$dir"
export MPISW_FULL_HEAL="mount -o remount,size=8M $dir"
timeout -k 5 45 "$@"
rc=$?
umount "$dir" && rmdir "$dir"
exit $rc
