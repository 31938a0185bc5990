#!/bin/sh
# include_graph.sh SRC MODULE [ALLOWED...]
# Calls flow down the layers: every file of SRC/MODULE may include headers of
# its own folder and of the ALLOWED folders only ("folder/name.h"), and
# <mpi.h> only when "mpi" is ALLOWED. Prints each include that breaks the
# rule (file:line: text) and exits 1; exits 0 when there is none.
set -u
src=$1 module=$2
shift 2
allowed="$module${*:+ $*}"
[ -d "$src/$module" ] || { echo "include_graph.sh: no folder $src/$module"; exit 2; }
bad=0
for f in "$src/$module"/*.c "$src/$module"/*.h; do
  [ -e "$f" ] || continue
  # "folder/file.h" includes, and <mpi.h>, with their line numbers.
  grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*("[A-Za-z0-9_]+/|<mpi\.h>)' "$f" |
  while IFS= read -r line; do
    case $line in
      *'<mpi.h>'*) dir=mpi what='<mpi.h>' ;;
      *) dir=${line#*\"}; dir=${dir%%/*} what="$dir/" ;;
    esac
    ok=0
    for a in $allowed; do [ "$a" = "$dir" ] && ok=1; done
    [ $ok = 1 ] || echo "$f:$line: $module/ must not include $what (allowed: $allowed)"
  done
done | grep . && bad=1
[ $bad = 0 ] && echo "$module/ includes only: $allowed"
exit $bad
