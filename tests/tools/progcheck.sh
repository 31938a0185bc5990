# progcheck.sh: sourced (". tests/tools/progcheck.sh") by the drivers that
# run one unmodified program under mpiexec with MPISW_REPORT=1 and then
# check what it printed and left (tests/realprog/run_h5.sh,
# tests/fortran/run_fortran.sh). One copy of the scratch directory, the
# failure message, the timed run and the report checks they share.
#
#   pc_setup NAME TAG   $dir = fresh /tmp/mpisw-NAME-XXXXXX, $err its
#                       stderr file; both removed at exit (kept with
#                       MPISW_TEST_KEEP=1); failures say "FAIL: TAG: ..."
#   fail MESSAGE        says it with the directory listing, exits 1
#   pc_run WHAT CMD...  runs CMD (50 s at most), its stderr into $err and
#                       back out; fails unless it exits 0
#   pc_active WHY       the report's "mpisw: active:" line is there once
#   pc_report RE WHAT   a line of $err matches the basic regex RE
#   pc_files N WHY      $dir holds exactly N entries

pc_setup() {
  pc_tag=$2
  dir=$(mktemp -d "/tmp/mpisw-$1-XXXXXX") || exit 1
  err=$dir.err
  trap pc_cleanup EXIT
  trap 'exit 143' INT TERM
}
pc_cleanup() {
  rm -f "$err"
  [ "${MPISW_TEST_KEEP:-0}" = 1 ] || rm -rf "$dir"
}
fail() {
  echo "FAIL: $pc_tag: $*" >&2
  ls -la "$dir" >&2
  exit 1
}
pc_run() {
  pc_what=$1
  shift
  echo "$pc_tag: $*"
  timeout -k 5 50 "$@" 2>"$err"
  pc_rc=$?
  cat "$err" >&2
  [ "$pc_rc" = 0 ] || fail "$pc_what failed (exit status $pc_rc)"
}
pc_active() {
  pc_n=$(grep -c '^mpisw: active:' "$err")
  [ "$pc_n" = 1 ] || fail "'mpisw: active:' on $pc_n lines, expected 1: $1"
}
pc_report() {
  grep -q "$1" "$err" || fail "the report has no line '$2'"
}
pc_files() {
  pc_n=$(ls -A "$dir" | wc -l)
  [ "$pc_n" -eq "$1" ] || fail "$pc_n files in $dir, expected $1: $2"
}
