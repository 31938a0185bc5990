"""Suite "cio": collective I/O, the source document's two patterns (issue 18;
docs/COLLECTIVE_IO.md "Benchmarks and figures"):

    python3 bench/run.py --suite cio --build build/mpich --out results/cio-mpich

Programs bench/cio_cube.c (a 3-D array of doubles, one subarray per process)
and bench/cio_btio.c (NAS BT-IO's block-tridiagonal cells, P square), one
MPI_File_write_all each, then an MPI_File_read_all; every side in turn in
each round (otp, latp, tatp through mpisw's engine, romio untouched, and
romio-aa, ROMIO again: the A/A pair; round r starts at side r, after an
untimed warm-up write of every side), a fresh file per write, the data read
back and checked outside the timed part, fsync after the timed part.

Configurations: one node (cube at 2 and 4 ranks, BT-IO at 4; cube 4, BT-IO
4 and the cube at 2 ranks with two phases forced, romio_cb_write=enable on
every side, with OMPI_MCA_io=romio321, Open MPI's ROMIO as the untouched
side instead of its default OMPIO, which ignores romio_cb_write; records
say which in "mpi_io"; MPICH ignores the variable), and the
simulated cluster (tests/tools/simcluster.sh: 4 nodes, 2 per leaf switch,
node<->leaf 1 Gbit/s, leaf<->core 200 Mbit/s, MPICH's hydra, root) with the
ranks packed (2 per node; BT-IO's 9 as 2,2,2,3) and scattered (round robin
and renumbered, --order shuffle:1, as a busy machine's scheduler places
them). Without root the simulated cluster's steps are left out, with a
message.

Figures: per call seconds and GB/s, the model's hop-bytes and maximum link
load of the side's assignment (ROMIO's file domains, the engine's distance
matrix, ROMIO's candidates), and, where the engine answers, its own figures
(engine_hopbytes, engine_max_link_load, engine_t_metadata|assign|shuffle|io).
Ratios per (rep, round): TATP / OTP and TATP / ROMIO write seconds, the
engine's write bandwidth / ROMIO's, ROMIO-aa / ROMIO; model hop-bytes TATP /
LATP / OTP. A ratio whose engine side did not go through the engine (a build
without it: ROMIO ran every side) says so."""

import os

from harness.api import MiB, Step, fmt_stat, human_bytes, legend_outside, md_table, \
    median_and_spread, save_png, stats

SUITES = {"cio": "collective I/O: cube and BT-IO patterns, OTP / LATP / TATP (mpisw's engine) "
                 "vs ROMIO, one node and the simulated cluster (root), hop-bytes, link loads, "
                 "stage times"}
PROGRAMS = {"cio_cube": "cio_cube", "cio_btio": "cio_btio", "cio_sim": "cio_simcluster.sh"}
KEY_FIELDS = {b: ["pattern", "where", "sim_placement", "nprocs", "size", "mpi_io", "phase",
                  "side"] for b in ("cio_cube", "cio_btio")}
METRICS = {b: ["seconds", "GBps", "model_hopbytes", "model_max_link_load", "engine_hopbytes",
               "engine_max_link_load", "engine_time_metadata", "engine_time_assign",
               "engine_time_shuffle", "engine_time_io", "hopbytes_otp", "hopbytes_latp",
               "hopbytes_tatp", "max_link_load_otp", "max_link_load_latp",
               "max_link_load_tatp"] for b in ("cio_cube", "cio_btio")}
PATH_ARG = {"cio_cube", "cio_btio", "cio_sim"}

SIDES = "otp,latp,tatp,romio,romio-aa"
ROUNDS = 2
ONE_NODE_ROUNDS = 6  # one node's calls take ~0.1 s: more rounds against the noise
# one node: calls of 0.1-0.5 s (192^3 doubles took 10-35 ms, within the noise)
# (program, ranks, size, variant): a variant names extra arguments (FORCED)
ONE_NODE = (("cio_cube", 2, "320", None), ("cio_cube", 4, "320", None),
            ("cio_btio", 4, "160", None))
# The cube at 2 ranks has no two phases by ROMIO's rule (two slabs); forced,
# it is the two-phase figure of ranks that do not outnumber the cores (4
# oversubscribed MPICH ranks busy-poll, which ROMIO's rounds of point-to-
# point messages suffer from more than the engine's collectives). Only
# against ROMIO: OMPIO does not read romio_cb_write
FORCED = {"two phases forced": ["--hint", "romio_cb_write=enable"]}
# Open MPI's untouched side is its default io component (OMPIO in 4.1); the
# two-phase configurations again against the ROMIO it ships too (the
# records' "mpi_io" tells them apart; MPICH ignores the variable: the same
# configuration measured once more)
ROMIO321 = (("cio_cube", 4, "320", None), ("cio_btio", 4, "160", None),
            ("cio_cube", 2, "320", "two phases forced"))
