#!/usr/bin/env bash
# Usage: scripts/check-install.sh BUILD_DIR
#
# Installs the build in BUILD_DIR (already built) into a temporary prefix,
# checks the installed files, then builds a tiny consumer three ways and runs
# each under the build's MPI launcher:
#   1. the MPI wrapper + pkg-config --cflags --libs mpisw   (libmpisw.so)
#   2. CMake find_package(mpisw) + target mpisw::mpisw        (libmpisw.so)
#   3. CMake find_package(mpisw) + target mpisw::mpisw_static (libmpisw.a)
#   4. the MPI wrapper + pkg-config --static --cflags --libs mpisw-static
#      (libmpisw.a: the binary must not need libmpisw at run time)
# and checks the installed dht program (dht --version, from the prefix) and
# the documentation in share/doc/mpisw.
# The consumer puts a window on storage; it passes only when the library
# really interposed (the file exists while the window lives, and
# MPI_Win_get_info says alloc_type=storage). The temporary prefix is removed
# at the end. Registered as the ctest "install_consumer".
set -euo pipefail

if [ $# -ne 1 ] || [ ! -f "$1/CMakeCache.txt" ]; then
  echo "usage: $0 BUILD_DIR (a configured and built mpisw build directory)" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
envfile="$build/mpisw-build.env"
if [ ! -f "$envfile" ]; then
  echo "check-install: $envfile is missing; re-run cmake on $build" >&2
  exit 2
fi
# shellcheck disable=SC1090,SC1091
. "$envfile"

# The cmake of the build (ctest passes it), else the one on PATH.
cmake=${MPISW_CMAKE:-cmake}

work=$(mktemp -d "${TMPDIR:-/tmp}/mpisw-install-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"

step() { printf 'check-install [%s]: %s\n' "$MPISW_MPI_FLAVOR" "$*"; }
fail() { printf 'check-install [%s]: FAIL: %s\n' "$MPISW_MPI_FLAVOR" "$*" >&2; exit 1; }

step "cmake --install $build --prefix $prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log" >&2; fail "cmake --install failed"; }

# The installed layout. The library directory is lib/ unless the build was
# configured with another CMAKE_INSTALL_LIBDIR.
pc=$(find "$prefix" -name mpisw.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc" ] || fail "no mpisw.pc installed"
libdir=$(dirname "$(dirname "$pc")")
soname="libmpisw-$MPISW_MPI_FLAVOR.so.0"
for f in "$prefix/include/mpisw.h" "$libdir/libmpisw.so" "$libdir/libmpisw.a" \
         "$libdir/$soname" "$libdir/pkgconfig/mpisw-static.pc" \
         "$prefix/bin/dht" "$prefix/bin/mpisw-topo" "$prefix/share/doc/mpisw/README.md" \
         "$prefix/share/doc/mpisw/LICENSE" "$prefix/share/doc/mpisw/TROUBLESHOOTING.md" \
         "$libdir/cmake/mpisw/mpiswConfig.cmake" \
         "$libdir/cmake/mpisw/mpiswConfigVersion.cmake" \
         "$libdir/cmake/mpisw/mpiswTargets.cmake"; do
  [ -e "$f" ] || fail "not installed: ${f#"$prefix"/}"
done
[ "$(readlink "$libdir/libmpisw.so")" = "libmpisw-$MPISW_MPI_FLAVOR.so" ] ||
  fail "libmpisw.so does not point to libmpisw-$MPISW_MPI_FLAVOR.so"
if command -v readelf >/dev/null; then
  readelf -d "$libdir/$soname" | grep -q "SONAME.*\[$soname\]" || fail "the soname is not $soname"
fi
step "installed: include/mpisw.h ${libdir#"$prefix"/}/{$soname,libmpisw.so,libmpisw.a,pkgconfig/mpisw{,-static}.pc,cmake/mpisw/} bin/{dht,mpisw-topo} share/doc/mpisw/"

# dht --version from the prefix, outside the build tree, without a library path.
want_mpi=MPICH
[ "$MPISW_MPI_FLAVOR" = openmpi ] && want_mpi="Open MPI"
version=$(sed -n 's/^Version: *//p' "$pc")
got=$(cd / && env -u LD_LIBRARY_PATH "$prefix/bin/dht" --version) || fail "dht --version failed"
[ "$got" = "dht $version (mpisw, built for $want_mpi)" ] ||
  fail "dht --version says '$got', want 'dht $version (mpisw, built for $want_mpi)'"
if command -v ldd >/dev/null; then
  found=$(ldd "$prefix/bin/dht" | sed -n "s|^[[:space:]]*$soname => \(.*\) (0x.*|\1|p")
  [ -n "$found" ] && [ "$(readlink -f "$found")" = "$(readlink -f "$libdir/$soname")" ] ||
    fail "the installed dht does not find $soname in $libdir: $(ldd "$prefix/bin/dht" | grep mpisw)"
fi
step "$got"

# mpisw-topo from the prefix: the flat default between two hosts.
topo=$(cd / && env -u LD_LIBRARY_PATH -u MPISW_TOPOLOGY "$prefix/bin/mpisw-topo" --hosts a,b) ||
  fail "mpisw-topo --hosts a,b failed"
printf '%s\n' "$topo" | grep -qx '  a     0   2' || fail "mpisw-topo --hosts a,b printed: $topo"
step "mpisw-topo --hosts a,b: the flat default"

# pkg-config: only -I/-L/-l, nothing MPI-specific, paths in this prefix.
export PKG_CONFIG_PATH="$libdir/pkgconfig"
unset PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR || true
[ "$(pkg-config --modversion mpisw)" = "$(sed -n 's/^Version: *//p' "$pc")" ] ||
  fail "pkg-config --modversion mpisw"
cflags=$(pkg-config --cflags mpisw)
libs=$(pkg-config --libs mpisw)
case " $libs " in *" -lmpisw "*) ;; *) fail "pkg-config --libs mpisw lacks -lmpisw: $libs" ;; esac
for w in $cflags $libs; do
  case "$w" in
    -lmpi|-lmpich|-lmpi_*|-lopen-*|*/mpich*|*/openmpi*) fail "mpisw.pc names an MPI: $w" ;;
  esac
