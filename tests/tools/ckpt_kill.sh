#!/bin/sh
# ckpt_kill.sh TRIALS NP -- MPIEXEC [FLAGS...] -n NP PROG
# kill -9 during checkpoints, TRIALS times: each trial starts PROG kill DIR
# (a new job on one checkpoint directory), which restarts, checks that it
# got at least the last version whose take returned, byte-exact, writes
# ready.<rank> (its pid) and takes checkpoints until killed. After a random
# 0-30 ms this kills one rank (odd trials) or every rank (even trials) with
# SIGKILL. The next trial's restart checks this one's kill; PROG killcheck
# DIR checks the last. Prints the time taken.
set -u
trials=$1 np=$2
shift 2
[ "${1:-}" = "--" ] && shift
dir=$(mktemp -d /tmp/mpisw-ckpt-kill-XXXXXX) || exit 1
job=""
cleanup() {
  [ -n "$job" ] && kill -9 "$job" 2>/dev/null
  [ "${MPISW_TEST_KEEP:-0}" = 1 ] || rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 143' INT TERM
fail() {
  echo "FAIL: ckpt_kill.sh trial $i: $*"
  [ -f "$dir/out" ] && cat "$dir/out"
  exit 1
}
rand() { od -An -N2 -tu2 /dev/urandom | tr -d ' '; }
t0=$(date +%s.%N)
i=0
while [ "$i" -lt "$trials" ]; do
  i=$((i + 1))
  rm -f "$dir"/ready.*
  timeout -k 2 20 "$@" kill "$dir" >"$dir/out" 2>&1 &
  job=$!
  n=0
  while [ "$(ls "$dir" | grep -c '^ready\.')" -lt "$np" ]; do
    kill -0 "$job" 2>/dev/null || { wait "$job"; job=""; fail "the job ended before taking checkpoints"; }
    n=$((n + 1))
    [ "$n" -gt 2000 ] && fail "the job never became ready"
    sleep 0.005
  done
  ms=$(($(rand) % 31))
  sleep "$(printf '0.%03d' "$ms")"
  if [ $((i % 2)) = 1 ]; then
    victim=$(($(rand) % np))
    pids=$(cat "$dir/ready.$victim")
  else
    pids=$(cat "$dir"/ready.*)
  fi
  kill -9 $pids 2>/dev/null
  wait "$job"
  job=""
  grep -q "FAIL" "$dir/out" && fail "a rank failed"
done
timeout -k 2 20 "$@" killcheck "$dir" >"$dir/out" 2>&1 || { i=final; fail "the final restart failed"; }
cat "$dir/out"
committed=$(cat "$dir"/committed.* 2>/dev/null | sort -n | tail -1)
t1=$(date +%s.%N)
echo "ckpt_kill.sh: $trials trials ($np ranks; one rank and all ranks killed in turn), last committed version ${committed:-none}, $(echo "$t0 $t1" | awk '{printf "%.1f s, %.3f s per trial", $2 - $1, ($2 - $1) / '"$trials"'}')"
echo "PASS"
