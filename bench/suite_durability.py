"""Suite "durability": atomic vs plain MPI_Win_sync (docs/DURABILITY.md) of a
64 MiB storage window of which 1% of the pages (random, a new set per round)
changed since the last sync; bench/durability_bench.c, one rank, both
backends (the pager's plain sync writes whole blocks, 2 MiB each). Both windows are
measured in interleaved rounds (A B, B A, ...); the ratios atomic / plain
of time and bytes are taken per (rep, round), and an A/A step (atomic
against atomic) shows what noise alone gives. Bytes: the device's written
bytes during the sync (dev_write), and this process's (proc_write, /proc/
self/io: the pages it dirtied, the journal's included, and direct writes)."""

from harness.api import (Step, fmt_stat, human_bytes, legend_outside, md_table,
                         median_and_spread, save_png, stats)

SUITES = {"durability": "MPI_Win_sync storage_sync=atomic vs plain, 1% of a 64 MiB "
                        "window's pages changed, mmap and pager backends, interleaved A/B "
                        "rounds + an A/A pair (1 rank)"}
PROGRAMS = {"durability": "durability_bench"}
KEY_FIELDS = {"durability": ["kind", "backend", "aa", "size", "pct"]}
METRICS = {"durability": ["sec", "dev_write", "proc_write"]}
PATH_ARG = {"durability"}

SIZE = "64M"
ROUNDS = 20


def steps(suite):
    if suite == "smoke":
        return [Step("durability", "durability atomic vs plain 4 MiB x2 rounds",
                     ["--size", "4M", "--rounds", "2"], ranks=1, timeout=120)]
    if suite != "durability":
        return []
    out = []
    for backend in ("mmap", "pager"):
        out.append(Step("durability", f"durability atomic vs plain {SIZE} 1% {backend} "
                                      f"x{ROUNDS} rounds",
                        ["--size", SIZE, "--pct", "1", "--rounds", str(ROUNDS),
                         "--backend", backend], ranks=1, timeout=600))
    out.append(Step("durability", f"durability atomic vs atomic (A/A) {SIZE} 1% mmap "
                                  f"x{ROUNDS} rounds",
                    ["--size", SIZE, "--pct", "1", "--rounds", str(ROUNDS), "--backend",
                     "mmap", "--aa"], ranks=1, timeout=600))
    return out


def _pairs(runs, backend, aa, metric):
    """metric of "atomic" / the other window ("plain", or "atomic2" for A/A),
    per (rep, round)."""
    cells = {}
    for r in runs:
        if (r.get("bench") != "durability" or r.get("backend") != backend
                or bool(r.get("aa")) != aa or not isinstance(r.get(metric), (int, float))
                or r[metric] < 0):
            continue
        cells[(r.get("rep"), r.get("round"), r.get("kind"))] = r[metric]
    other = "atomic2" if aa else "plain"
    out = []
    for (rep, rnd, kind), v in cells.items():
        base = cells.get((rep, rnd, other))
        if kind == "atomic" and base:
            out.append(v / base)
    return out


def _fraction(runs, backend, kind, metric):
    """metric / window size per record (the share of the window written)."""
    return [r[metric] / r["size"] for r in runs
            if r.get("bench") == "durability" and r.get("backend") == backend
            and r.get("kind") == kind and not r.get("aa")
            and isinstance(r.get(metric), (int, float)) and r[metric] >= 0 and r.get("size")]


def ratios(runs):
    out = []
    for backend in ("mmap", "pager"):
        for metric, what, target in (("sec", "time", " (target: <= 1.5)"),
                                     ("dev_write", "device bytes", "")):
            s = stats(_pairs(runs, backend, False, metric))
            if s:
                out.append(dict(name=f"durability atomic / plain {what}, {backend}",
                                which="1% of 64 MiB", detail="durability_bench, ratio per "
                                f"interleaved round{target}", **s))
        for kind in ("atomic", "plain"):
            s = stats(_fraction(runs, backend, kind, "dev_write"))
            if s:
                out.append(dict(name=f"durability {kind} sync: device bytes / window bytes, "
                                     f"{backend}", which="1% of 64 MiB",
                                detail="durability_bench dev_write / size" +
                                       (" (target: <= 0.03)" if kind == "atomic" else ""),
                                **s))
    s = stats(_pairs(runs, "mmap", True, "sec"))
    if s:
        out.append(dict(name="durability atomic / atomic (A/A) time, mmap", which="1% of 64 MiB",
                        detail="durability_bench, the noise of the A/B ratio", **s))
    return out


def plot(suite, summary, runs, out, stamp, plt):
    """Two panels, atomic beside plain for each backend: the sync's time, and
    the share of the window the device wrote (min-max bars)."""
    if suite != "durability":
        return {}
    sec, share = {}, {}
    for x in summary:
        f = x["fields"]
        if x["bench"] == "durability" and not f.get("aa") and x["metrics"].get("sec"):
            sec[(f.get("backend"), f.get("kind"))] = {k: v * 1000 for k, v in
                                                      x["metrics"]["sec"].items()
                                                      if k in ("min", "median", "max")}
    for be in ("mmap", "pager"):
        for kind in ("atomic", "plain"):
            st = stats(_fraction(runs, be, kind, "dev_write"))
            if st:
                share[(be, kind)] = {k: 100 * st[k] for k in ("min", "median", "max")}
    if not sec and not share:
        return {}
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    panels = ((axes[0], sec, "ms per MPI_Win_sync (median, min-max)"),
              (axes[1], share, "% of the window the device wrote"))
    for ax, data, ylabel in panels:
        for j, kind in enumerate(("atomic", "plain")):
            xs, pts = [], []
            for i, be in enumerate(("mmap", "pager")):
                if (be, kind) in data:
                    xs.append(i + (j - 0.5) * 0.38)
                    pts.append(data[(be, kind)])
            if xs:
                ys, err = median_and_spread(pts)
                ax.bar(xs, ys, width=0.38, yerr=err, capsize=3, label=f"{kind} sync")
        ax.set_xticks([0, 1])
        ax.set_xticklabels(["mmap backend", "pager backend"])
        ax.set_ylabel(ylabel)
    legend_outside(axes[1])
    fig.suptitle(f"Atomic vs plain sync, 1% of a 64 MiB window changed — {stamp}")
    return save_png(fig, plt, out, suite, "durability")


def readme(doc):
    summ = [x for x in doc.get("summary", []) if x.get("bench") == "durability"]
    if not summ:
        return []
    s = ["### Atomic vs plain sync (durability)", "",
         "One rank, a storage window of which 1% of the pages changed since the last sync "
         "(min / median / max over rounds and reps): seconds of MPI_Win_sync, bytes the "
         "device wrote meanwhile (other processes' writes count too), bytes the process wrote "
         "to the file system.", ""]
    rows = []
    for x in sorted(summ, key=lambda x: (x["fields"].get("backend"), bool(x["fields"].get("aa")),
                                         x["fields"].get("kind"))):
        f, m = x["fields"], x["metrics"]
        dev = m.get("dev_write") or {}
        rows.append([f.get("backend"), "A/A" if f.get("aa") else "A/B", f.get("kind"),
                     fmt_stat(m.get("sec")),
                     human_bytes(dev["median"]) if dev.get("median") is not None else "-",
                     human_bytes((m.get("proc_write") or {}).get("median") or 0)])
    s.append(md_table(["backend", "step", "kind", "sync s", "device bytes (median)",
                       "process bytes (median)"], rows))
    s.append("")
    return s
