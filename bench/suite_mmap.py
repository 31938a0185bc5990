"""Suite `mmap_steady`: the mmap backend out of core, before and after the
write-behind and the advice chosen from the access pattern (issue 19 item 4;
docs/DURABILITY.md "Write-behind").

mstream SEQ (access=sequential) and RND (access=random) on a 2 GiB storage
window with the final MPI_Win_sync, storage_backend=mmap, in a 384 MiB memory
cgroup. "before" runs with MPISW_WRITEBEHIND=off MPISW_MMAP_ADVICE=hint (the
behaviour before this work); "after" with the defaults; "after (A/A)" is the
same as "after" once more, to show what the noise alone gives. One rep runs
every step in turn, so the compared sides interleave (A B A' ...). Tracked:
median / slowest bandwidth of each side over the reps (target <= 2: the
slowest run within 2x of the median), after / before per rep, and each side
against fio's O_DIRECT psync write of the same rep.

  python3 bench/run.py --suite mmap_steady --build build/mpich --reps 5 \
      --out results/mmap_steady-mpich
"""

from harness.api import (OOC_ITERS, OOC_MEMLIMIT, OOC_SEGMENT, OOC_SIZE, Step, by_rep,
                         fio_steps, fmt_num, fmt_stat, human_bytes, legend_outside, load_note,
                         md_table, ratio_stats, save_png, stats)

SUITES = {"mmap_steady": "storage_backend=mmap out of core (2 GiB window in a 384 MiB "
                         "cgroup, SEQ access=sequential and RND access=random, with sync): "
                         "before (no write-behind, access_style straight to madvise) vs "
                         "after (the defaults) + an A/A step; slowest run / median, target 2 "
                         "(run with --reps 5)"}
# mstream under a name of its own for the steps; its records still say
# "bench": "mstream", so they are told apart by the step's "variant" field,
# which is added to mstream's configuration fields (built-in list + variant;
# records of other suites have none), so before and after are not merged.
PROGRAMS = {"mmap_ooc": "mstream"}
PATH_ARG = {"mmap_ooc"}
KEY_FIELDS = {"mstream": ["kernel", "kind", "factor", "order", "ranks", "size", "segment",
                          "iters", "sync", "target", "access", "memlimit", "backend", "variant"]}

SPREAD_TARGET = 2.0
KERNELS = [("SEQ", "sequential"), ("RND", "random")]
VARIANTS = [("before", {"MPISW_WRITEBEHIND": "off", "MPISW_MMAP_ADVICE": "hint"}),
            ("after", {}),
            ("after (A/A)", {})]


def steps(suite):
    if suite != "mmap_steady":
        return []
    timeout = 600
    out = fio_steps(1 * 1024 ** 3, timeout, tests=["write_direct"])
    for kernel, hint in KERNELS:
        for variant, env in VARIANTS:
            args = ["--kernel", kernel, "--size", str(OOC_SIZE), "--segment", str(OOC_SEGMENT),
                    "--iters", str(OOC_ITERS), "--kind", "storage", "--access", hint,
                    "--backend", "mmap"]
            label = (f"mmap {kernel} access={hint} {human_bytes(OOC_SIZE)} in "
                     f"{human_bytes(OOC_MEMLIMIT)} {variant}")
            out.append(Step("mmap_ooc", label, args, ranks=1, timeout=timeout,
                            memlimit=OOC_MEMLIMIT, env=env,
                            extra={"variant": variant, "memlimit": OOC_MEMLIMIT}))
    return out


def _mine(runs):
    return [r for r in runs if r.get("bench") == "mstream" and r.get("variant")]


def _bw(runs, kernel, variant):
    return by_rep(_mine(runs), "bw_MiBps", kernel=kernel, variant=variant,
                  access=dict(KERNELS)[kernel])


def _spread(bw):
    """median / slowest over the reps (>= 1; the target is <= 2)."""
    s = stats(list(bw.values()))
    if not s or not s["min"]:
        return None
    return s["median"] / s["min"]


def ratios(runs):
    if not _mine(runs):
        return []
    out = []
    fio = by_rep(runs, "MiBps", bench="fio", test="write_direct")
    where = f"{human_bytes(OOC_SIZE)} in {human_bytes(OOC_MEMLIMIT)}"
    for kernel, hint in KERNELS:
        for variant, _ in VARIANTS:
            bw = _bw(runs, kernel, variant)
            sp = _spread(bw)
            if sp is not None:
                out.append({"name": f"mmap_steady: {kernel} {variant} median / slowest",
                            "which": f"out of core, {where}",
                            "detail": f"mstream {kernel} access={hint} with sync, mmap, "
                                      f"{variant}: median bw_MiBps / the slowest rep's over "
                                      f"{len(bw)} reps; target <= {SPREAD_TARGET:g}",
                            "min": sp, "median": sp, "max": sp, "n": len(bw),
                            "target": SPREAD_TARGET, "met": sp <= SPREAD_TARGET})
            s = ratio_stats(bw, fio)
            if s:
                out.append({"name": f"mmap_steady: {kernel} {variant} / fio O_DIRECT write",
                            "which": f"out of core, {where}",
                            "detail": f"mstream {kernel} access={hint} with sync, mmap, "
                                      f"{variant}, bw_MiBps / fio write_direct (psync, 16 MiB) "
                                      f"of the same rep", **s})
        s = ratio_stats(_bw(runs, kernel, "after"), _bw(runs, kernel, "before"))
        if s:
            out.append({"name": f"mmap_steady: {kernel} after / before",
                        "which": f"out of core, {where}",
                        "detail": f"mstream {kernel} access={hint} with sync, mmap, bw_MiBps "
                                  f"after / before per rep", **s})
    return out


