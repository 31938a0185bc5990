#!/bin/sh
# ckpt_bench_check.sh MPIEXEC "PREFLAGS" CKPT_BENCH MODE
# bench/ckpt_bench.c, tiny, at 2 ranks, "PFS" and LOCAL under one fresh
# directory of /tmp (ctest bench_ckpt_tiny_<mode>):
#  1. 3 checkpoints of 1 MiB + 5 bytes per rank with --verify (the newest
#     version read back from the PFS directory, every byte): exit 0, one
#     record with the mode, the engine's drain of every version measured,
#     nothing left behind;
#  2. --corrupt (a byte of rank 0's newest file flipped before the check):
#     must fail naming the file, and still leave nothing behind.
set -u
mpiexec=$1 preflags=$2 prog=$3 mode=$4
dir=$(mktemp -d /tmp/mpisw-ckptbench-ctest-XXXXXX) || exit 1
mkdir "$dir/pfs" "$dir/local"
out=$dir/out err=$dir/err
fail=0
bad() { echo "FAIL: $*"; fail=1; }
left() { find "$dir/pfs" "$dir/local" -mindepth 1 2>/dev/null; }
trap 'rm -rf "$dir"' EXIT
# shellcheck disable=SC2086
run() {
  $mpiexec $preflags -n 2 "$prog" --mode "$mode" --path "$dir/pfs" --local "$dir/local" \
    --size 1048581 --iters 3 --compute 0.05 "$@" >"$out" 2>"$err"
}

run --verify
rc=$?
[ $rc -eq 0 ] || { bad "tiny run exited $rc"; cat "$err"; }
n=$(grep -c '^{"bench":"ckpt"' "$out")
[ "$n" -eq 1 ] || bad "printed $n records, expected 1"
grep -q "\"mode\":\"$mode\",\"ranks\":2,\"size\":1048581,\"iters\":3" "$out" || bad "record: $(cat "$out")"
if [ "$mode" = engine ]; then
  grep -q '"drains":3' "$out" || bad "the drain of each of the 3 versions is not measured: $(cat "$out")"
fi
[ -z "$(left)" ] || bad "files left behind: $(left)"

run --corrupt
rc=$?
[ $rc -ne 0 ] || bad "--corrupt did not fail"
grep -q "differs from the data" "$err" || { bad "--corrupt: no mismatch message"; cat "$err"; }
[ -z "$(left)" ] || bad "files left behind after --corrupt: $(left)"
[ $fail = 0 ] && echo "ckpt_bench_check: $mode ok"
exit $fail
