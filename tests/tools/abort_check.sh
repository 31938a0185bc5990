#!/bin/sh
# abort_check.sh ERE -- COMMAND...
# Runs COMMAND, an MPI job expected to abort, with MPISW_TEST_STDERR_DIR set
# to a fresh directory where each rank writes its stderr (a launcher may drop
# the output of ranks it kills at an abort, so ctest's own output cannot be
# trusted to hold the message), and MPISW_TEST_TMPDIR to a directory inside
# it (the job's scratch files go with it). Passes when the job exits non-zero, never
# printed NOT ABORTED, and some rank's stderr file has a line matching ERE.
set -u
re=$1
shift
[ "${1:-}" = "--" ] && shift
dir=$(mktemp -d /tmp/mpisw-abort-XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
chmod 0777 "$dir"
# The job's scratch directory goes inside ours too: an aborted job cannot
# remove it, the trap does.
mkdir "$dir/scratch" && chmod 0777 "$dir/scratch"
out=$(MPISW_TEST_STDERR_DIR=$dir MPISW_TEST_TMPDIR=$dir/scratch "$@" 2>&1)
rc=$?
printf '%s\n' "$out"
for f in "$dir"/*; do [ -f "$f" ] && { echo "--- $f"; cat "$f"; }; done
if [ "$rc" = 0 ]; then echo "abort_check.sh: the job exited 0; it should abort"; exit 1; fi
if printf '%s\n' "$out" | grep -q "NOT ABORTED"; then echo "abort_check.sh: a rank went on"; exit 1; fi
if cat "$dir"/* 2>/dev/null | grep -Eq -- "$re"; then
  echo "abort_check.sh: aborted (status $rc) with the expected message"; exit 0
fi
echo "abort_check.sh: no rank's stderr matches: $re"
exit 1
