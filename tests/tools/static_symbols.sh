#!/bin/sh
# static_symbols.sh NM LIBMPISW.a
# The static library adds only its own names to a program's link: every
# global symbol it defines is an MPI entry point (MPI_, PMPI_, MPIX_) or
# starts with mpisw_ (internal ones mpisw_<module>_ or mpisw__); the
# AddressSanitizer's __odr_asan.<name> markers of those count as their names;
# unlink, unlinkat and remove are entry points too (src/interpose/posix.c).
# Prints the others and exits 1.
set -u
nm=$1 lib=$2
[ -f "$lib" ] || { echo "static_symbols.sh: no $lib"; exit 2; }
all=$("$nm" -g --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sort -u)
[ -n "$all" ] || { echo "static_symbols.sh: $lib defines no symbol"; exit 2; }
bad=$(echo "$all" | grep -vE '^(__odr_asan\.)?(P?MPIX?_|mpisw_|unlink$|unlinkat$|remove$)')
if [ -n "$bad" ]; then
  echo "$bad"
  echo "static_symbols.sh: $(echo "$bad" | wc -l) symbols above would clash with a program's own names; prefix them mpisw_"
  exit 1
fi
echo "$(echo "$all" | wc -l) global symbols, all MPI_/PMPI_/MPIX_/mpisw_"
