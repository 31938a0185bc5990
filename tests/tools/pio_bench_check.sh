#!/bin/sh
# pio_bench_check.sh MPIEXEC "PREFLAGS" PIO_BENCH
# bench/pio_bench.c, tiny, on /dev/shm at 2 ranks (ctest bench_pio_tiny):
#  1. every layout, order and two transfer sizes (one unaligned), read back
#     and checked: exit 0, every record printed, no file left;
#  2. --corrupt (one byte flipped after the read): must fail, naming the
#     mismatch, and still leave no file;
#  3. a pooled name (mem:): either it works (a build with pooled files) or the
#     run fails with the MPI error of the open naming the file, never a crash;
#     with --skip-unavailable the run goes on and says why the target is out.
set -u
mpiexec=$1 preflags=$2 prog=$3
prefix=/dev/shm/mpisw-piobench-ctest-$$
out=$(mktemp) err=$(mktemp)
fail=0
bad() { echo "FAIL: $*"; fail=1; }
left() { ls -d "$prefix"* 2>/dev/null; }
cleanup() { rm -f "$out" "$err"; rm -f "$prefix"*; }
trap cleanup EXIT
# shellcheck disable=SC2086
run() { $mpiexec $preflags -n 2 "$prog" "$@" >"$out" 2>"$err"; }

# 1. 2 layouts x 2 orders x 2 sizes x 4 phases + 2 layouts x 3 open/close records
run --xfer 16K,100000 --block 250000 --segments 2 --layout both --order both \
    --reps 1 --opens 3 --hint striping_unit=65536 "pio=$prefix"
rc=$?
[ $rc -eq 0 ] || { bad "tiny run exited $rc"; cat "$err"; }
n=$(grep -c '^{"bench":"pio"' "$out")
[ "$n" -eq 38 ] || bad "tiny run printed $n records, expected 38"
for ph in write read write_total read_total open close open_close; do
  grep -q "\"phase\":\"$ph\"" "$out" || bad "no $ph record"
done
grep -q '"xfer":100000,"block":200000,"segments":2' "$out" ||
  bad "100000-byte transfers: block not rounded to 200000"
grep -q '"hints":"striping_unit=65536"' "$out" || bad "the hint is not recorded"
grep -q '"GBps":0.000000' "$out" && bad "a phase measured 0 GB/s"
[ -z "$(left)" ] || bad "files left behind: $(left)"

# 2. a mismatch must fail loudly
run --xfer 100000 --block 200000 --layout shared --reps 1 --opens 0 --corrupt "$prefix"
rc=$?
[ $rc -ne 0 ] || bad "--corrupt run exited 0"
grep -q "DATA MISMATCH in $prefix.shared at offset" "$err" || { bad "no DATA MISMATCH message"; cat "$err"; }
[ -z "$(left)" ] || bad "files left behind after the mismatch: $(left)"

# 3. a pooled name: works, or fails with the open's MPI error
mem="mem:/mpisw-piobench-ctest-$$/f"
run --xfer 64K --block 128K --reps 1 --opens 2 "$mem"
rc=$?
if [ $rc -eq 0 ]; then
  grep -q '"phase":"read"' "$out" || bad "mem: run exited 0 without read records"
elif [ $rc -ge 128 ]; then
  bad "mem: run died of a signal ($rc)"; cat "$err"
else
  grep -q "MPI_File_open($mem.probe): " "$err" || { bad "mem: failure does not name the open and file"; cat "$err"; }
fi
run --xfer 64K --block 128K --reps 1 --opens 2 --skip-unavailable "pooled=$mem" "shm=$prefix"
rc=$?
[ $rc -eq 0 ] || { bad "--skip-unavailable run exited $rc"; cat "$err"; }
grep -q '"target":"shm".*"phase":"read"' "$out" || bad "the /dev/shm target was not measured next to mem:"
grep -q '"target":"pooled"' "$out" || bad "nothing recorded of the mem: target"
[ -z "$(left)" ] || bad "files left behind: $(left)"

[ $fail -eq 0 ] && echo "pio_bench checks passed"
exit $fail
