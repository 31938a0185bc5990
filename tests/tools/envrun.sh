#!/bin/sh
# envrun.sh [VAR=VALUE]... -- COMMAND...
# Makes a fresh directory D, exports MPISW_TEST_DIR=D and every VAR=VALUE with
# @DIR@ replaced by D and @SC@ by ";", runs COMMAND, removes D (unless
# MPISW_TEST_KEEP=1).
set -u
dir=$(mktemp -d /tmp/mpisw-env-XXXXXX) || exit 1
cleanup() { [ "${MPISW_TEST_KEEP:-0}" = 1 ] || rm -rf "$dir"; }
trap cleanup EXIT
trap 'exit 143' INT TERM
MPISW_TEST_DIR=$dir
export MPISW_TEST_DIR
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  var=${1%%=*}
  val=$(printf '%s' "${1#*=}" | sed -e "s|@DIR@|$dir|g" -e "s|@SC@|;|g")
  export "$var=$val"
  echo "envrun.sh: $var=$val"
  shift
done
[ "${1:-}" = "--" ] && shift
timeout -k 5 50 "$@"
