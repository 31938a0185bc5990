"""Suite "pio": MPI-IO as IOR measures it (issue 15), with bench/pio_bench.c:
M1 open/close time against the number of ranks, M2 throughput with open and
close, M3 the write and read phases alone; transfer sizes 16 KiB, 100,000 B
(unaligned on purpose), 1 MiB and 10 MiB; sequential and random; shared file
and file per process; 1, 2 and 4 ranks. Targets in the same run, measured in
turn for every configuration (A B, then B A in pio_bench's second round;
2 rounds x the driver's reps): ROMIO on /dev/shm (tmpfs),
ROMIO on /tmp, and pooled files ("mem:" names) when the build has them; a
target whose first open fails is left out and recorded as "pooled: not
available (<error>)". An A/A step (/dev/shm against /dev/shm) shows the
noise; the device's limit on --path comes from fio in the same run: the best
sequential O_DIRECT write (and read) of its quick matrix (psync, libaio and
io_uring; 1 and 16 MiB; 1 and 32 in flight; 1 and 2 jobs), psync's write as
a second figure (issue 19).

Sizes: a block of 64 MiB per rank (rounded down to a multiple of the
transfer: 10 MiB transfers move 60 MiB per rank, 100,000-byte ones 67.1 MB),
one segment; the shared file is 64 MiB x ranks. M1: 100 open/close pairs per
layout and target at 1 and 2 ranks, 20 at 4 (oversubscribed on 2 cores,
MPICH's busy polling makes a collective open cost timeslices there)."""

import os

from harness.api import (MiB, Step, fio_steps, fmt_stat, human_bytes, legend_outside, limit_steps,
                         load_note, md_table, median_and_spread, save_png, stats)

SUITES = {"pio": "MPI-IO, IOR-style (pio_bench): open/close vs ranks, write/read GB/s of "
                 "16 KiB, 100000 B, 1 MiB, 10 MiB transfers, seq/random, shared/fpp, 1/2/4 "
                 "ranks; ROMIO on /dev/shm vs /tmp vs pooled mem: files (when built), "
                 "interleaved, an A/A pair, the device's limit (fio's quick matrix)"}
PROGRAMS = {"pio": "pio_bench"}
KEY_FIELDS = {"pio": ["target", "pair", "layout", "order", "phase", "xfer", "block",
                      "segments", "ranks", "hints", "collective", "fsync"]}
METRICS = {"pio": ["GBps", "usec", "seconds"]}

XFERS = [16 * 1024, 100000, 1 * MiB, 10 * MiB]
BLOCK = 64 * MiB
RANKS = [1, 2, 4]
OPENS = {1: 100, 2: 100, 4: 20}
SHM, TMP, POOLED = "romio_shm", "romio_tmp", "pooled"
AA = "romio_shm_b"          # the A/A step's second /dev/shm target
TARGET_NAMES = {SHM: "ROMIO /dev/shm", TMP: "ROMIO /tmp", POOLED: "pooled (mem:)",
                AA: "ROMIO /dev/shm (A/A copy)"}
FIO_SIZE = 1024 * MiB
ROUNDS = 2                  # pio_bench rounds per run (A B, then B A) x the driver's reps


def _targets(tag, *names):
    """LABEL=PREFIX arguments; names unique to this driver run (two runs,
    e.g. both MPIs' smoke tests, may share /dev/shm)."""
    where = {SHM: "/dev/shm", TMP: "/tmp", AA: "/dev/shm"}
    pid = os.getpid()
    out = []
    for n in names:
        if n == POOLED:
            out.append(f"{n}=mem:/mpisw-pio-{pid}-{tag}/f")
        else:
            out.append(f"{n}={where[n]}/mpisw-pio-{pid}-{tag}-{n}")
    return out


def _args(xfers, block, opens, reps=ROUNDS):
    return ["--xfer", ",".join(str(x) for x in xfers), "--block", str(block),
            "--layout", "both", "--order", "both", "--reps", str(reps),
            "--opens", str(opens), "--skip-unavailable"]


