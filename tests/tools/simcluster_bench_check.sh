#!/bin/sh
# simcluster_bench_check.sh SIMCLUSTER_LINKS_SH: the benchmark's wrapper once,
# tiny (100mbit, 1 MiB, best of 3 reps): exit 0, a record per path and one of the up
# and down times, the measured paths at most 1.2 x their rate. 77 without root.
out=$("$1" 100mbit 100mbit 1048576 3 2>&1)   # best of 3: the same-node pair shares 2 cores with 8 ranks
rc=$?
echo "$out"
[ $rc -ne 77 ] || exit 77
[ $rc -eq 0 ] || { echo "FAIL: simcluster_links.sh exited $rc"; exit 1; }
echo "$out" | python3 -c '
import json, sys
recs = [json.loads(l) for l in sys.stdin if l.startswith("{")]
paths = {r["path"]: r for r in recs if r.get("bench") == "simcluster"}
assert set(paths) == {"same-node", "same-leaf", "cross-leaf", "shared-uplink", "up+down"}, paths
for p in ("same-leaf", "cross-leaf", "shared-uplink"):
    assert 0 < paths[p]["ratio"] <= 1.2, (p, paths[p])
assert paths["up+down"]["up_s"] > 0 and paths["up+down"]["down_s"] > 0
print("simcluster_bench_check: ok")' || { echo "FAIL: records"; exit 1; }
