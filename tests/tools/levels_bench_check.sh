#!/bin/sh
# levels_bench_check.sh LEVELS_NODES MODE   (ctest bench_ckpt_levels_tiny_<mode>)
# bench/levels_bench.c through its launcher (build/.../bench/levels_nodes.sh)
# on 4 simulated nodes of 1 rank, tiny, in a fresh directory of /tmp:
#  1. 2 checkpoints of 1 MiB + 5 bytes per rank on LOCAL + MODE (partner or
#     xor), a node lost, restart: exit 0, one record, "byte_exact":true, the
#     lost rank restored from MODE's level; XOR's files hold at most 1/3 of
#     the LOCAL images (rounded up) plus a 4 KiB header per file; PARTNER's
#     at least one full copy of them; nothing left behind;
#  2. --corrupt (one restored byte flipped on the lost rank): exit 1,
#     "byte_exact":false, the byte named, nothing left behind.
# Exits 77 when the simulated nodes cannot be made (not root).
set -u
nodes_sh=$1 mode=$2
dir=$(mktemp -d /tmp/mpisw-levelsbench-ctest-XXXXXX) || exit 1
out=$dir/out err=$dir/err
mkdir "$dir/work"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
left() { find "$dir/work" -mindepth 1 2>/dev/null; }
trap 'rm -rf "$dir"' EXIT
run() {
  MPISW_NODES_TIMEOUT=90 "$nodes_sh" 4 1 --mode "$mode" --size 1048581 --iters 2 \
    --path "$dir/work" "$@" >"$out" 2>"$err"
}
field() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$out" | head -1; }

run
rc=$?
if [ $rc -eq 77 ]; then cat "$out"; exit 77; fi
[ $rc -eq 0 ] || { bad "tiny run exited $rc"; cat "$out" "$err"; }
n=$(grep -c '^{"bench":"ckpt_levels"' "$out")
[ "$n" -eq 1 ] || bad "printed $n records, expected 1: $(cat "$out")"
grep -q "\"mode\":\"$mode\",\"nodes\":4,\"ranks\":4,\"xor_size\":4,\"keep\":2,\"size\":1048581" "$out" ||
  bad "record: $(cat "$out")"
[ "$(field byte_exact)" = true ] || bad "byte_exact is not true: $(cat "$out")"
[ "$(field lost_ranks)" = 1 ] || bad "not one rank lost: $(cat "$out")"
want=$(echo "$mode" | tr a-z A-Z)
[ "$(field restored_level)" = "\"$want\"" ] || bad "lost rank not restored from $want: $(cat "$out")"
local_b=$(field local_bytes)
[ "$(field local_files)" = 8 ] || bad "LOCAL holds $(field local_files) images, expected 8 (4 ranks x 2)"
if [ "$mode" = xor ]; then
  xb=$(field xor_bytes) xf=$(field xor_files)
  [ "$xf" = 8 ] || bad "XOR holds $xf parity files, expected 8 (4 ranks x 2 versions)"
  awk -v x="$xb" -v l="$local_b" -v f="$xf" 'BEGIN { exit !(x > 0 && x <= l / 3 + 2 + 4096 * f) }' ||
    bad "XOR parity $xb bytes: more than 1/3 of the LOCAL images ($local_b) + 4 KiB per file"
else
  pb=$(field partner_bytes)
  awk -v p="$pb" -v l="$local_b" 'BEGIN { exit !(p >= l) }' ||
    bad "PARTNER holds $pb bytes, less than one copy of the LOCAL images ($local_b)"
fi
[ -z "$(left)" ] || bad "files left behind: $(left)"

run --corrupt
rc=$?
[ $rc -eq 1 ] || bad "--corrupt exited $rc, expected 1"
[ "$(field byte_exact)" = false ] || bad "--corrupt: byte_exact is not false: $(cat "$out")"
grep -q "lost): restored version .* byte 524290 differs from the data" "$err" ||
  { bad "--corrupt: the flipped byte is not named"; cat "$err"; }
[ -z "$(left)" ] || bad "files left behind after --corrupt: $(left)"
[ $fail = 0 ] && echo "levels_bench_check: $mode ok"
exit $fail
