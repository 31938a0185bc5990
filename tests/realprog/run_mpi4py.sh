#!/bin/sh
# run_mpi4py.sh CACHE MPI MODE NP "PASSED SKIPPED [FAILING...]" LIBMPISW -- MPIEXEC [PREFLAGS...]
# Runs mpi4py's own test_file.py and test_io.py (from its source
# distribution, mpi4py built for MPI = mpich or openmpi: mpi4py_prepare.sh
# CACHE MPI) on NP ranks with its own runner (test/main.py), counts on every
# rank the tests passed, failed (failures + errors) and skipped, and passes
# when every rank has PASSED passed, SKIPPED skipped, and as failed exactly
# the tests named FAILING (test method names; none: 0 failed). The tests name their files
# with tempfile.mkstemp under TMPDIR, which is a fresh directory here:
#   test_file.py  $TMPDIR/mpi4py-<world rank><8 random>  (MPI_COMM_SELF)
#   test_io.py    $TMPDIR/mpi4py-<8 random> (one file over COMM_WORLD) or
#                 $TMPDIR/mpi4py-<world rank>-<8 random> (COMM_SELF, NP > 1)
# so the pattern $TMPDIR/mpi4py* takes every one of them and nothing else.
# MODE plain          no libmpisw: the baseline, the plain MPI
#      preload        LD_PRELOAD=LIBMPISW; every file reaches the MPI untouched,
#                     and TMPDIR must be empty afterwards (the tests delete
#                     their files, with MPI_File_delete and DELETE_ON_CLOSE)
#      pooled         preload + MPISW_MEM_PATHS='$TMPDIR/mpi4py*': the files
#                     in the pool; in TMPDIR mkstemp's empty placeholders
#                     (deleting the pooled file leaves them), at least one
#      pooled-noskip  pooled, with --no-skip-mpi: the tests mpi4py skips for
#                     the MPI run too (MPICH 4.0: 26 view tests, on which
#                     ROMIO aborts; Open MPI 4.1: TestDatarep.testRegister)
#      engine         preload + MPISW_CB_STRATEGY=tatp: collective reads and
#                     writes through the collective I/O engine (src/cio/); the
#                     baseline's counts, and rank 0 reports engine calls
set -u
cache=$1 mpi=$2 mode=$3 np=$4 expect=$5 lib=$6
shift 6
[ "${1:-}" = "--" ] && shift
here=$(cd "$(dirname "$0")" && pwd)
prep=$(sh "$here/mpi4py_prepare.sh" "$cache" "$mpi")
rc=$?
[ "$rc" = 0 ] || { printf '%s\n' "$prep"; exit "$rc"; }
site=$(printf '%s\n' "$prep" | tail -n 2 | head -n 1)
tests=$(printf '%s\n' "$prep" | tail -n 1)
read -r want_pass want_skip want_fail <<EOF
$expect
EOF
nfail=$(printf '%s\n' $want_fail | grep -c .)

work=$(mktemp -d /tmp/mpisw-realprog-mpi4py-XXXXXX) || exit 1
cleanup() { [ "${MPISW_TEST_KEEP:-0}" = 1 ] || rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 143' INT TERM
fail() { echo "FAIL: run_mpi4py.sh $mpi $mode np$np: $*"; exit 1; }
tmp=$work/tmp
mkdir "$tmp"

vars="PYTHONPATH=$site TMPDIR=$tmp MPISW_REPORT=1"
flags=
case "$mode" in
plain) ;;
preload) vars="$vars LD_PRELOAD=$lib" ;;
pooled) vars="$vars LD_PRELOAD=$lib MPISW_MEM_PATHS=$tmp/mpi4py*" ;;
pooled-noskip) vars="$vars LD_PRELOAD=$lib MPISW_MEM_PATHS=$tmp/mpi4py*"; flags=--no-skip-mpi ;;
engine) vars="$vars LD_PRELOAD=$lib MPISW_CB_STRATEGY=tatp" ;;
*) echo "usage: run_mpi4py.sh CACHE mpich|openmpi plain|preload|pooled|pooled-noskip|engine NP 'PASSED SKIPPED [FAILING...]' LIBMPISW -- MPIEXEC" >&2; exit 2 ;;
esac
echo "run_mpi4py.sh: $* -n $np env $vars python3 $tests/main.py $flags test_file test_io"
# Each rank's report to its own file (MPICH's launcher sets PMI_RANK, Open
# MPI's OMPI_COMM_WORLD_RANK).
# shellcheck disable=SC2086
# The engine's run reports every collective call (thousands on Open MPI,
# which runs the view tests): more time.
tmo=170
[ "$mode" = engine ] && tmo=280
timeout -k 5 $tmo "$@" -n "$np" env $vars sh -c \
  'exec python3 -B "$1"/main.py $2 test_file test_io >"$0.${PMI_RANK:-$OMPI_COMM_WORLD_RANK}" 2>&1' \
  "$work/out" "$tests" "$flags" </dev/null
