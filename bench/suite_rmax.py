"""Suite "rmax": the RMA extensions measured as in the paper's section 7
(bench/rmax_bench.c, 2 ranks). See docs/RMA_EXTENSIONS.md."""

from harness.api import (Step, by_rep, fmt_stat, human_bytes, legend_outside, md_table,
                         ratio_stats, ratio_values, save_png, stats)

SUITES = {"rmax": "RMA extensions: allocated/dynamic/memory-handle latency (with and without "
                  "window creation), thread-scope flushes, ordered puts (2 ranks)"}
PROGRAMS = {"rmax": "rmax_bench"}
KEY_FIELDS = {"rmax": ["test", "op", "kind", "create", "scope", "threads", "mode", "bytes",
                       "ranks"]}
METRICS = {"rmax": ["usec", "usec_mean", "usec_worst"]}

KIB = 1024


def steps(suite):
    if suite == "smoke":
        return [Step("rmax", "rmax latency 1 B..64 B x10",
                       ["--test", "latency", "--max", "64", "--iters", "10"], ranks=2,
                     timeout=120)]
    if suite != "rmax":
        return []
    t = 600
    return [
        Step("rmax", "rmax latency 1 B..1 MiB", ["--test", "latency", "--iters", "200"],
             ranks=2, timeout=t),
        Step("rmax", "rmax latency with window creation+free 1 B..1 MiB",
               ["--test", "latency", "--create", "--iters", "200"], ranks=2, timeout=t),
        Step("rmax", "rmax put+flush 1..8 threads, process vs thread scope",
               ["--test", "threads", "--iters", "200", "--threads", "8"], ranks=2, timeout=t),
        Step("rmax", "rmax ordered vs flush-separated puts",
               ["--test", "order", "--iters", "200"], ranks=2, timeout=t),
    ]


def _ratio(name, which, detail, num, den, **extra):
    s = ratio_stats(num, den)
    return dict(name=name, which=which, detail=detail, **extra, **s) if s else None


def ratios(runs):
    out = []
    lat = [r for r in runs if r.get("bench") == "rmax" and r.get("test") == "latency"]
    for create in (False, True):
        for op in ("put", "get"):
            sizes = sorted({r["bytes"] for r in lat if r.get("op") == op
                            and r.get("create") == create})
            tag = " (window creation+free included)" if create else ""
            allv, dynv = [], []
            for b in sizes:
                m = by_rep(runs, "usec", bench="rmax", test="latency", op=op, kind="memhandle",
                           create=create, bytes=b)
                al = by_rep(runs, "usec", bench="rmax", test="latency", op=op,
                            kind="allocated", create=create, bytes=b)
                dy = by_rep(runs, "usec", bench="rmax", test="latency", op=op, kind="dynamic",
                            create=create, bytes=b)
                allv += ratio_values(m, al)
                if b >= 64 * KIB:
                    dynv += ratio_values(dy, m)
            s = stats(allv)
            if s:
                out.append(dict(name=f"rmax {op} latency memhandle / allocated{tag}",
                                which="1 B..1 MiB",
                                detail="rmax_bench usec (median op+flush), every size x reps; "
                                       "target <= 1.05", target="<= 1.05", **s))
            s = stats(dynv)
            if s:
                out.append(dict(name=f"rmax {op} latency dynamic / memhandle{tag}", which=">= 64 KiB",
                                detail="rmax_bench usec, every size from 64 KiB x reps; "
                                       "target >= 1.5", target=">= 1.5", **s))
    # the paper's claim: a memory-handle window made and freed per operation
    # still beats a long-lived dynamic window
    for op in ("put", "get"):
        vals = []
        for b in sorted({r["bytes"] for r in lat if r.get("op") == op}):
            mc = by_rep(runs, "usec", bench="rmax", test="latency", op=op, kind="memhandle",
                        create=True, bytes=b)
            dy = by_rep(runs, "usec", bench="rmax", test="latency", op=op, kind="dynamic",
                        create=False, bytes=b)
            vals += ratio_values(dy, mc)
        s = stats(vals)
        if s:
            out.append(dict(name=f"rmax {op} latency dynamic / memhandle with creation+free",
                            which="1 B..1 MiB",
                            detail="rmax_bench usec: long-lived dynamic window vs a memory-handle "
                                   "window made and freed around each operation", **s))
    th = [r for r in runs if r.get("bench") == "rmax" and r.get("test") == "threads"]
    if th:
        n = max(r.get("threads", 0) for r in th)
        p = by_rep(runs, "usec", bench="rmax", test="threads", scope="process", threads=n)
        t = by_rep(runs, "usec", bench="rmax", test="threads", scope="thread", threads=n)
        r = _ratio("rmax put+flush latency process / thread scope", f"{n} threads",
                   "rmax_bench threads usec (mean per put+flush per thread); target >= 2",
                   p, t, target=">= 2")
        if r:
            out.append(r)
    od = [r for r in runs if r.get("bench") == "rmax" and r.get("test") == "order"]
    for b in sorted({r["bytes"] for r in od}):
        f = by_rep(runs, "usec", bench="rmax", test="order", mode="flush", bytes=b)
        o = by_rep(runs, "usec", bench="rmax", test="order", mode="ordered", bytes=b)
        r = _ratio("rmax flush-separated / ordered puts", human_bytes(b),
                   "rmax_bench order usec per put", f, o, bytes=b)
        if r:
            out.append(r)
    return out


