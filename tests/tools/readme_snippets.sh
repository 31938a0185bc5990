#!/bin/sh
# readme_snippets.sh README MPICC MPIEXEC [PREFLAGS...] -- CFLAGS/LIBS...
# Compiles the C code of README.md (every ```c block, in order, inside a
# main that declares what the text takes as given: size, disp_unit, base,
# win, rank) and runs it on 2 ranks, with the library active and with
# MPISW_DISABLE=1: the README's code must be correct MPI either way. The
# file name of the text (/scratch/...) becomes a fresh directory.
set -u
readme=$1 mpicc=$2; shift 2
launch=
while [ $# -gt 0 ] && [ "$1" != -- ]; do launch="$launch $1"; shift; done
[ $# -gt 0 ] && shift
dir=$(mktemp -d /tmp/mpisw-readme-XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
awk '/^```c$/ { c = 1; next } /^```/ { c = 0 } c' "$readme" |
  sed "s|/scratch|$dir|g" > "$dir/snippet.h"
[ -s "$dir/snippet.h" ] || { echo "no \`\`\`c block in $readme"; exit 1; }
cat > "$dir/main.c" <<'EOC'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
  MPI_Aint size = 1 << 20;
  int disp_unit = 1, rank;
  void *base = NULL;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  {
#include "snippet.h"
  }
  ((char *)base)[size - 1] = 1; /* the window is usable */
  MPI_Win_free(&win);
  if (rank == 0)
    printf("readme code: ok\n");
  MPI_Finalize();
  return 0;
}
EOC
echo "---- the README's C code:"; cat "$dir/snippet.h"
"$mpicc" -Wall -Werror -o "$dir/main" "$dir/main.c" "$@" || exit 1
status=0
for disable in 0 1; do
  echo "---- MPISW_DISABLE=$disable"
  # shellcheck disable=SC2086
  out=$(MPISW_DISABLE=$disable timeout -k 5 50 $launch -n 2 "$dir/main" 2>&1)
  rc=$?
  printf '%s\n' "$out"
  if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q "readme code: ok"; then
    echo "FAILED with MPISW_DISABLE=$disable (exit $rc)"; status=1
  fi
done
exit $status
