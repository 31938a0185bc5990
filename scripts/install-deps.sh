#!/usr/bin/env bash
# Installs what building and testing mpisw needs, from Debian's packages.
#
# Idempotent and quiet: when every tool is there it prints nothing and changes
# nothing. Otherwise it runs `apt-get update` once and installs the packages
# below (as root, or through sudo when it is available).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

# The Debian packages the project needs.
# gfortran: the Fortran tests (tests/fortran/) build with the compiler the
# MPIs' Fortran wrappers (mpifort.mpich, mpifort.openmpi) call.
# libhdf5-mpich-dev, libhdf5-openmpi-dev: parallel HDF5 for each MPI
# (h5pcc.mpich, h5pcc.openmpi), for the real program
# tests/realprog/h5_roundtrip.c (each about 6 MB download, 21 MB installed,
# 5-10 s to install).
# iproute2: ip and tc, which build the simulated cluster of network
# namespaces, bridges and shaped veth links (tests/tools/simcluster.sh).
# wamerican: the English word list (/usr/share/dict/american-english) the
# MapReduce corpus generator (apps/mapreduce) draws its words from.
# libhwloc-dev: hwloc, the machine's cores and packages for collective I/O's
# distances inside a node (src/topo/intra.c).
packages=(mpich libmpich-dev openmpi-bin libopenmpi-dev cmake ninja-build pkg-config
          gcc gfortran libc6-dev fio util-linux e2fsprogs python3 libhdf5-mpich-dev
          libhdf5-openmpi-dev wamerican libhwloc-dev iproute2)

# tool -> package that provides it (for the message only).
checks=(
  "mpicc.mpich libmpich-dev"
  "mpiexec.mpich mpich"
  "mpicc.openmpi libopenmpi-dev"
  "mpiexec.openmpi openmpi-bin"
  "mpifort.mpich libmpich-dev"
  "mpifort.openmpi libopenmpi-dev"
  "cmake cmake"
  "ninja ninja-build"
  "pkg-config pkg-config"
  "gcc gcc"
  "gfortran gfortran"
  "fio fio"
  "losetup util-linux"
  "unshare util-linux"
  "ip iproute2"
  "tc iproute2"
  "mkfs.ext4 e2fsprogs"
  "python3 python3"
  "h5pcc.mpich libhdf5-mpich-dev"
  "h5pcc.openmpi libhdf5-openmpi-dev"
)

have() {
  command -v "$1" >/dev/null 2>&1 && return 0
  # sbin tools (losetup) are often outside a normal user's PATH.
  local d
  for d in /usr/local/sbin /usr/sbin /sbin; do
    [ -x "$d/$1" ] && return 0
  done
  return 1
}

missing=()
for c in "${checks[@]}"; do
  read -r tool pkg <<<"$c"
  have "$tool" || missing+=("$tool ($pkg)")
done
# C library headers (gcc alone does not pull them in without recommends).
[ -e /usr/include/stdio.h ] || missing+=("C headers (libc6-dev)")
[ -e /usr/share/dict/american-english ] || missing+=("English word list (wamerican)")
[ -e /usr/include/hwloc.h ] || missing+=("hwloc headers (libhwloc-dev)")

# A Python module from PyPI with the pip of the python3 on PATH (the one that
# runs the benchmark driver and the tests' scripts). A Debian system python3
# refuses pip (externally managed): there it is the Debian package instead.
# ensure_python_module "import statement" pip-name debian-package
ensure_python_module() {
  local import=$1 pipname=$2 debpkg=$3
  python3 -c "$import" >/dev/null 2>&1 && return 0
  echo "install-deps: python3 -m pip install --quiet $pipname ($(command -v python3))"
  if PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 \
       python3 -m pip install --quiet "$pipname" </dev/null; then
    :
  elif [ "$(python3 -c 'import sys; print(sys.prefix)' 2>/dev/null)" = /usr ] &&
       command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: pip failed; apt-get install $debpkg"
    local s=(); [ "$(id -u)" -eq 0 ] || s=(sudo)
    "${s[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null
    "${s[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q --no-install-recommends "$debpkg" </dev/null
  fi
  if ! python3 -c "$import" >/dev/null 2>&1; then
    echo "install-deps: python3 still cannot import $pipname" >&2
    return 1
  fi
}

