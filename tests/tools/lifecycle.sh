#!/bin/sh
# lifecycle.sh MODE HOW BACKEND NP -- MPIEXEC [FLAGS...] -n NP PROG
# Runs PROG (tests/mpi/t_lifecycle.c) MODE on NP ranks with its storage in a
# fresh directory and checks that the directory is empty afterwards:
#   leak   the program frees nothing and calls MPI_Finalize (must succeed)
#   kill   once every rank holds its windows, each rank gets SIGKILL
#   abort  the last rank calls MPI_Abort
# HOW: info (hints in MPI_Info) or env (MPISW_HINTS); BACKEND: mmap or pager.
# Exit 77 (skip) when the program skips (the pager cannot run here).
set -u
mode=$1 how=$2 backend=$3 np=$4
shift 4
[ "${1:-}" = "--" ] && shift
tmp=$(mktemp -d /tmp/mpisw-lifecycle-XXXXXX) || exit 1
store=$tmp/store
mkdir "$store" || exit 1
pids=""
cleanup() {
  for p in $pids; do kill -9 "$p" 2>/dev/null; done
  [ "${MPISW_TEST_KEEP:-0}" = 1 ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 143' INT TERM
fail() { echo "FAIL: lifecycle.sh $mode $how $backend: $*"; ls -la "$store"; exit 1; }
if [ "$how" = env ]; then
  MPISW_HINTS="alloc_type=storage;storage_alloc_filename=$store;storage_backend=$backend"
  export MPISW_HINTS
  echo "lifecycle.sh: MPISW_HINTS=$MPISW_HINTS"
fi
echo "lifecycle.sh: $* $mode $store $how $backend"
timeout -k 5 50 "$@" "$mode" "$store" "$how" "$backend" &
job=$!
if [ "$mode" = kill ]; then
  i=0
  while [ "$(ls "$tmp" | grep -c '^ready-')" -lt "$np" ]; do
    i=$((i + 1))
    [ "$i" -gt 400 ] && fail "the ranks did not get ready in 40 s"
    if ! kill -0 "$job" 2>/dev/null; then
      wait "$job"
      rc=$?
      [ "$rc" -eq 77 ] && exit 77   # the program printed SKIP: why
      fail "the program ended (rc $rc) before it was killed"
    fi
    sleep 0.1
  done
  for f in "$tmp"/ready-*; do pids="$pids $(cat "$f")"; done
  n=$(ls -A "$store" | wc -l)
  echo "lifecycle.sh: ranks ready (pids$pids), $n names in the directory; kill -9"
  for p in $pids; do kill -9 "$p"; done
fi
wait "$job"
rc=$?
echo "lifecycle.sh: the job ended with rc $rc"
# 77: the program skipped (storage_backend=pager cannot run here) and said why
[ "$mode" != kill ] && [ "$rc" -eq 77 ] && exit 77
case "$mode" in
leak) [ "$rc" -eq 0 ] || fail "the program failed (rc $rc)" ;;
kill | abort) [ "$rc" -ne 0 ] || fail "the job ended with rc 0" ;;
esac
[ "$(ls "$tmp" | grep -c '^ready-')" -eq "$np" ] || fail "not every rank got ready"
# the ranks are gone (MPI_Abort ends the others): their files with them
for f in "$tmp"/ready-*; do
  p=$(cat "$f")
  i=0
  while kill -0 "$p" 2>/dev/null; do
    i=$((i + 1))
    [ "$i" -gt 100 ] && { pids="$pids $p"; fail "rank process $p still runs"; }
    sleep 0.1
  done
done
n=$(ls -A "$store" | wc -l)
[ "$n" -eq 0 ] || fail "$n files left in the storage directory"
echo "PASS"
