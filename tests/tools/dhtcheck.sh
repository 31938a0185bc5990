#!/bin/sh
# dhtcheck.sh RC CHECK [VAR=VALUE]... -- COMMAND...
# Runs the DHT (COMMAND, usually mpiexec ... dht ...) in a fresh directory D
# (@DIR@ in COMMAND and in VALUEs becomes D), with VAR=VALUE exported, and
# checks what it did:
#   RC      the exit code it must end with (0 ok, 2 bad option, 3 over the
#           memory budget, 5 heap full; see docs/DHT.md)
#   CHECK   ok         a JSON line with "verify":"ok"
#           memory     ok, and nothing on storage
#           storage    ok, and storage_bytes > 0
#           outofcore  ok, storage_bytes > 0, and memory_bytes at most
#                      MPISW_MEMORY_LIMIT x ranks
#           budget     stderr says "over the memory budget"
#           heapfull   stderr says "overflow heap is full"
#           usage      stderr shows the usage
#           allocerr   stderr says the allocation failed
# and that no window file is left in D afterwards.
set -u
[ $# -ge 3 ] || { echo "usage: $0 RC CHECK [VAR=VALUE]... -- COMMAND..." >&2; exit 2; }
want_rc=$1 check=$2
shift 2
dir=$(mktemp -d /tmp/mpisw-dht-XXXXXX) || exit 1
cleanup() { [ "${MPISW_TEST_KEEP:-0}" = 1 ] || rm -rf "$dir"; }
trap cleanup EXIT
trap 'exit 143' INT TERM
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  var=${1%%=*}
  val=$(printf '%s' "${1#*=}" | sed -e "s|@DIR@|$dir|g")
  export "$var=$val"
  echo "dhtcheck.sh: $var=$val"
  shift
done
[ "${1:-}" = "--" ] && shift
n=0
for a in "$@"; do # @DIR@ in the command's words
  a=$(printf '%s' "$a" | sed -e "s|@DIR@|$dir|g")
  if [ $n -eq 0 ]; then set --; fi
  set -- "$@" "$a"
  n=$((n + 1))
done
echo "dhtcheck.sh: $*"
timeout -k 5 50 "$@" >"$dir/out" 2>"$dir/err" </dev/null
rc=$?
cat "$dir/out"
cat "$dir/err" >&2
fail() { echo "dhtcheck.sh: FAILED: $*" >&2; exit 1; }

[ "$rc" -eq "$want_rc" ] || fail "exit code $rc, expected $want_rc"
json=$(grep '^{"bench":"dht"' "$dir/out" | head -n 1)
num() { printf '%s' "$json" | sed -n "s/.*\"$1\":\([0-9][0-9]*\).*/\1/p"; }
case $check in
  ok | memory | storage | outofcore)
    [ -n "$json" ] || fail "no JSON line"
    case $json in *'"verify":"ok"'*) ;; *) fail "verify is not ok" ;; esac
    st=$(num storage_bytes) mem=$(num memory_bytes) ranks=$(num ranks)
    case $check in
      memory) [ "$st" -eq 0 ] || fail "$st bytes on storage, expected none" ;;
      storage) [ "$st" -gt 0 ] || fail "nothing on storage" ;;
      outofcore)
        [ "$st" -gt 0 ] || fail "nothing on storage under MPISW_MEMORY_LIMIT"
        lim=$(num memlimit_env)
        [ -n "$lim" ] && [ "$lim" -gt 0 ] || fail "MPISW_MEMORY_LIMIT not seen by the DHT"
        [ "$mem" -le $((lim * ranks)) ] ||
          fail "$mem bytes in memory over the budget of $((lim * ranks))" ;;
    esac ;;
  budget) grep -q "over the memory budget" "$dir/err" || fail "no 'over the memory budget' message" ;;
  heapfull) grep -q "overflow heap is full" "$dir/err" || fail "no 'overflow heap is full' message" ;;
  usage) grep -q "usage:" "$dir/err" || fail "no usage message" ;;
  allocerr) grep -q "window .* failed: mpisw" "$dir/err" || fail "no allocation error message" ;;
  *) fail "unknown CHECK $check" ;;
esac
left=$(find "$dir" -mindepth 1 ! -name out ! -name err | head -n 3)
[ -z "$left" ] || fail "files left behind: $left"
echo "dhtcheck.sh: ok"
