"""Suite "mapreduce": word count with MR-1S (RMA into storage windows, a
checkpoint = atomic MPI_Win_sync) against MR-2S (MPI_Alltoallv, a
checkpoint = collective MPI-IO into a shared file), each without
checkpoints (NoFT) and with one after every map round and after the reduce
(paper section 3.5.2), at 2 and 4 ranks, on a generated corpus (apps/
mapreduce). Steps of one rep run in turn, reps interleave (A B A B); an A/A
step runs MR-1S with checkpoints twice to show the noise. Ratios per rep:
the checkpoint overhead of each (with / NoFT - 1) and MR-1S / MR-2S with
checkpoints.

The corpus is generated once into MPISW_MAPREDUCE_CACHE (default
~/.cache/mpisw/mapreduce; FILE.params says how) and reused: 2 GiB by
default, MPISW_MAPREDUCE_SIZE=512M (any size) for a shorter run; the task
size MPISW_MAPREDUCE_TASK (default 64M)."""

import os

from harness.api import (Step, by_rep, fmt_stat, legend_outside, load_note, md_table,
                         median_and_spread, ratio_values, save_png, stats)

SIZE = os.environ.get("MPISW_MAPREDUCE_SIZE", "2G")
TASK = os.environ.get("MPISW_MAPREDUCE_TASK", "64M")
CACHE = os.environ.get("MPISW_MAPREDUCE_CACHE",
                       os.path.join(os.path.expanduser("~"), ".cache", "mpisw", "mapreduce"))
SEED, ZIPF = 1, 1.0
RANKS = (2, 4)
TARGET_1S = 0.04   # MR-1S checkpoint overhead (paper: 3.8 %)

SUITES = {"mapreduce": f"word count MR-1S vs MR-2S, NoFT and with checkpoints, 2 and 4 ranks, "
                       f"a {SIZE} generated corpus (cached in MPISW_MAPREDUCE_CACHE), A/A pair"}
PROGRAMS = {"mapreduce": "apps/mapreduce/mapreduce"}
KEY_FIELDS = {"mapreduce": ["mode", "ranks", "checkpoints", "window", "aa", "task_size",
                            "input_bytes"]}
METRICS = {"mapreduce": ["seconds", "map_seconds", "reduce_seconds", "ckpt_seconds",
                         "comm_seconds", "ckpt_count", "load1"]}
PATH_ARG = {"mapreduce"}


def corpus():
    return os.path.join(CACHE, f"corpus-{SIZE}-seed{SEED}-zipf{ZIPF:g}.txt")


def _gen():
    os.makedirs(CACHE, exist_ok=True)
    return ["gen", "--output", corpus(), "--size", SIZE, "--seed", str(SEED),
            "--zipf", str(ZIPF)]


def _run(mode, ck, np, aa=False):
    args = [mode, "--input", corpus(), "--output",
            os.path.join(CACHE, f"counts-{SIZE}-{mode}-np{np}.txt"), "--task-size", TASK,
            "--checkpoints", ck]
    name = {"1s": "MR-1S", "2s": "MR-2S"}[mode]
    ft = "NoFT" if ck == "none" else "checkpoints"
    return Step("mapreduce", f"mapreduce {name} {ft}{' (A/A)' if aa else ''} {SIZE} n={np}",
                args, ranks=np, timeout=1800, extra={"aa": 1 if aa else 0})


def steps(suite):
    if suite == "smoke":
        return []
    if suite != "mapreduce":
        return []
    out = [Step("mapreduce", f"mapreduce corpus {SIZE} (made once, cached)", _gen(), ranks=0,
                timeout=3600, extra={"aa": 0})]
    for np in RANKS:
        out += [_run("1s", "none", np), _run("2s", "none", np), _run("1s", "all", np),
                _run("2s", "all", np)]
        if np == RANKS[0]:   # the A/A pair once: time is short
            out.append(_run("1s", "all", np, aa=True))
    return out


def _mr(runs):
    return [r for r in runs if r.get("bench") == "mapreduce" and r.get("mode") in ("1s", "2s")]


