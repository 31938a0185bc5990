#!/bin/bash
# simcluster.sh: a cluster on this machine from Linux network namespaces.
#
#   simcluster.sh up NAME [--nodes N] [--per-leaf K] [--node-rate R]
#                         [--core-rate R] [--latency D]
#   simcluster.sh run NAME [--scatter | --map I,J,...] [--timeout S] -n NP [-ppn P] PROG ARGS...
#   simcluster.sh info NAME | hosts NAME | counters NAME | down NAME
#
# One namespace per simulated node (mpisw-sc-NAME-nI, host name NAME-nI) and
# one for the fabric (mpisw-sc-NAME-fab): the switches are Linux bridges in
# it, a two-level tree (leaf0..leafL-1 under "core"), every node's eth0 a veth
# to its leaf and every leaf a veth to the core. Each link is shaped by tc in
# both directions (a tbf, with a netem delay under it for --latency, on the
# egress of both ends of the veth). Nothing is made in the root namespace, so
# several clusters coexist (even with the same addresses 10.0.0.0/24) and
# `down` removes everything by deleting the namespaces.
#
# mpiexec runs inside the fabric namespace (address 10.0.0.254 on "core", so
# the proxies' control connections reach it); its ssh launcher execs
# simcluster_exec.sh, which starts each hydra proxy in its node's namespace
# under its own UTS host name. UCX (MPICH's ch4:ucx) is forced onto TCP over
# eth0, so ranks on different nodes talk through the shaped links; ranks of
# one node share memory as on a real node.
#
# The state directory ($SIMCLUSTER_STATE_DIR, default /run/mpisw-simcluster,
# then NAME/) holds topology.conf (Slurm format), hostfile and cluster.env.
# Needs root, ip and tc (iproute2), unshare (util-linux): otherwise exits 77
# with "SKIP: ...".
set -u
here=$(cd "$(dirname "$0")" && pwd)
state_root=${SIMCLUSTER_STATE_DIR:-/run/mpisw-simcluster}
prog=simcluster.sh

die() { echo "$prog: $*" >&2; exit 1; }
skip() { echo "SKIP: $prog: $*"; exit 77; }

usage() {
  sed -n '4,7p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

need_root_tools() {
  local t
  for t in ip tc unshare; do
    command -v "$t" >/dev/null 2>&1 || skip "'$t' is missing (install iproute2 / util-linux: scripts/install-deps.sh)"
  done
  [ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, veth, bridges, tc)"
}

check_name() {
  case "$1" in
    ""|*[!a-z0-9-]*|-*) die "cluster name '$1' must be lower-case letters, digits and '-' (not first)";;
  esac
  [ "${#1}" -le 24 ] || die "cluster name '$1' is longer than 24 characters"
}

ns_prefix() { echo "mpisw-sc-$1"; }
fab_ns() { echo "mpisw-sc-$1-fab"; }
node_host() { echo "$1-n$2"; }           # NAME I -> host name
node_ns() { echo "mpisw-sc-$1-n$2"; }    # NAME I -> namespace

# Rate "100mbit", "1gbit", "500kbit" -> bytes per second (for tbf's burst).
rate_bytes() {
  local r=$1 n u
  n=${r%%[a-z]*} u=${r#"$n"}
  case "$n" in ""|*[!0-9]*) die "rate '$r' must be a whole number with kbit, mbit or gbit (e.g. 100mbit)";; esac
  case "$u" in
    kbit) echo $((n * 1000 / 8));;
    mbit) echo $((n * 1000000 / 8));;
    gbit) echo $((n * 1000000000 / 8));;
    *) die "rate '$r' must end in kbit, mbit or gbit (e.g. 100mbit)";;
  esac
}

# shape NS DEV RATE LATENCY: the egress of DEV in namespace NS.
# tbf's burst is 1 ms of traffic (at least 16 KiB, what one GSO packet
# may need): short enough that a 4 MiB message is paced at the rate.
shape() {
  local ns=$1 dev=$2 rate=$3 lat=$4 b
  b=$(( $(rate_bytes "$rate") / 1000 ))
  [ "$b" -ge 16384 ] || b=16384
  tc -n "$ns" qdisc replace dev "$dev" root handle 1: tbf rate "$rate" burst "$b" latency 50ms || return 1
  if [ -n "$lat" ] && [ "$lat" != 0 ]; then
    tc -n "$ns" qdisc add dev "$dev" parent 1:1 handle 10: netem delay "$lat" limit 10000 || return 1
  fi
}

