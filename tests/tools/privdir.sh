#!/bin/sh
# privdir.sh BUILD -- COMMAND...
# Runs COMMAND as if the checkout lived where other users cannot enter (a
# home directory of mode 0700, a clone under mktemp -d): the arguments under
# BUILD and the libraries under BUILD that they load are copied into a fresh
# directory of mode 0700, and COMMAND starts from there, with LD_LIBRARY_PATH
# naming the copies. Used with nopriv.sh, whose dropped user must not need to
# enter the build tree (mpi_pager_fallback_private_*).
set -u
build=$1; shift
[ "$1" = "--" ] && shift
dir=$(mktemp -d /tmp/mpisw-privdir-XXXXXX) || exit 1   # mode 0700, root's
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/bin" "$dir/lib" || exit 1
n=$#
while [ "$n" -gt 0 ]; do
  a=$1; shift; n=$((n - 1))
  case $a in
    "$build"/*)
      if [ -f "$a" ] && [ -x "$a" ]; then
        ldd "$a" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' |
          while read -r name path; do
            case $path in "$build"/*) cp -L "$path" "$dir/lib/$name" || exit 1 ;; esac
          done || exit 1
        cp "$a" "$dir/bin/" || exit 1
        a=$dir/bin/$(basename "$a")
      fi ;;
  esac
  set -- "$@" "$a"
done
cd "$dir" || exit 1
LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
