#!/bin/sh
# mpich_io.sh fetch CACHE [MPI]
# mpich_io.sh run CACHE MODE SET LIBMPISW [MPI] -- MPIEXEC [PREFLAGS...]
#
# MPICH's own MPI-IO tests (test/mpi/io of Debian's mpich source package),
# unchanged, built with mpicc.<MPI> and run as MPICH's runtests runs them.
# MPI is mpich (the default) or openmpi: the programs are plain MPI-IO C,
# and each MPI gets its own build of them (CACHE/mpich-io/mpich-<v> for
# MPICH, CACHE/mpich-io/openmpi/mpich-<v> for Open MPI).
#
# fetch: `apt-get source --download-only mpich=<the installed version>` into
#   CACHE/mpich-io (apt checks the files against the signed Sources index;
#   this script checks the upstream tarball against the .dsc's SHA-256 again
#   and against the pinned hash of 4.0.2), unpacks test/mpi, configures it
#   for mpicc.<MPI> (C only) and builds util/ and io/. When apt-get source
#   fails (no deb-src lines in apt's sources) it adds one for the suite mpich
#   comes from, in its own file /etc/apt/sources.list.d/mpisw-realprog-src.list,
#   updates that list alone and tries again (it says so). Done once per MPI:
#   later calls see the stamp. About 90 s the first time (22 MB download,
#   configure, build), 60 s for the second MPI.
# run: runs the io programs of testlist (name, ranks, arg=) one by one, each
#   in a fresh empty working directory (their files have fixed names there:
#   testfile*, test.ord, unnamed.dat, ...), and passes when every one exits 0
#   and prints nothing but " No Errors" (with libmpisw: and when its stderr
#   has mpisw's one "mpisw: active:" line of MPISW_REPORT=1).
#   The names the 29 programs give MPI_File_open/MPI_File_delete (relative,
#   in their working directory): test.ord, test.txt, testfile, testfile.<rank>,
#   unnamed.dat, simple_collective.testfile; zero_count opens its own binary
#   (argv[0]) read-only, a real file that stays real.
#   MODE plain    the programs as built, no libmpisw (the baseline)
#        preload  LD_PRELOAD=LIBMPISW: files reach MPICH untouched
#        linked   the programs relinked with libmpisw ahead of MPICH
#        pooled   preload, and MPISW_MEM_PATHS=$POOLED_GLOBS with DIR the
#                 program's working directory (the absolute form and the
#                 names as the programs give them); as root DIR is bound
#                 read-only onto itself in a private mount namespace, so a
#                 file that is not pooled cannot even be created; without
#                 root DIR must at least be empty afterwards
#   SET  all      every program of io/testlist
#        quick    all but $SLOW: bigtype and i_bigtype write and read
#                 2 GiB through a datatype of 2^31-1 bytes (4 GiB of memory,
#                 35 s each), i_noncontig_coll2 takes 5-10 s; the 26 left
#                 cover what HDF5 and IOR use (explicit offsets, individual
#                 and shared pointers, collective, ordered, nonblocking,
#                 views of derived types, aggregation, hints, errors)
# Exit 77 with "SKIP: ..." when the sources cannot be had (no apt-get, no
# root to add a deb-src line, no mirror).
set -u
here=$(cd "$(dirname "$0")" && pwd)
PINNED_VERSION=4.0.2
PINNED_SHA256=b27039f964afeb6b8a3e009c56b441cbe368c26d6d6476ad3bb7190996875860
SLOW="bigtype i_bigtype i_noncontig_coll2"
# Left out on Open MPI's own MPI-IO (ompio), i.e. on real files (plain,
# preload, linked), for a reason of Open MPI itself; pooled files run them:
#   tst_fileview  expects MPI_ERR_IO from MPI_File_set_view with a filetype
#                 that is not made of whole etypes (ROMIO's class); Open MPI
#                 4.1 returns MPI_ERR_TYPE, which MPI allows too (8 "expect
#                 MPI_ERR_IO but got MPI_ERR_TYPE" lines, plain Open MPI)
OMPI_REAL_SKIP="tst_fileview"
POOLED_GLOBS='DIR/*:test.ord:test.txt:testfile*:unnamed.dat:simple_collective.testfile'

skip() { echo "SKIP: $*"; exit 77; }
die() { echo "mpich_io.sh: $*" >&2; exit 1; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi; }

