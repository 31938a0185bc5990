#!/bin/sh
# nopriv.sh -- COMMAND...
# Runs COMMAND as user nobody (no capabilities), so that userfaultfd is
# refused (vm.unprivileged_userfaultfd=0) and storage_backend=pager must fall
# back to mmap. Needs root to switch users: otherwise SKIP (77).
#
# nobody may not be able to enter the checkout (a home directory of mode
# 0700, a clone under mktemp -d): MPICH's launcher then fails with "unable to
# change wdir", and the program and its libraries cannot be read. So the run
# happens in a fresh directory that only nobody (and root) may enter: every
# executable argument nobody cannot run is copied there, with the shared
# libraries it needs that nobody cannot read (found by ldd; LD_LIBRARY_PATH
# wins over the build tree's RUNPATH), and the command starts from there.
# The scratch directory of the test (MPISW_TEST_TMPDIR) is a subdirectory.
set -u
[ "$1" = "--" ] && shift
if [ "$(id -u)" != 0 ]; then echo "SKIP: nopriv.sh needs root to become nobody"; exit 77; fi
if [ "$(cat /proc/sys/vm/unprivileged_userfaultfd 2>/dev/null)" = 1 ]; then
  echo "SKIP: vm.unprivileged_userfaultfd=1 lets nobody use userfaultfd"; exit 77
fi
as_nobody() {
  setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all -- "$@"
}
dir=$(mktemp -d /tmp/mpisw-nopriv-XXXXXX) || exit 1   # mode 0700
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/bin" "$dir/lib" "$dir/tmp" || exit 1

# Rebuild "$@" with the copies, one argument at a time (POSIX sh: no arrays).
n=$#
while [ "$n" -gt 0 ]; do
  a=$1; shift; n=$((n - 1))
  if [ -f "$a" ] && [ -x "$a" ] && ! as_nobody test -x "$a" 2>/dev/null; then
    copy="$dir/bin/$(basename "$a")"
    cp "$a" "$copy" || exit 1
    # "libx.so.0 => /path/libx.so.0 (0x...)": copy under the name asked for.
    ldd "$a" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' |
      while read -r name path; do
        as_nobody test -r "$path" 2>/dev/null || cp -L "$path" "$dir/lib/$name" || exit 1
      done || exit 1
    a=$copy
  fi
  set -- "$@" "$a"
done
chown -R nobody "$dir" || exit 1
cd "$dir" || exit 1
LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
MPISW_TEST_TMPDIR=$dir/tmp HOME=$dir timeout -k 5 50 \
  setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all -- "$@"
