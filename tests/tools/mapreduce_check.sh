#!/bin/sh
# mapreduce_check.sh PROG NP "TEXTS" "CHECKPOINTS" -- MPIEXEC [FLAGS...]
# Word counts identical everywhere: on a generated corpus (gen: Zipf 1.1,
# seed 7) and/or a real text (user: the project's README.md), MR-1S and
# MR-2S at NP ranks with each --checkpoints value of CHECKPOINTS (none,
# all), each output compared byte for byte with the serial reference's.
# Tiny tasks, so every rank maps several.
set -u
prog=$1 np=$2 texts=$3 cks=$4
shift 4
[ "${1:-}" = "--" ] && shift
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d "${MPISW_TEST_TMPDIR:-/tmp}/mpisw-mapreduce-XXXXXX") || exit 1
trap '[ "${MPISW_TEST_KEEP:-0}" = 1 ] || rm -rf "$dir"' EXIT
trap 'exit 143' INT TERM
fail() { echo "FAIL: mapreduce_check.sh: $*"; exit 1; }
mkdir "$dir/ck"
"$prog" gen --output "$dir/gen.txt" --size 96K --seed 7 --zipf 1.1 >/dev/null ||
  fail "gen failed"
cp "$here/../../README.md" "$dir/user.txt"
for text in $texts; do
  "$prog" serial --input "$dir/$text.txt" --output "$dir/$text.ref" >/dev/null ||
    fail "serial failed on $text.txt"
  [ -s "$dir/$text.ref" ] || fail "empty reference for $text.txt"
  for mode in 1s 2s; do
    for ck in $cks; do
      out="$dir/$text-$mode-$ck.out"
      timeout -k 2 40 "$@" -n "$np" "$prog" "$mode" --input "$dir/$text.txt" --output "$out" \
        --task-size 8K --path "$dir/ck" --checkpoints "$ck" >"$dir/log" 2>&1 ||
        { cat "$dir/log"; fail "$mode --checkpoints $ck on $text.txt exited $?"; }
      cmp "$dir/$text.ref" "$out" || { diff "$dir/$text.ref" "$out" | head; fail "$mode --checkpoints $ck on $text.txt: counts differ from the serial reference"; }
      grep -q '"restarted":0' "$dir/log" || { cat "$dir/log"; fail "no JSON line"; }
    done
  done
  echo "ok: $text.txt ($(wc -l <"$dir/$text.ref") words): 1s and 2s at $np ranks, --checkpoints $(echo $cks | tr " " /), equal to serial"
done
