#!/bin/sh
# preload.sh MODE NP LIBMPISW PLAIN -- MPIEXEC [PREFLAGS...]
# Runs the unmodified program PLAIN (not linked with mpisw) under
# LD_PRELOAD=LIBMPISW with MPISW_HINTS, then checks the files it left.
#   allocate   MPI_Win_allocate: files DIR/f<rank>, rank r's file holds what rank r-1 put
#   disable    the same with MPISW_DISABLE=1: no file at all
#   allocmem   MPI_Alloc_mem + MPI_Win_create: one file per rank with its bytes
#   dynamic    MPI_Win_create_dynamic + MPI_Alloc_mem + attach: one file per rank
#   nopreload  MPISW_HINTS without LD_PRELOAD: no file (the program does not use mpisw)
set -u
mode=$1 np=$2 lib=$3 plain=$4
shift 4
[ "${1:-}" = "--" ] && shift
size=300000
dir=$(mktemp -d /tmp/mpisw-preload-XXXXXX) || exit 1
cleanup() { [ "${MPISW_TEST_KEEP:-0}" = 1 ] || rm -rf "$dir"; }
trap cleanup EXIT
trap 'exit 143' INT TERM
hints="alloc_type=storage;storage_alloc_filename=$dir/f%r;storage_alloc_unlink=false"
fail() { echo "FAIL: preload.sh $mode: $*"; ls -la "$dir"; exit 1; }
launch() { # launch VAR=VALUE... PROGRAM-MODE
  prog_mode=$1
  shift
  echo "preload.sh: $* -n $np env $env_vars $plain $prog_mode $size"
  # shellcheck disable=SC2086
  timeout -k 5 50 "$@" -n "$np" env $env_vars "$plain" "$prog_mode" "$size" || fail "the program failed (rc $?)"
}
case "$mode" in
allocate | allocmem | dynamic)
  env_vars="LD_PRELOAD=$lib MPISW_HINTS=$hints"
  launch "$mode" "$@"
  if [ "$mode" = allocate ]; then
    r=0
    while [ "$r" -lt "$np" ]; do
      from=$(((r + np - 1) % np))
      "$plain" --verify "$dir/f$r" "$from" "$size" || fail "file f$r"
      r=$((r + 1))
    done
    n=$(ls -A "$dir" | wc -l)
    [ "$n" -eq "$np" ] || fail "$n files in $dir, expected $np"
  else
    # each rank's memory holds the pattern of rank-1; every pattern once
    "$plain" --verify-dir "$dir" "$np" "$size" || fail "files in $dir"
  fi
  ;;
disable)
  env_vars="LD_PRELOAD=$lib MPISW_DISABLE=1 MPISW_HINTS=$hints"
  launch allocate "$@"
  launch allocmem "$@"
  n=$(ls -A "$dir" | wc -l)
  [ "$n" -eq 0 ] || fail "MPISW_DISABLE=1 but $n files were created"
  ;;
nopreload)
  env_vars="MPISW_HINTS=$hints"
  launch allocate "$@"
  n=$(ls -A "$dir" | wc -l)
  [ "$n" -eq 0 ] || fail "a program without mpisw created $n files"
  ;;
*)
  echo "usage: preload.sh allocate|disable|allocmem|dynamic|nopreload NP LIB PLAIN -- MPIEXEC [FLAGS]" >&2
  exit 2
  ;;
esac
echo "PASS"
