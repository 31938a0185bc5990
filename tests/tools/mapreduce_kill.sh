#!/bin/sh
# mapreduce_kill.sh PROG MODE NP TRIALS -- MPIEXEC [FLAGS...]
# kill -9 of the whole job (mpiexec and every rank) in the middle of a run
# with checkpoints after every map round, at a random instant after the
# first map checkpoint, then --restart: the counts must equal the serial
# reference's, byte for byte. TRIALS trials, one corpus.
set -u
prog=$1 mode=$2 np=$3 trials=$4
shift 4
[ "${1:-}" = "--" ] && shift
dir=$(mktemp -d "${MPISW_TEST_TMPDIR:-/tmp}/mpisw-mapreduce-kill-XXXXXX") || exit 1
sid=""
killjob() { # every process of the job's session, by id
  [ -n "$sid" ] || return 0
  for p in $(ps -eo pid=,sid= | awk -v s="$sid" '$2 == s { print $1 }'); do
    kill -9 "$p" 2>/dev/null
  done
}
trap 'killjob; [ "${MPISW_TEST_KEEP:-0}" = 1 ] || rm -rf "$dir"' EXIT
trap 'exit 143' INT TERM
fail() { echo "FAIL: mapreduce_kill.sh $mode trial $i: $*"; exit 1; }
rand() { od -An -N2 -tu2 /dev/urandom | tr -d ' '; }
i=0
# 8 map rounds whatever NP: 8 x NP tasks of 8 KiB
"$prog" gen --output "$dir/c.txt" --size $((64 * np))K --seed 11 >/dev/null || fail "gen failed"
"$prog" serial --input "$dir/c.txt" --output "$dir/ref" >/dev/null || fail "serial failed"
mkdir "$dir/ck"
run="$prog $mode --input $dir/c.txt --output $dir/out --task-size 8K --path $dir/ck --checkpoints all"
interrupted=0 retries=0
while [ "$i" -lt "$trials" ]; do
  i=$((i + 1))
  rm -f "$dir/out"
  # 80 ms after each task: at least 7 x 80 ms of map rounds are left after
  # the first one's checkpoint, and the kill comes within 250 ms of it
  setsid "$@" -n "$np" $run --task-delay 80 --verbose >"$dir/log" 2>&1 &
  sid=$!
  n=0
  until grep -q 'checkpoint [0-9]* (map' "$dir/log"; do
    kill -0 "$sid" 2>/dev/null || { cat "$dir/log"; fail "the job ended before a checkpoint"; }
    n=$((n + 1))
    [ "$n" -gt 3000 ] && fail "no checkpoint within 30 s"
    sleep 0.01
  done
  delay=$(($(rand) % 250))
  sleep "$(printf '0.%03d' "$delay")"
  killjob
  wait "$sid" 2>/dev/null
  sid=""
  if [ -e "$dir/out" ]; then
    echo "trial $i: the job had finished before the kill (after ${delay} ms): again"
    retries=$((retries + 1))
    [ "$retries" -gt 3 ] && fail "the job finished before the kill 4 times"
    i=$((i - 1))
    continue
  else
    interrupted=$((interrupted + 1))
  fi
  timeout -k 2 40 "$@" -n "$np" $run --restart >"$dir/log" 2>&1 ||
    { cat "$dir/log"; fail "the restart exited $?"; }
  grep -q '"restarted":1' "$dir/log" || { cat "$dir/log"; fail "the restart did not say it restarted"; }
  cmp "$dir/ref" "$dir/out" || fail "counts after the restart differ from the serial reference"
  echo "trial $i: killed ${delay} ms after the first map checkpoint, $(grep -o '"resumed_round":[0-9]*' "$dir/log"); counts equal"
done
[ "$interrupted" -gt 0 ] || fail "no trial killed the job before its end"
echo "ok: $mode at $np ranks, $interrupted of $trials trials interrupted, every restart exact"
