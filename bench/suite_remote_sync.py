"""Suite "remote_sync": MPI_Win_sync with storage_sync_scope=remote after rank 0
put 1 MiB into a target's storage ("remote") against the same call after rank 0
wrote 1 MiB into its own storage ("local"), on one window, mmap and pager
backends; bench/remote_sync_bench.c. Target on the same node (2 ranks) and on
another simulated node (MPICH's fork launcher, 2 x 2 ranks; skipped with Open
MPI). Kinds alternate per round (A B, B A, ...); the ratio remote / local is taken
per (rep, round) and an A/A step (local against local) shows the noise. Target
of issue 16: remote <= 2x local on one node. See docs/DURABILITY.md."""

import os

from harness.api import Step, fmt_stat, legend_outside, md_table, median_and_spread, save_png, stats

SUITES = {"remote_sync": "MPI_Win_sync of 1 MiB put into another rank's storage "
                         "(storage_sync_scope=remote) vs a local sync of 1 MiB, mmap and pager, "
                         "same node and simulated nodes, interleaved rounds + an A/A pair"}
PROGRAMS = {"remote_sync": "remote_sync_bench"}
KEY_FIELDS = {"remote_sync": ["backend", "nodes", "aa", "nap", "kind", "bytes", "ranks"]}
METRICS = {"remote_sync": ["usec"]}
PATH_ARG = {"remote_sync"}

ROUNDS = 10
ITERS = 20
SIMHOST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "tools",
                       "simhost.sh")


def steps(suite):
    if suite == "smoke":
        return [Step("remote_sync", "remote sync 1 MiB mmap x2 rounds",
                     ["--rounds", "2", "--iters", "2"], ranks=2, timeout=120)]
    if suite != "remote_sync":
        return []
    out = []
    for be in ("mmap", "pager"):
        common = ["--backend", be, "--rounds", str(ROUNDS), "--iters", str(ITERS)]
        out += [
            Step("remote_sync", f"remote vs local sync 1 MiB, {be}, same node x{ROUNDS} rounds",
                 common, ranks=2, timeout=600),
            Step("remote_sync", f"remote vs local sync 1 MiB, {be}, same node, target idle "
                                f"x{ROUNDS} rounds",
                 common + ["--nap"], ranks=2, timeout=600),
            Step("remote_sync", f"local vs local sync (A/A) 1 MiB, {be} x{ROUNDS} rounds",
                 common + ["--aa"], ranks=2, timeout=600),
            Step("remote_sync", f"remote vs local sync 1 MiB, {be}, simulated nodes "
                                f"x{ROUNDS} rounds",
                 common + ["--nodes", "2", "--simhost", SIMHOST], ranks=0, timeout=600),
        ]
    return out


def _pairs(runs, backend, nodes, aa, nap=False):
    cells = {}
    for r in runs:
        if (r.get("bench") != "remote_sync" or r.get("backend") != backend
                or r.get("nodes") != nodes or bool(r.get("aa")) != aa
                or bool(r.get("nap")) != nap
                or not isinstance(r.get("usec"), (int, float))):
            continue
        cells[(r.get("rep"), r.get("round"), r.get("kind"))] = r["usec"]
    other = "local2" if aa else "remote"
    return [v / cells[(rep, rnd, "local")] for (rep, rnd, kind), v in cells.items()
            if kind == other and cells.get((rep, rnd, "local"))]


def ratios(runs):
    out = []
    for be in ("mmap", "pager"):
        for nodes, aa, nap, name in ((1, False, False, "remote / local, same node"),
                                     (1, False, True, "remote / local, same node, target idle"),
                                     (1, True, False, "local / local (A/A)"),
                                     (2, False, False, "remote / local, simulated nodes")):
            s = stats(_pairs(runs, be, nodes, aa, nap))
            if s:
                out.append(dict(name=f"remote_sync {be} {name}", which="1 MiB",
                                detail="remote_sync_bench usec per MPI_Win_sync, ratio per "
                                       "interleaved round (target: <= 2 on one node)", **s))
    return out


SCENARIOS = (("same node\nspinning", 1, False, False), ("same node\nidle", 1, False, True),
             ("A/A", 1, True, False), ("simulated\nnodes", 2, False, False))


def plot(suite, summary, runs, out, stamp, plt):
    med = {}
    for x in summary:
        f = x["fields"]
        if x["bench"] == "remote_sync" and f.get("kind") and x["metrics"].get("usec"):
            med[(f.get("backend"), f.get("nodes"), bool(f.get("aa")), bool(f.get("nap")),
                 f.get("kind"))] = x["metrics"]["usec"]
    if not med:
        return {}
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for ax, be in zip(axes, ("mmap", "pager")):
        for j, (kind, name) in enumerate((("local", "local sync"),
                                          ("other", "remote sync (A/A: local again)"))):
            xs, pts = [], []
            for i, (_, nodes, aa, nap) in enumerate(SCENARIOS):
                k = kind if kind == "local" else ("local2" if aa else "remote")
                p = med.get((be, nodes, aa, nap, k))
                if p:
                    xs.append(i + (j - 0.5) * 0.38)
                    pts.append({k2: p[k2] / 1000 for k2 in ("min", "median", "max")})
            if xs:
                ys, err = median_and_spread(pts)
                ax.bar(xs, ys, width=0.38, yerr=err, capsize=3, label=name)
        ax.set_xticks(range(len(SCENARIOS)))
        ax.set_xticklabels([s[0] for s in SCENARIOS], fontsize=8)
        ax.set_title(f"{be} backend")
        ax.set_ylabel("ms per MPI_Win_sync of 1 MiB (median, min-max)")
    legend_outside(axes[-1])
    fig.suptitle(f"Remote vs local sync — {stamp}")
    return save_png(fig, plt, out, suite, "remote_sync")


def readme(doc):
    summ = [x for x in doc.get("summary", []) if x.get("bench") == "remote_sync"
            and x["fields"].get("kind") and x["metrics"].get("usec")]  # not "skipped" lines
    if not summ:
        return []
    s = ["### Remote sync (remote_sync)", "",
         "µs per MPI_Win_sync on a window with storage_sync_scope=remote (min / median / max "
         "over rounds and reps of rank 0): kind remote after rank 0 put 1 MiB into a target's "
         "storage (mmap on one node: rank 0 writes the target's pages back itself; else the "
         "target's sync agent does), kind local after rank 0 wrote "
         "1 MiB into its own; local2 is the A/A step. Target spinning: it waits in "
         "MPI_Barrier (busy on its CPU, as when computing); idle: it sleeps between tests of "
         "an MPI_Ibarrier.", ""]
    rows = []
    for x in sorted(summ, key=lambda x: (x["fields"].get("backend"), x["fields"].get("nodes"),
                                         bool(x["fields"].get("aa")), bool(x["fields"].get("nap")),
                                         x["fields"].get("kind"))):
        f, m = x["fields"], x["metrics"]
        rows.append([f.get("backend"), f.get("nodes"), "A/A" if f.get("aa") else "A/B",
                     "idle" if f.get("nap") else "spinning", f.get("kind"),
                     fmt_stat(m.get("usec"))])
    s.append(md_table(["backend", "nodes", "step", "target", "kind", "µs"], rows))
    s.append("")
    return s
