#!/bin/bash
# simcluster_errors.sh: simcluster.sh's answers to bad input and failures.
# Bad names, rates, options and placements get a clear message and exit 1;
# an up that fails half-way removes what it made and leaves others' namespaces
# alone; hydra's exec script refuses a host that is not a node. The parts
# that need root exit 77 (SKIP) without it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
sc=$here/simcluster.sh
name=er$$
fails=0
# expect RC TEXT CMD...: CMD exits RC and prints TEXT (stdout or stderr).
expect() {
  local rc=$1 text=$2 out got
  shift 2
  out=$("$@" 2>&1); got=$?
  if [ "$got" -ne "$rc" ] || ! grep -qF -- "$text" <<<"$out"; then
    echo "FAIL: '$*' exited $got (want $rc), printed: $out (want: $text)"
    fails=$((fails + 1))
  fi
}
expect 1 "cluster name 'Bad_Name' must be lower-case" "$sc" up Bad_Name
expect 1 "longer than 24 characters" "$sc" up abcdefghijklmnopqrstuvwxyz
expect 1 "rate '10mb' must end in kbit, mbit or gbit" "$sc" up "$name" --node-rate 10mb
expect 1 "rate 'fastmbit' must be a whole number" "$sc" up "$name" --core-rate fastmbit
expect 1 "--nodes 0 must be 1..250" "$sc" up "$name" --nodes 0
expect 1 "--latency 'soon' must be like 1ms" "$sc" up "$name" --latency soon
expect 1 "unknown option '--bogus'" "$sc" up "$name" --bogus 1
expect 1 "cluster '$name' is not up" "$sc" info "$name"
expect 255 "host 'nosuch-n0' is not a node of a simulated cluster that is up" \
  "$here/simcluster_exec.sh" -x nosuch-n0 true
if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
  [ $fails -eq 0 ] || exit 1
  echo "SKIP: simcluster_errors: the rest needs root, ip and tc"
  exit 77
fi
# A failed up removes what it made, not a namespace it found.
ip netns add "mpisw-sc-$name-n3" || { echo "SKIP: cannot create network namespaces here"; exit 77; }
expect 1 "already up (or left over)" "$sc" up "$name"
ip netns del "mpisw-sc-$name-n3"
SIMCLUSTER_FAIL_AT_NODE=2 expect 1 "up $name failed; removing what it made" "$sc" up "$name"
left=$(ip netns list | awk '{print $1}' | grep -c "^mpisw-sc-$name-")
[ "$left" -eq 0 ] || { echo "FAIL: a failed up left $left namespaces"; fails=$((fails + 1)); }
[ ! -e "/run/mpisw-simcluster/$name" ] || { echo "FAIL: a failed up left its state directory"; fails=$((fails + 1)); }
# --latency: netem on every link end, or a clear refusal where the kernel
# has no netem.
if "$sc" up "$name" --nodes 2 --per-leaf 1 --latency 1ms >/dev/null 2>&1; then
  tc -n "mpisw-sc-$name-n0" qdisc show dev eth0 | grep -q "netem.*delay 1ms" ||
    { echo "FAIL: --latency 1ms put no netem on eth0"; fails=$((fails + 1)); }
  "$sc" down "$name" >/dev/null
else
  expect 1 "--latency needs tc's netem qdisc" "$sc" up "$name" --latency 1ms
fi
# Placements hydra cannot express, on a cluster that is up.
"$sc" up "$name" --nodes 2 --per-leaf 1 >/dev/null || { echo "FAIL: up"; exit 1; }
expect 1 "hydra needs each node's ranks consecutive" "$sc" run "$name" --map 0,1,0 -n 3 true
expect 1 "--map has 2 entries for -n 3" "$sc" run "$name" --map 0,1 -n 3 true
expect 1 "--map names node 5 of 2" "$sc" run "$name" --map 0,5 -n 2 true
expect 1 "-n NP is required" "$sc" run "$name" true
expect 1 "already up" "$sc" up "$name"
"$sc" down "$name" >/dev/null
[ "$(ip netns list | awk '{print $1}' | grep -c "^mpisw-sc-$name-")" -eq 0 ] || { echo "FAIL: down left namespaces"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "simcluster_errors: ok" || exit 1
