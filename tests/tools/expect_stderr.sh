#!/bin/sh
# expect_stderr.sh [once:TEXT | has:TEXT | none:TEXT | secs:N]... -- COMMAND...
# Runs COMMAND, shows its stderr, and fails unless it exits 0 and its stderr
# has each once: text on exactly one line, each has: text on some line, no
# none: text, and it ran within secs: seconds. Texts are fixed strings.
set -u
err=$(mktemp /tmp/mpisw-stderr-XXXXXX) || exit 1
trap 'rm -f "$err"' EXIT
checks=
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  checks="$checks
$1"
  shift
done
[ "${1:-}" = "--" ] && shift
start=$(date +%s)
"$@" 2>"$err"
rc=$?
took=$(( $(date +%s) - start ))
cat "$err" >&2
[ "$rc" = 0 ] || { echo "expect_stderr.sh: exit status $rc" >&2; exit 1; }
fail=0
echo "$checks" | while IFS= read -r c; do
  [ -n "$c" ] || continue
  kind=${c%%:*}
  text=${c#*:}
  n=$(grep -cF -- "$text" "$err")
  case $kind in
    once) [ "$n" = 1 ] || { echo "expect_stderr.sh: '$text' on $n lines, expected 1" >&2; exit 1; } ;;
    has) [ "$n" -ge 1 ] || { echo "expect_stderr.sh: '$text' missing" >&2; exit 1; } ;;
    none) [ "$n" = 0 ] || { echo "expect_stderr.sh: '$text' on $n lines, expected none" >&2; exit 1; } ;;
    secs) [ "$took" -le "$text" ] || { echo "expect_stderr.sh: took ${took}s, more than ${text}s" >&2; exit 1; } ;;
    *) echo "expect_stderr.sh: unknown check '$c'" >&2; exit 1 ;;
  esac
done || fail=1
[ "$fail" = 0 ] && echo "expect_stderr.sh: stderr as expected (${took}s)"
exit "$fail"
