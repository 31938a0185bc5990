#!/bin/sh
# expect_report.sh PATTERN COMMAND...: passes when COMMAND fails (non-zero
# exit) and its output holds PATTERN (grep -E): the sanitizer report did stop
# the MPI job. Any other outcome fails, saying which.
pattern=$1; shift
out=$("$@" 2>&1); status=$?
printf '%s\n' "$out" | tail -n 30
if [ "$status" -eq 0 ]; then
  echo "expect_report: the job exited 0 despite the error: the sanitizer did not stop it" >&2
  exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq "$pattern"; then
  echo "expect_report: exit $status but no '$pattern' in the output" >&2
  exit 1
fi
echo "expect_report: exit $status with '$pattern', as the pass needs"
