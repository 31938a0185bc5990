"""Suite "simcluster": the simulated cluster's links (issue 18's cluster to
measure on, tests/tools/simcluster.sh; root, MPICH's hydra):

    python3 bench/run.py --suite simcluster --build build/mpich --out results/simcluster

Each step brings up 4 nodes, 2 per leaf switch, at the step's rates, runs
simcluster_bw (tests/mpi/t_simcluster.c) on 8 ranks packed (-ppn 2) through
BUILD/bench/simcluster_links.sh, and tears the cluster down. Records: the
best of REPS one-way ping-pongs of BYTES on one node (shared memory), between
two nodes of a leaf (node links) and between leaves (through the core), the
achieved bandwidth against the shaped rate of the path; two flows between the
leaves at once, from two nodes of one leaf (together against the leaf's
uplink, which they share); and the up and down times. Ratios: achieved / configured rate per path (the payload's share of
the wire, about 0.96 with 1500-byte frames, is the expected ceiling)."""

from harness.api import MiB, Step, by_rep, fmt_stat, human_bytes, md_table, ratio_stats

SUITES = {"simcluster": "the simulated cluster of network namespaces (root): achieved "
                        "bandwidth per link vs the tc-shaped rate, up/down times"}
PROGRAMS = {"simcluster": "simcluster_links.sh"}
KEY_FIELDS = {"simcluster": ["node_rate", "core_rate", "path", "bytes"]}
METRICS = {"simcluster": ["bw_Bps", "ratio", "up_s", "down_s"]}

BYTES = 16 * MiB
REPS_IN_RUN = 3
RATES = (("100mbit", "100mbit"), ("400mbit", "100mbit"), ("1gbit", "1gbit"))


def steps(suite):
    if suite != "simcluster":
        return []
    return [Step("simcluster", f"simcluster node<->leaf {n}, leaf<->core {c}, "
                 f"{human_bytes(BYTES)} best of {REPS_IN_RUN}, 4 nodes x 2 ranks",
                 [n, c, str(BYTES), str(REPS_IN_RUN)], timeout=300,
                 extra={"node_rate": n, "core_rate": c}) for n, c in RATES]


def ratios(runs):
    out = []
    for n, c in RATES:
        for path in ("same-leaf", "cross-leaf", "shared-uplink"):
            sel = dict(bench="simcluster", node_rate=n, core_rate=c, path=path, bytes=BYTES)
            s = ratio_stats(by_rep(runs, "bw_Bps", **sel), by_rep(runs, "shaped_Bps", **sel))
            if s:
                out.append(dict(name=f"simcluster: achieved / shaped rate, {path}",
                                which=f"node<->leaf {n}, leaf<->core {c}",
                                detail=f"{human_bytes(BYTES)} one way, best of {REPS_IN_RUN} "
                                       "(payload bytes; headers take ~4% of the wire)", **s))
    return out


def readme(doc):
    summ = [x for x in doc.get("summary", []) if x.get("bench") == "simcluster"]
    if not summ:
        return []
    s = ["### The simulated cluster's links (simcluster)", "",
         "4 nodes x 2 ranks, 2 nodes per leaf switch; one-way ping-pong, best of "
         f"{REPS_IN_RUN} per run (min / median / max over reps); MB/s = 10^6 B/s; "
         "achieved / shaped: against the path's rate (same-node: the slowest link's).", ""]
    rows, times = [], []
    for x in sorted(summ, key=lambda x: (str(x["fields"].get("node_rate")),
                                         str(x["fields"].get("core_rate")),
                                         str(x["fields"].get("path")))):
        f, m = x["fields"], x["metrics"]
        if f.get("path") == "up+down":
            times.append([f.get("node_rate"), f.get("core_rate"), fmt_stat(m.get("up_s")),
                          fmt_stat(m.get("down_s"))])
            continue
        bw = m.get("bw_Bps")
        mbs = {k: v / 1e6 for k, v in bw.items() if k != "n"} | {"n": bw["n"]} if bw else None
        rows.append([f.get("node_rate"), f.get("core_rate"), f.get("path"),
                     human_bytes(f.get("bytes") or 0), fmt_stat(mbs), fmt_stat(m.get("ratio"))])
    s.append(md_table(["node<->leaf", "leaf<->core", "path", "message", "MB/s",
                       "achieved / shaped"], rows))
    if times:
        s += ["", md_table(["node<->leaf", "leaf<->core", "up s", "down s"], times)]
    s.append("")
    return s
