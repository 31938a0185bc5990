#!/bin/sh
# late_check.sh LIB FLAVOR LATE_MPI: runs LATE_MPI (late_mpi.c) with LIB (the
# libmpisw built for FLAVOR) preloaded; it dlopens the OTHER MPI and calls
# MPI_Init. Expected: exit 3 and the one line, from the check in MPI_Init.
set -u
lib=$1 flavor=$2 exe=$3
case "$flavor" in
mpich) soname=libmpi.so.40 built="MPICH" into="Open MPI" ;;
openmpi) soname=libmpich.so.12 built="Open MPI" into="MPICH" ;;
*) echo "late_check.sh: unknown flavor $flavor" >&2; exit 2 ;;
esac
out=$(LD_PRELOAD="$lib" timeout 30 "$exe" "$soname" 2>&1)
rc=$?
echo "$out"
if [ "$rc" -eq 2 ] && echo "$out" | grep -q "late_mpi: .*$soname"; then
  echo "SKIP: the other MPI ($soname) is not installed"
  exit 77
fi
[ "$rc" -eq 3 ] || { echo "FAIL: late_check.sh: exit code $rc, want 3"; exit 1; }
n=$(echo "$out" | grep -c "^mpisw: this libmpisw was built for $built but is loaded into an $into program (")
[ "$n" -eq 1 ] || { echo "FAIL: late_check.sh: $n lines naming both MPIs, want 1"; exit 1; }
echo "late_check.sh: ok"
