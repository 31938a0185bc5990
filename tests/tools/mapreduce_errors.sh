#!/bin/sh
# mapreduce_errors.sh PROG quick|full -- MPIEXEC [FLAGS...]
# Bad input gets its documented exit code (the same from every rank) and a
# message naming the problem: bad options (2), a missing input or word list
# (3), an unusable checkpoint directory (4), a restart without a checkpoint
# or from one of another corpus or rank count (5), a full MR-1S region (6).
# quick: each code once under mpiexec (MR-1S); full: every case for both programs.
set -u
prog=$1 set=$2
shift 2
[ "${1:-}" = "--" ] && shift
dir=$(mktemp -d "${MPISW_TEST_TMPDIR:-/tmp}/mpisw-mapreduce-err-XXXXXX") || exit 1
trap '[ "${MPISW_TEST_KEEP:-0}" = 1 ] || rm -rf "$dir"' EXIT
trap 'exit 143' INT TERM
n=0
# expect RC PATTERN CMD...: exit code RC and PATTERN in the output
expect() {
  want=$1 pat=$2
  shift 2
  n=$((n + 1))
  timeout -k 2 40 "$@" >"$dir/log" 2>&1
  rc=$?
  if [ "$rc" != "$want" ] || ! grep -q -- "$pat" "$dir/log"; then
    cat "$dir/log"
    echo "FAIL: mapreduce_errors.sh: '$*' exited $rc (want $want) or said no '$pat'"
    exit 1
  fi
  echo "ok $n: exit $rc: $(grep -m1 -- "$pat" "$dir/log")"
}
mkdir "$dir/ck" "$dir/ck2"
"$prog" gen --output "$dir/a.txt" --size 32K --seed 1 >/dev/null || exit 1
"$prog" gen --output "$dir/b.txt" --size 32K --seed 2 >/dev/null || exit 1
run() { np=$1 mode=$2; shift 2; echo "$@" -n "$np" "$prog" "$mode"; }
mpi="$*"
expect 2 "give gen, serial, 1s or 2s" "$prog" map --input x --output y
expect 2 "unknown" "$prog" 2s --input x --output y --colour blue
expect 2 "task-size" "$prog" 2s --input x --output y --task-size 0
expect 2 "checkpoints" "$prog" 1s --input x --output y --checkpoints some
expect 2 "a checkpoint directory is required" "$prog" 1s --input x --output y
expect 2 "checkpoints need storage windows" "$prog" 1s --input x --output y --path "$dir" --window memory
expect 3 "cannot read the word list" "$prog" gen --output "$dir/g" --size 1K --words "$dir/nowords"
expect 3 "cannot read the input" "$prog" serial --input "$dir/none.txt" --output "$dir/o"
expect 3 "cannot read the input" $mpi -n 2 "$prog" 2s --input "$dir/none.txt" --output "$dir/o" --checkpoints none
full() { [ "$set" = full ] && expect "$@"; return 0; }
expect 4 "checkpoint directory" $mpi -n 2 "$prog" 1s --input "$dir/a.txt" --output "$dir/o" --path "$dir/missing"
full 4 "cannot write in the checkpoint directory" $mpi -n 2 "$prog" 2s --input "$dir/a.txt" --output "$dir/o" --path /proc
full 5 "no MR-1S checkpoint" $mpi -n 2 "$prog" 1s --input "$dir/a.txt" --output "$dir/o" --path "$dir/ck" --restart
full 5 "no MR-2S checkpoint" $mpi -n 2 "$prog" 2s --input "$dir/a.txt" --output "$dir/o" --path "$dir/ck" --restart
modes="1s 2s"
[ "$set" = full ] || modes=1s
for mode in $modes; do
  expect 0 '"restarted":0' $mpi -n 2 "$prog" $mode --input "$dir/a.txt" --output "$dir/o" --path "$dir/ck" --task-size 4K
  expect 5 "another input" $mpi -n 2 "$prog" $mode --input "$dir/b.txt" --output "$dir/o" --path "$dir/ck" --task-size 4K --restart
done
full 5 "of 2 ranks" $mpi -n 1 "$prog" 1s --input "$dir/a.txt" --output "$dir/o" --path "$dir/ck" --task-size 4K --restart
full 5 "rank count" $mpi -n 1 "$prog" 2s --input "$dir/a.txt" --output "$dir/o" --path "$dir/ck" --task-size 4K --restart
expect 6 "raise --slots" $mpi -n 2 "$prog" 1s --input "$dir/a.txt" --output "$dir/o" --path "$dir/ck2" --slots 16
echo "ok: $n bad inputs, each with its exit code and message"
