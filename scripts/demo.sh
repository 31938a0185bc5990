#!/usr/bin/env bash
# Usage: scripts/demo.sh BUILD_DIR
#
# Runs the examples of a built tree one after the other, with MPISW_REPORT=1
# so that rank 0 prints the library's summary (lines starting "mpisw:") at
# MPI_Finalize, and says before each run what it shows.
set -euo pipefail

if [ $# -ne 1 ] || [ ! -f "$1/mpisw-build.env" ]; then
  echo "usage: $0 BUILD_DIR (a configured and built mpisw build directory)" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
# shellcheck disable=SC1090,SC1091
. "$build/mpisw-build.env"
ex="$build/examples"
case "$build" in "$PWD"/*) rel=${build#"$PWD"/} ;; *) rel=$build ;; esac
lib=$(find "$build/src" -maxdepth 1 -name 'libmpisw.so*' -type f | head -n 1)

# The launcher of this build; "setenv NAME VALUE" words become its own flags.
launch() {
  local n=$1; shift
  local flags=() pairs=()
  while [ $# -gt 0 ] && [ "$1" = setenv ]; do
    pairs+=("$2" "$3"); shift 3
  done
  pairs+=(MPISW_REPORT 1)
  local i
  for ((i = 0; i < ${#pairs[@]}; i += 2)); do
    if [ "$MPISW_MPI_FLAVOR" = openmpi ]; then
      flags+=(-x "${pairs[i]}=${pairs[i+1]}")
    else
      flags+=(-genv "${pairs[i]}" "${pairs[i+1]}")
    fi
  done
  # shellcheck disable=SC2206
  local cmd=("$MPISW_MPIEXEC" $MPISW_MPIEXEC_PREFLAGS "${flags[@]}" -n "$n" "$@")
  local shown
  shown=$(printf '%q ' "${cmd[@]}")
  printf '$ %s%s\n' "${MPISW_MPIEXEC_ENV:+$MPISW_MPIEXEC_ENV }" "${shown//$build/$rel}"
  # shellcheck disable=SC2086
  env $MPISW_MPIEXEC_ENV "${cmd[@]}" </dev/null
}

failed=()
show() {
  local title=$1 text=$2; shift 2
  printf '\n==== %s\n' "$title"
  printf '%s\n' "$text" | fold -s -w 78
  if ! launch "$@"; then
    failed+=("$title")
    echo "!!!! $title FAILED"
  fi
}

echo "mpisw demo with $MPISW_MPI_FLAVOR ($MPISW_MPIEXEC). Each program checks its own"
echo "results; the lines starting 'mpisw:' are the library's report (MPISW_REPORT=1)."

show "1. storage_put: even ranks write into odd ranks' storage windows" \
"Every rank allocates its window on storage with three MPI_Info hints \
(alloc_type=storage, storage_alloc_filename with %r for the rank, \
storage_alloc_unlink=true). Rank 0 puts 64 KiB into rank 1's window under \
MPI_Win_lock/MPI_Win_unlock; rank 1 calls MPI_Win_sync, which returns when its \
file holds the data, and reads the file back to compare." \
  2 "$ex/storage_put"

show "2. combined: one window, half memory and half file" \
"storage_alloc_factor=0.5 splits one contiguous window: the first half is \
anonymous memory, the second half maps the file. The program prints the \
effective hints from MPI_Win_get_info and the window as the kernel sees it \
in /proc/self/maps, then puts data across the split and checks that only the \
second half reaches the file." \
  1 "$ex/combined"

show "3. dynamic: MPI_Alloc_mem storage memory on a dynamic window" \
"MPI_Alloc_mem takes the same hints, so it returns a mapping of a file. Each \
rank attaches it to a window made with MPI_Win_create_dynamic, the ranks put \
into each other's memory, and MPI_Win_sync on the dynamic window makes the \
attached storage durable. MPI_Free_mem removes the file." \
  2 "$ex/dynamic"

show "4. checkpoint: durable checkpoints under an exclusive lock, then a restart" \
"Each rank updates its state inside MPI_Win_lock(MPI_LOCK_EXCLUSIVE, myrank), \
calls MPI_Win_sync (the checkpoint is on storage when it returns) and unlocks; \
its neighbour reads the state with MPI_Get and never sees half a checkpoint. \
Then the window is freed, a new window is opened on the same file, and it \
holds the last checkpoint: that is the restart." \
  2 "$ex/checkpoint"

if [ -n "$lib" ]; then
  show "5a. preload: an unmodified MPI program, without mpisw" \
"preload.c is a plain MPI program, not linked with libmpisw. Run as is, its \
window is ordinary MPI memory." \
    2 "$ex/preload" --expect memory
  show "5b. preload: the same binary with LD_PRELOAD and MPISW_HINTS" \
"Now libmpisw is preloaded and MPISW_HINTS='alloc_type=storage;\
storage_alloc_filename=/tmp' gives the hints: each rank's window becomes a \
unique file in /tmp, removed when the window is freed. No code changed." \
    2 setenv LD_PRELOAD "$lib" setenv MPISW_HINTS "alloc_type=storage;storage_alloc_filename=/tmp" \
    "$ex/preload" --expect storage
fi

echo
if [ ${#failed[@]} -ne 0 ]; then
  echo "demo: FAILED: ${failed[*]}"
  exit 1
fi
echo "demo: every example checked its results and passed."
