"""Suite `backends`: storage-window backends (mmap, the reference, and the
user-level pager, docs/PAGER.md) against each other and against the
device's limit (the best sequential O_DIRECT write of fio's matrix in the
same rep; fio's psync write, one request in flight, as a second column), out
of core and in the page cache; and bench/sstream's two plain streams, for
the default backend (no hint: `auto`, whose choice the record names) and
both backends asked by name: a warm 1 GiB window rewritten whole +
MPI_Win_sync (against the best fio write) and a cold read of a window whose
file is not in the page cache (against the best fio read). Issue 19's
sstream targets are the default's.

  python3 bench/run.py --suite backends --build build/mpich --reps 3
"""

from harness.api import (GiB, OOC_ITERS, OOC_MEMLIMIT, OOC_SEGMENT, OOC_SIZE, OOC_TAG,
                         Step, best_limit_job, best_limit_mibps, best_limit_summary, by_rep, fio_steps,
                         human_bytes, limit_steps, legend_outside, median_and_spread, ratio_stats,
                         save_png, stats)

SUITES = {"backends": "storage_backend=mmap vs pager: out of core (2 GiB window in a "
                      "384 MiB cgroup, SEQ and RND) and in the page cache (1 GiB), "
                      "and sstream's warm rewrite + sync and cold read (1 GiB), against the "
                      "device's limit: the best write (read) of a fio matrix (psync, libaio, "
                      "io_uring; 1 and 16 MiB; 1 and 32 in flight; 1-2 jobs)"}

PROGRAMS = {"sstream": "sstream"}
KEY_FIELDS = {"sstream": ["test", "asked", "backend", "size", "iters"]}
METRICS = {"sstream": ["bw_MiBps", "seconds", "sync_seconds", "bw_min_MiBps", "bw_max_MiBps"]}
PATH_ARG = {"sstream"}

# Targets against the best fio write (issue 19): out of core, with sync.
TARGETS = {"SEQ": 0.8, "RND": 0.5}
# sstream (issue 19): test: (target, the fio direction it is measured against, what)
STREAM_SIZE_GIB = 1
STREAM_ITERS = 3
STREAM_TARGETS = {"rewrite": (0.9, "write", "warm rewrite + MPI_Win_sync"),
                  "coldread": (0.8, "read", "cold sequential read")}

MATRIX = "quick"  # fio's limit matrix (harness/fio.py)
BACKENDS = ["mmap", "pager"]
# sstream's windows: the default (no storage_backend hint), then each by name
STREAM_ASKED = ["default"] + BACKENDS
KERNELS = [("SEQ", "sequential"), ("RND", "random")]
INCACHE_SIZE_GIB = 1


def steps(suite):
    """Suite backends; suite full gets the same comparison without what it
    already runs (fio, mmap out of core with the access hints)."""
    if suite == "smoke":  # sstream once, tiny
        return [Step("sstream", "sstream rewrite+sync, coldread 8 MiB x1 backend=pager",
                     ["--size", str(8 << 20), "--iters", "1", "--backend", "pager"], ranks=1,
                     timeout=60)]
    if suite not in ("backends", "full"):
        return []
    timeout = 300 if suite == "backends" else 1200
    out = []
    if suite == "backends":
        out += fio_steps(1 * GiB, timeout, tests=["write_direct", "read_cold"])
        # the quick matrix (psync, libaio and io_uring at 32 in flight; 1 and
        # 16 MiB; 1 and 2 jobs: where the best jobs were): the full one alone
        # takes ~2.5 min a rep, and the suite must fit in 8 min at 3 reps
        out += limit_steps(1 * GiB, timeout, MATRIX)
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
    if suite == "backends":
        for asked in STREAM_ASKED:
            size = STREAM_SIZE_GIB * GiB
            hint = [] if asked == "default" else ["--backend", asked]
            out.append(Step("sstream", f"sstream rewrite+sync, coldread {human_bytes(size)} "
                                       f"x{STREAM_ITERS} backend={asked}",
                            ["--size", str(size), "--iters", str(STREAM_ITERS)] + hint,
                            ranks=1, timeout=timeout, extra={"asked": asked}))
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


def _stream(runs, asked, test):
    return by_rep(runs, "bw_MiBps", bench="sstream", asked=asked, test=test,
                  size=STREAM_SIZE_GIB * GiB)


def _stream_backend(runs, asked):
    """The backend the windows asked for as `asked` ran on (auto decides)."""
    seen = sorted({r.get("backend") for r in runs
                   if r.get("bench") == "sstream" and r.get("asked") == asked})
    return "/".join(b for b in seen if b) or "?"


def stream_ratios(runs):
    """sstream's medians over the best fio job of the same rep; the target
    is the default backend's (issue 19), the named ones are for comparison."""
    out = []
    for test, (target, rw, what) in STREAM_TARGETS.items():
        best = best_limit_mibps(runs, rw)
        job = best_limit_job(runs, rw)
        for asked in STREAM_ASKED:
            s = ratio_stats(_stream(runs, asked, test), best)
            if not s:
                continue
            if asked == "default":
                how = f"the default backend (auto chose {_stream_backend(runs, asked)})"
                goal = {"target": target}
                tail = f"; target >= {target}"
            else:
                how, goal, tail = f"storage_backend={asked}", {}, " (no target: compare)"
            out.append({"name": f"backends: {asked} {test} / best fio {rw}",
                        "which": f"{STREAM_SIZE_GIB} GiB storage window", "limit": job,
                        **goal,
                        "detail": f"sstream {what}, {how}, {STREAM_SIZE_GIB} GiB, the "
                                  f"median of {STREAM_ITERS} iterations / the best fio {rw} "
                                  f"of the rep ({job}){tail}", **s})
    return out


