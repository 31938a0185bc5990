"""PNG plots of a run: OUT/<suite>-<bench>.png (matplotlib, Agg)."""

import os

from .fio import limit_job_name
from .fmt import human_bytes
from .registry import hooks
from .suites import KERNELS, op_rank
from .summary import limits


def save_png(fig, plt, out, suite, bench, layout=True):
    """Writes a figure as OUT/<suite>-<bench>.png; {bench: name}, or {} when
    no panel has data (a suite that did not run a benchmark gets no empty
    plot). Panels without data go; the saved area grows to take in legends
    placed outside the panels (see legend_outside)."""
    axes = [ax for ax in fig.get_axes() if ax.axison]
    empty = [ax for ax in axes if not ax.has_data()]
    if len(empty) == len(axes):
        plt.close(fig)
        return {}
    for ax in empty:
        ax.remove()
    if layout:
        fig.tight_layout()
    name = f"{suite}-{bench}.png"
    fig.savefig(os.path.join(out, name), dpi=110, bbox_inches="tight")
    plt.close(fig)
    return {bench: name}


def median_and_spread(points):
    """Medians of {"min", "median", "max"} dicts and their error bars as
    matplotlib's yerr wants them: [below, above] (bars from min to max)."""
    return ([p["median"] for p in points],
            [[p["median"] - p["min"] for p in points], [p["max"] - p["median"] for p in points]])


