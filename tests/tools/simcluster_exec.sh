#!/bin/sh
# simcluster_exec.sh [-x] HOST COMMAND...: hydra's "ssh" for the simulated
# cluster of simcluster.sh. Runs COMMAND (a hydra proxy; its words are quoted
# for a remote shell, as ssh would pass them) in the network namespace of
# HOST (mpisw-sc-HOST) and in a new UTS namespace whose host name is HOST, so
# MPI_Get_processor_name and MPICH see one node per namespace.
[ "${1:-}" = "-x" ] && shift
host=${1:-}
[ -n "$host" ] && [ $# -ge 2 ] || { echo "simcluster_exec.sh: usage: simcluster_exec.sh [-x] HOST COMMAND..." >&2; exit 255; }
shift
ns=mpisw-sc-$host
if [ ! -e "/run/netns/$ns" ]; then
  echo "simcluster_exec.sh: host '$host' is not a node of a simulated cluster that is up (no namespace $ns; see 'simcluster.sh info NAME')" >&2
  exit 255
fi
# Like ssh: the words joined by spaces, run by a shell on the "remote" node.
exec ip netns exec "$ns" unshare --uts sh -c 'hostname "$1" && exec sh -c "$2"' simcluster_exec "$host" "$*"
