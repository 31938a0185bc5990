#!/bin/sh
# multinode.sh MPIEXEC_MPICH NODES PPN PROG ARGS...
# Runs PROG on NODES simulated nodes (PPN ranks each) with the MPICH fork
# launcher; every node gets its own host name through simhost.sh.
# Exits 77 (ctest skip) when UTS namespaces are not available (not root).
# MPISW_NODES_TIMEOUT: seconds before the job is killed (50; benchmarks set more).
set -u
mpiexec=$1 nodes=$2 ppn=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
if ! unshare --uts true 2>/dev/null; then
  echo "SKIP: multinode.sh needs 'unshare --uts' (root / CAP_SYS_ADMIN) to give each simulated node its own host name"
  exit 77
fi
hosts=""
i=0
while [ "$i" -lt "$nodes" ]; do
  hosts="${hosts:+$hosts,}mpisw-node$i"
  i=$((i + 1))
done
np=$((nodes * ppn))
echo "multinode.sh: $mpiexec -launcher fork -hosts $hosts -ppn $ppn -n $np /bin/sh simhost.sh $*"
exec timeout -k 5 "${MPISW_NODES_TIMEOUT:-50}" "$mpiexec" -launcher fork -hosts "$hosts" -ppn "$ppn" -n "$np" /bin/sh "$here/simhost.sh" "$@"
