#!/bin/sh
# wrong_mpi.sh LIB FLAVOR PLAIN_SOURCE NP
# Builds the plain MPI program PLAIN_SOURCE (tests/mpi/t_plain.c) with the
# OTHER MPI's wrapper and runs it under that MPI's launcher with this build's
# libmpisw (built for FLAVOR) preloaded. The library must say, in one line per
# process, which MPI it was built for and which it is loaded into, and the job
# must end with a non-zero exit code and no signal (issue 13).
set -u
lib=$1 flavor=$2 src=$3 np=$4
case "$flavor" in
mpich)
  other=openmpi built="MPICH" into="Open MPI"
  launch="mpiexec.openmpi --allow-run-as-root --oversubscribe"
  ;;
openmpi)
  other=mpich built="Open MPI" into="MPICH"
  launch="mpiexec.mpich"
  ;;
*) echo "wrong_mpi.sh: unknown flavor $flavor" >&2; exit 2 ;;
esac
command -v "mpicc.$other" >/dev/null && command -v "mpiexec.$other" >/dev/null ||
  { echo "SKIP: $other is not installed (mpicc.$other, mpiexec.$other)"; exit 77; }
dir=$(mktemp -d /tmp/mpisw-wrongmpi-h6-XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: wrong_mpi.sh ($flavor build into $other): $*"; cat "$dir/out" 2>/dev/null; exit 1; }

"mpicc.$other" -o "$dir/t_plain_$other" "$src" || fail "cannot build $src with mpicc.$other"
echo "wrong_mpi.sh: $launch -n $np env LD_PRELOAD=$lib $dir/t_plain_$other allocate 4096"
# shellcheck disable=SC2086
OMPI_MCA_osc=sm,ucx timeout -k 5 40 $launch -n "$np" env LD_PRELOAD="$lib" \
  "$dir/t_plain_$other" allocate 4096 </dev/null >"$dir/out" 2>&1
rc=$?
cat "$dir/out"
[ "$rc" -ne 0 ] || fail "the job exited 0"
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || fail "the job hung (timeout, rc $rc)"
# No signal: neither the launcher's report of one nor a shell's.
if grep -Eiq 'signal|segmentation|core dumped|SIGSEGV' "$dir/out"; then fail "a process died of a signal"; fi
want="mpisw: this libmpisw was built for $built but is loaded into an $into program"
n=$(grep -c "^$want (" "$dir/out")
[ "$n" -eq "$np" ] || fail "expected $np lines '$want (...)', found $n"
# One line each: nothing else from mpisw.
m=$(grep -c '^mpisw:' "$dir/out")
[ "$m" -eq "$np" ] || fail "$m mpisw: lines for $np processes"
echo "wrong_mpi.sh: ok (rc $rc, one line per process)"
