#!/bin/sh
# run_fortran.sh MODE NP PROG LIBMPISW -- MPIEXEC [PREFLAGS...]
# Runs a Fortran storage-window program (tests/fortran/t_*.f90) on NP ranks
# with MPISW_REPORT=1 and checks what it left:
#   hints    PROG is linked with libmpisw and sets the storage hints itself
#   preload  PROG is not linked with libmpisw: LD_PRELOAD=LIBMPISW and
#            MPISW_HINTS give it storage windows
# Passes when the program passes its own checks (its window and file hold
# the neighbour's pattern after MPI_Win_sync), rank 0 reports mpisw active
# once at MPI_Init and NP windows on storage at MPI_Finalize, and the
# directory holds exactly the NP files f<rank>, each the neighbour's pattern
# after MPI_Win_free (storage_alloc_discard=false).
set -u
mode=$1 np=$2 prog=$3 lib=$4
shift 4
[ "${1:-}" = "--" ] && shift
. "$(cd "$(dirname "$0")" && pwd)/../tools/progcheck.sh"
pc_setup fortran "run_fortran.sh $mode"
case "$mode" in
hints) set -- "$@" -n "$np" env MPISW_REPORT=1 GFORTRAN_ERROR_BACKTRACE=0 "$prog" "$dir" hints ;;
preload)
  hints="alloc_type=storage;storage_alloc_filename=$dir/f%r;storage_alloc_unlink=false;storage_alloc_discard=false"
  set -- "$@" -n "$np" env MPISW_REPORT=1 GFORTRAN_ERROR_BACKTRACE=0 LD_PRELOAD="$lib" \
    MPISW_HINTS="$hints" "$prog" "$dir" env
  ;;
*) echo "usage: run_fortran.sh hints|preload NP PROG LIBMPISW -- MPIEXEC [FLAGS]" >&2; exit 2 ;;
esac
pc_run "the program" "$@"
pc_active "mpisw did not see MPI_Init"
pc_report "^mpisw:   windows: 0 in memory, $np on storage," "windows: 0 in memory, $np on storage"
pc_files "$np" "one per rank"
r=0
while [ "$r" -lt "$np" ]; do
  "$prog" verify "$dir/f$r" $(((r + np - 1) % np)) || fail "file f$r after MPI_Win_free"
  r=$((r + 1))
done
echo "run_fortran.sh: PASS"
