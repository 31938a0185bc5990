#!/bin/sh
# ckpt_jobs.sh MODE [REGEX...] -- MPIEXEC [FLAGS...] -n NP PROG
# Two jobs on one checkpoint directory (a new temporary one): PROG MODE 1
# DIR, then PROG MODE 2 DIR, a new job that restarts. Each REGEX must match
# the second job's output (grep -E), e.g. the warning naming a rejected file.
set -u
mode=$1
shift
regexes=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  regexes="$regexes
$1"
  shift
done
[ "${1:-}" = "--" ] && shift
dir=$(mktemp -d /tmp/mpisw-ckpt-jobs-XXXXXX) || exit 1
cleanup() { [ "${MPISW_TEST_KEEP:-0}" = 1 ] || rm -rf "$dir"; }
trap cleanup EXIT
trap 'exit 143' INT TERM
fail() { echo "FAIL: ckpt_jobs.sh $mode: $*"; exit 1; }
timeout -k 5 25 "$@" "$mode" 1 "$dir" || fail "the first job failed (rc $?)"
out=$dir/job2.out
timeout -k 5 25 "$@" "$mode" 2 "$dir" >"$out" 2>&1
rc=$?
cat "$out"
[ "$rc" -eq 0 ] || fail "the second job failed (rc $rc)"
echo "$regexes" | while IFS= read -r re; do
  [ -z "$re" ] && continue
  grep -Eq -- "$re" "$out" || { echo "FAIL: ckpt_jobs.sh $mode: no line matches '$re'"; exit 1; }
done || exit 1
echo "PASS"