def _secs(runs, mode, np, ft, aa=0):
    return by_rep(runs, "seconds", mode=mode, ranks=np, ft=ft, aa=aa)


def ratios(runs):
    d = _mr(runs)
    out = []
    for np in sorted({r["ranks"] for r in d}):
        which = f"{np} ranks, {SIZE}, tasks {TASK}"
        for mode, name, target in (("1s", "MR-1S", TARGET_1S), ("2s", "MR-2S", None)):
            s = stats([v - 1 for v in ratio_values(_secs(d, mode, np, True),
                                                    _secs(d, mode, np, False))])
            if s:
                out.append({"name": f"{name} checkpoint overhead", "which": which,
                            "detail": f"seconds with checkpoints / NoFT - 1, same rep"
                                      + (f" (target <= {target:.2f})" if target else ""),
                            "target": target, **s})
        for mode, name, target in (("1s", "MR-1S", TARGET_1S), ("2s", "MR-2S", None)):
            # the checkpoints' own time inside each run (the slowest rank's), over
            # the rest of that run: what they cost without another run's noise
            vals = [r["ckpt_seconds"] / (r["seconds"] - r["ckpt_seconds"]) for r in d
                    if r["mode"] == mode and r["ranks"] == np and r.get("ft")
                    and isinstance(r.get("ckpt_seconds"), (int, float))
                    and r["seconds"] > r["ckpt_seconds"]]
            s = stats(vals)
            if s:
                out.append({"name": f"{name} checkpoint time / rest of the run", "which": which,
                            "detail": "ckpt_seconds / (seconds - ckpt_seconds) per run with "
                                      "checkpoints (A/A runs too)"
                                      + (f" (target <= {target:.2f})" if target else ""),
                            "target": target, **s})
        for ft, what, target in ((True, "with checkpoints", 1.0), (False, "NoFT", None)):
            s = stats(ratio_values(_secs(d, "1s", np, ft), _secs(d, "2s", np, ft)))
            if s:
                out.append({"name": f"MR-1S / MR-2S time, {what}", "which": which,
                            "detail": "seconds, same rep" + (" (target < 1)" if target else ""),
                            "target": target, **s})
        s = stats(ratio_values(_secs(d, "1s", np, True, 1), _secs(d, "1s", np, True)))
        if s:
            out.append({"name": "MR-1S with checkpoints, A/A", "which": which,
                        "detail": "two identical steps of one rep: the noise", **s})
    return out


