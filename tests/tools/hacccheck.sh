#!/bin/sh
# hacccheck.sh SCENARIO NP "OPTIONS" HACC MPIEXEC [PREFLAGS...]
# Runs apps/hacc_io (HACC) under MPIEXEC in a fresh directory D and checks
# exit codes, the JSON lines and the messages (exit codes: apps/hacc_io/
# options.c, README "HACC-IO"). Scenarios:
#   roundtrip  NP ranks checkpoint 2 steps and restart with OPTIONS (a
#              --method ...): a restart line with verify ok at step 1, and
#              nothing left in D (--remove)
#   rerank     written by 2 ranks; restarted by 1 (indep) and 3 (coll) ranks,
#              by 2 through windows; windows at 1 rank refused (exit 2)
#   corrupt    a written file with a header byte changed (3), a particle byte
#              changed (1), cut short (3), read as another size (3); a file
#              that is not a checkpoint (3), no file (4)
#   errors     bad options (2; --fill, --readers, --settle values, win options
#              of another method); a missing directory (indep), an unwritable
#              path (win, ckpt; ckpt makes a missing directory itself) (4)
#   full       run inside mountdrv.sh tmpfs8m: a checkpoint larger than the
#              file system fails (4) for indep, win and ckpt, and what it left
#              is refused as incomplete (3), never restarted
set -u
[ $# -ge 5 ] || { echo "usage: $0 SCENARIO NP OPTIONS HACC MPIEXEC [PREFLAGS...]" >&2; exit 2; }
scenario=$1 np=$2 opts=$3 hacc=$4
shift 4
base=${MPISW_TEST_MNT:-/tmp}
dir=$(mktemp -d "$base/mpisw-hacc-XXXXXX") || exit 1
logs=$(mktemp -d /tmp/mpisw-hacclog-XXXXXX) || exit 1 # not on a file system to fill
cleanup() { [ "${MPISW_TEST_KEEP:-0}" = 1 ] || rm -rf "$dir" "$logs"; }
trap cleanup EXIT
trap 'exit 143' INT TERM
fail() { echo "hacccheck.sh: FAILED: $*" >&2; exit 1; }

# run WANT_RC NP ARGS...: one job; its output in $logs/out, $logs/err
run() {
  want=$1 n=$2
  shift 2
  echo "hacccheck.sh: -n $n hacc_io $*"
  if [ "$n" = 1 ]; then # a singleton, as users start one rank (Open MPI's
    # mpiexec takes 3 s to end a job that exits non-zero)
    timeout -k 5 40 "$hacc" "$@" >"$logs/out" 2>"$logs/err" </dev/null
  else
    timeout -k 5 40 "$launcher" $preflags -n "$n" "$hacc" "$@" >"$logs/out" 2>"$logs/err" </dev/null
  fi
  rc=$?
  sed 's/^/  out: /' "$logs/out"
  sed 's/^/  err: /' "$logs/err"
  [ "$rc" -eq "$want" ] || fail "exit code $rc, expected $want"
}
launcher=$1
shift
preflags="$*"
says() { grep -q -- "$1" "$logs/err" || fail "stderr does not say '$1'"; }
restart_ok() { # the restart line: verify ok, at step $1
  grep -q "\"phase\":\"restart\".*\"step\":$1,.*\"verify\":\"ok\"" "$logs/out" ||
    fail "no restart line with verify ok at step $1"
}
flip() { # flip the byte at offset $2 of file $1
  b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  printf "$(printf '\\%03o' $(((b + 1) % 256)))" |
    dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
P=20000
ck=$dir/ck

case $scenario in
roundtrip)
  # shellcheck disable=SC2086
  run 0 "$np" --particles $P --steps 2 --path "$ck" --remove --quiet $opts
  [ "$(grep -c '"phase":"checkpoint"' "$logs/out")" -eq 2 ] || fail "not 2 checkpoint lines"
  restart_ok 1
  case $opts in *pool*) ;; *)
    grep -q '"cache":"fadvise","cached_bytes":0,' "$logs/out" ||
      case $opts in *ckpt*) ;; *) fail "the file was still cached before the restart" ;; esac ;;
  esac
  left=$(ls -A "$dir")
  [ -z "$left" ] || fail "files left after --remove: $left"
  ;;
rerank)
  run 0 2 --particles 20011 --method indep --path "$ck" --no-restart --quiet
  [ -f "$ck" ] || fail "--no-restart did not keep the file"
  run 0 1 --restart-only --method indep --path "$ck" --quiet
  restart_ok 0
  run 0 3 --restart-only --method coll --path "$ck" --quiet
  restart_ok 0
  run 0 2 --restart-only --method win --particles 20011 --path "$ck" --quiet
  restart_ok 0
  run 2 1 --restart-only --method win --particles 20011 --path "$ck" --quiet
  says "rank count that wrote the file"
  ;;
corrupt)
  run 0 2 --particles $P --method indep --path "$ck" --no-restart --quiet
  size=$(stat -c %s "$ck")
  cp "$ck" "$dir/good"
  flip "$ck" 20
  run 3 1 --restart-only --method indep --path "$ck" --quiet
  says "checksum"
  cp "$dir/good" "$ck" && flip "$ck" $((4096 + 4 * P / 2 + 1))
  run 1 1 --restart-only --method indep --path "$ck" --quiet
  says "differs"
  grep -q '"verify":"failed"' "$logs/out" || fail "verify is not failed"
  cp "$dir/good" "$ck" && truncate -s $((size - 100)) "$ck"
  run 3 1 --restart-only --method indep --path "$ck" --quiet
  says "short"
  cp "$dir/good" "$ck"
  run 3 1 --restart-only --method indep --particles 30000 --path "$ck" --quiet
  says "another run"
  head -c 8192 /dev/urandom >"$ck"
  run 3 1 --restart-only --method coll --path "$ck" --quiet
  says "not a hacc_io checkpoint"
  run 4 1 --restart-only --method indep --path "$dir/none" --quiet
  says "cannot open the checkpoint file"
  ;;
errors)
  run 2 1 --method disk
  says "usage:"
  run 2 1 --steps 0
  says "--steps"
  run 2 1 --method pool --restart-only
  says "lives as long as the job"
  run 2 1 --method win --fill copy
  says "--fill"
  run 2 1 --method win --readers 65
  says "--readers"
  run 2 1 --settle -1
  says "--settle"
  run 2 1 --method indep --fill put
  says "options of --method win"
  run 4 1 --particles 1000 --method indep --path "$dir/no/such/dir/ck" --quiet
  says "cannot create the checkpoint file"
  run 4 1 --particles 1000 --method win --path /proc/hacc_io.ckpt --quiet
  run 4 1 --particles 1000 --method ckpt --path /proc/hacc_io.ckpt --quiet
  says "checkpoint set"
  ;;
full)
  [ -n "${MPISW_TEST_MNT:-}" ] || fail "run under mountdrv.sh tmpfs8m"
  for m in indep win ckpt; do
    run 4 1 --particles 400000 --method $m --path "$ck.$m" --quiet
    case $m in
      ckpt)
        run 3 1 --restart-only --particles 400000 --method ckpt --path "$ck.$m" --quiet
        says "no complete checkpoint" ;;
      *)
        run 3 1 --restart-only --method indep --path "$ck.$m" --quiet
        says "incomplete" ;;
    esac
    rm -rf "$ck.$m" "$ck.$m.ckpt.d"
  done
  ;;
*) fail "unknown scenario $scenario" ;;
esac
echo "hacccheck.sh: $scenario passed"
