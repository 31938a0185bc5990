#!/bin/sh
# reportsync.sh MIN_BYTES MAX_BYTES -- COMMAND...
# Runs COMMAND with MPISW_REPORT=1 and checks the report's "written:" figure (bytes syncs wrote)
# (a number with an optional unit: B, bytes, KiB, MiB, GiB, TiB) lies in
# [MIN_BYTES, MAX_BYTES]. A figure printed in a unit too coarse to show
# MIN_BYTES (0.0 MiB) passes the lower bound. Exit: 0 when it does, 1 when
# not or when no figure is printed, COMMAND's status when it failed.
set -u
min=$1 max=$2
shift 2
[ "${1:-}" = "--" ] && shift
out=$(mktemp /tmp/mpisw-reportsync-XXXXXX) || exit 1
trap 'rm -f "$out"' EXIT
MPISW_REPORT=1 "$@" 2>"$out"
rc=$?
cat "$out" >&2
[ "$rc" = 0 ] || exit "$rc"
awk -v min="$min" -v max="$max" '
  /written:/ {
    s = $0; sub(/.*written:[ \t]*/, "", s)
    if (match(s, /^[0-9.]+/) == 0) next
    v = substr(s, 1, RLENGTH) + 0; u = substr(s, RLENGTH + 1); sub(/^[ \t]+/, "", u)
    split(u, w, /[^A-Za-z]/); u = w[1]; m = 1; step = 1
    if (u == "KiB" || u == "kB" || u == "KB") m = 1024
    else if (u == "MiB" || u == "MB") m = 1048576
    else if (u == "GiB" || u == "GB") m = 1073741824
    else if (u == "TiB" || u == "TB") m = 1099511627776
    found = 1; b = v * m
    # the last printed digit: the figure is b +- half of it
    d = index(substr(s, 1, RLENGTH), ".") ? RLENGTH - index(substr(s, 1, RLENGTH), ".") : 0
    tol = m / 2; for (i = 0; i < d; i++) tol /= 10
    printf "reportsync.sh: written %s -> %.0f bytes (+- %.0f), wanted %d..%d\n", substr(s, 1, RLENGTH) " " u, b, tol, min, max
    ok = (b - tol <= max) && (b + tol >= min) && (b <= max)
    exit
  }
  END { if (!found) { print "reportsync.sh: no written: figure in the report"; exit 1 } exit ok ? 0 : 1 }
' "$out"