def ratios(runs):
    out = stream_ratios(runs)
    if not any(r.get("bench") == "mstream" and r.get("backend") == "pager" for r in runs):
        return out
    best = best_limit_mibps(runs, "write")
    job = best_limit_job(runs, "write")
    psync = by_rep(runs, "MiBps", bench="fio", test="write_direct")
    where = f"{human_bytes(OOC_SIZE)} in {human_bytes(OOC_MEMLIMIT)}"
    for kernel, _ in KERNELS:
        pager = _bw(runs, "pager", kernel, True)
        mmap = _bw(runs, "mmap", kernel, True)
        for name, num, what in (
                (f"backends: pager {kernel} / best fio write", pager, "storage_backend=pager"),
                (f"backends: mmap {kernel} / best fio write", mmap, "storage_backend=mmap")):
            s = ratio_stats(num, best)
            if s:
                p = ratio_stats(num, psync)
                target = f"; target >= {TARGETS[kernel]}" if "pager" in name else ""
                out.append({"name": name, "which": f"out of core, {where}", "limit": job,
                            "detail": f"mstream {kernel} storage window with sync, {what}, "
                                      f"{where} memory cgroup, bw_MiBps / the best fio write "
                                      f"of the rep ({job}){target}", **s,
                            **({"psync": p} if p else {})})
        s = ratio_stats(pager, mmap)
        if s:
            out.append({"name": f"backends: pager / mmap {kernel}", "which": f"out of core, {where}",
                        "detail": f"mstream {kernel} storage window with sync, pager over mmap, "
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
        xs, points = [], []
        for i, (kernel, ooc) in enumerate(groups):
            s = stats(list(_bw(runs, backend, kernel, ooc).values()))
            if s:
                xs.append(i + (j - 0.5) * width)
                points.append(s)
        if xs:
            ys, err = median_and_spread(points)
            ax.bar(xs, ys, width, yerr=err, capsize=3, color=color,
                   label=f"storage_backend={backend}")
    best = best_limit_summary(runs, "write")
    if best:
        ax.axhline(best["median"], color="tab:red", ls="-", label=f"best fio write ({best['name']})")
        for kernel, frac in TARGETS.items():
            ax.axhline(frac * best["median"], color="tab:red", ls=":" if kernel == "SEQ" else "-.",
                       label=f"target {kernel} out of core: {frac} × best fio write")
    direct = stats(list(by_rep(runs, "MiBps", bench="fio", test="write_direct").values()))
    if direct:
        ax.axhline(direct["median"], color="tab:gray", ls="--", label="fio write O_DIRECT psync")
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([f"{k}\n" + (f"out of core\n({human_bytes(OOC_SIZE)} in "
                                    f"{human_bytes(OOC_MEMLIMIT)})" if ooc else
                                    f"page cache ({INCACHE_SIZE_GIB} GiB)")
                        for k, ooc in groups], fontsize=8)
    ax.set_ylabel("mstream bandwidth with sync, MiB/s")
    ax.set_title(f"Storage-window backends (median, min–max over reps); {stamp}", fontsize=9)
    legend_outside(ax)
    pngs = save_png(fig, plt, out, suite, "backends")
    pngs.update(plot_streams(suite, runs, out, stamp, plt))
    return pngs


def plot_streams(suite, runs, out, stamp, plt):
    """Each sstream ratio (the default and both backends) against the target."""
    rows = [r for r in stream_ratios(runs)]
    if not rows:
        return {}
    fig, ax = plt.subplots(figsize=(8.5, 4.2))
    colors = {"default": "tab:green", "mmap": "tab:blue", "pager": "tab:orange"}
    tests = list(STREAM_TARGETS)
    width = 0.27
    for j, backend in enumerate(STREAM_ASKED):
        xs, points = [], []
        for i, test in enumerate(tests):
            s = next((r for r in rows if r["name"].startswith(f"backends: {backend} {test} ")), None)
            if s:
                xs.append(i + (j - 1) * width)
                points.append(s)
        if xs:
            name = ("default (auto: " + _stream_backend(runs, backend) + ")"
                    if backend == "default" else f"storage_backend={backend}")
            ys, err = median_and_spread(points)
            ax.bar(xs, ys, width, yerr=err, capsize=3, color=colors[backend], label=name)
    for i, test in enumerate(tests):
        target = STREAM_TARGETS[test][0]
        ax.hlines(target, i - 0.45, i + 0.45, color="tab:red", ls="--",
                  label="target" if i == 0 else None)
    ax.set_xticks(range(len(tests)))
    ax.set_xticklabels([f"{STREAM_TARGETS[t][2]}\n/ best fio {STREAM_TARGETS[t][1]}"
                        for t in tests], fontsize=8)
    ax.set_ylabel("ratio to the device's limit")
    ax.set_title(f"sstream, {STREAM_SIZE_GIB} GiB storage window (median, min–max over reps); "
                 f"{stamp}", fontsize=9)
    legend_outside(ax)
    return save_png(fig, plt, out, suite, "sstream")


def readme(doc):
    return []
