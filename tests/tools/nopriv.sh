#!/bin/sh
# nopriv.sh -- COMMAND...
# Runs COMMAND as user nobody (no capabilities), so that userfaultfd is
# refused (vm.unprivileged_userfaultfd=0) and storage_backend=pager must fall
# back to mmap. Needs root to switch users: otherwise SKIP (77). The scratch
# directory is made by the test itself, under a directory nobody may write.
set -u
[ "$1" = "--" ] && shift
if [ "$(id -u)" != 0 ]; then echo "SKIP: nopriv.sh needs root to become nobody"; exit 77; fi
if [ "$(cat /proc/sys/vm/unprivileged_userfaultfd 2>/dev/null)" = 1 ]; then
  echo "SKIP: vm.unprivileged_userfaultfd=1 lets nobody use userfaultfd"; exit 77
fi
dir=$(mktemp -d /tmp/mpisw-nopriv-XXXXXX) || exit 1
chown nobody "$dir"
trap 'rm -rf "$dir"' EXIT
MPISW_TEST_TMPDIR=$dir HOME=$dir timeout -k 5 50 \
  setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all -- "$@"