NODE_RATE, CORE_RATE = "1gbit", "200mbit"
SIM = (("cio_cube", 8, "128", "packed", "packed:2", None),
       ("cio_cube", 8, "128", "scattered", "scatter", "shuffle:1"),
       ("cio_btio", 9, "64", "packed", "map:0,0,1,1,2,2,3,3,3", None),
       ("cio_btio", 9, "64", "scattered", "scatter", "shuffle:1"))
ENGINE_SIDES = ("otp", "latp", "tatp")


def _args(size, order=None, rounds=ROUNDS):
    a = ["--size", size, "--strategies", SIDES, "--rounds", str(rounds), "--read", "--verify",
         "--fsync", "outside"]
    return a + (["--order", order] if order else [])


def steps(suite):
    if suite != "cio":
        return []
    def one_node(prog, n, size, variant, env=None):
        name = f"{prog} one node {n} ranks size {size} x{ONE_NODE_ROUNDS} rounds" + \
            (f", {variant}" if variant else "") + \
            (", Open MPI's ROMIO (OMPI_MCA_io=romio321)" if env else "")
        return Step(prog, name, _args(size, rounds=ONE_NODE_ROUNDS) + FORCED.get(variant, []),
                    ranks=n, timeout=900, env=env,
                    extra={"where": "one node", "sim_placement": variant or "one node"})
    out = [one_node(*c) for c in ONE_NODE]
    out += [one_node(*c, env={"OMPI_MCA_io": "romio321"}) for c in ROMIO321]
    if os.geteuid() != 0:
        print("suite cio: the simulated cluster needs root (network namespaces, tc): its "
              "configurations are left out")
        return out
    for prog, n, size, name, place, order in SIM:
        out.append(Step("cio_sim", f"{prog} simulated cluster 4 nodes {name} ({place}"
                        f"{', ' + order if order else ''}) {n} ranks size {size} x{ROUNDS} "
                        f"rounds, node<->leaf {NODE_RATE}, leaf<->core {CORE_RATE}",
                        [place, NODE_RATE, CORE_RATE, str(n), prog] + _args(size, order),
                        timeout=1200, extra={"where": "simcluster", "sim_placement": name}))
    return out


def _cfg(r):
    """A record's configuration: (pattern, where, placement or variant, ranks, MPI-IO)."""
    where = r.get("where", "one node")
    place = r.get("sim_placement")
    return (r.get("pattern"), where, place if place and place != where else "", r.get("nprocs"),
            r.get("mpi_io"))


def _calls(runs):
    """Write/read records, each with its configuration's name."""
    out = []
    for r in runs:
        if r.get("bench") in KEY_FIELDS and r.get("phase") in ("write", "read"):
            out.append((_cfg(r), r))
    return out


def _cfg_text(cfg):
    pattern, where, place, n, io = cfg
    return f"{pattern} {n} ranks, {where}{' ' + place if place else ''}{f' [{io}]' if io else ''}"


def _pair_ratios(runs, phase, num_side, den_side, metric="seconds", invert=False):
    """{cfg: [num / den per (rep, round)]} and {cfg: engine answered on num's side}."""
    cells, engine = {}, {}
    for cfg, r in _calls(runs):
        if r.get("phase") == phase and isinstance(r.get(metric), (int, float)):
            # step: MPICH runs a configuration twice (ROMIO321's steps), every pair is its own
            cells[(cfg, r.get("step"), r.get("rep"), r.get("round"), r.get("side"))] = r[metric]
            if r.get("side") == num_side:
                engine[cfg] = engine.get(cfg, True) and bool(r.get("engine"))
    out = {}
    for (cfg, step, rep, rnd, side), v in cells.items():
        d = cells.get((cfg, step, rep, rnd, den_side))
        if side == num_side and d:
            out.setdefault(cfg, []).append(d / v if invert else v / d)
    return out, engine


