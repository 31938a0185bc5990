"""Suite "lap": mpisw's linear assignment solver (src/core/lap.c, the
Jonker-Volgenant method behind the TATP aggregator assignment) against
scipy's linear_sum_assignment on the same dense N x N matrices in the same
run: uniform random doubles, and hop-bytes workloads W = D.C of N processes
scattered over 16-process nodes in 8-node switches (integers, many ties).
Each round makes a fresh matrix of each kind and solves it with both, the
order alternating per round; only the solve is timed (ours inside
bench/lap_solve, scipy's around the call). The ratio ours / scipy is taken
per (rep, round, kind). See docs/COLLECTIVE_IO.md "The assignment solver"."""

from harness.api import Step, fmt_stat, legend_outside, md_table, median_and_spread, \
    save_png, stats

SUITES = {"lap": "assignment solver: mpisw's Jonker-Volgenant vs scipy's "
                 "linear_sum_assignment on dense 2000 x 2000 matrices (uniform and "
                 "hop-bytes), interleaved rounds"}
PROGRAMS = {"lap": "lap_bench"}
KEY_FIELDS = {"lap": ["solver", "kind", "n"]}
METRICS = {"lap": ["seconds"]}

N = 2000
ROUNDS = 5
KINDS = ("uniform", "hopbytes")
SOLVERS = ("mpisw", "scipy")


def steps(suite):
    if suite == "smoke":
        return [Step("lap", "lap solver vs scipy 60x60 x1 round",
                     ["--n", "60", "--rounds", "1"], timeout=120)]
    if suite != "lap":
        return []
    return [Step("lap", f"lap solver vs scipy {N}x{N} x{ROUNDS} rounds",
                 ["--n", str(N), "--rounds", str(ROUNDS)], timeout=900)]


def _ratios(runs, kind):
    """ours / scipy seconds per (rep, round) of one kind."""
    cells = {}
    for r in runs:
        if (r.get("bench") == "lap" and r.get("kind") == kind
                and isinstance(r.get("seconds"), (int, float))):
            cells[(r.get("rep"), r.get("round"), r.get("n"), r.get("solver"))] = r["seconds"]
    return [v / cells[(rep, rnd, n, "scipy")]
            for (rep, rnd, n, who), v in cells.items()
            if who == "mpisw" and cells.get((rep, rnd, n, "scipy"))]


def ratios(runs):
    out = []
    for kind in KINDS:
        s = stats(_ratios(runs, kind))
        if s:
            out.append(dict(name=f"lap solver mpisw / scipy, {kind}", which="N x N",
                            detail="solve seconds, ours / scipy's linear_sum_assignment on the "
                                   "same matrix, per interleaved round (target <= 1.0)", **s))
    return out


def _seconds(summary):
    med = {}
    for x in summary:
        f = x["fields"]
        if x["bench"] == "lap" and x["metrics"].get("seconds"):
            med[(f.get("kind"), f.get("solver"))] = x["metrics"]["seconds"]
    return med


def plot(suite, summary, runs, out, stamp, plt):
    med = _seconds(summary)
    if not med:
        return {}
    n = next((x["fields"].get("n") for x in summary if x["bench"] == "lap"), N)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    ax = axes[0]
    for j, who in enumerate(SOLVERS):
        xs, pts = [], []
        for i, kind in enumerate(KINDS):
            p = med.get((kind, who))
            if p:
                xs.append(i + (j - 0.5) * 0.38)
                pts.append({k: p[k] * 1000 for k in ("min", "median", "max")})
        if xs:
            ys, err = median_and_spread(pts)
            ax.bar(xs, ys, width=0.38, yerr=err, capsize=3,
                   label="mpisw (Jonker-Volgenant)" if who == "mpisw"
                   else "scipy linear_sum_assignment")
    ax.set_xticks(range(len(KINDS)))
    ax.set_xticklabels([f"{k} {n}x{n}" for k in KINDS])
    ax.set_yscale("log")   # scipy on the hop-bytes matrices is ~10x slower
    ax.set_ylabel("ms per solve (median, min-max; log scale)")
    ax.set_title("solve time")
    legend_outside(ax)
    ax = axes[1]
    pts, xs = [], []
    for i, kind in enumerate(KINDS):
        s = stats(_ratios(runs, kind))
        if s:
            xs.append(i)
            pts.append(s)
    if xs:
        ys, err = median_and_spread(pts)
        ax.bar(xs, ys, width=0.5, yerr=err, capsize=3)
        ax.axhline(1.0, color="gray", linestyle="--", linewidth=1)
    ax.set_xticks(range(len(KINDS)))
    ax.set_xticklabels([f"{k} {n}x{n}" for k in KINDS])
    ax.set_ylabel("mpisw / scipy solve time (median, min-max)")
    ax.set_title("ratio per round (1.0: as fast as scipy)")
    fig.suptitle(f"Assignment solver vs scipy — {stamp}")
    return save_png(fig, plt, out, suite, "lap")


def readme(doc):
    summ = [x for x in doc.get("summary", []) if x.get("bench") == "lap"]
    if not summ:
        return []
    s = ["### Assignment solver (lap)", "",
         "Seconds per solve of a dense N x N matrix (min / median / max over rounds and "
         "reps), mpisw's Jonker-Volgenant solver and scipy's linear_sum_assignment on the "
         "same matrices; the ratio is taken per round.", ""]
    rows = []
    for x in sorted(summ, key=lambda x: (str(x["fields"].get("kind")),
                                         str(x["fields"].get("solver")))):
        f, m = x["fields"], x["metrics"]
        rows.append([f.get("kind"), f.get("n"), f.get("solver"), fmt_stat(m.get("seconds"))])
    s.append(md_table(["matrix", "N", "solver", "seconds"], rows))
    s.append("")
    for r in doc.get("ratios", []):
        if r.get("name", "").startswith("lap solver"):
            s.append(f"- {r['name']}: median {r['median']:.3f} "
                     f"(min {r['min']:.3f}, max {r['max']:.3f}, n={r['n']})")
    s.append("")
    return s