done
# pkg-config drops -I/usr/include and -L/usr/lib; anything else must be ours.
for w in $cflags $libs; do
  case "$w" in
    -I*|-L*) case "${w#-?}" in "$prefix"/*) ;; *) fail "mpisw.pc points outside $prefix: $w" ;; esac ;;
  esac
done
step "pkg-config: cflags '$cflags' libs '$libs'"

# The consumer: a window on storage in a private directory.
mkdir -p "$work/consumer"
cat >"$work/consumer/consumer.c" <<'EOF'
#define _GNU_SOURCE
#include <mpi.h>
#include <mpisw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  int rank, rc, flag = 0, errors = 0;
  char path[512], type[MPI_MAX_INFO_VAL + 1] = "";
  struct stat st;
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 2) {
    fprintf(stderr, "usage: consumer DIR\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (!mpisw_active()) {
    fprintf(stderr, "consumer: mpisw_active() is 0\n");
    errors++;
  }
  snprintf(path, sizeof path, "%s/consumer-%d.dat", argv[1], rank);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, MPISW_HINT_ALLOC_TYPE, "storage");
  MPI_Info_set(info, MPISW_HINT_FILENAME, path);
  MPI_Info_set(info, MPISW_HINT_UNLINK, "true");
  void *base = NULL;
  MPI_Win win;
  rc = MPI_Win_allocate(1 << 16, 1, info, MPI_COMM_WORLD, &base, &win);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "consumer: MPI_Win_allocate: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (stat(path, &st) != 0) {
    fprintf(stderr, "consumer: no file %s: the library did not interpose\n", path);
    errors++;
  }
  MPI_Info got;
  MPI_Win_get_info(win, &got);
  MPI_Info_get(got, MPISW_HINT_ALLOC_TYPE, MPI_MAX_INFO_VAL, type, &flag);
  MPI_Info_free(&got);
  if (!flag || strcmp(type, "storage") != 0) {
    fprintf(stderr, "consumer: alloc_type is '%s', not storage\n", type);
    errors++;
  }
  memset(base, 7, 1 << 16);
  MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
  rc = MPI_Win_sync(win);
  MPI_Win_unlock(rank, win);
  if (rc != MPI_SUCCESS) {
    fprintf(stderr, "consumer: MPI_Win_sync failed\n");
    errors++;
  }
  MPI_Win_free(&win);
  if (stat(path, &st) == 0) {
    fprintf(stderr, "consumer: %s left behind\n", path);
    errors++;
  }
  if (rank == 0 && errors == 0)
    printf("consumer: storage window ok (mpisw %d.%d.%d)\n", MPISW_VERSION_MAJOR,
           MPISW_VERSION_MINOR, MPISW_VERSION_PATCH);
  MPI_Finalize();
  return errors ? 1 : 0;
}
EOF

# Launch as the tests do: this build's mpiexec, its flags and environment.
run() {
  local exe=$1 rundir
  rundir=$(mktemp -d "$work/run.XXXXXX")
  # shellcheck disable=SC2086
  env $MPISW_MPIEXEC_ENV "$MPISW_MPIEXEC" $MPISW_MPIEXEC_PREFLAGS -n 2 "$exe" "$rundir" \
    </dev/null >"$work/run.log" 2>&1 || { cat "$work/run.log" >&2; fail "$exe failed"; }
  cat "$work/run.log"
  [ -z "$(ls -A "$rundir")" ] || fail "$exe left files in its directory"
}

# libmpisw must be NEEDED ahead of the MPI library.
check_order() {
  local exe=$1 needed
  needed=$(readelf -d "$exe" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  case "$needed" in
    *"libmpisw-$MPISW_MPI_FLAVOR.so"*libmpi*) ;;
    *) fail "$exe: libmpisw-$MPISW_MPI_FLAVOR.so is not ahead of the MPI library (NEEDED: $needed)" ;;
  esac
}

# 1. pkg-config with the MPI's own wrapper (which appends the MPI library).
# mpisw.pc carries the rpath: the program starts with nothing else set, also
# when linked with --static (issue 13: it failed to start).
step "build with $MPISW_MPICC \$(pkg-config [--static] --cflags --libs mpisw)"
# shellcheck disable=SC2086
"$MPISW_MPICC" -o "$work/consumer_pc" "$work/consumer/consumer.c" $cflags $libs
if command -v readelf >/dev/null; then check_order "$work/consumer_pc"; fi
run "$work/consumer_pc"
# shellcheck disable=SC2046,SC2086
"$MPISW_MPICC" -o "$work/consumer_pc_s" "$work/consumer/consumer.c" $cflags \
  $(pkg-config --static --libs mpisw)
run "$work/consumer_pc_s"

# 2 and 3. find_package(mpisw) without naming the MPI: the package picks the
# MPI it was built for.
cat >"$work/consumer/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.18)
project(mpisw_consumer LANGUAGES C)
find_package(mpisw 0.1 REQUIRED)
if(NOT TARGET mpisw::mpisw OR NOT TARGET mpisw::mpisw_static)
  message(FATAL_ERROR "find_package(mpisw) gave no mpisw::mpisw / mpisw::mpisw_static")
endif()
message(STATUS "mpisw ${mpisw_VERSION} for ${mpisw_MPI_FLAVOR}, MPI C compiler ${MPI_C_COMPILER}")
add_executable(consumer_shared consumer.c)
target_link_libraries(consumer_shared PRIVATE mpisw::mpisw)
add_executable(consumer_static consumer.c)
target_link_libraries(consumer_static PRIVATE mpisw::mpisw_static)
EOF
gen=()
if command -v ninja >/dev/null; then gen=(-G Ninja); fi
step "build with find_package(mpisw) (CMAKE_PREFIX_PATH=$prefix)"
"$cmake" -S "$work/consumer" -B "$work/consumer-build" "${gen[@]}" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  >"$work/cmake.log" 2>&1 || { cat "$work/cmake.log" >&2; fail "configuring the consumer failed"; }
grep -E 'mpisw .* for ' "$work/cmake.log" || true
grep -q "for $MPISW_MPI_FLAVOR" "$work/cmake.log" || fail "the package is not for $MPISW_MPI_FLAVOR"
"$cmake" --build "$work/consumer-build" >"$work/build.log" 2>&1 ||
  { cat "$work/build.log" >&2; fail "building the consumer failed"; }
if command -v readelf >/dev/null; then check_order "$work/consumer-build/consumer_shared"; fi
run "$work/consumer-build/consumer_shared"
run "$work/consumer-build/consumer_static"

# 4. Static, through pkg-config: the archive, so the binary runs from any
# directory without libmpisw next to it.
scflags=$(pkg-config --static --cflags mpisw-static)
slibs=$(pkg-config --static --libs mpisw-static)
case " $slibs " in *"/libmpisw.a "*) ;; *) fail "pkg-config --static --libs mpisw-static lacks libmpisw.a: $slibs" ;; esac
step "build with $MPISW_MPICC \$(pkg-config --static --cflags --libs mpisw-static): $slibs"
# shellcheck disable=SC2086
"$MPISW_MPICC" -o "$work/consumer_static_pc" "$work/consumer/consumer.c" $scflags $slibs ||
  fail "the static link failed"
if command -v readelf >/dev/null; then
  if readelf -d "$work/consumer_static_pc" | grep NEEDED | grep -q libmpisw; then
    fail "the static consumer still needs libmpisw: $(readelf -d "$work/consumer_static_pc" | grep NEEDED | tr '\n' ' ')"
  fi
fi
if command -v ldd >/dev/null && ldd "$work/consumer_static_pc" | grep -q libmpisw; then
  fail "ldd: the static consumer loads libmpisw"
fi
mv "$libdir" "$libdir.moved" # nothing of the prefix may be needed at run time
run "$work/consumer_static_pc"
mv "$libdir.moved" "$libdir"

step "ok"
