#!/bin/sh
# no_reentry.sh SRC
# The library never calls its own entry points from inside: outside
# SRC/interpose/ (where they are defined), no source calls MPI_X, MPI_X_c,
# PMPI_X or PMPI_X_c for a call X of SRC/pmpi/calls.def (the MPI's own is
# reached through mpisw_next.X). A PMPI tool stacked in front of mpisw would
# otherwise count calls the user never made. Prints each such call and exits
# 1; exits 0 when there is none.
set -u
src=$1
names=$(sed -nE -e 's/^MPISW_(CALL|FILE)(_C|4)?\(([A-Za-z_0-9]+),.*/\3/p' \
                -e 's/^MPISW_CALL_T\([^,]+, *([A-Za-z_0-9]+),.*/\1/p' "$src/pmpi/calls.def" |
        sort -u | tr '\n' '|')
names=${names%|}
[ -n "$names" ] || { echo "no_reentry.sh: no calls found in $src/pmpi/calls.def"; exit 2; }
found=$(grep -rnE "\bP?MPI_($names)(_c)?[[:space:]]*\(" "$src" --include='*.c' --include='*.h' |
        grep -v "^$src/interpose/" | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)')
if [ -n "$found" ]; then
  echo "$found"
  echo "no_reentry.sh: the calls above re-enter mpisw's own entry points; use mpisw_next.X or the module's function"
  exit 1
fi
echo "no call of mpisw's own entry points outside interpose/ ($(echo "$names" | tr '|' '\n' | wc -l) calls checked)"