def plot(suite, summary, runs, out, stamp, plt):
    if suite != "mapreduce":
        return {}
    rows = [x for x in summary if x["bench"] == "mapreduce"
            and x["fields"].get("mode") in ("1s", "2s") and not x["fields"].get("aa")
            and x["metrics"].get("seconds")]
    if not rows:
        return {}
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4.4))
    nps = sorted({x["fields"]["ranks"] for x in rows})
    series = [("1s", False, "MR-1S NoFT", "tab:blue"), ("1s", True, "MR-1S checkpoints", "tab:cyan"),
              ("2s", False, "MR-2S NoFT", "tab:red"), ("2s", True, "MR-2S checkpoints", "tab:orange")]
    width = 0.2
    for k, (mode, ft, label, color) in enumerate(series):
        xs, pts = [], []
        for i, np in enumerate(nps):
            for x in rows:
                f = x["fields"]
                if f["mode"] == mode and f["ranks"] == np and bool(f.get("checkpoints")) == ft:
                    xs.append(i + (k - 1.5) * width)
                    pts.append(x["metrics"]["seconds"])
        if xs:
            ys, err = median_and_spread(pts)
            ax.bar(xs, ys, width=width, yerr=err, capsize=3, label=label, color=color)
    ax.set_xticks(range(len(nps)))
    ax.set_xticklabels([f"{n} ranks" for n in nps])
    ax.set_ylabel("seconds (median of reps, min-max)")
    ax.set_title(f"word count, {SIZE} corpus, tasks {TASK}", fontsize=9)
    legend_outside(ax, fontsize=7)
    # right: per rep, with / NoFT - 1 (two runs, so the machine's noise too),
    # and per run, the checkpoints' own time over the rest of that run
    rat = ratios(runs)
    bars = (("MR-1S checkpoint overhead", "MR-1S: with / NoFT - 1", "tab:cyan", ""),
            ("MR-2S checkpoint overhead", "MR-2S: with / NoFT - 1", "tab:orange", ""),
            ("MR-1S checkpoint time / rest of the run", "MR-1S: checkpoint time / rest",
             "tab:cyan", "//"),
            ("MR-2S checkpoint time / rest of the run", "MR-2S: checkpoint time / rest",
             "tab:orange", "//"))
    w2 = 0.2
    for k, (name, label, color, hatch) in enumerate(bars):
        pts, xs = [], []
        for i, np in enumerate(nps):
            for r in rat:
                if r["name"] == name and r["which"].startswith(f"{np} ranks"):
                    xs.append(i + (k - 1.5) * w2)
                    pts.append({q: 100 * r[q] for q in ("min", "median", "max")})
        if xs:
            ys, err = median_and_spread(pts)
            ax2.bar(xs, ys, width=w2, yerr=err, capsize=3, label=label, color=color,
                    hatch=hatch, edgecolor="black" if hatch else None)
    ax2.axhline(100 * TARGET_1S, color="gray", linestyle="--", linewidth=1,
                label=f"target for MR-1S ({100 * TARGET_1S:.0f} %)")
    ax2.set_xticks(range(len(nps)))
    ax2.set_xticklabels([f"{n} ranks" for n in nps])
    ax2.set_ylabel("checkpoint overhead, % (median, min-max)")
    ax2.axhline(0, color="black", linewidth=0.6)
    legend_outside(ax2, fontsize=7)
    fig.suptitle(f"MapReduce MR-1S (storage windows) vs MR-2S (MPI-IO) — {stamp}", fontsize=10)
    return save_png(fig, plt, out, suite, "mapreduce")


def readme(doc):
    runs = _mr(doc.get("runs", []))
    if not runs:
        return []
    s = [f"### MapReduce word count, MR-1S vs MR-2S ({SIZE} corpus, tasks {TASK})", ""]
    note = load_note(runs, "mapreduce")
    if note:
        s += [note, ""]
    rows = []
    for x in sorted((x for x in doc["summary"] if x["bench"] == "mapreduce"
                     and x["fields"].get("mode") in ("1s", "2s")),
                    key=lambda x: (x["fields"]["ranks"], x["fields"]["mode"],
                                   x["fields"].get("checkpoints") != 0,
                                   x["fields"].get("aa") or 0)):
        f, m = x["fields"], x["metrics"]
        rows.append([f["ranks"], "MR-1S" if f["mode"] == "1s" else "MR-2S",
                     ("checkpoints" if f.get("checkpoints") else "NoFT")
                     + (" (A/A)" if f.get("aa") else ""), f.get("window"),
                     f"**{fmt_stat(m.get('seconds'))}**", fmt_stat(m.get("map_seconds")),
                     fmt_stat(m.get("reduce_seconds")), fmt_stat(m.get("ckpt_seconds")),
                     fmt_stat(m.get("comm_seconds")), fmt_stat(m.get("ckpt_count"))])
    s.append(md_table(["ranks", "program", "run", "window", "seconds", "map s", "reduce s",
                       "checkpoint s (slowest rank)",
                       "communication s (slowest rank: MR-1S epochs, MR-2S shuffle)",
                       "checkpoints per rank"], rows))
    s.append("")
    rat = [r for r in doc.get("ratios", []) if r["name"].startswith("MR-")]
    if rat:
        rrows = []
        for r in rat:
            t = r.get("target")
            met = "" if t is None else ("met" if r["median"] <= t else "**not met**")
            rrows.append([r["name"], r["which"], f"{r['min']:.3f}", f"**{r['median']:.3f}**",
                          f"{r['max']:.3f}", r["n"], met])
        s.append(md_table(["ratio", "where", "min", "median", "max", "reps", "target"], rrows))
        s.append("")
    return s
