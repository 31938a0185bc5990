"""Suite `backends`: storage-window backends (mmap, the reference, and the
user-level pager, docs/PAGER.md) against each other and against fio's
O_DIRECT sequential write, out of core and in the page cache.

  python3 bench/run.py --suite backends --build build/mpich --reps 3
"""

from harness.api import (GiB, OOC_ITERS, OOC_MEMLIMIT, OOC_SEGMENT, OOC_SIZE, OOC_TAG,
                         Step, by_rep, fio_steps, human_bytes, legend_outside, ratio_stats,
                         save_png, stats)

SUITES = {"backends": "storage_backend=mmap vs pager: out of core (2 GiB window in a "
                      "384 MiB cgroup, SEQ and RND) and in the page cache (1 GiB), "
                      "with fio O_DIRECT write as the device's limit"}

BACKENDS = ["mmap", "pager"]
KERNELS = [("SEQ", "sequential"), ("RND", "random")]
INCACHE_SIZE_GIB = 1


def steps(suite):
    """Suite backends; suite full gets the same comparison without what it
    already runs (fio, mmap out of core with the access hints)."""
    if suite not in ("backends", "full"):
        return []
    timeout = 300 if suite == "backends" else 1200
    out = []
    if suite == "backends":
        out += fio_steps(1 * GiB, timeout, tests=["write_direct", "read_cold"])
    for kernel, hint in KERNELS:
        for backend in BACKENDS if suite == "backends" else ["pager"]:
            args = ["--kernel", kernel, "--size", str(OOC_SIZE), "--segment",
                    str(OOC_SEGMENT), "--iters", str(OOC_ITERS), "--kind", "storage",
                    "--access", hint, "--backend", backend]
            label = (f"mstream {kernel} storage {human_bytes(OOC_SIZE)} x{OOC_ITERS} "
                     f"{OOC_TAG} in {human_bytes(OOC_MEMLIMIT)} backend={backend}")
            out.append(Step("mstream", label, args, ranks=1, timeout=timeout,
                            memlimit=OOC_MEMLIMIT,
                            extra={"order": "memory_first", "memlimit": OOC_MEMLIMIT,
                                   "access": hint, "backend": backend}))
    size = INCACHE_SIZE_GIB * GiB
    for kernel, hint in KERNELS:
        for backend in BACKENDS:
            args = ["--kernel", kernel, "--size", str(size), "--segment", str(OOC_SEGMENT),
                    "--iters", "3", "--kind", "storage", "--access", hint,
                    "--backend", backend]
            label = (f"mstream {kernel} storage {human_bytes(size)} x3 in page cache "
                     f"backend={backend}")
            out.append(Step("mstream", label, args, ranks=1, timeout=timeout,
                            extra={"order": "memory_first", "memlimit": None,
                                   "access": hint, "backend": backend}))
    return out


def _bw(runs, backend, kernel, ooc):
    return by_rep(runs, "bw_MiBps", bench="mstream", backend=backend, kernel=kernel, sync=True,
                  kind="storage", access=dict(KERNELS)[kernel],
                  memlimit=OOC_MEMLIMIT if ooc else None,
                  size=OOC_SIZE if ooc else INCACHE_SIZE_GIB * GiB)


def ratios(runs):
    if not any(r.get("bench") == "mstream" and r.get("backend") == "pager" for r in runs):
        return []
    out = []
    direct = by_rep(runs, "MiBps", bench="fio", test="write_direct")
    where = f"{human_bytes(OOC_SIZE)} in {human_bytes(OOC_MEMLIMIT)}"
    for kernel, _ in KERNELS:
        pager = _bw(runs, "pager", kernel, True)
        mmap = _bw(runs, "mmap", kernel, True)
        for name, num, den, what in (
                (f"backends: pager {kernel} / fio O_DIRECT write", pager, direct,
                 "storage_backend=pager"),
                (f"backends: mmap {kernel} / fio O_DIRECT write", mmap, direct,
                 "storage_backend=mmap"),
                (f"backends: pager / mmap {kernel}", pager, mmap, "pager over mmap")):
            s = ratio_stats(num, den)
            if s:
                out.append({"name": name, "which": f"out of core, {where}",
                            "detail": f"mstream {kernel} storage window with sync, {what}, "
                                      f"{where} memory cgroup, bw_MiBps per rep", **s})
    for kernel, _ in KERNELS:
        s = ratio_stats(_bw(runs, "pager", kernel, False), _bw(runs, "mmap", kernel, False))
        if s:
            out.append({"name": f"backends: pager / mmap {kernel} in page cache",
                        "which": f"{INCACHE_SIZE_GIB} GiB, no cgroup",
                        "detail": f"mstream {kernel} storage window with sync, "
                                  f"{INCACHE_SIZE_GIB} GiB, bw_MiBps per rep", **s})
    return out


def plot(suite, summary, runs, out, stamp, plt):
    if suite != "backends":
        return {}
    groups = [(k, True) for k, _ in KERNELS] + [(k, False) for k, _ in KERNELS]
    fig, ax = plt.subplots(figsize=(9.5, 4.8))
    width = 0.38
    for j, (backend, color) in enumerate((("mmap", "tab:blue"), ("pager", "tab:orange"))):
        xs, ys, lo, hi = [], [], [], []
        for i, (kernel, ooc) in enumerate(groups):
            s = stats(list(_bw(runs, backend, kernel, ooc).values()))
            if not s:
                continue
            xs.append(i + (j - 0.5) * width)
            ys.append(s["median"])
            lo.append(s["median"] - s["min"])
            hi.append(s["max"] - s["median"])
        if xs:
            ax.bar(xs, ys, width, yerr=[lo, hi], capsize=3, color=color,
                   label=f"storage_backend={backend}")
    direct = stats(list(by_rep(runs, "MiBps", bench="fio", test="write_direct").values()))
    if direct:
        ax.axhline(direct["median"], color="tab:red", ls="--", label="fio write O_DIRECT")
        ax.axhline(0.9 * direct["median"], color="tab:red", ls=":", label="0.9 × fio O_DIRECT")
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([f"{k}\n" + (f"out of core\n({human_bytes(OOC_SIZE)} in "
                                    f"{human_bytes(OOC_MEMLIMIT)})" if ooc else
                                    f"page cache ({INCACHE_SIZE_GIB} GiB)")
                        for k, ooc in groups], fontsize=8)
    ax.set_ylabel("mstream bandwidth with sync, MiB/s")
    ax.set_title(f"Storage-window backends (median, min–max over reps); {stamp}", fontsize=9)
    legend_outside(ax)
    return save_png(fig, plt, out, suite, "backends")


def readme(doc):
    return []
