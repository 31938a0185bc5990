#!/bin/sh
# cio_bench_check.sh MPIEXEC "PREFLAGS" CIO_CUBE CIO_BTIO  (ctest bench_cio_tiny)
# The collective I/O benchmarks, tiny, in /tmp:
#  1. cio_cube at 2 ranks posing as 2 nodes (MPISW_TOPO_HOSTNAME), ranks
#     renumbered (--order), every side and an A/A side, written, read back
#     (collective read too) and checked: exit 0, every record, all verified,
#     the model's TATP hop-bytes <= LATP's and OTP's;
#  2. cio_btio at 4 ranks (4 "nodes"), every side, the same checks;
#  3. --corrupt (a byte flipped after the write): must fail naming the
#     mismatch;
#  4. cio_btio at 3 ranks: refused (not a square), exit 1, no crash;
# and no file left. Every otp/latp/tatp call goes through the engine
# (mpisw_cb_strategy in MPI_File_get_info) with its own strategy, and the
# engine's hop-bytes (of all three strategies), domains and maximum link load
# are the benchmark's model of the same call; romio never goes through it.
set -u
mpiexec=$1 preflags=$2 cube=$3 btio=$4
dir=$(mktemp -d /tmp/mpisw-ciobench-XXXXXX)
out=$dir/out err=$dir/err
fail=0
bad() { echo "FAIL: $*"; fail=1; }
left() { ls "$dir" | grep -v '^out$\|^err$'; }
trap 'rm -rf "$dir"' EXIT
# shellcheck disable=SC2086
run() { np=$1; shift; $mpiexec $preflags -n "$np" "$@" --path "$dir" >"$out" 2>"$err"; }

check_records() { # EXPECTED_RECORDS
  python3 - "$out" "$1" <<'PY' || return 1
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
want = int(sys.argv[2])
assert len(recs) == want, f"{len(recs)} records, expected {want}"
model = [r for r in recs if r["phase"] == "model"]
assert len(model) == 1, "no model record"
m = model[0]
assert m["hopbytes_tatp"] <= m["hopbytes_latp"] and m["hopbytes_tatp"] <= m["hopbytes_otp"], m
assert m["moved_latp"] <= m["moved_otp"], m
calls = [r for r in recs if r["phase"] in ("write", "read")]
for r in calls:
    assert r["verified"] is True, r
    assert r["seconds"] > 0 and r["GBps"] > 0 and r["bytes"] > 0, r
    if r["strategy"] == "romio":
        assert r["engine"] == 0, f"romio side went through the engine: {r}"
    else:
        # the engine took the call, with the side's strategy, and its
        # figures are the benchmark's model of the same call
        assert r["engine"] == 1, f"the {r['strategy']} side did not go through the engine: {r}"
        assert r["engine_strategy"] == r["strategy"], r
        assert r["engine_domains"] == r["model_domains"], (r, m)
        if r["model_domains"]:
            for s in ("otp", "latp", "tatp"):
                assert r[f"engine_hopbytes_{s}"] == m[f"hopbytes_{s}"], (s, r, m)
        assert r["engine_hopbytes"] == r["model_hopbytes"], r
        assert r["engine_max_link_load"] == r["model_max_link_load"], r
print(f"{len(calls)} calls verified; the engine's figures are the model's")
PY
}

# 1. the cube, 2 ranks as 2 nodes, renumbered, every side + A/A, read too
# (romio_cb_write|read=enable: two ranks' slabs do not interleave, and
# ROMIO's rule, the engine's too, would move them without two phases)
MPISW_TOPO_HOSTNAME='n%r' run 2 "$cube" --size 12x10x9 --strategies otp,latp,tatp,romio,romio-aa \
  --verify --read --order 1,0 --hint romio_cb_write=enable --hint romio_cb_read=enable
rc=$?
[ $rc -eq 0 ] || { bad "cube run exited $rc"; cat "$err"; }
check_records 11 || bad "cube records"
grep -q '"side":"romio-aa","strategy":"romio"' "$out" || bad "no A/A side"
grep -q '"domains":2' "$out" || bad "cube: not 2 domains for 2 nodes"
[ -z "$(left)" ] || bad "files left behind: $(left)"

# 2. BT-IO at 4 ranks as 4 nodes, every side
MPISW_TOPO_HOSTNAME='n%r' run 4 "$btio" --size 10 --verify --read
rc=$?
[ $rc -eq 0 ] || { bad "btio run exited $rc"; cat "$err"; }
check_records 9 || bad "btio records"
grep -q '"domains":4' "$out" || bad "btio: not 4 domains for 4 nodes"
[ -z "$(left)" ] || bad "files left behind: $(left)"

# 3. a flipped byte must fail loudly; the engine's side without two phases
# (the slabs do not interleave: no domain in the model nor in the engine)
run 2 "$cube" --size 16 --strategies tatp --verify --corrupt
rc=$?
[ $rc -ne 0 ] || bad "--corrupt run exited 0"
grep -q "DATA MISMATCH in $dir/cio_cube.*at offset" "$err" || { bad "no DATA MISMATCH message"; cat "$err"; }
grep -q '"verified":false' "$out" || bad "the corrupted write is not recorded as unverified"
grep -q '"phase":"model".*"independent":1' "$out" || bad "2 slabs: the model has two phases"
grep -q '"phase":"write".*"engine":1.*"engine_domains":0' "$out" || bad "2 slabs: the engine used domains"
[ -z "$(left)" ] || bad "files left behind after the mismatch: $(left)"

# 4. BT-IO needs a square number of processes
run 3 "$btio" --size 10
rc=$?
[ $rc -ne 0 ] && [ $rc -lt 128 ] || bad "btio at 3 ranks exited $rc (expected an error, no signal)"
grep -q "square number of processes" "$err" || { bad "btio at 3 ranks: no clear message"; cat "$err"; }

[ $fail -eq 0 ] && echo "cio bench checks passed"
exit $fail