rc=$?
r=0
while [ "$r" -lt "$np" ]; do
  echo "---- rank $r"
  cat "$work/out.$r" 2>/dev/null
  r=$((r + 1))
done
# A run with failing tests ends with a non-zero status, as it must.
if [ "$nfail" = 0 ]; then
  [ "$rc" = 0 ] || fail "mpiexec exited $rc"
fi

r=0
while [ "$r" -lt "$np" ]; do
  out=$work/out.$r
  ran=$(sed -n 's/^Ran \([0-9][0-9]*\) tests\{0,1\} in .*/\1/p' "$out" | tail -n 1)
  [ -n "$ran" ] || fail "rank $r printed no 'Ran N tests'"
  last=$(grep -E '^(OK|FAILED)' "$out" | tail -n 1)
  num() { printf '%s\n' "$last" | sed -n "s/.*$1=\([0-9][0-9]*\).*/\1/p"; }
  skipped=$(num skipped) failures=$(num failures) errors=$(num errors)
  failed=$((${failures:-0} + ${errors:-0}))
  skipped=${skipped:-0}
  passed=$((ran - skipped - failed))
  echo "run_mpi4py.sh: rank $r: ran $ran: $passed passed, $failed failed, $skipped skipped" \
       "(expected: $want_pass passed, $nfail failed${want_fail:+ ($want_fail)}, $want_skip skipped)"
  [ "$passed" = "$want_pass" ] && [ "$failed" = "$nfail" ] && [ "$skipped" = "$want_skip" ] ||
    fail "rank $r counts differ from the expected ones"
  for t in $want_fail; do
    grep -Eq "^(ERROR|FAIL): $t " "$out" || fail "rank $r: $t is not the test that failed"
  done
  r=$((r + 1))
done

n=$(grep -c '^mpisw: active:' "$work/out.0")
case "$mode" in
plain) [ "$n" = 0 ] || fail "libmpisw was active in the plain run" ;;
*) [ "$n" = 1 ] || fail "'mpisw: active:' on $n lines of rank 0, expected 1: libmpisw was not loaded" ;;
esac
if [ "$mode" = engine ]; then
  n=$(grep -c '^mpisw: collective I/O: ' "$work/out.0")
  [ "$n" -gt 0 ] || fail "no 'mpisw: collective I/O:' line: the engine served no call"
  echo "run_mpi4py.sh: the collective I/O engine served $n collective calls (rank 0's lines)"
fi
case "$mode" in
plain | preload | engine)
  [ -z "$(ls -A "$tmp")" ] || fail "files left in TMPDIR: $(ls -A "$tmp" | tr '\n' ' ')"
  ;;
*)
  # mkstemp's real placeholder stays, empty: MPI_File_delete and
  # DELETE_ON_CLOSE removed the pooled file of that name, not the real one
  # (on real files they remove the placeholder itself: TMPDIR ends empty).
  big=$(find "$tmp" -type f -size +0 | head -n 3)
  [ -z "$big" ] || fail "pooled files reached the disk: $big"
  n=$(find "$tmp" -type f -name 'mpi4py*' | wc -l)
  [ "$n" -gt 0 ] || fail "no placeholder left in TMPDIR: the tests' files were real, not pooled"
  ;;
esac
echo "mpi4py: $passed passed, $nfail failed${want_fail:+ ($want_fail)}, $skipped skipped"