# Removes every namespace of cluster NAME (and the processes in them) and its
# state directory. Safe on a half-made cluster.
# teardown NAME --only NS...: only those namespaces (what a failed up made).
teardown() {
  local name=$1 ns pids tries list
  shift
  if [ "${1:-}" = --only ]; then
    shift
    list="$*"
  else
    list=$(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$(ns_prefix "$name")-(fab|n[0-9]+)\$")
  fi
  for ns in $list; do
    pids=$(ip netns pids "$ns" 2>/dev/null)
    if [ -n "$pids" ]; then
      # shellcheck disable=SC2086
      kill -TERM $pids 2>/dev/null
      tries=0
      while [ -n "$(ip netns pids "$ns" 2>/dev/null)" ] && [ $tries -lt 20 ]; do
        sleep 0.1; tries=$((tries + 1))
      done
      pids=$(ip netns pids "$ns" 2>/dev/null)
      # shellcheck disable=SC2086
      [ -z "$pids" ] || kill -KILL $pids 2>/dev/null
    fi
    ip netns del "$ns" 2>/dev/null || echo "$prog: could not delete namespace $ns" >&2
  done
  rm -rf "${state_root:?}/$name"
  rmdir "$state_root" 2>/dev/null
  return 0
}

cmd_up() {
  local name=$1; shift
  local nodes=4 per_leaf=2 node_rate=1gbit core_rate=1gbit lat=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --nodes) nodes=${2:-}; shift 2;;
      --per-leaf) per_leaf=${2:-}; shift 2;;
      --node-rate) node_rate=${2:-}; shift 2;;
      --core-rate) core_rate=${2:-}; shift 2;;
      --latency) lat=${2:-}; shift 2;;
      *) die "up: unknown option '$1'";;
    esac
  done
  case "$nodes$per_leaf" in *[!0-9]*|"") die "up: --nodes and --per-leaf must be whole numbers";; esac
  [ "$nodes" -ge 1 ] && [ "$nodes" -le 250 ] || die "up: --nodes $nodes must be 1..250"
  [ "$per_leaf" -ge 1 ] || die "up: --per-leaf $per_leaf must be at least 1"
  rate_bytes "$node_rate" >/dev/null && rate_bytes "$core_rate" >/dev/null || exit 1
  case "$lat" in ""|0|*[0-9]ms|*[0-9]us) ;; *) die "up: --latency '$lat' must be like 1ms or 200us";; esac
  need_root_tools
  local dir=$state_root/$name fab
  fab=$(fab_ns "$name")
  if [ -e "$dir" ] || ip netns list | awk '{print $1}' | grep -qE "^$(ns_prefix "$name")-(fab|n[0-9]+)\$"; then
    die "up: cluster '$name' is already up (or left over): run '$prog down $name'"
  fi
  local t0 leaves i l n ns host
  t0=$(date +%s.%N)
  leaves=$(( (nodes + per_leaf - 1) / per_leaf ))
  # (twice: a concurrent down may remove the empty parent in between)
  mkdir -p "$dir" 2>/dev/null || mkdir -p "$dir" || die "up: cannot create the state directory $dir"
  # A failed up removes what it made.
  made=()
  trap 'echo "$prog: up $name failed; removing what it made" >&2; teardown "$name" --only "${made[@]}"; exit 1' ERR
  set -E
  ip netns add "$fab"
  made+=("$fab")
  ip -n "$fab" link set lo up
  if [ -n "$lat" ] && [ "$lat" != 0 ]; then
    # netem is a module some kernels lack (a VM's minimal kernel).
    if ! tc -n "$fab" qdisc add dev lo root netem delay "$lat" 2>/dev/null; then
      echo "$prog: up: --latency needs tc's netem qdisc (sch_netem), which this kernel lacks; leave --latency out" >&2
      false
    fi
    tc -n "$fab" qdisc del dev lo root
  fi
  ip -n "$fab" link add core type bridge
  ip -n "$fab" link set core up
  ip -n "$fab" addr add 10.0.0.254/24 dev core
  for ((l = 0; l < leaves; l++)); do
    ip -n "$fab" link add "leaf$l" type bridge
    ip -n "$fab" link set "leaf$l" up
    # The leaf's uplink: l<L>up on the leaf, l<L>dn on the core.
    ip -n "$fab" link add "l${l}up" type veth peer name "l${l}dn"
    ip -n "$fab" link set "l${l}up" master "leaf$l" up
    ip -n "$fab" link set "l${l}dn" master core up
    shape "$fab" "l${l}up" "$core_rate" "$lat"
    shape "$fab" "l${l}dn" "$core_rate" "$lat"
  done
  for ((i = 0; i < nodes; i++)); do
    ns=$(node_ns "$name" "$i")
    l=$((i / per_leaf))
    # (SIMCLUSTER_FAIL_AT_NODE=k: the tests' way to make up fail half-way.)
    [ "${SIMCLUSTER_FAIL_AT_NODE:-}" != "$i" ] || { echo "$prog: up: failing at node $i (SIMCLUSTER_FAIL_AT_NODE)" >&2; false; }
    ip netns add "$ns"
    made+=("$ns")
    # No IPv6: its router solicitations would count on the links.
    ip netns exec "$ns" sh -c 'echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6; echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6' 2>/dev/null || true
    ip -n "$ns" link set lo up
    ip -n "$fab" link add "n$i" type veth peer name eth0 netns "$ns"
    ip -n "$fab" link set "n$i" master "leaf$l" up
    ip -n "$ns" addr add "10.0.0.$((i + 1))/24" dev eth0
    ip -n "$ns" link set eth0 up
    shape "$ns" eth0 "$node_rate" "$lat"
    shape "$fab" "n$i" "$node_rate" "$lat"
  done
  # Every node answers through the tree before the cluster is "up".
  # (A TCP connection to a closed port: "refused" proves the path, no ping needed.)
  local pids=() p
  for ((i = 0; i < nodes; i++)); do
    ip netns exec "$fab" timeout 5 bash -c "exec 3<>/dev/tcp/10.0.0.$((i + 1))/9" 2>&1 |
      grep -q refused & pids+=($!)
  done
  for p in "${pids[@]}"; do
    wait "$p" || { echo "$prog: up: a node does not answer through the switches" >&2; false; }
  done
  # topology.conf (Slurm's format: leaves list their nodes, the core its leaves).
  {
    echo "# simcluster $name: $nodes nodes, $per_leaf per leaf switch; node<->leaf $node_rate, leaf<->core $core_rate${lat:+, latency $lat per link and direction}"
    local sw=""
    for ((l = 0; l < leaves; l++)); do
      # Nodes listed one by one (no host ranges: any reader parses them).
      local list="" j
      for ((j = l * per_leaf; j < (l + 1) * per_leaf && j < nodes; j++)); do
        list=${list:+$list,}$(node_host "$name" "$j")
      done
      echo "SwitchName=leaf$l Nodes=$list"
      sw=${sw:+$sw,}leaf$l
    done
    echo "SwitchName=core Switches=$sw"
  } > "$dir/topology.conf"
  for ((i = 0; i < nodes; i++)); do node_host "$name" "$i"; done > "$dir/hostfile"
  # The ranks' guard against UCX 1.13's TCP close hang in MPI_Finalize
  # (simcluster_ucx_close.c), built for this cluster.
  if command -v cc >/dev/null 2>&1; then
    cc -shared -fPIC -O2 -o "$dir/ucx_close.so" "$here/simcluster_ucx_close.c" -ldl ||
      echo "$prog: warning: could not build $dir/ucx_close.so; jobs may hang in MPI_Finalize (openucx/ucx#8738)" >&2
  else
    echo "$prog: warning: no cc to build the MPI_Finalize guard; jobs may hang in MPI_Finalize (openucx/ucx#8738)" >&2
  fi
  {
    echo "nodes=$nodes"; echo "per_leaf=$per_leaf"; echo "leaves=$leaves"
    echo "node_rate=$node_rate"; echo "core_rate=$core_rate"; echo "latency=${lat:-0}"
  } > "$dir/cluster.env"
  trap - ERR
  set +E
  echo "$prog: cluster $name up: $nodes nodes, $leaves leaf switches, node<->leaf $node_rate, leaf<->core $core_rate${lat:+, latency $lat} ($(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}') s)"
}