def ratios(runs):
    out = []
    # (numerator side, denominator side, bandwidth?, name, where it is a target)
    specs = (("tatp", "otp", False, "TATP / OTP write seconds", "simcluster", "target <= 0.8 "
              "(scattered)"),
             ("tatp", "romio", False, "TATP / ROMIO write seconds", "simcluster",
              "target <= 1.0 (scattered)"),
             ("otp", "romio", True, "engine OTP / ROMIO write bandwidth", "one node",
              "target >= 0.9"),
             ("tatp", "romio", True, "engine TATP / ROMIO write bandwidth", "one node",
              "target >= 0.9"),
             ("romio-aa", "romio", False, "A/A ROMIO again / ROMIO write seconds", None,
              "the measurement's noise (1.0 ideally)"))
    for num, den, invert, name, where, detail in specs:
        vals, engine = _pair_ratios(runs, "write", num, den, invert=invert)
        for cfg in sorted(vals, key=str):
            s = stats(vals[cfg])
            if not s or (where and cfg[1] != where):
                continue
            note = "" if num == "romio-aa" or engine.get(cfg) else \
                " [no engine in this build: ROMIO ran both sides]"
            out.append(dict(name=f"cio {_cfg_text(cfg)}: {name}{note}", which=_cfg_text(cfg),
                            detail=f"per (rep, round); {detail}", **s))
    # The model's hop-bytes: TATP against the others, per configuration.
    model = {}
    for r in runs:
        if r.get("bench") in KEY_FIELDS and r.get("phase") == "model":
            cfg = _cfg(r)
            for other in ("otp", "latp"):
                if r.get(f"hopbytes_{other}"):
                    model.setdefault((cfg, other), []).append(
                        r["hopbytes_tatp"] / r[f"hopbytes_{other}"])
    for (cfg, other), v in sorted(model.items(), key=str):
        s = stats(v)
        out.append(dict(name=f"cio {_cfg_text(cfg)}: model hop-bytes TATP / {other.upper()}",
                        which=_cfg_text(cfg), detail="the call's file domains and the job's "
                        "distance matrix; <= 1.0 always (TATP is optimal)", **s))
    return out


def _configs(summary, bench):
    cfgs = []
    for x in summary:
        f = x["fields"]
        if x["bench"] == bench:
            c = (f.get("where"), f.get("sim_placement"), f.get("nprocs"), f.get("mpi_io"))
            if c not in cfgs:
                cfgs.append(c)
    return sorted(cfgs, key=lambda c: (c[0] != "one node", str(c[1]), c[2] or 0, str(c[3])))


def plot(suite, summary, runs, out, stamp, plt):
    made = {}
    sides = SIDES.split(",")
    for bench in ("cio_cube", "cio_btio"):
        cfgs = _configs(summary, bench)
        if not cfgs:
            continue
        get = {}
        for x in summary:
            f = x["fields"]
            if x["bench"] == bench:
                get[(f.get("where"), f.get("sim_placement"), f.get("nprocs"), f.get("mpi_io"),
                     f.get("phase"), f.get("side"))] = x["metrics"]
        fig, axes = plt.subplots(1, 4, figsize=(22, 4.8))
        labels = [(f"{w}" + (f"\n{p}" if p and p != w else "") if w == "one node"
                   else f"sim {p}") + f"\n{n} ranks"
                  + (f"\nvs {io}" if io else "") for w, p, n, io in cfgs]
        width = 0.8 / len(sides)
        # 1. hop-bytes per strategy (the model; the engine's where it answered)
        ax = axes[0]
        for j, side in enumerate(("otp", "latp", "tatp")):
            xs, pts, eng = [], [], []
            for i, (w, p, n, io) in enumerate(cfgs):
                m = get.get((w, p, n, io, "model", None)) or {}
                h = m.get(f"hopbytes_{side}")
                if h:
                    xs.append(i + (j - 1) * 0.27)
                    pts.append({k: h[k] / MiB for k in ("min", "median", "max")})
                e = (get.get((w, p, n, io, "write", side)) or {}).get("engine_hopbytes")
                if e:
                    eng.append((i + (j - 1) * 0.27, e["median"] / MiB))
            if xs:
                ys, err = median_and_spread(pts)
                ax.bar(xs, ys, width=0.27, yerr=err, capsize=2, label=f"{side.upper()} (model)")
            if eng:
                ax.plot([e[0] for e in eng], [e[1] for e in eng], "kx", linestyle="none",
                        label=f"{side.upper()} (engine)" if j == 2 else None)
        ax.set_xticks(range(len(cfgs)))
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_ylabel("hop-bytes of the call (MiB x hops)")
        ax.set_title("hop-bytes per strategy")
        legend_outside(ax)
        # 2. the busiest link's load per strategy (the model)
        ax = axes[1]
        for j, side in enumerate(("otp", "latp", "tatp")):
            xs, ys = [], []
            for i, (w, p, n, io) in enumerate(cfgs):
                m = get.get((w, p, n, io, "model", None)) or {}
                v = m.get(f"max_link_load_{side}")
                if v and v["median"] > 0:
                    xs.append(i + (j - 1) * 0.27)
                    ys.append(v["median"] / MiB)
            if xs:
                ax.bar(xs, ys, width=0.27, label=side.upper())
        ax.set_xticks(range(len(cfgs)))
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_ylabel("MiB on the busiest link (one direction)")
        ax.set_title("maximum link load per strategy (model)")
        legend_outside(ax)
        # 3. write time per side
        ax = axes[2]
        for j, side in enumerate(sides):
            xs, pts = [], []
            for i, (w, p, n, io) in enumerate(cfgs):
                s = (get.get((w, p, n, io, "write", side)) or {}).get("seconds")
                if s:
                    xs.append(i - 0.4 + (j + 0.5) * width)
                    pts.append(s)
            if xs:
                ys, err = median_and_spread(pts)
                ax.bar(xs, ys, width=width, yerr=err, capsize=2, label=side)
        ax.set_xticks(range(len(cfgs)))
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_ylabel("MPI_File_write_all seconds (median, min-max)")
        ax.set_title("write time per side")
        legend_outside(ax)
        # 4. the engine's stage times (median of the slowest rank's)
        ax = axes[3]
        stages = ("metadata", "assign", "shuffle", "io")
        bars = [(i, side) for i in range(len(cfgs)) for side in ENGINE_SIDES]
        bottom = [0.0] * len(bars)
        for st in stages:
            ys = []
            for i, side in bars:
                w, p, n, io = cfgs[i]
                v = (get.get((w, p, n, io, "write", side)) or {}).get(f"engine_time_{st}")
                ys.append(v["median"] if v else 0.0)
            if any(ys):
                ax.bar([i + (ENGINE_SIDES.index(s) - 1) * 0.27 for i, s in bars], ys, width=0.27,
                       bottom=bottom, label=st)
                bottom = [b + y for b, y in zip(bottom, ys)]
        ax.set_xticks(range(len(cfgs)))
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_ylabel("seconds (median; bars OTP, LATP, TATP)")
        ax.set_title("the engine's stage times")
        legend_outside(ax)
        fig.suptitle(f"Collective I/O, {bench[4:]} pattern — {stamp}")
        made.update(save_png(fig, plt, out, suite, bench))
    return made


