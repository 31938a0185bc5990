#!/bin/sh
# redund_nodes.sh FLAVOR MPIEXEC NODES PPN PROG ARGS...
# Runs PROG on NODES simulated nodes of PPN ranks, every node its own host
# name (a UTS namespace per rank), on either MPI:
#   mpich    the fork launcher with -hosts (multinode.sh, simhost.sh): the
#            MPI itself sees separate nodes
#   openmpi  one local launch; rank r gets the host name mpisw-node<r/PPN>
#            (Open MPI still sees one node; the library's node map goes by
#            host name too, as %h does)
# Exits 77 (ctest skip) without 'unshare --uts' (root / CAP_SYS_ADMIN).
# MPISW_NODES_TIMEOUT: seconds before the job is killed (50; benchmarks set more).
set -u
flavor=$1 mpiexec=$2 nodes=$3 ppn=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
if [ "$flavor" = mpich ]; then
  exec sh "$here/multinode.sh" "$mpiexec" "$nodes" "$ppn" "$@"
fi
if ! unshare --uts true 2>/dev/null; then
  echo "SKIP: redund_nodes.sh needs 'unshare --uts' (root / CAP_SYS_ADMIN) to give each simulated node its own host name"
  exit 77
fi
np=$((nodes * ppn))
echo "redund_nodes.sh: $mpiexec -n $np (host name mpisw-node<rank/$ppn>) $*"
exec timeout -k 5 "${MPISW_NODES_TIMEOUT:-50}" "$mpiexec" --allow-run-as-root --oversubscribe -n "$np" \
  sh -c 'n=$((OMPI_COMM_WORLD_RANK / $0)); exec unshare --uts sh -c "hostname mpisw-node$n && exec \"\$@\"" simhost "$@"' \
  "$ppn" "$@"
