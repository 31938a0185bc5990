#!/bin/sh
# mapreduce_reduce_restart.sh PROG NP -- MPIEXEC [FLAGS...]
# MR-1S restart when some reducers hold their reduce's result (written over
# the regions of their window) and the others do not yet: the job is stopped
# after its map rounds (MAPREDUCE_TEST_STOP_BEFORE_REDUCE), rank 1's window
# file is kept, a restart reduces and writes the counts, then rank 1's file
# goes back to its state before the reduce and a second restart must give
# the same counts (the serial reference's), byte for byte.
set -u
prog=$1 np=$2
shift 2
[ "${1:-}" = "--" ] && shift
dir=$(mktemp -d "${MPISW_TEST_TMPDIR:-/tmp}/mpisw-mapreduce-rr-XXXXXX") || exit 1
trap '[ "${MPISW_TEST_KEEP:-0}" = 1 ] || rm -rf "$dir"' EXIT
fail() { echo "FAIL: mapreduce_reduce_restart.sh: $*"; exit 1; }
"$prog" gen --output "$dir/c.txt" --size $((256 * np))K --seed 5 >/dev/null || fail "gen failed"
"$prog" serial --input "$dir/c.txt" --output "$dir/ref" >/dev/null || fail "serial failed"
mkdir "$dir/ck"
run="$prog 1s --input $dir/c.txt --output $dir/out --task-size 32K --path $dir/ck"
MAPREDUCE_TEST_STOP_BEFORE_REDUCE=1 "$@" -n "$np" $run >"$dir/log" 2>&1 ||
  { cat "$dir/log"; fail "the run stopped before its reduce exited $?"; }
[ ! -e "$dir/out" ] || fail "the run stopped before its reduce wrote counts"
cp "$dir/ck/mr1s-r1.win" "$dir/r1.before" || fail "no window file of rank 1"
for what in "every reducer" "rank 1 not"; do
  rm -f "$dir/out"
  "$@" -n "$np" $run --restart >"$dir/log" 2>&1 || { cat "$dir/log"; fail "$what: restart exited $?"; }
  grep -q '"restarted":1' "$dir/log" || { cat "$dir/log"; fail "$what: no restart said"; }
  cmp "$dir/ref" "$dir/out" || fail "$what: counts differ from the serial reference"
  echo "restart with the reduce's result at $what: counts equal"
  cp "$dir/r1.before" "$dir/ck/mr1s-r1.win" # rank 1 back to before its reduce
done
echo "ok: MR-1S at $np ranks restarts from reducers with and without their result"