def legend_outside(ax, **kw):
    """A panel's legend to the right of it, where it covers no bar, line or
    tick label; nothing (and no matplotlib warning) when nothing is labelled."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  borderaxespad=0.0, fontsize=kw.pop("fontsize", 8), **kw)


def figure_legend_below(fig, axes, ncol=2):
    """One legend for a figure of panels, under all of them (outside every
    panel); save_png's tight bounding box takes it in. Labels of every panel,
    each once."""
    seen = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(lab, h)
    if seen:
        fig.legend(list(seen.values()), list(seen.keys()), loc="upper center",
                   bbox_to_anchor=(0.5, 0.0), ncol=ncol, fontsize=8, frameon=False)


MSTREAM_SERIES_COLORS = ["tab:blue", "tab:orange", "tab:green", "tab:olive", "tab:cyan"]


def mstream_series_name(f):
    kind = f.get("kind")
    if kind == "combined":
        fac = f.get("factor")
        fac = f"{fac:g}" if isinstance(fac, (int, float)) else str(fac)
        order = f.get("order") or "memory_first"
        return f"combined {fac}" + ("" if order == "memory_first" else f" {order}")
    return str(kind)


def plot_all(suite, summary, runs, out, stamp):
    """Returns {bench: png file name}. Raises ImportError without matplotlib."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker as mticker

    def _size(x, _pos=None):
        return human_bytes(x).replace(" ", "\u2009") if x >= 1 and float(x).is_integer() else ""

    def _num(x, _pos=None):
        return "" if x <= 0 else f"{x:,.0f}" if x >= 1000 else f"{x:g}"

    def _minor(x, _pos=None):
        # Label 2 and 5 between decades, so short log axes still read.
        if x <= 0:
            return ""
        lead = x / 10 ** int(f"{x:e}".split("e")[1])
        return _num(x) if round(lead, 6) in (2.0, 5.0) else ""

    size_fmt = mticker.FuncFormatter(_size)
    num_fmt = mticker.FuncFormatter(_num)
    minor_fmt = mticker.FuncFormatter(_minor)

    pngs = {}
    title_tail = f"{suite} suite, {stamp}"

    def save(fig, bench, layout=True):
        pngs.update(save_png(fig, plt, out, suite, bench, layout))

    # mstream: bandwidth per kernel, one panel per (ranks, size).
    ms = [s for s in summary if s["bench"] == "mstream" and "bw_MiBps" in s["metrics"]
          and s["fields"].get("sync", True) and not s["fields"].get("memlimit")]
    if ms:
        panels = sorted({(s["fields"].get("ranks"), s["fields"].get("size")) for s in ms},
                        key=lambda t: (t[0] or 0, t[1] or 0))
        kernels = [k for k in KERNELS if any(s["fields"].get("kernel") == k for s in ms)]
        kernels += sorted({s["fields"].get("kernel") for s in ms} - set(kernels))
        series = []
        for s in ms:
            n = mstream_series_name(s["fields"])
            if n not in series:
                series.append(n)
        lims = limits(runs)
        ncol = min(2, len(panels))
        nrow = (len(panels) + ncol - 1) // ncol
        fig_h = 4.3 * nrow + 0.7
        fig, axes = plt.subplots(nrow, ncol, figsize=(7 * ncol, fig_h), squeeze=False)
        lowest = min([s["metrics"]["bw_MiBps"]["min"] for s in ms] + [v for _, v, _, _ in lims])
        width = 0.8 / max(1, len(series))
        for i, (ranks, size) in enumerate(panels):
            ax = axes[i // ncol][i % ncol]
            for j, name in enumerate(series):
                xs, ys, lo, hi = [], [], [], []
                for x, k in enumerate(kernels):
                    for s in ms:
                        f = s["fields"]
                        if (f.get("ranks"), f.get("size"), f.get("kernel")) == (ranks, size, k) \
                                and mstream_series_name(f) == name:
                            st = s["metrics"]["bw_MiBps"]
                            xs.append(x - 0.4 + width * (j + 0.5))
                            ys.append(st["median"])
                            lo.append(st["median"] - st["min"])
                            hi.append(st["max"] - st["median"])
                if xs:
                    ax.bar(xs, ys, width * 0.9, yerr=[lo, hi], capsize=3,
                           label=name, color=MSTREAM_SERIES_COLORS[j % len(MSTREAM_SERIES_COLORS)])
            for label, value, color, style in lims:
                ax.axhline(value, color=color, linestyle=style, linewidth=1.2,
                           label=f"{label}: {value:,.0f} MiB/s")
            ax.set_xticks(range(len(kernels)))
            ax.set_xticklabels(kernels)
            ax.set_yscale("log")
            if lowest > 0:
                ax.set_ylim(bottom=lowest / 2)
            ax.yaxis.set_major_formatter(num_fmt)
            ax.yaxis.set_minor_formatter(minor_fmt)
            ax.tick_params(axis="y", which="minor", labelsize=7)
            ax.set_ylabel("MiB/s (median; bars: min–max)")
            ax.set_title(f"window {human_bytes(size)}, {ranks} rank{'s' * (ranks != 1)}",
                         fontsize=10)
            ax.grid(axis="y", which="both", alpha=0.3)
        for i in range(len(panels), nrow * ncol):
            axes[i // ncol][i % ncol].axis("off")
        fig.suptitle(f"mstream bandwidth: memory vs storage vs combined windows\n"
                     f"{title_tail}; lines: this machine's limits", fontsize=10)
        fig.tight_layout()
        figure_legend_below(fig, [ax for row in axes for ax in row])
        save(fig, "mstream", layout=False)

    # mstream out of core: its own small plot (linear scale; the device's
    # limits as lines), bars without and with the access hint per kernel,
    # every rep as a dot.
    oc = [s for s in summary if s["bench"] == "mstream" and "bw_MiBps" in s["metrics"]
          and s["fields"].get("memlimit")]
    if oc:
        setups = sorted({(s["fields"].get("ranks"), s["fields"].get("size"),
                          s["fields"].get("memlimit")) for s in oc},
                        key=lambda t: tuple(x or 0 for x in t))
        kernels = [k for k in KERNELS if any(s["fields"].get("kernel") == k for s in oc)]
        kernels += sorted({s["fields"].get("kernel") for s in oc} - set(kernels))
        hinted = (False, True)
        width = 0.8 / (len(setups) * len(hinted))
        lims = [x for x in limits(runs) if not x[0].startswith("memcpy")]  # far off this scale
        fig_h = 4.4
        fig, ax = plt.subplots(figsize=(max(6.5, 2.2 * len(kernels) + 2.5), fig_h))
        colors = ["tab:orange", "tab:green", "tab:olive", "tab:cyan", "tab:pink", "tab:gray"]
        top = 0
        j = -1
        dots = False
        for ranks, size, memlimit in setups:
            for h in hinted:
                j += 1
                xs, ys, lo, hi, hints = [], [], [], [], []
                for x, k in enumerate(kernels):
                    for s in oc:
                        f = s["fields"]
                        if (f.get("ranks"), f.get("size"), f.get("memlimit"), f.get("kernel")) \
                                != (ranks, size, memlimit, k) or bool(f.get("access")) != h:
                            continue
                        st = s["metrics"]["bw_MiBps"]
                        xc = x - 0.4 + width * (j + 0.5)
                        xs.append(xc)
                        ys.append(st["median"])
                        lo.append(st["median"] - st["min"])
                        hi.append(st["max"] - st["median"])
                        hints.append(f.get("access"))
                        top = max(top, st["max"])
                        vals = [r["bw_MiBps"] for r in runs if r.get("bench") == "mstream"
                                and isinstance(r.get("bw_MiBps"), (int, float))
                                and all(r.get(kk) == vv for kk, vv in f.items())]
                        if len(vals) > 1:
                            ax.plot([xc] * len(vals), vals, "o", color="black", markersize=3,
                                    zorder=3, label=None if dots else "each rep")
                            dots = True
                if not xs:
                    continue
                name = "with the matching access hint" if h else "no access hint"
                if len(setups) > 1:
                    name += (f" ({human_bytes(size)} in {human_bytes(memlimit)}, "
                             f"n={ranks})")
                ax.bar(xs, ys, width * 0.9, yerr=[lo, hi], capsize=3, label=name,
                       color=colors[j % len(colors)])
                for x, y, e, a in zip(xs, ys, hi, hints):
                    ax.annotate(f"{y:,.0f}" + (f"\n{a}" if a else ""), (x, y + e),
                                textcoords="offset points", xytext=(0, 2), ha="center",
                                va="bottom", fontsize=7)
        for label, value, color, style in lims:
            ax.axhline(value, color=color, linestyle=style, linewidth=1.2,
                       label=f"{label}: {value:,.0f} MiB/s")
            top = max(top, value)
        ax.set_xticks(range(len(kernels)))
        ax.set_xticklabels(kernels)
        ax.set_ylim(0, top * 1.2)
        ax.yaxis.set_major_formatter(num_fmt)
        ax.set_ylabel("MiB/s (median; bars: min–max)")
        ax.grid(axis="y", alpha=0.3)
        ranks, size, memlimit = setups[0]
        what = (f"{human_bytes(size)} storage window in a {human_bytes(memlimit)} memory "
                f"cgroup, {ranks} rank{'s' * (ranks != 1)}" if len(setups) == 1
                else "storage windows larger than their memory cgroup")
        ax.set_title(f"mstream out of core: {what}\n{title_tail}; lines: fio on the same "
                     f"file system", fontsize=9)
        fig.tight_layout()
        figure_legend_below(fig, [ax])
        save(fig, "mstream_outofcore", layout=False)

    # RMA: latency and bandwidth vs size, memory vs storage, log-log.
    rma = [s for s in summary if s["bench"] == "rma"]
    if rma:
        # Ops measured at one size only (the atomics) are in the tables, not here.
        all_ops = sorted({s["fields"].get("op") for s in rma}, key=op_rank)
        ops = [op for op in all_ops
               if len({s["fields"].get("bytes") for s in rma if s["fields"].get("op") == op}) > 1]
        ops = ops or all_ops
        left_out = [op for op in all_ops if op not in ops]
        ncol = len(ops) if len(ops) <= 4 else 3
        groups = (len(ops) + ncol - 1) // ncol
        fig, axes = plt.subplots(2 * groups, ncol, figsize=(4.4 * ncol + 0.6, 7.2 * groups),
                                 squeeze=False)
        for i in range(len(ops), groups * ncol):
            axes[2 * (i // ncol)][i % ncol].axis("off")
            axes[2 * (i // ncol) + 1][i % ncol].axis("off")
        for i, op in enumerate(ops):
            for r, (metric, ylabel) in enumerate((("usec", "latency, µs"),
                                                  ("MiBps", "bandwidth, MiB/s"))):
                ax = axes[2 * (i // ncol) + r][i % ncol]
                for kind, color in (("memory", "tab:blue"), ("storage", "tab:orange")):
                    pts = sorted((s["fields"]["bytes"], s["metrics"][metric]) for s in rma
                                 if s["fields"].get("op") == op and s["fields"].get("kind") == kind
                                 and metric in s["metrics"] and "bytes" in s["fields"])
                    if not pts:
                        continue
                    ys, yerr = median_and_spread([p[1] for p in pts])
                    ax.errorbar([p[0] for p in pts], ys, yerr=yerr, marker="o", markersize=3,
                                capsize=2, color=color, label=f"{kind} window")
                ax.set_xscale("log", base=2)
                ax.set_yscale("log")
                ax.xaxis.set_major_locator(mticker.LogLocator(base=4))
                ax.xaxis.set_minor_locator(mticker.NullLocator())
                ax.xaxis.set_major_formatter(size_fmt)
                ax.yaxis.set_major_formatter(num_fmt)
                ax.yaxis.set_minor_formatter(minor_fmt)
                ax.tick_params(axis="both", which="both", labelsize=7)
                ax.grid(which="both", alpha=0.3)
                ax.set_xlabel("message size")
                ax.set_ylabel(ylabel)
                ax.set_title("MPI_" + "_".join(w.capitalize() for w in str(op).split("_")))
        fig.suptitle(f"RMA between 2 ranks: memory vs storage window ({title_tail}; "
                     f"median, bars min–max)"
                     + (f"\n{', '.join(left_out)}: one size only, in the README's table"
                        if left_out else ""), fontsize=10)
        fig.tight_layout()
        figure_legend_below(fig, [ax for row in axes for ax in row])
        save(fig, "rma", layout=False)

    # membw and fio: the limits themselves.
    for bench, metric_list, ylabel, xkey in (
            ("membw", [("GiBps_copied", "bytes copied"), ("GiBps_moved", "bytes moved (STREAM convention)")],
             "GiB/s", "kernel"),
            ("fio", [("MiBps", "MiB/s")], "MiB/s", "test")):
        rows = [s for s in summary if s["bench"] == bench]
        if not rows:
            continue
        fig, ax = plt.subplots(figsize=(6.5 if len(rows) < 8 else 12, 4.2 if len(rows) < 8 else 6))
        names = [fio_name(s["fields"]) if bench == "fio" else s["fields"].get(xkey) for s in rows]
        width = 0.8 / len(metric_list)
        for j, (metric, mlabel) in enumerate(metric_list):
            xs, ys, lo, hi = [], [], [], []
            for x, s in enumerate(rows):
                st = s["metrics"].get(metric)
                if st:
                    xs.append(x - 0.4 + width * (j + 0.5))
                    ys.append(st["median"])
                    lo.append(st["median"] - st["min"])
                    hi.append(st["max"] - st["median"])
            if xs:
                ax.bar(xs, ys, width * 0.9, yerr=[lo, hi], capsize=3, label=mlabel)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels([str(n) for n in names], rotation=90 if len(rows) >= 8 else 0,
                           fontsize=7 if len(rows) >= 8 else None)
        ax.set_ylabel(f"{ylabel} (median; bars: min–max)")
        ax.grid(axis="y", alpha=0.3)
        legend_outside(ax)
        size = rows[0]["fields"].get("size")
        what = ("memory bandwidth (membw)" if bench == "membw"
                else "file system limits (fio; named tests bs 16 MiB, psync unless named; "
                     "matrix jobs O_DIRECT)")
        ax.set_title(f"{what}, {human_bytes(size or 0)} ({title_tail})", fontsize=9)
        fig.tight_layout()
        save(fig, bench)
    for plot in hooks("plot"):
        pngs.update(plot(suite, summary, runs, out, title_tail, plt) or {})
    return pngs


def fio_name(fields):
    """A fio record's x label: the matrix job, or the named test."""
    if fields.get("test") == "limit":
        return limit_job_name(fields.get("rw"), fields.get("engine"), fields.get("bs"),
                              fields.get("iodepth"), fields.get("numjobs"))
    return fields.get("test")