# matplotlib, for the plots of the benchmark driver (bench/run.py).
ensure_matplotlib() {
  ensure_python_module 'import matplotlib' matplotlib python3-matplotlib
}

# scipy (and numpy), for the assignment solver's comparison with
# linear_sum_assignment (test unit_lap_scipy, bench suite lap).
ensure_scipy() {
  ensure_python_module 'import scipy.optimize, scipy.sparse, numpy' scipy python3-scipy
}

# clang with libFuzzer, for the parser fuzz target of the sanitizer pass
# (tests/fuzz/). Debian's clang only recommends its runtime libraries, where
# libFuzzer is (libclang-rt-<N>-dev), so that one is named with clang's
# version. Installed only when missing.
ensure_clang_fuzzer() {
  if command -v clang >/dev/null 2>&1 &&
     [ -f "$(clang -print-file-name=libclang_rt.fuzzer-$(uname -m).a 2>/dev/null)" ]; then
    return 0
  fi
  command -v apt-get >/dev/null 2>&1 ||
    { echo "install-deps: no apt-get; install clang with libFuzzer yourself" >&2; return 1; }
  local s=(); [ "$(id -u)" -eq 0 ] || s=(sudo)
  if ! command -v clang >/dev/null 2>&1; then
    echo "install-deps: apt-get install clang"
    "${s[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null
    "${s[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q --no-install-recommends clang </dev/null
  fi
  local major
  major=$(clang -dumpversion | cut -d. -f1)
  if [ ! -f "$(clang -print-file-name=libclang_rt.fuzzer-$(uname -m).a)" ]; then
    echo "install-deps: apt-get install libclang-rt-$major-dev (libFuzzer)"
    "${s[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q --no-install-recommends "libclang-rt-$major-dev" </dev/null ||
      { "${s[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null &&
        "${s[@]}" env DEBIAN_FRONTEND=noninteractive \
          apt-get install -y -q --no-install-recommends "libclang-rt-$major-dev" </dev/null; }
  fi
  if [ ! -f "$(clang -print-file-name=libclang_rt.fuzzer-$(uname -m).a)" ]; then
    echo "install-deps: clang $major still has no libFuzzer (libclang_rt.fuzzer)" >&2
    return 1
  fi
}

# mpi4py, for the Python test of storage windows: built from PyPI against
# Open MPI's wrapper (with both MPIs installed, mpi4py can serve one).
ensure_mpi4py() {
  python3 -c 'import mpi4py' >/dev/null 2>&1 && return 0
  command -v mpicc.openmpi >/dev/null 2>&1 || return 0
  echo "install-deps: python3 -m pip install --quiet mpi4py (built with mpicc.openmpi)"
  MPICC=mpicc.openmpi PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 \
    python3 -m pip install --quiet --no-cache-dir mpi4py </dev/null ||
    { echo "install-deps: could not install mpi4py" >&2; return 1; }
}

if [ ${#missing[@]} -eq 0 ]; then
  ensure_matplotlib && ensure_scipy && ensure_mpi4py && ensure_clang_fuzzer
  exit $?
fi

echo "install-deps: missing: ${missing[*]}"
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: no apt-get here; install these yourself: ${packages[*]}" >&2
  exit 1
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
  else
    echo "install-deps: not root and no sudo; as root run:" >&2
    echo "  apt-get update && apt-get install -y --no-install-recommends ${packages[*]}" >&2
    exit 1
  fi
fi

echo "install-deps: apt-get update"
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null
echo "install-deps: apt-get install ${packages[*]}"
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -q --no-install-recommends "${packages[@]}" </dev/null

# Check again, so that a package that did not provide its tool is reported.
still=()
for c in "${checks[@]}"; do
  read -r tool pkg <<<"$c"
  have "$tool" || still+=("$tool ($pkg)")
done
if [ ${#still[@]} -ne 0 ]; then
  echo "install-deps: still missing after apt-get install: ${still[*]}" >&2
  exit 1
fi
ensure_matplotlib
ensure_scipy
ensure_mpi4py
ensure_clang_fuzzer
echo "install-deps: done"
