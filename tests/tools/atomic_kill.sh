#!/bin/sh
# atomic_kill.sh TRIALS one|all BACKEND CHECKER MPIEXEC... PROG
# Each trial starts "PROG loop DIR BACKEND" (ranks sync forever), waits until
# every rank has its window, sleeps 0-40 ms, kills -9 one rank (then, 20 ms
# later, the others the launcher has not taken down yet) or every rank, and
# runs CHECKER DIR NRANKS once they are gone: for atomic syncs each rank's
# file must hold exactly a synced state (tests/tools/atomic_check.c); for
# plain syncs (t_crash_sync, tests/tools/crash_sync_check.c) at least the
# last one that returned. A job that exits 77 at once skips the test.
# NRANKS is the value after -n in the launcher's arguments.
set -u
trials=$1 who=$2 backend=$3 checker=$4
shift 4
np=1 prev=""
for a in "$@"; do
  [ "$prev" = "-n" ] && np=$a
  prev=$a
done
top=$(mktemp -d "${TMPDIR:-/tmp}/mpisw-atomic-kill.XXXXXX") || exit 1
trap 'rm -rf "$top"' EXIT
rnd() { od -An -N2 -tu2 /dev/urandom | tr -d ' '; }
start=$(date +%s.%N)
t=0 inflight=0 syncs=0
while [ $t -lt "$trials" ]; do
  dir=$top/t$t
  mkdir "$dir"
  "$@" loop "$dir" "$backend" >"$dir/job.log" 2>&1 &
  job=$!
  # every rank's window made (its pid file), or the job gone
  i=0
  while [ $i -lt 1000 ]; do
    n=$(ls "$dir" | grep -c '^pid-r') || true
    [ "$n" -ge "$np" ] && break
    kill -0 $job 2>/dev/null || break
    sleep 0.005
    i=$((i + 1))
  done
  if [ "$n" -lt "$np" ]; then
    cat "$dir/job.log"
    if ! kill -0 $job 2>/dev/null; then
      wait $job
      [ $? -eq 77 ] && exit 77   # the job skipped (e.g. no pager here): so does the test
    fi
    echo "FAIL: trial $t: the ranks did not start"
    kill -9 $job 2>/dev/null
    exit 1
  fi
  ms=$(($(rnd) % 40))
  sleep "$(printf '0.%03d' $ms)"
  if [ "$who" = one ]; then
    kill -9 "$(cat "$dir/pid-r$(($(rnd) % np))")"
    sleep 0.02 # the launcher takes the others down; whoever is left goes below
  fi
  for r in $(seq 0 $((np - 1))); do kill -9 "$(cat "$dir/pid-r$r")" 2>/dev/null; done
  # the ranks gone, the files are final: check now, reap the launcher later
  # (Open MPI's takes a second to notice)
  for r in $(seq 0 $((np - 1))); do
    p=$(cat "$dir/pid-r$r")
    j=0
    while kill -0 "$p" 2>/dev/null && [ $j -lt 500 ]; do sleep 0.002; j=$((j + 1)); done
  done
  out=$("$checker" "$dir" "$np")
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "$out"
    cat "$dir/job.log"
    echo "FAIL: trial $t ($who killed, $backend)"
    wait
    exit 1
  fi
  inflight=$((inflight + $(echo "$out" | grep -c 'in flight')))
  syncs=$((syncs + $(echo "$out" | sed -n 's/.*state \([0-9]*\).*/\1/p' | awk '{s+=$1} END {print s+0}')))
  t=$((t + 1))
done
wait # every launcher (their job.log files go with the directory)
end=$(date +%s.%N)
echo "$trials trials, kill -9 of $who rank(s), backend $backend, $np ranks: every file held a synced state (as $(basename "$checker") checks) ($syncs syncs reached in all; $inflight files held the sync in flight, committed before the kill); $(awk "BEGIN { printf \"%.1f\", $end - $start }") s"