def plot(suite, summary, runs, out, stamp, plt):
    if not any(r.get("bench") == "rmax" for r in runs):
        return {}
    pngs = {}
    med = {}
    for x in summary:
        if x["bench"] != "rmax":
            continue
        f = x["fields"]
        u = x["metrics"].get("usec")
        if u:
            med[tuple(sorted(f.items()))] = u

    def series(**match):
        pts = []
        for k, u in med.items():
            d = dict(k)
            if all(d.get(a) == b for a, b in match.items()):
                pts.append((d.get("bytes") if "bytes" in d else d.get("threads"), u))
        pts.sort(key=lambda p: p[0] or 0)
        return [p[0] for p in pts], [p[1]["median"] for p in pts], \
            [p[1]["median"] - p[1]["min"] for p in pts], [p[1]["max"] - p[1]["median"] for p in pts]

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, op in zip(axes, ("put", "get")):
        for kind, create, style in (("allocated", False, "-o"), ("dynamic", False, "-s"),
                                    ("memhandle", False, "-^"), ("allocated", True, "--o"),
                                    ("dynamic", True, "--s"), ("memhandle", True, "--^")):
            xs, ys, lo, hi = series(test="latency", op=op, kind=kind, create=create)
            if xs:
                ax.errorbar(xs, ys, yerr=[lo, hi], fmt=style, capsize=2,
                            label=kind + (" +create/free" if create else ""))
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("bytes")
        ax.set_ylabel("µs per op + flush")
        ax.set_title(f"{op} latency {stamp}")
        legend_outside(ax)
    pngs.update(save_png(fig, plt, out, suite, "rmax_latency"))

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for scope in ("process", "thread"):
        xs, ys, lo, hi = series(test="threads", scope=scope)
        if xs:
            axes[0].errorbar(xs, ys, yerr=[lo, hi], fmt="-o", capsize=2, label=f"{scope} scope")
    axes[0].set_xlabel("threads")
    axes[0].set_ylabel("µs per 8 B put + flush")
    axes[0].set_title("thread-scope flushes")
    legend_outside(axes[0])
    for mode in ("ordered", "flush", "unordered"):
        xs, ys, lo, hi = series(test="order", mode=mode)
        if xs:
            axes[1].errorbar(xs, ys, yerr=[lo, hi], fmt="-o", capsize=2, label=mode)
    axes[1].set_xscale("log", base=2)
    axes[1].set_yscale("log")
    axes[1].set_xlabel("bytes")
    axes[1].set_ylabel("µs per put")
    axes[1].set_title("ordered puts")
    legend_outside(axes[1])
    pngs.update(save_png(fig, plt, out, suite, "rmax_threads_order"))
    return pngs


def readme(doc):
    summ = [x for x in doc.get("summary", []) if x.get("bench") == "rmax"]
    if not summ:
        return []
    s = ["### RMA extensions (rmax)", "",
         "Latency (µs, median over reps of each rep's median op+flush; min–max):", ""]
    table = {}
    for x in summ:
        f = x["fields"]
        if f.get("test") != "latency":
            continue
        key = (f.get("op"), f.get("create"), f.get("bytes"))
        table.setdefault(key, {})[f.get("kind")] = x["metrics"].get("usec")
    rows = []
    for (op, create, b), k in sorted(table.items(), key=lambda t: (t[0][0], t[0][1], t[0][2])):
        rows.append([op + (" +create" if create else ""), human_bytes(b),
                     fmt_stat(k.get("allocated")), fmt_stat(k.get("dynamic")),
                     fmt_stat(k.get("memhandle"))])
    s.append(md_table(["op", "size", "allocated", "dynamic", "memhandle"], rows))
    s.append("")
    return s
