#!/bin/sh
# samefile_jobs.sh -- MPIEXEC [FLAGS...] -n NP PROG
# Two MPI jobs on one named file: the first (PROG hold F) keeps a window on
# its bytes; the second (PROG intrude F), started meanwhile, must be refused
# on every rank; then the first checks its bytes and ends.
set -u
[ "${1:-}" = "--" ] && shift
dir=$(mktemp -d /tmp/mpisw-samefile-XXXXXX) || exit 1
holder=""
cleanup() {
  [ -n "$holder" ] && kill "$holder" 2>/dev/null
  [ "${MPISW_TEST_KEEP:-0}" = 1 ] || rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 143' INT TERM
f=$dir/f
fail() { echo "FAIL: samefile_jobs.sh: $*"; exit 1; }
timeout -k 5 50 "$@" hold "$f" &
holder=$!
i=0
until [ -e "$f.ready" ]; do
  i=$((i + 1))
  [ "$i" -gt 400 ] && fail "the first job never got its window"
  kill -0 "$holder" 2>/dev/null || fail "the first job ended early"
  sleep 0.1
done
echo "samefile_jobs.sh: first job holds $f; starting the second"
timeout -k 5 40 "$@" intrude "$f" || fail "the second job was not refused as expected (rc $?)"
touch "$f.go"
wait "$holder"
rc=$?
holder=""
[ "$rc" -eq 0 ] || fail "the first job failed (rc $rc)"
echo "PASS"
