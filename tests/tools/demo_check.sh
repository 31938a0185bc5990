#!/usr/bin/env bash
# demo_check.sh DEMO_SCRIPT BUILD
# Runs make demo's script on BUILD, showing its output as it comes (so a
# time-out shows where it stood), and checks that every step passed and that
# the DHT's auto / memory time is a median over interleaved pairs of runs,
# with its spread and a word on what it does not mean.
set -u -o pipefail
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
bash "$1" "$2" 2>&1 </dev/null | tee "$out"
rc=$?
[ "$rc" -eq 0 ] || { echo "demo_check: the demo exited $rc"; exit 1; }
grep -Eq 'per pair: median [0-9.]+x \(min [0-9.]+x, max [0-9.]+x\)' "$out" ||
  { echo "demo_check: no median ratio with min and max"; exit 1; }
grep -q 'is not a measurement' "$out" || { echo "demo_check: no word on the ratio"; exit 1; }
echo "demo_check: ok"