def steps(suite):
    if suite == "smoke":
        return [Step("pio", "pio tiny /dev/shm + pooled probe n=2",
                     _args([16 * 1024, 100000], 256 * 1024, 5, reps=1)
                     + _targets("smoke", SHM, POOLED), ranks=2, timeout=120,
                     extra={"pair": "A/B"})]
    if suite != "pio":
        return []
    out = fio_steps(FIO_SIZE, 300, tests=["write_direct"]) + limit_steps(FIO_SIZE, 300, "quick")
    for n in RANKS:
        out.append(Step("pio", f"pio {human_bytes(BLOCK)}/rank ROMIO /dev/shm, /tmp, pooled n={n}",
                        _args(XFERS, BLOCK, OPENS[n]) + _targets(f"n{n}", SHM, TMP, POOLED),
                        ranks=n, timeout=600, extra={"pair": "A/B"}))
    out.append(Step("pio", f"pio {human_bytes(BLOCK)}/rank A/A ROMIO /dev/shm x2 n=2",
                    _args(XFERS, BLOCK, OPENS[2]) + _targets("aa", SHM, AA),
                    ranks=2, timeout=600, extra={"pair": "A/A"}))
    return out


# ---- ratios

def _mine(rec):
    """A record (or a summary entry's fields) of this suite's targets: other
    suites run pio_bench too (suite_pio_spill.py), with their own."""
    fields = rec.get("fields", rec)
    return rec.get("bench") == "pio" and fields.get("target") in TARGET_NAMES


def _cells(runs, metric, **match):
    """{(rep, round): value} of the pio records whose fields match."""
    d = {}
    for r in runs:
        if r.get("bench") == "pio" and all(r.get(k) == v for k, v in match.items()) \
                and isinstance(r.get(metric), (int, float)):
            d.setdefault((r.get("rep"), r.get("round")), r[metric])
    return d


def _ratio(runs, metric, num, den, pair, **match):
    """num target / den target, per (rep, round) of the same run."""
    a = _cells(runs, metric, target=num, pair=pair, **match)
    b = _cells(runs, metric, target=den, pair=pair, **match)
    return stats([a[k] / b[k] for k in a if k in b and b[k]])


def pooled_status(runs):
    """None when pooled files were measured, else "pooled: not available
    (<error>)" (the first probe's), or "pooled: not tried"."""
    if any(r.get("bench") == "pio" and r.get("target") == POOLED and r.get("phase") != "probe"
           for r in runs):
        return None
    for r in runs:
        if r.get("bench") == "pio" and r.get("target") == POOLED and r.get("phase") == "probe":
            return f"pooled: not available ({' '.join(str(r.get('error')).split())})"
    return "pooled: not tried"


def _tracked():
    """(name, which, metric, num, den, pair, match) of every ratio tracked."""
    rows = []
    for xfer in (1 * MiB, 10 * MiB):
        for phase in ("write", "read"):
            for layout in ("shared", "fpp"):
                m = dict(phase=phase, layout=layout, xfer=xfer, order="seq", ranks=2)
                which = f"{human_bytes(xfer)} seq {phase}, {layout}, 2 ranks"
                rows.append(("pooled / ROMIO /dev/shm", which, "GBps", POOLED, SHM, "A/B", m))
                rows.append(("ROMIO /tmp / ROMIO /dev/shm", which, "GBps", TMP, SHM, "A/B", m))
                rows.append(("A/A: ROMIO /dev/shm / itself", which, "GBps", AA, SHM, "A/A", m))
    for phase in ("write", "read"):
        for layout in ("shared", "fpp"):
            m = dict(phase=phase, layout=layout, xfer=100000, order="random", ranks=2)
            which = f"100000 B random {phase}, {layout}, 2 ranks"
            rows.append(("pooled / ROMIO /dev/shm", which, "GBps", POOLED, SHM, "A/B", m))
            rows.append(("A/A: ROMIO /dev/shm / itself", which, "GBps", AA, SHM, "A/A", m))
    m = dict(phase="open_close", layout="shared", ranks=4)
    rows.append(("pooled / ROMIO /dev/shm, open+close time", "shared file, 4 ranks", "usec",
                 POOLED, SHM, "A/B", m))
    return rows


def ratios(runs):
    out = []
    for name, which, metric, num, den, pair, m in _tracked():
        s = _ratio(runs, metric, num, den, pair, **m)
        if s:
            what = "µs of open + close (median of the loop)" if metric == "usec" else \
                "GB/s of the phase alone (M3)"
            out.append(dict(name=f"pio {name}", which=which,
                            detail=f"pio_bench {what}, {TARGET_NAMES[num]} / "
                                   f"{TARGET_NAMES[den]}, per round of the same run", **s))
    return out