def plot(suite, summary, runs, out, stamp, plt):
    if suite != "mmap_steady":
        return {}
    fig, ax = plt.subplots(figsize=(9.5, 4.8))
    colors = {"before": "tab:blue", "after": "tab:orange", "after (A/A)": "tab:green"}
    ticks = []
    for i, (kernel, hint) in enumerate(KERNELS):
        for j, (variant, _) in enumerate(VARIANTS):
            x = i * (len(VARIANTS) + 1) + j
            ticks.append((x, f"{kernel}\n{variant}"))
            bw = _bw(runs, kernel, variant)
            if not bw:
                continue
            vals = list(bw.values())
            s = stats(vals)
            ax.scatter([x] * len(vals), vals, color=colors[variant], s=18, zorder=3,
                       label=f"{variant}: each rep" if i == 0 else None)
            ax.hlines(s["median"], x - 0.35, x + 0.35, color=colors[variant], lw=2)
            ax.hlines(s["median"] / SPREAD_TARGET, x - 0.35, x + 0.35, color="tab:red",
                      ls=":", lw=1.5, label="target: slowest >= median / 2" if x == 0 else None)
            ax.annotate(f"median/slowest\n{s['median'] / s['min']:.2f}", (x, s["max"]),
                        textcoords="offset points", xytext=(0, 6), ha="center", fontsize=7)
    ax.set_xticks([t[0] for t in ticks])
    ax.set_xticklabels([t[1] for t in ticks], fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("mstream bandwidth with sync, MiB/s (log)")
    ax.set_title(f"mmap backend out of core ({human_bytes(OOC_SIZE)} window in "
                 f"{human_bytes(OOC_MEMLIMIT)}), each rep and the median; {stamp}", fontsize=9)
    legend_outside(ax)
    return save_png(fig, plt, out, suite, "mmap_steady")


def readme(doc):
    runs = doc.get("runs", [])
    mine = _mine(runs)
    if not mine:
        return []
    rows = []
    for kernel, hint in KERNELS:
        for variant, _ in VARIANTS:
            recs = [r for r in mine if r.get("kernel") == kernel and r.get("variant") == variant]
            bw = _bw(runs, kernel, variant)
            s = stats(list(bw.values()))
            if not s:
                continue
            sp = s["median"] / s["min"] if s["min"] else None
            rows.append([kernel, hint, variant, s["n"], fmt_num(s["min"]),
                         f"**{fmt_num(s['median'])}**", fmt_num(s["max"]),
                         f"{sp:.2f}" if sp else "–",
                         "yes" if sp and sp <= SPREAD_TARGET else "**no**",
                         fmt_stat(stats([r.get("cgroup_failcnt") for r in recs])),
                         fmt_stat(stats([r.get("dev_read_MiB") for r in recs])),
                         fmt_stat(stats([r.get("load1") for r in recs]))])
    lines = ["### mmap backend out of core, steady (issue 19 item 4)", "",
             md_table(["kernel", "access", "side", "reps", "MiB/s slowest", "median", "fastest",
                       "median / slowest (target <= 2)", "met", "cgroup failcnt",
                       "device MiB read", "load (1 min)"], rows), "",
             f"mstream `--kind storage --backend mmap --size {OOC_SIZE} --segment "
             f"{OOC_SEGMENT} --iters {OOC_ITERS}` with the final `MPI_Win_sync`, in a "
             f"{human_bytes(OOC_MEMLIMIT)} memory cgroup. before: `MPISW_WRITEBEHIND=off "
             "MPISW_MMAP_ADVICE=hint` (no write-behind, access_style straight to madvise); "
             "after: the defaults (write-behind and drop-behind on, since the window is larger "
             "than a quarter of the cgroup's limit; no MADV_SEQUENTIAL/MADV_RANDOM); after "
             "(A/A): the same again. cgroup failcnt: how often a charge hit the limit "
             "(reclaim ran); see docs/DURABILITY.md \"Write-behind\" for why."]
    note = load_note(mine, "mstream")
    if note:
        lines += ["", note]
    return lines
