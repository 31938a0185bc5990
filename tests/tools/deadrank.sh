#!/bin/sh
# deadrank.sh BOUND survivors N ERE -- COMMAND...
# deadrank.sh BOUND ends -- COMMAND...
# Runs COMMAND, an MPI job in which one rank dies (tests/pool/t_deadrank.c),
# under a hard timeout of BOUND seconds, and says how long it took.
#   survivors  the launcher keeps the others alive: each of the N survivors
#              printed "survived", none printed FAIL, and some line matches
#              ERE (the pool's error naming the lock and the dead rank);
#   ends       the launcher ends the job when a rank dies (MPICH's default):
#              the job ended before the bound (its status is the
#              launcher's: a survivor may finish before it is killed).
# A job still running at BOUND is a hang: the test fails.
set -u
bound=$1 mode=$2
shift 2
n=0 re=
if [ "$mode" = survivors ]; then n=$1 re=$2; shift 2; fi
[ "${1:-}" = "--" ] && shift
dir=$(mktemp -d /tmp/mpisw-deadrank-XXXXXX) || exit 1
# Every rank carries MPISW_DEADRANK_DIR=$dir: after the job, whatever still
# runs with it (a rank the launcher lost at a timeout) is ended, by pid.
leftovers() {
  for e in /proc/[0-9]*/environ; do
    { tr '\0' '\n' <"$e"; } 2>/dev/null | grep -qx "MPISW_DEADRANK_DIR=$dir" || continue
    p=${e#/proc/}; p=${p%/environ}
    echo "$p"
  done
}
cleanup() {
  left=$(leftovers)
  [ -n "$left" ] && { echo "deadrank.sh: ending leftover processes $left"; kill -9 $left 2>/dev/null; }
  rm -rf "$dir"
}
trap cleanup EXIT
t0=$(date +%s.%N)
out=$(MPISW_DEADRANK_DIR=$dir timeout -k 5 "$bound" "$@" 2>&1)
rc=$?
t1=$(date +%s.%N)
printf '%s\n' "$out"
secs=$(echo "$t1 - $t0" | bc)
echo "deadrank.sh: status $rc after $secs s (bound $bound s)"
if [ "$rc" = 124 ] || [ "$(echo "$secs >= $bound" | bc)" = 1 ]; then
  echo "deadrank.sh: FAIL: the job still ran after $bound s (a hang)"; exit 1
fi
if printf '%s\n' "$out" | grep -q "^FAIL"; then echo "deadrank.sh: FAIL: a rank failed a check"; exit 1; fi
if printf '%s\n' "$out" | grep -q "^SKIP"; then exit 77; fi
if [ "$mode" = ends ]; then
  echo "deadrank.sh: the job ended (status $rc) within the bound: no hang"; exit 0
fi
got=$(printf '%s\n' "$out" | grep -c "survived after the death")
if [ "$got" != "$n" ]; then echo "deadrank.sh: FAIL: $got of $n survivors said survived"; exit 1; fi
if ! printf '%s\n' "$out" | grep -Eq -- "$re"; then echo "deadrank.sh: FAIL: no line matches $re"; exit 1; fi
echo "deadrank.sh: $n survivors, the expected error, in $secs s"
