#!/bin/sh
# run_stack.sh NP -- COMMAND...
# Runs COMMAND (an MPI job of NP ranks of t_stack) with MPISW_REPORT=1 and
# fails unless it exits 0 and rank 0's report shows mpisw at work behind the
# profiler: the line at MPI_Init once, and NP windows on storage at
# MPI_Finalize (one per rank: the window the profiler passed on).
set -u
np=$1
shift
[ "${1:-}" = "--" ] && shift
err=$(mktemp /tmp/mpisw-stack-err-XXXXXX) || exit 1
trap 'rm -f "$err"' EXIT
MPISW_REPORT=1 timeout -k 5 50 "$@" 2>"$err"
rc=$?
cat "$err" >&2
fail() { echo "FAIL: run_stack.sh: $*" >&2; exit 1; }
[ "$rc" = 0 ] || fail "the program failed (exit status $rc)"
n=$(grep -c '^mpisw: active:' "$err")
[ "$n" = 1 ] || fail "'mpisw: active:' on $n lines, expected 1 (MPISW_REPORT=1)"
grep -Eq "^mpisw:   windows: [0-9]+ in memory, $np on storage," "$err" ||
  fail "the report does not count $np windows on storage"
echo "run_stack.sh: the report shows mpisw behind the profiler"
