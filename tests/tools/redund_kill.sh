#!/bin/sh
# redund_kill.sh TRIALS FLAVOR MPIEXEC PROG
# kill -9 of a whole job (2 simulated nodes x 1 rank, redund_nodes.sh) at a
# random instant while PARTNER copies are stored (PROG killstore), then a new
# job (PROG killcheck) loses node 1 and rebuilds its newest copy. Each
# storing job runs in a session of its own (setsid); once its first store
# has returned, after a random 0-500 ms, every process of that session (the
# launcher and every rank, listed by session id) gets SIGKILL. The trial's
# directory is removed afterwards.
set -u
trials=$1 flavor=$2 mpiexec=$3 prog=$4
here=$(cd "$(dirname "$0")" && pwd)
if ! unshare --uts true 2>/dev/null; then
  echo "SKIP: redund_kill.sh needs 'unshare --uts' (root / CAP_SYS_ADMIN) for simulated nodes"
  exit 77
fi
dir=$(mktemp -d /tmp/mpisw-redund-kill-XXXXXX) || exit 1
out=$dir.out
sid=""
cleanup() {
  [ -n "$sid" ] && pids=$(ps -o pid= -s "$sid" 2>/dev/null) && [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
  rm -rf "$dir" "$out"
}
trap cleanup EXIT
trap 'exit 143' INT TERM
# A killed job cannot remove its test scratch directory (tl_scratch) and a
# killed Open MPI job leaves its session directory and shared-memory
# segments behind: put them all in the trial's directory, removed with it.
MPISW_TEST_TMPDIR=$dir/mpi
export MPISW_TEST_TMPDIR
if [ "$flavor" = openmpi ]; then
  OMPI_MCA_orte_tmpdir_base=$dir/mpi
  OMPI_MCA_btl_vader_backing_directory=$dir/mpi
  export OMPI_MCA_orte_tmpdir_base OMPI_MCA_btl_vader_backing_directory
fi
t=1
while [ "$t" -le "$trials" ]; do
  rm -rf "$dir"/* 2>/dev/null
  mkdir -p "$dir/mpi"
  setsid sh "$here/redund_nodes.sh" "$flavor" "$mpiexec" 2 1 "$prog" killstore "$dir" >"$out" 2>&1 &
  sid=$!
  i=0
  while [ ! -f "$dir/stored" ] && [ "$i" -lt 300 ] && kill -0 "$sid" 2>/dev/null; do
    sleep 0.05
    i=$((i + 1))
  done
  if [ ! -f "$dir/stored" ]; then
    echo "trial $t: no store returned within 15 s:"; cat "$out"
    exit 1
  fi
  ms=$(( $(od -An -N2 -tu2 /dev/urandom) % 500 ))
  sleep "$(printf '0.%03d' "$ms")"
  pids=$(ps -o pid= -s "$sid")
  [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
  wait "$sid" 2>/dev/null
  # killed processes go once reaped (orphans by init): give them 2 s
  i=0
  while left=$(ps -o pid=,stat= -s "$sid" | awk '$2 !~ /^Z/ {print $1}') && [ -n "$left" ] &&
        [ "$i" -lt 40 ]; do
    sleep 0.05
    i=$((i + 1))
  done
  if [ -n "$left" ]; then
    echo "trial $t: processes left after kill -9: $left"; exit 1
  fi
  sid=""
  if ! sh "$here/redund_nodes.sh" "$flavor" "$mpiexec" 2 1 "$prog" killcheck "$dir" >"$out" 2>&1
  then
    echo "trial $t (killed $ms ms after the first store): restart failed:"; cat "$out"
    exit 1
  fi
  echo "trial $t: killed $ms ms after the first store; $(grep -o 'killed after.*' "$out")"
  t=$((t + 1))
done
echo PASS