# ---- plots

def _series(summary, metric, **match):
    pts = []
    for x in summary:
        f = x["fields"]
        if x["bench"] == "pio" and all(f.get(k) == v for k, v in match.items()) \
                and x["metrics"].get(metric):
            pts.append((f.get("xfer") if "xfer" in f else f.get("ranks"), x["metrics"][metric]))
    pts.sort(key=lambda p: p[0] or 0)
    return [p[0] for p in pts], [p[1] for p in pts]


def _targets_in(summary):
    order = [SHM, TMP, POOLED, AA]
    have = {x["fields"].get("target") for x in summary if x["bench"] == "pio"}
    return [t for t in order if t in have]


def _lines(ax, summary, metric, targets, colors, field, styles, **match):
    """One line per target and value of field (styles: (value, matplotlib
    fmt)), medians with min–max bars, of the A/B records that match."""
    for t in targets:
        for value, style in styles:
            xs, pts = _series(summary, metric, target=t, pair="A/B", **{field: value}, **match)
            if xs:
                ys, err = median_and_spread(pts)
                ax.errorbar(xs, ys, yerr=err, fmt=style, capsize=3, color=colors[t],
                            label=f"{TARGET_NAMES[t]}, {value}")


def plot(suite, summary, runs, out, stamp, plt):
    summary, runs = [x for x in summary if _mine(x)], [r for r in runs if _mine(r)]
    if not runs:
        return {}
    pngs = {}
    colors = {SHM: "tab:blue", TMP: "tab:orange", POOLED: "tab:green", AA: "tab:gray"}
    targets = [t for t in _targets_in(summary) if t != AA]
    ranks = 2 if any(x["fields"].get("ranks") == 2 for x in summary if x["bench"] == "pio") \
        else max(x["fields"].get("ranks") or 0 for x in summary if x["bench"] == "pio")
    fig, axes = plt.subplots(2, 2, figsize=(12, 8), sharex=True)
    for i, phase in enumerate(("write", "read")):
        for j, layout in enumerate(("shared", "fpp")):
            ax = axes[i][j]
            _lines(ax, summary, "GBps", targets, colors, "order",
                   (("seq", "-o"), ("random", "--s")), phase=phase, layout=layout, ranks=ranks)
            ax.set_xscale("log")
            ax.set_xticks(XFERS)
            ax.set_xticklabels([human_bytes(x) if x % 1024 == 0 else f"{x:,} B" for x in XFERS])
            ax.minorticks_off()
            ax.set_ylabel("GB/s (median; bars: min–max)")
            ax.set_title(f"{phase} phase (M3), {'shared file' if layout == 'shared' else 'file per process'}, "
                         f"{ranks} rank(s)", fontsize=9)
            ax.grid(alpha=0.3)
            if i == 1:
                ax.set_xlabel("transfer size")
    legend_outside(axes[0][1])
    fig.suptitle(f"pio_bench throughput vs transfer size — {stamp}", fontsize=10)
    pngs.update(save_png(fig, plt, out, suite, "pio_throughput"))

    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2), sharey=True)
    for ax, phase in zip(axes, ("open", "close", "open_close")):
        _lines(ax, summary, "usec", targets, colors, "layout",
               (("shared", "-o"), ("fpp", "--s")), phase=phase)
        ax.set_yscale("log")
        ax.set_xticks(RANKS)
        ax.set_xlabel("ranks")
        ax.set_title({"open": "MPI_File_open", "close": "MPI_File_close",
                      "open_close": "open + close"}[phase] + " (M1)", fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("µs, median of the loop (bars: min–max over reps)")
    legend_outside(axes[2])
    fig.suptitle(f"pio_bench open/close time vs ranks — {stamp}", fontsize=10)
    pngs.update(save_png(fig, plt, out, suite, "pio_openclose"))
    return pngs


# ---- README

def readme(doc):
    summ = [x for x in doc.get("summary", []) if _mine(x)
            and x["fields"].get("phase") != "probe"]
    runs = [r for r in doc.get("runs", []) if _mine(r)]
    if not summ and not runs:
        return []
    cores = next((r.get("cores") for r in runs if r.get("bench") == "pio"), None)
    s = ["### MPI-IO, IOR-style (pio)", "",
         "`bench/pio_bench.c`: M1 = `MPI_File_open` / `MPI_File_close` time (median of a "
         "loop of open/close pairs of one file, the slowest rank's), M2 = throughput of "
         "open + write (read) + close, M3 = the write (read) phase alone, barriers between "
         "the phases as in IOR; GB/s = bytes of all ranks / seconds / 10^9. Independent "
         "`MPI_File_write_at` / `read_at`, no fsync; shared file in IOR's segment layout (rank "
         "r owns block r), or one file per process; random = a seeded permutation of each "
         "block's transfer slots, the same for write and read. Every read is checked "
         "against the pattern written. Block: "
         f"{human_bytes(BLOCK)} per rank, rounded down to a multiple of the transfer. The "
         "targets run in turn for each configuration (A B in a run's first round, B A in "
         f"its second; {ROUNDS} rounds x the driver's reps, ratios per round of the same run), "
         "and an A/A step (/dev/shm twice) gives the noise."
         + (f" This machine has {cores} cores: at more ranks than cores MPICH's busy "
            f"polling makes every barrier and collective open cost scheduler timeslices."
            if cores else ""), ""]
    load = load_note(runs, "pio_bench")
    if load:
        s += [load, ""]
    st = pooled_status(runs)
    s.append(f"**{st}**" if st else "Pooled files: measured (target `pooled`).")
    s.append("")
    rat = [r for r in doc.get("ratios", []) if r["name"].startswith("pio ")]
    if rat:
        s.append("Ratios (each taken per round of the same run, then min / median / max "
                 "over rounds and reps):")
        s.append("")
        s.append(md_table(["ratio", "configuration", "min", "median", "max", "n"],
                          [[r["name"][4:], r["which"], f"{r['min']:.3f}",
                            f"**{r['median']:.3f}**", f"{r['max']:.3f}", r["n"]] for r in rat]))
        s.append("")
        if st:
            s.append("The pooled rows (the issue's targets: ≥ 1.0 at 1 and 10 MiB, ≥ 2.0 at "
                     "100,000 B random, open + close ≤ 1 ms at 4 ranks) appear once a build "
                     "has pooled files.")
            s.append("")

    oc = [x for x in summ if x["fields"].get("phase") in ("open", "close", "open_close")
          and x["fields"].get("pair") == "A/B"]
    if oc:
        s.append("M1, µs (median of the loop; median (min–max) over reps):")
        s.append("")
        table = {}
        for x in oc:
            f = x["fields"]
            table.setdefault((f.get("ranks"), f.get("layout"), f.get("target")), {})[
                f.get("phase")] = x["metrics"].get("usec")
        rows = [[k[0], k[1], TARGET_NAMES.get(k[2], k[2]), fmt_stat(v.get("open")),
                 fmt_stat(v.get("close")), fmt_stat(v.get("open_close"))]
                for k, v in sorted(table.items(), key=lambda t: (t[0][0] or 0, t[0][1],
                                                                  t[0][2] or ""))]
        s.append(md_table(["ranks", "layout", "target", "open", "close", "open + close"], rows))
        s.append("")

    data = [x for x in summ if x["fields"].get("phase") in ("write", "read", "write_total",
                                                             "read_total")]
    if data:
        table = {}
        for x in data:
            f = x["fields"]
            k = (f.get("pair"), f.get("ranks"), f.get("layout"), f.get("order"), f.get("xfer"),
                 f.get("target"))
            table.setdefault(k, {})[f.get("phase")] = x["metrics"].get("GBps")
        rows = []
        for k, v in sorted(table.items(), key=lambda t: (t[0][0] or "", t[0][1] or 0,
                                                          t[0][2] or "", t[0][3] or "",
                                                          t[0][4] or 0, t[0][5] or "")):
            rows.append([k[0], k[1], k[2], k[3], f"{k[4]:,}", TARGET_NAMES.get(k[5], k[5]),
                         fmt_stat(v.get("write")), fmt_stat(v.get("read")),
                         fmt_stat(v.get("write_total")), fmt_stat(v.get("read_total"))])
        s.append(f"<details><summary>M2/M3, GB/s, {len(rows)} configurations "
                 "(median (min–max) over reps)</summary>")
        s.append("")
        s.append(md_table(["step", "ranks", "layout", "order", "transfer B", "target",
                           "write (M3)", "read (M3)", "open+write+close (M2)",
                           "open+read+close (M2)"], rows))
        s.append("")
        s.append("</details>")
        s.append("")
    return s