# locate CACHE MPI: sets srcver (Debian source version), upver (upstream),
# base (the downloads), tree (test/mpi built for MPI), mpicc and cppflags.
locate() {
  cache=$1 mpi=$2
  case "$mpi" in
  mpich) mpicc=mpicc.mpich mpiexec=mpiexec.mpich cppflags= sub= ;;
  # Open MPI 4.1 hides the MPI-1 calls removed in MPI-3 (MPI_Type_hvector,
  # MPI_Type_hindexed) behind a _Static_assert unless asked; libmpi still
  # has them, and MPICH's dtpools library, which every io program links,
  # calls them.
  openmpi) mpicc=mpicc.openmpi mpiexec=mpiexec.openmpi sub=/openmpi
           cppflags=-DOMPI_OMIT_MPI1_COMPAT_DECLS=0 ;;
  *) die "unknown MPI '$mpi' (mpich or openmpi)" ;;
  esac
  command -v $mpicc >/dev/null 2>&1 || skip "no $mpicc to build the io programs with"
  srcver=$(dpkg-query -W -f='${source:Version}' libmpich-dev 2>/dev/null) ||
    skip "libmpich-dev is not installed (dpkg-query knows no version)"
  upver=${srcver%-*}
  upver=${upver#*:}
  mkdir -p "$cache" && cache=$(cd "$cache" && pwd) || die "cannot create $cache"
  base=$cache/mpich-io
  top=$base$sub/mpich-$upver
  tree=$top/test/mpi
  stamp=$tree/.mpisw-built
}