load_state() {
  local name=$1
  [ -f "$state_root/$name/cluster.env" ] || die "cluster '$name' is not up (no $state_root/$name/cluster.env)"
  # shellcheck disable=SC1090
  . "$state_root/$name/cluster.env"
}

cmd_info() {
  local name=$1
  load_state "$name"
  echo "state: $state_root/$name"
  echo "nodes=$nodes per_leaf=$per_leaf leaves=$leaves node_rate=$node_rate core_rate=$core_rate latency=$latency"
  echo "--- topology.conf"; cat "$state_root/$name/topology.conf"
  echo "--- hostfile"; cat "$state_root/$name/hostfile"
}

# counters NAME: bytes sent on each link end (tx of each shaped device).
cmd_counters() {
  local name=$1 fab i l
  load_state "$name"
  fab=$(fab_ns "$name")
  for ((i = 0; i < nodes; i++)); do
    ip netns exec "$(node_ns "$name" "$i")" sh -c "printf '%s eth0 tx %s rx %s\n' $(node_host "$name" "$i") \$(cat /sys/class/net/eth0/statistics/tx_bytes /sys/class/net/eth0/statistics/rx_bytes)"
  done
  for ((l = 0; l < leaves; l++)); do
    ip netns exec "$fab" sh -c "printf 'leaf$l uplink tx %s rx %s\n' \$(cat /sys/class/net/l${l}up/statistics/tx_bytes /sys/class/net/l${l}up/statistics/rx_bytes)"
  done
}

