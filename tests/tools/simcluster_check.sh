#!/bin/bash
# simcluster_check.sh T_SIMCLUSTER [TAG]: the simulated cluster's test.
# Brings up 4 nodes, 2 per leaf switch (node<->leaf 400mbit, leaf<->core
# 100mbit), checks topology.conf, runs T_SIMCLUSTER packed (-ppn 2),
# scattered and placed by a map (each also checks that two flows share a leaf
# uplink), checks the leaf uplink's byte counters, tears down and checks
# that nothing is left (namespaces, root links and qdiscs, processes, state,
# /etc/hosts). Exits 77 without root or network namespaces.
set -u
prog=$1 tag=${2:-t}
here=$(cd "$(dirname "$0")" && pwd)
sc=$here/simcluster.sh
name=ck$tag$$
fail() { echo "simcluster_check: FAIL: $*"; "$sc" down "$name" >/dev/null 2>&1; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: simcluster_check needs root (network namespaces)"; exit 77; }
for t in ip tc unshare; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: simcluster_check needs '$t' (iproute2, util-linux)"; exit 77; }
done
probe=mpisw-sc-probe$$
ip netns add "$probe" 2>/dev/null || { echo "SKIP: simcluster_check: cannot create a network namespace here"; exit 77; }
ip netns del "$probe"

snapshot() {
  echo "netns: $(ip netns list | awk '{print $1}' | grep -c "^mpisw-sc-$name-")"
  ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E '^(core|leaf[0-9]+|l[0-9]+(up|dn)|n[0-9]+|eth0)$'
  tc qdisc show | grep -E ' dev (core|leaf[0-9]+|l[0-9]+(up|dn)|n[0-9]+) '
  md5sum /etc/hosts
  ls -d "/run/mpisw-simcluster/$name" 2>/dev/null
}
before=$(snapshot)

t0=$(date +%s.%N)
"$sc" up "$name" --nodes 4 --per-leaf 2 --node-rate 400mbit --core-rate 100mbit || fail "up"
t1=$(date +%s.%N)
expect="SwitchName=leaf0 Nodes=$name-n0,$name-n1
SwitchName=leaf1 Nodes=$name-n2,$name-n3
SwitchName=core Switches=leaf0,leaf1"
got=$(grep -v '^#' "/run/mpisw-simcluster/$name/topology.conf")
[ "$got" = "$expect" ] || fail "topology.conf is
$got
expected
$expect"
[ "$("$sc" hosts "$name" | tr '\n' ' ')" = "$name-n0 $name-n1 $name-n2 $name-n3 " ] || fail "hostfile"
"$sc" info "$name" | grep -q "node_rate=400mbit core_rate=100mbit" || fail "info"

# run_job OUT ARGS...: the job; it must print "simcluster: ok" and exit 0 by
# itself (MPI_Finalize included: simcluster.sh preloads its guard against
# UCX's TCP close hang). Notes the cluster's processes while it runs.
pids_seen=""
run_job() {
  local out=$1; shift
  "$sc" run "$name" --timeout 60 "$@" >"$out" 2>&1 &
  local job=$! rc
  while kill -0 $job 2>/dev/null && ! grep -q '^simcluster: \(ok\|FAILED\)' "$out"; do
    sleep 0.1
  done
  for ns in $(ip netns list | awk '{print $1}' | grep "^mpisw-sc-$name-"); do
    pids_seen="$pids_seen $(ip netns pids "$ns" | tr '\n' ' ')"
  done
  wait $job
  rc=$?
  cat "$out"
  [ $rc -eq 0 ] || { echo "simcluster_check: the job exited $rc"; return 1; }
  grep -q '^simcluster: ok' "$out"
}
out=$(mktemp)
c0=$("$sc" counters "$name" | awk '/^leaf0 uplink/ {print $4}')
bytes=$((4 * 1024 * 1024))
run_job "$out" -n 8 -ppn 2 "$prog" "$name" 2 50000000 12500000 $bytes 2 packed:2 || { rm -f "$out"; fail "packed job"; }
c1=$("$sc" counters "$name" | awk '/^leaf0 uplink/ {print $4}')
"$sc" counters "$name"
[ $((c1 - c0)) -ge $((2 * bytes)) ] || { rm -f "$out"; fail "leaf0's uplink sent $((c1 - c0)) B for 2 cross-leaf messages of $bytes B"; }
run_job "$out" --scatter -n 8 "$prog" "$name" 2 50000000 12500000 1048576 3 scatter:4 || { rm -f "$out"; fail "scattered job"; }
run_job "$out" --map 3,3,1,0,0,0,2,2 -n 8 "$prog" "$name" 2 50000000 12500000 1048576 3 map:3,3,1,0,0,0,2,2 || { rm -f "$out"; fail "job placed by --map"; }
rm -f "$out"

t2=$(date +%s.%N)
"$sc" down "$name" || fail "down"
t3=$(date +%s.%N)
after=$(snapshot)
[ "$before" = "$after" ] || { echo "before: $before"; echo "after: $after"; echo "simcluster_check: FAIL: down left something"; exit 1; }
for p in $pids_seen; do
  [ ! -e "/proc/$p" ] || [ "$(cat /proc/$p/comm 2>/dev/null)" = "" ] ||
    ! grep -q "mpisw-sc-$name\|hydra_pmi_proxy\|t_simcluster" /proc/$p/cmdline 2>/dev/null ||
    { echo "simcluster_check: FAIL: process $p of the cluster is still there after down"; exit 1; }
done
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" \
  'BEGIN{printf "simcluster_check: ok (up %.2f s, down %.2f s)\n", b-a, d-c}'
