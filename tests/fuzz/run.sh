#!/bin/sh
# Runs the parser fuzz target (tests/fuzz/fuzz_hints.c):
#   run.sh FUZZER SECONDS WORKDIR
# 1. replays every checked-in input of tests/fuzz/corpus/ (seeds and the
#    regression inputs of crashes found before): any failure fails the run;
# 2. fuzzes for SECONDS from a copy of that corpus in WORKDIR/corpus.
# A crash leaves WORKDIR/crash-<sha1>; copy it to tests/fuzz/corpus/ with a
# name saying what it found, fix the library, and step 1 replays it forever.
set -eu
fuzzer=$1 seconds=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$fuzzer" ] || { echo "run.sh: no fuzzer at $fuzzer" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work/corpus"
# Sanitizer reports abort (libFuzzer also stops at the first one).
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
echo "run.sh: replaying $(ls "$here/corpus" | wc -l) checked-in inputs"
"$fuzzer" -runs=0 "$here"/corpus/* >"$work/replay.log" 2>&1 ||
  { cat "$work/replay.log"; echo "run.sh: a checked-in input fails" >&2; exit 1; }
cp "$here"/corpus/* "$work/corpus/"
echo "run.sh: fuzzing for $seconds s"
status=0
"$fuzzer" -max_total_time="$seconds" -dict="$here/hints.dict" -timeout=5 -rss_limit_mb=1024 -print_final_stats=1 \
  -artifact_prefix="$work/" "$work/corpus" >"$work/fuzz.log" 2>&1 || status=$?
tail -n 25 "$work/fuzz.log"
if [ "$status" -ne 0 ] || ls "$work"/crash-* "$work"/timeout-* "$work"/oom-* >/dev/null 2>&1; then
  echo "run.sh: FAILED (status $status); inputs: $(ls "$work"/crash-* "$work"/timeout-* "$work"/oom-* 2>/dev/null)" >&2
  exit 1
fi
echo "run.sh: no finding in $seconds s ($(ls "$work/corpus" | wc -l) inputs in the corpus)"