cmd_run() {
  local name=$1; shift
  local place=packed map="" np="" ppn="" tmo=${SIMCLUSTER_TIMEOUT:-120}
  while [ $# -gt 0 ]; do
    case "$1" in
      --scatter) place=scatter; shift;;
      --map) place=map; map=${2:-}; shift 2;;
      --timeout) tmo=${2:-}; shift 2;;
      -n|-np) np=${2:-}; shift 2;;
      -ppn) ppn=${2:-}; shift 2;;
      --) shift; break;;
      -*) die "run: unknown option '$1'";;
      *) break;;
    esac
  done
  [ $# -gt 0 ] || die "run: no program given"
  case "$np" in ""|*[!0-9]*) die "run: -n NP is required (a whole number)";; esac
  need_root_tools
  load_state "$name"
  local mpiexec=${SIMCLUSTER_MPIEXEC:-mpiexec.mpich}
  command -v "$mpiexec" >/dev/null 2>&1 || skip "$mpiexec (MPICH's hydra) is missing"
  "$mpiexec" --version 2>/dev/null | grep -q HYDRA || skip "$mpiexec is not MPICH's hydra (the simulated cluster launches with hydra)"
  local machinefile=$state_root/$name/machinefile.$$ i
  case "$place" in
    packed)
      # Ranks 0..ppn-1 on node 0, the next ppn on node 1, ...
      [ -n "$ppn" ] || ppn=$(( (np + nodes - 1) / nodes ))
      for ((i = 0; i < nodes; i++)); do echo "$(node_host "$name" "$i"):$ppn"; done > "$machinefile";;
    scatter)
      # Round-robin: rank r on node r mod nodes (a busy machine's placement).
      [ -z "$ppn" ] || die "run: --scatter and -ppn exclude each other"
      for ((i = 0; i < nodes; i++)); do echo "$(node_host "$name" "$i"):1"; done > "$machinefile";;
    map)
      # --map 0,2,1,...: rank r on node map[r]; consecutive ranks of one node
      # form one line, hydra assigns lines in order.
      [ -z "$ppn" ] || die "run: --map and -ppn exclude each other"
      local -a m; IFS=, read -r -a m <<<"$map"
      [ "${#m[@]}" -eq "$np" ] || die "run: --map has ${#m[@]} entries for -n $np"
      local seen=" " prev="" cnt=0
      : > "$machinefile"
      for i in "${m[@]}"; do
        case "$i" in ""|*[!0-9]*) rm -f "$machinefile"; die "run: --map entry '$i' is not a node number";; esac
        [ "$i" -lt "$nodes" ] || { rm -f "$machinefile"; die "run: --map names node $i of $nodes"; }
        if [ "$i" != "$prev" ]; then
          [ -z "$prev" ] || echo "$(node_host "$name" "$prev"):$cnt" >> "$machinefile"
          case "$seen" in *" $i "*) rm -f "$machinefile"; die "run: --map puts node $i's ranks in two runs; hydra needs each node's ranks consecutive (renumber the ranks, or use --scatter)";; esac
          seen="$seen$i "; prev=$i; cnt=0
        fi
        cnt=$((cnt + 1))
      done
      echo "$(node_host "$name" "$prev"):$cnt" >> "$machinefile";;
  esac
  local rc guard=() so=$state_root/$name/ucx_close.so
  [ ! -f "$so" ] || guard=(-genv LD_PRELOAD "$so${LD_PRELOAD:+:$LD_PRELOAD}")
  # UCX over TCP on eth0 only: traffic between nodes crosses the veths.
  ip netns exec "$(fab_ns "$name")" env \
    UCX_TLS="${SIMCLUSTER_UCX_TLS:-tcp,self}" UCX_NET_DEVICES=eth0 UCX_WARN_UNUSED_ENV_VARS=n \
    SIMCLUSTER_NAME="$name" \
    timeout -k 5 "$tmo" "$mpiexec" -launcher ssh -launcher-exec "$here/simcluster_exec.sh" \
      -iface core "${guard[@]}" -f "$machinefile" -n "$np" "$@"
  rc=$?
  rm -f "$machinefile"
  return $rc
}

[ $# -ge 2 ] || usage
sub=$1 name=$2
shift 2
check_name "$name"
case "$sub" in
  up) cmd_up "$name" "$@";;
  down) need_root_tools; teardown "$name"; echo "$prog: cluster $name down";;
  info) cmd_info "$name";;
  hosts) load_state "$name"; cat "$state_root/$name/hostfile";;
  counters) need_root_tools; cmd_counters "$name";;
  run) cmd_run "$name" "$@";;
  *) usage;;
esac