# add_deb_src WHY: deb-src for the archive and suite that give the
# installed mpich (apt had none, or its list was never updated).
add_deb_src() {
  list=/etc/apt/sources.list.d/mpisw-realprog-src.list
  # "mpich | 4.0.2-3+b1 | http://deb.debian.org/debian bookworm/main amd64 Packages"
  line=$(apt-cache madison mpich 2>/dev/null | awk -F' [|] ' '$3 ~ / Packages$/ {print $3; exit}')
  [ -n "$line" ] || skip "apt-cache madison mpich names no archive to take the sources from"
  uri=${line%% *}
  rest=${line#* }
  suite=${rest%%/*}
  comp=${rest#*/}
  comp=${comp%% *}
  opts=
  [ -f /usr/share/keyrings/debian-archive-keyring.gpg ] &&
    opts="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
  echo "mpich_io.sh: apt-get source failed (${1:-no message}): adding" \
       "'deb-src ${opts}$uri $suite $comp' in $list and updating that list alone"
  echo "deb-src ${opts}$uri $suite $comp" | as_root tee "$list" >/dev/null ||
    skip "cannot write $list (not root, no sudo): add a deb-src line for $suite yourself"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q \
    -o Dir::Etc::sourcelist="$list" -o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0 </dev/null ||
    skip "apt-get update of $list failed (no mirror?)"
}

fetch() {
  locate "$1" "${2:-mpich}"
  mkdir -p "$base" || die "cannot create $base"
  exec 9>"$base/.lock"
  command -v flock >/dev/null 2>&1 && flock 9
  [ -f "$stamp" ] && { echo "mpich_io.sh: $tree is built (cached)"; return 0; }
  command -v apt-get >/dev/null 2>&1 || skip "no apt-get to fetch Debian's mpich source package"
  dsc=$base/mpich_${srcver#*:}.dsc
  orig=$(ls "$base"/mpich_"$upver".orig.tar.* 2>/dev/null | head -n 1)
  if [ ! -f "$dsc" ] || [ -z "$orig" ]; then
    (cd "$base" && apt-get source -q --download-only "mpich=$srcver" </dev/null) >"$base/apt.log" 2>&1 ||
      { add_deb_src "$(grep '^E:' "$base/apt.log" | head -n 1)" &&
        (cd "$base" && apt-get source -q --download-only "mpich=$srcver" </dev/null) >"$base/apt.log" 2>&1; } ||
      { cat "$base/apt.log"; skip "apt-get source --download-only mpich=$srcver failed"; }
    orig=$(ls "$base"/mpich_"$upver".orig.tar.* 2>/dev/null | head -n 1)
    [ -n "$orig" ] && [ -f "$dsc" ] || die "apt-get source left no $dsc and orig tarball in $base"
  fi
  # The upstream tarball against the .dsc, and against the pin for 4.0.2.
  name=${orig##*/}
  got=$(sha256sum "$orig" | cut -d' ' -f1)
  want=$(awk -v f="$name" '/^Checksums-Sha256:/ {s=1; next} /^[^ ]/ {s=0} s && $3 == f {print $1}' "$dsc")
  [ "$got" = "$want" ] || die "$name has SHA-256 $got, the .dsc says '$want'"
  if [ "$upver" = "$PINNED_VERSION" ] && [ "$got" != "$PINNED_SHA256" ]; then
    die "$name has SHA-256 $got, expected $PINNED_SHA256"
  fi
  echo "mpich_io.sh: sha256 $got $name: OK"
  rm -rf "$top"
  mkdir -p "$base$sub" || die "cannot create $base$sub"
  tar -xf "$orig" -C "$base$sub" "mpich-$upver/test/mpi" || die "cannot unpack test/mpi from $orig"
  echo "mpich_io.sh: configure test/mpi for $mpicc (C only), make util io"
  (cd "$tree" && ./configure -q CC=$mpicc MPICC=$mpicc MPIEXEC=$mpiexec CPPFLAGS="$cppflags" \
     --disable-fortran --disable-cxx --disable-dtpools --disable-spawn --disable-perftest \
     --disable-ft-tests) >"$base/build-$mpi.log" 2>&1 &&
    make -s -C "$tree/util" all >>"$base/build-$mpi.log" 2>&1 &&
    make -s -C "$tree/io" >>"$base/build-$mpi.log" 2>&1 ||
    { tail -n 30 "$base/build-$mpi.log"; die "building $tree/io failed (log: $base/build-$mpi.log)"; }
  touch "$stamp"
  echo "mpich_io.sh: built $(grep -c '^[a-z]' "$tree/io/testlist") io programs in $tree/io"
}

# run CACHE MODE SET LIBMPISW [MPI] -- MPIEXEC...
run() {
  where=$1 mode=$2 set=$3 lib=$4 mpi=mpich
  case "${5:-}" in mpich | openmpi) mpi=$5; shift ;; esac
  locate "$where" "$mpi"
  shift 4
  [ "${1:-}" = "--" ] && shift
  [ -f "$stamp" ] || fetch "$cache" "$mpi" >/dev/null
  case "$mode" in plain | preload | linked | pooled | engine) ;; *) die "unknown mode $mode" ;; esac
  rodir=
  if [ "$mode" = pooled ] && [ "$(id -u)" = 0 ]; then
    if [ -z "${MPISW_IN_MOUNTNS:-}" ] && unshare --mount --propagation private true 2>/dev/null; then
      MPISW_IN_MOUNTNS=1 exec unshare --mount --propagation private /bin/sh "$here/mpich_io.sh" \
        run "$cache" "$mode" "$set" "$lib" "$mpi" -- "$@"
    fi
    [ -n "${MPISW_IN_MOUNTNS:-}" ] && rodir=1
  fi
  [ "$mode" = pooled ] && [ -z "$rodir" ] &&
    echo "mpich io: not root (or no unshare): pooled mode checks only that no file is left"
  work=$(mktemp -d /tmp/mpisw-realprog-mpichio-XXXXXX) || die mktemp
  trap '[ "${MPISW_TEST_KEEP:-0}" = 1 ] || rm -rf "$work"' EXIT
  trap 'exit 143' INT TERM
  bindir=$tree/io
  if [ "$mode" = linked ] || [ "$mode" = engine ]; then
    # Relinked once per libmpisw (by path) and again when it changes.
    bindir=$base$sub/linked-$(printf '%s' "$lib" | cksum | cut -d' ' -f1)
    mkdir -p "$bindir" || die "cannot create $bindir"
  fi
  passed=0 failed=0 names= left= served=0
  while read -r prog np opts; do
    case "$prog" in '' | '#'*) continue ;; esac
    if [ "$set" = quick ]; then
      case " $SLOW " in *" $prog "*) continue ;; esac
    fi
    if [ "$mpi" = openmpi ] && [ "$mode" != pooled ]; then
      case " $OMPI_REAL_SKIP " in *" $prog "*) left="$left $prog"; continue ;; esac
    fi
    args=
    for o in $opts; do
      case "$o" in arg=*) args="$args ${o#arg=}" ;; esac
    done
    if { [ "$mode" = linked ] || [ "$mode" = engine ]; } && ! { [ "$bindir/$prog" -nt "$lib" ] && [ "$bindir/$prog" -nt "$tree/io/$prog.o" ]; }; then
      $mpicc -o "$bindir/$prog" "$tree/io/$prog.o" "$tree/dtpools/src/.libs/libdtpools.a" \
        "$tree/util/.libs/libmtest_single.a" \
        -Wl,--no-as-needed,"$lib",-rpath,"$(dirname "$lib")" ||
        die "relinking $prog with libmpisw failed"
    fi
    dir=$work/$prog
    mkdir "$dir"
    if [ -n "$rodir" ]; then
      mount --bind "$dir" "$dir" && mount -o remount,bind,ro "$dir" ||
        die "cannot bind $dir read-only"
    fi
    env=
    case "$mode" in
    preload) env="LD_PRELOAD=$lib MPISW_REPORT=1" ;;
    linked) env="MPISW_REPORT=1" ;;
    engine) env="MPISW_REPORT=1 MPISW_CB_STRATEGY=tatp" ;;
    pooled) env="LD_PRELOAD=$lib MPISW_REPORT=1 MPISW_MEM_PATHS=$(printf '%s' "$POOLED_GLOBS" | sed "s|DIR|$dir|")" ;;
    esac
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    (cd "$dir" && timeout -k 5 60 "$@" -n "$np" env $env "$bindir/$prog" $args \
       >"$dir.out" 2>"$dir.err" </dev/null)
    rc=$?
    # Lazily if a rank of an aborted program still holds it.
    [ -n "$rodir" ] && { umount "$dir" 2>/dev/null || umount -l "$dir"; }
    secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
    # As MPICH's runtests: stdout holds " No Errors" and nothing else.
    bad=$(grep -v '^ *No Errors$' "$dir.out" | grep -v '^$')
    active=$(grep -c '^mpisw: active:' "$dir.err")
    verdict=ok
    if [ "$rc" != 0 ]; then
      verdict="exit status $rc"
    elif ! grep -q '^ *No Errors$' "$dir.out"; then
      verdict="no 'No Errors'"
    elif [ -n "$bad" ]; then
      verdict="unexpected output"
    elif [ "$mode" = plain ] && [ "$active" != 0 ]; then
      verdict="libmpisw was active in the plain run"
    elif [ "$mode" != plain ] && [ "$active" != 1 ]; then
      verdict="'mpisw: active:' on $active lines, expected 1: libmpisw was not loaded"
    elif [ "$mode" = pooled ] && [ -n "$(ls -A "$dir")" ]; then
      verdict="files on disk: $(ls -A "$dir" | tr '\n' ' ')"
    fi
    served=$((served + $(grep -c '^mpisw: collective I/O: ' "$dir.err")))
    if [ "$verdict" = ok ]; then
      passed=$((passed + 1))
      echo "ok   $prog ($np ranks, $secs s)"
    else
      failed=$((failed + 1))
      names="$names $prog"
      echo "FAIL $prog ($np ranks, $secs s): $verdict"
      sed 's/^/     | /' "$dir.out" "$dir.err"
    fi
    [ "${MPISW_TEST_KEEP:-0}" = 1 ] || rm -rf "$dir" # bigtype leaves 2 GiB
  done <"$tree/io/testlist"
  echo "mpich io: mode $mode, set $set, MPI $mpi, mpich-$upver/test/mpi/io (Debian source $srcver)"
  [ -n "$left" ] && echo "mpich io: left out on Open MPI's own MPI-IO:$left (see OMPI_REAL_SKIP)"
  if [ "$mode" = engine ]; then
    echo "mpich io: the collective I/O engine (MPISW_CB_STRATEGY=tatp) served $served collective calls"
    [ "$served" -gt 0 ] || { failed=$((failed + 1)); names="$names (no-engine-call)"; }
  fi
  echo "mpich-io: $passed passed, $failed failed"
  [ "$failed" = 0 ] && [ "$passed" -gt 0 ] || { echo "FAIL:$names"; exit 1; }
}

case "${1:-}" in
fetch) [ $# = 2 ] || [ $# = 3 ] || die "usage: mpich_io.sh fetch CACHE [mpich|openmpi]"; fetch "$2" "${3:-mpich}" ;;
run) [ $# -ge 6 ] || die "usage: mpich_io.sh run CACHE MODE SET LIBMPISW [mpich|openmpi] -- MPIEXEC"; shift; run "$@" ;;
*) echo "usage: mpich_io.sh fetch CACHE [mpich|openmpi] | run CACHE plain|preload|linked|pooled|engine all|quick LIBMPISW [mpich|openmpi] -- MPIEXEC" >&2; exit 2 ;;
esac