def readme(doc):
    summ = [x for x in doc.get("summary", []) if x.get("bench") in KEY_FIELDS]
    if not summ:
        return []
    s = ["### Collective I/O: cube and BT-IO (cio)", "",
         f"Sides interleaved in each round ({SIDES}; round r starts at side r, after an "
         f"untimed warm-up write of each), {ROUNDS} rounds per run; seconds of "
         "the slowest rank, from a barrier to the end of the collective call (fsync after, "
         "untimed); data read back and checked outside the timed part. GB/s = 10^9 B/s. "
         "Simulated cluster: 4 nodes, 2 per leaf, node<->leaf "
         f"{NODE_RATE}, leaf<->core {CORE_RATE}. 'engine' = calls that went through mpisw's "
         "engine (0: ROMIO ran the side). MPI-IO: what the romio side ran (MPICH's ROMIO; "
         "Open MPI's io component: ompio, its default, or romio321, OMPI_MCA_io=romio321).", ""]
    rows = []
    for x in sorted(summ, key=lambda x: (str(x["bench"]), str(x["fields"].get("where")),
                                         str(x["fields"].get("sim_placement")),
                                         x["fields"].get("nprocs") or 0,
                                         str(x["fields"].get("mpi_io")),
                                         str(x["fields"].get("phase")),
                                         str(x["fields"].get("side")))):
        f, m = x["fields"], x["metrics"]
        if f.get("phase") == "model":
            continue
        rows.append([f.get("pattern"), f.get("where"), f.get("sim_placement"), f.get("nprocs"),
                     f.get("size"), f.get("mpi_io") or "", f.get("phase"), f.get("side"), fmt_stat(m.get("seconds")),
                     fmt_stat(m.get("GBps")),
                     fmt_stat({k: v / MiB for k, v in m["model_hopbytes"].items() if k != "n"}
                              | {"n": m["model_hopbytes"]["n"]}) if m.get("model_hopbytes")
                     else "",
                     fmt_stat({k: v / MiB for k, v in m["model_max_link_load"].items()
                               if k != "n"} | {"n": m["model_max_link_load"]["n"]})
                     if m.get("model_max_link_load") else "",
                     fmt_stat(m.get("engine_hopbytes"))])
    s.append(md_table(["pattern", "where", "placement", "ranks", "size", "MPI-IO", "phase", "side",
                       "seconds", "GB/s", "model hop-bytes (MiB)", "model max link load (MiB)",
                       "engine hop-bytes"], rows))
    s.append("")
    for r in doc.get("ratios", []):
        if r.get("name", "").startswith("cio "):
            s.append(f"- {r['name']}: median {r['median']:.3f} "
                     f"(min {r['min']:.3f}, max {r['max']:.3f}, n={r['n']})")
    s.append("")
    return s
