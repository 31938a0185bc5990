#!/bin/sh
# mpi4py_prepare.sh CACHE [mpich|openmpi]
# Gets mpi4py's source distribution from PyPI (pinned version and SHA-256)
# and builds it for one MPI (MPICC=mpicc.mpich or mpicc.openmpi; MPICH when
# not named) into its own directory CACHE/mpi4py/site-<mpi>-py<python>, so
# that mpi4py's own tests (CACHE/mpi4py/mpi4py-<version>/test, shared) run on
# that MPI whatever mpi4py the machine's python3 has (scripts/install-deps.sh
# installs one for Open MPI). Done once per MPI: later calls find the stamp
# and return at once. Takes about half a minute the first time (pip prepares
# the metadata and builds mpi4py, unoptimized, with Cython from PyPI). Its last two lines are
# the directory to put on PYTHONPATH and the directory of the tests. Exit 77 ("SKIP: ...") when python3, pip or PyPI is missing.
set -u
VERSION=4.1.2
SHA256=56860286dc45f20e8821e93cb06669e30462348bf866f685553fa4b712d58d02
cache=${1:?usage: mpi4py_prepare.sh CACHE [mpich|openmpi]}
flavor=${2:-mpich}
skip() { echo "SKIP: $*"; exit 77; }
die() { echo "mpi4py_prepare.sh: $*" >&2; exit 1; }
# The wrapper to build with, the -dev package that has it, and the first
# word of MPI_Get_library_version that proves the build is that MPI's.
case "$flavor" in
mpich) mpicc=mpicc.mpich devpkg=libmpich-dev libword=MPICH ;;
openmpi) mpicc=mpicc.openmpi devpkg=libopenmpi-dev libword=Open ;;
*) die "unknown MPI '$flavor' (mpich or openmpi)" ;;
esac

command -v python3 >/dev/null 2>&1 || skip "no python3"
command -v $mpicc >/dev/null 2>&1 || skip "no $mpicc ($devpkg)"
pyver=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])') || skip "python3 does not run"
mkdir -p "$cache" && cache=$(cd "$cache" && pwd) || die "cannot create $cache"
base=$cache/mpi4py
site=$base/site-$flavor-py$pyver
tarball=$base/mpi4py-$VERSION.tar.gz
stamp=$site/.mpisw-built-$VERSION
mkdir -p "$base" || die "cannot create $base"

# One builder at a time (two build trees may test at once, and both MPIs'
# builds share the tarball and the tests); flock if there.
exec 9>"$base/.lock"
command -v flock >/dev/null 2>&1 && flock 9

if [ ! -f "$stamp" ]; then
  python3 -m pip --version >/dev/null 2>&1 || skip "python3 has no pip (python3-pip) to get mpi4py $VERSION"
  if [ ! -f "$tarball" ]; then
    dl=$(mktemp -d "$base/dl-XXXXXX") || die "mktemp"
    echo "mpi4py_prepare.sh: pip download mpi4py==$VERSION (source distribution) into $base"
    if ! PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore \
         python3 -m pip download --quiet --no-deps --no-binary :all: \
           -d "$dl" "mpi4py==$VERSION" </dev/null; then
      rm -rf "$dl"
      skip "pip could not download mpi4py $VERSION from PyPI"
    fi
    [ -f "$dl/mpi4py-$VERSION.tar.gz" ] || { rm -rf "$dl"; die "pip left no mpi4py-$VERSION.tar.gz"; }
    mv "$dl/mpi4py-$VERSION.tar.gz" "$tarball.part" && rm -rf "$dl"
    got=$(sha256sum "$tarball.part" | cut -d' ' -f1)
    if [ "$got" != "$SHA256" ]; then
      rm -f "$tarball.part"
      die "mpi4py-$VERSION.tar.gz has SHA-256 $got, expected $SHA256: not the pinned release"
    fi
    mv "$tarball.part" "$tarball"
  fi
  echo "mpi4py_prepare.sh: sha256 $SHA256 mpi4py-$VERSION.tar.gz: OK"
  # The tests, from the same source distribution (once for both MPIs).
  if [ ! -f "$base/mpi4py-$VERSION/test/.mpisw-unpacked" ]; then
    rm -rf "$base/mpi4py-$VERSION"
    tar -xzf "$tarball" -C "$base" "mpi4py-$VERSION/test" || die "cannot unpack $tarball"
    touch "$base/mpi4py-$VERSION/test/.mpisw-unpacked"
  fi
  echo "mpi4py_prepare.sh: building mpi4py $VERSION for $flavor (MPICC=$mpicc) into $site"
  rm -rf "$site"
  # --target touches nothing of python3's own: allowed on an externally
  # managed (Debian) python3 too.
  # -O0: the tests check behaviour, not speed, and the optimized build of
  # mpi4py's one large C file takes minutes (27 s without optimization).
  if ! CFLAGS="-O0 -g0" MPICC=$mpicc PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore \
       PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --quiet --no-deps --no-cache-dir --target "$site" "$tarball" </dev/null; then
    rm -rf "$site"
    skip "pip could not build mpi4py $VERSION with $mpicc (its build needs setuptools and Cython from PyPI)"
  fi
  touch "$stamp"
fi
# The build must be this MPI's, whichever mpi4py python3 has on its own path.
lib=$(PYTHONPATH=$site python3 -c 'from mpi4py import MPI; print(MPI.Get_library_version().split()[0])' 2>&1)
[ "$lib" = "$libword" ] || die "mpi4py in $site is not built for $flavor (its MPI_Get_library_version starts: $lib)"
echo "$site"
echo "$base/mpi4py-$VERSION/test"
