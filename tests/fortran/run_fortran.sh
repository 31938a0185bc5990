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
dir=$(mktemp -d /tmp/mpisw-fortran-XXXXXX) || exit 1
err=$dir.err
cleanup() { rm -f "$err"; [ "${MPISW_TEST_KEEP:-0}" = 1 ] || rm -rf "$dir"; }
trap cleanup EXIT
trap 'exit 143' INT TERM
fail() { echo "FAIL: run_fortran.sh $mode: $*" >&2; ls -la "$dir" >&2; exit 1; }
case "$mode" in
hints) set -- "$@" -n "$np" env MPISW_REPORT=1 GFORTRAN_ERROR_BACKTRACE=0 "$prog" "$dir" hints ;;
preload)
  hints="alloc_type=storage;storage_alloc_filename=$dir/f%r;storage_alloc_unlink=false;storage_alloc_discard=false"
  set -- "$@" -n "$np" env MPISW_REPORT=1 GFORTRAN_ERROR_BACKTRACE=0 LD_PRELOAD="$lib" \
    MPISW_HINTS="$hints" "$prog" "$dir" env
  ;;
*) echo "usage: run_fortran.sh hints|preload NP PROG LIBMPISW -- MPIEXEC [FLAGS]" >&2; exit 2 ;;
esac
echo "run_fortran.sh: $*"
timeout -k 5 50 "$@" 2>"$err"
rc=$?
cat "$err" >&2
[ "$rc" = 0 ] || fail "the program failed (exit status $rc)"
n=$(grep -c '^mpisw: active:' "$err")
[ "$n" = 1 ] || fail "'mpisw: active:' on $n lines, expected 1: mpisw did not see MPI_Init"
grep -q "^mpisw:   windows: 0 in memory, $np on storage," "$err" ||
  fail "the report does not say 'windows: 0 in memory, $np on storage'"
n=$(ls -A "$dir" | wc -l)
[ "$n" -eq "$np" ] || fail "$n files in $dir, expected $np"
r=0
while [ "$r" -lt "$np" ]; do
  "$prog" verify "$dir/f$r" $(((r + np - 1) % np)) || fail "file f$r after MPI_Win_free"
  r=$((r + 1))
done
echo "run_fortran.sh: PASS"
