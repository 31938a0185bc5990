#!/bin/sh
# run_h5.sh WHERE IO NP PROG LIBMPISW -- MPIEXEC [PREFLAGS...]
# Runs the unmodified parallel HDF5 program h5_roundtrip (tests/realprog/,
# built with h5pcc.mpich or h5pcc.openmpi)
# on NP ranks with MPISW_REPORT=1, IO = collective|independent, and checks
# what it left. PROG is either linked with libmpisw (h5_roundtrip_linked) or
# not (h5_roundtrip_plain: then it runs under LD_PRELOAD=LIBMPISW).
# WHERE says which file it writes:
#   real         DIR/out.h5, an ordinary name: it must reach the MPI library
#                untouched, so afterwards DIR/out.h5 is a real HDF5 file that
#                h5_roundtrip --verify (one process) reads back byte-exact
#                with HDF5's POSIX driver, not through MPI-IO
#   pooled-mem   mem:DIR/out.h5: a pooled file (issue 15, item 1)
#   pooled-glob  DIR/out.h5 with MPISW_MEM_PATHS=DIR/*.h5: pooled by pattern
# For both pooled forms the program's own read-back is the byte-exact check,
# and DIR must stay empty: nothing of a pooled file reaches the disk.
set -u
where=$1 io=$2 np=$3 prog=$4 lib=$5
shift 5
[ "${1:-}" = "--" ] && shift
. "$(cd "$(dirname "$0")" && pwd)/../tools/progcheck.sh"
pc_setup realprog-h5 "run_h5.sh $where $io"

file=$dir/out.h5
extra=
case "$where" in
real) ;;
pooled-mem) file=mem:$dir/out.h5 ;;
pooled-glob) extra="MPISW_MEM_PATHS=$dir/*.h5" ;;
*) echo "usage: run_h5.sh real|pooled-mem|pooled-glob collective|independent NP PROG LIBMPISW -- MPIEXEC [FLAGS]" >&2; exit 2 ;;
esac
case "$prog" in
*_plain) preload="LD_PRELOAD=$lib" ;;
*) preload= ;;
esac
# HDF5's file locking (flock) is the library's business, not ours: leave it on.
# shellcheck disable=SC2086
pc_run h5_roundtrip "$@" -n "$np" env MPISW_REPORT=1 $preload $extra "$prog" "$file" "$io"
pc_active "libmpisw was not in the program"

case "$where" in
real)
  [ -s "$dir/out.h5" ] || fail "no file $dir/out.h5 on disk: the real file did not reach the MPI library"
  # One process, POSIX driver: an independent reader of the bytes.
  "$@" -n 1 "$prog" --verify "$dir/out.h5" "$np" || fail "the file on disk is not what $np ranks wrote"
  ;;
*) pc_files 0 "a pooled file reached the disk" ;;
esac
echo "run_h5.sh: PASS"
