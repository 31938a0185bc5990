"""Suite "ckpt": the checkpoint time an application sees, writing its
checkpoint straight to a slow "parallel file system" vs LOCAL + staging
(issue 16's targets: >= 8x lower with staging; the drain's bandwidth >= 0.9 x
the best fio write on the slow file system in the same run, restated by
issue 19 against fio's matrix). bench/ckpt_bench.c.

Run it with --path on the slow file system of tests/tools/slowfs.sh (a loop
device whose write bandwidth the block I/O cgroup caps at a fraction of the
local disk's), as root:

    SLOWFS_SIZE=8G tests/tools/slowfs.sh up bench 0.1
    python3 bench/run.py --suite ckpt --path /var/tmp/mpisw-slowfs-bench/mnt
    tests/tools/slowfs.sh down bench

(8 GiB: fio's limit matrix leaves 3 GiB of files there for the rep's reads;
with cgroup v2, run the driver under `slowfs.sh run bench ...` so every
writer is in the capped cgroup). fio measures that file system in the same
run: the best sequential O_DIRECT write of its quick matrix (psync, libaio and
io_uring; 1 and 16 MiB; 1 and 32 in flight; 1 and 2 jobs: what it gives at
best) and a buffered write + fsync of 1 GiB in 1 MiB blocks (the
application's way).

Each run: 2 ranks, 4 checkpoints of SIZE per rank, each after COMPUTE
seconds of computation that rewrites every byte of the data (so the drain of
the previous version overlaps it). Steps:
  direct     each rank writes its checkpoint to --path itself (write + fsync)
  direct A/A the same again (what noise alone gives)
  engine     LOCAL (write + fsync) on /dev/shm (SCR's default cache) or /tmp
             (the node's disk, here the same device as the slow file system's
             loop file), then the library's drain engine (src/ckpt/stage.c)
             copies it to --path while the application computes
  api        the public API (mpisw_ckpt_*: LOCAL /dev/shm, PFS --path,
             staging on) and api_sync (the same with staging off: PFS
             written before the take returns), when this tree's mpisw.h
             has the API
Ratios per rep: checkpoint time direct / staged (median over the run's
checkpoints), the drain's aggregate bandwidth (both ranks' bytes of a version
/ the time from the first rank's drain start to the last one's end) / the best
fio write (target >= 0.9), and / fio's buffered write + fsync."""

import os

from harness.api import (GiB, MiB, Step, best_limit_bps, best_limit_job, by_rep,
                         fio_steps, fmt_stat, human_bytes, legend_outside, limit_steps,
                         load_note, md_table, ratio_stats, save_png, stats)

SUITES = {"ckpt": "checkpoint time seen by the application: direct write+fsync to --path "
                  "(a slow fs: tests/tools/slowfs.sh) vs LOCAL /dev/shm or /tmp + the drain "
                  "to --path (staging), A/A pair, drain bandwidth vs fio on --path, 2 ranks"}
PROGRAMS = {"ckpt": "ckpt_bench"}
KEY_FIELDS = {"ckpt": ["mode", "local", "aa", "size", "ranks"]}
METRICS = {"ckpt": ["ckpt_s", "drain_GBps", "total_s"]}
PATH_ARG = {"ckpt"}

RANKS = 2
SIZE = 256 * MiB          # per rank: seconds on a slow fs of ~200 MB/s
ITERS = 4
COMPUTE = 3.0             # s between checkpoints: longer than one drain
FIO_SIZE = 1 * GiB
FIO_BS = 1 * MiB
FIO_TESTS = ("write_fsync",)   # the application's way; the limit is the matrix's best
DRAIN_TARGET = 0.9             # of the best fio write
TIMEOUT = 600
LOCALS = ("/dev/shm", "/tmp")


def _has_api():
    """The checkpoint API is in this tree's mpisw.h (the bench is built with it)."""
    h = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "include", "mpisw.h")
    try:
        with open(h) as f:
            return "mpisw_ckpt_create" in f.read()
    except OSError:
        return False


def _args(mode, local, size=SIZE, iters=ITERS, compute=COMPUTE):
    return ["--mode", mode, "--local", local, "--size", str(size), "--iters", str(iters),
            "--compute", str(compute)]


def steps(suite):
    if suite == "smoke":
        return [Step("ckpt", "ckpt engine 4 MiB x2 /tmp", _args("engine", "/tmp", 4 * MiB, 2, 0.1),
                     ranks=RANKS, timeout=120, extra={"local": "/tmp", "aa": False})]
    if suite != "ckpt":
        return []
    out = fio_steps(FIO_SIZE, TIMEOUT, tests=list(FIO_TESTS), bs=FIO_BS) + \
        limit_steps(FIO_SIZE, TIMEOUT, "quick")
    what = f"{human_bytes(SIZE)}/rank x{ITERS}, compute {COMPUTE:g} s, n={RANKS}"
    out.append(Step("ckpt", f"ckpt direct to --path, {what}", _args("direct", "/tmp"),
                    ranks=RANKS, timeout=TIMEOUT, extra={"local": "", "aa": False}))
    for local in LOCALS:
        out.append(Step("ckpt", f"ckpt engine LOCAL {local} + drain to --path, {what}",
                        _args("engine", local), ranks=RANKS, timeout=TIMEOUT,
                        extra={"local": local, "aa": False}))
    if _has_api():
        out.append(Step("ckpt", f"ckpt api LOCAL /dev/shm + staging to --path, {what}",
                        _args("api", "/dev/shm"), ranks=RANKS, timeout=TIMEOUT,
                        extra={"local": "/dev/shm", "aa": False}))
        out.append(Step("ckpt", f"ckpt api_sync LOCAL /dev/shm, staging off, to --path, {what}",
                        _args("api_sync", "/dev/shm"), ranks=RANKS, timeout=TIMEOUT,
                        extra={"local": "/dev/shm", "aa": False}))
    out.append(Step("ckpt", f"ckpt direct to --path (A/A), {what}", _args("direct", "/tmp"),
                    ranks=RANKS, timeout=TIMEOUT, extra={"local": "", "aa": True}))
    return out


# ---- ratios

def _ckpt(runs, mode, local="", aa=False, metric="ckpt_s"):
    return by_rep(runs, metric, bench="ckpt", mode=mode, local=local, aa=aa)


def _fio(runs, test):
    """{rep: bytes/s} of fio's test on --path."""
    return {k: v * MiB for k, v in by_rep(runs, "MiBps", bench="fio", test=test,
                                          bs=FIO_BS).items()}


def _fio_limits(runs):
    """[(name, {rep: bytes/s}, target or None)]: the best write of fio's
    matrix (the device's limit), then each named test."""
    return [(f"best fio write ({best_limit_job(runs, 'write')})", best_limit_bps(runs, "write"),
             DRAIN_TARGET)] + \
        [(f"fio {t}", _fio(runs, t), None) for t in FIO_TESTS]


def _drain(runs, mode, local):
    return {k: v * 1e9 for k, v in _ckpt(runs, mode, local, metric="drain_GBps").items()}


STAGED = [("engine", "/dev/shm"), ("engine", "/tmp"), ("api", "/dev/shm")]   # drains measured


def ratios(runs):
    out = []
    direct = _ckpt(runs, "direct")
    for mode, local in STAGED:
        s = ratio_stats(direct, _ckpt(runs, mode, local))
        if s:
            out.append(dict(name=f"ckpt: direct / staged ({mode}, LOCAL {local})",
                            which=f"{human_bytes(SIZE)}/rank, {RANKS} ranks",
                            detail="checkpoint time seen by the application (median over the "
                                   "run's checkpoints, slowest rank): write+fsync to --path / "
                                   f"LOCAL write+fsync on {local} and submit to the drain; per "
                                   "rep (target >= 8)", **s))
    s = ratio_stats(_ckpt(runs, "direct", aa=True), direct)
    if s:
        out.append(dict(name="ckpt: direct / direct (A/A)", which=f"{human_bytes(SIZE)}/rank",
                        detail="the same step twice: what noise alone gives", **s))
    s = ratio_stats(_ckpt(runs, "api_sync", "/dev/shm"), _ckpt(runs, "api", "/dev/shm"))
    if s:
        out.append(dict(name="ckpt: API staging off / API staging on", which=f"{human_bytes(SIZE)}/rank",
                        detail="mpisw_ckpt_take time with LOCAL /dev/shm, PFS written before it "
                               "returns / drained in the background; per rep", **s))
    for mode, local in STAGED:
        for fio_name, fio, target in _fio_limits(runs):
            s = ratio_stats(_drain(runs, mode, local), fio)
            if s:
                goal = f"; target >= {target}" if target else ""
                out.append(dict(name=f"ckpt: drain bandwidth ({mode}, LOCAL {local}) / "
                                     f"{fio_name.split(' (')[0]}",
                                which=f"{human_bytes(SIZE)}/rank, {RANKS} ranks",
                                detail="median over versions of (both ranks' bytes / first drain "
                                       "start to last drain end, each open to directory fsync) / "
                                       f"{fio_name} on --path in the same rep{goal}",
                                **({"target": target} if target else {}), **s))
    return out


# ---- plots

LABEL = {("direct", "", False): "direct\nwrite+fsync", ("direct", "", True): "direct\n(A/A)",
         ("engine", "/dev/shm", False): "LOCAL /dev/shm\n+ drain",
         ("engine", "/tmp", False): "LOCAL /tmp\n+ drain",
         ("api", "/dev/shm", False): "API, LOCAL\n/dev/shm + staging",
         ("api_sync", "/dev/shm", False): "API, staging off\n(LOCAL + PFS)"}


def plot(suite, summary, runs, out, stamp, plt):
    if suite != "ckpt":
        return {}
    bars = [(lab, stats(list(_ckpt(runs, m, loc, aa).values())))
            for (m, loc, aa), lab in LABEL.items()]
    bars = [(n, s) for n, s in bars if s]
    drains = [(f"drain {m}\n{loc}", stats(list(_drain(runs, m, loc).values()))) for m, loc in STAGED]
    drains += [(n.split(" (")[0].replace("best fio", "fio best"), stats(list(f.values())))
               for n, f, _ in _fio_limits(runs)]
    drains = [(n, s) for n, s in drains if s]
    if not bars:
        return {}
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.2))
    for i, (name, s) in enumerate(bars):
        a1.bar(i, s["median"], color="tab:red" if name.startswith("direct") else "tab:green",
               label=name.replace("\n", " "))
        a1.errorbar(i, s["median"], yerr=[[s["median"] - s["min"]], [s["max"] - s["median"]]],
                    fmt="none", color="black", capsize=4)
    a1.set_xticks(range(len(bars)))
    a1.set_xticklabels([n for n, _ in bars], fontsize=7)
    a1.set_ylabel("checkpoint time seen by the application, s")
    a1.set_title(f"{human_bytes(SIZE)}/rank, {RANKS} ranks", fontsize=9)
    a1.grid(alpha=0.3, axis="y")
    for i, (name, s) in enumerate(drains):
        a2.bar(i, s["median"] / 1e6, color="tab:gray" if name.startswith("fio") else "tab:blue",
               label=name.replace("\n", " "))
        a2.errorbar(i, s["median"] / 1e6, yerr=[[(s["median"] - s["min"]) / 1e6],
                                                [(s["max"] - s["median"]) / 1e6]],
                    fmt="none", color="black", capsize=4)
    a2.set_xticks(range(len(drains)))
    a2.set_xticklabels([n for n, _ in drains], fontsize=7)
    a2.set_ylabel("MB/s on --path (median; bars: min–max)")
    a2.set_title("drain vs fio on the slow file system", fontsize=9)
    a2.grid(alpha=0.3, axis="y")
    fig.suptitle(f"checkpoint: direct to a slow file system vs LOCAL + staging — {stamp}",
                 fontsize=10)
    return save_png(fig, plt, out, suite, "ckpt")


# ---- README

def readme(doc):
    if doc.get("suite") not in ("ckpt",):
        return []
    runs = doc.get("runs", [])
    s = ["### Checkpoints with staging (ckpt)", "",
         f"`bench/ckpt_bench.c`, {RANKS} ranks, {ITERS} checkpoints of {human_bytes(SIZE)} per "
         f"rank, each after {COMPUTE:g} s of computation that rewrites all data. `--path`: "
         f"`{doc.get('path', '?')}` (the slow file system of `tests/tools/slowfs.sh`). "
         "Direct: each rank writes its checkpoint there (write + fsync). Staged: LOCAL "
         "(write + fsync on /dev/shm, SCR's default cache, or /tmp, the node's disk), then "
         "the drain engine copies it to `--path` while the application computes (O_DIRECT, "
         "8 MiB requests, 4 in flight, fdatasync, rename, directory fsync). Checkpoint time: "
         "slowest rank, median over the run's checkpoints; drain: both ranks' bytes of a "
         "version / first drain start to last drain end.", ""]
    load = load_note([r for r in runs if r.get("bench") == "ckpt"], "ckpt_bench")
    if load:
        s += [load, ""]
    rows = []
    for (m, loc, aa), lab in LABEL.items():
        c = stats(list(_ckpt(runs, m, loc, aa).values()))
        if not c:
            continue
        d = stats(list(_drain(runs, m, loc).values())) if m in ("engine", "api") else None
        t = stats(list(_ckpt(runs, m, loc, aa, "total_s").values()))
        rows.append([lab.replace("\n", " "), fmt_stat(c),
                     fmt_stat({k: (v / 1e6 if k != "n" else v) for k, v in d.items()}) if d else "–",
                     fmt_stat(t), c["n"]])
    for name, fio, _ in _fio_limits(runs):
        f = stats(list(fio.values()))
        if f:
            rows.append([f"{name} on --path", "–",
                         fmt_stat({k: (v / 1e6 if k != "n" else v) for k, v in f.items()}), "–",
                         f["n"]])
    if rows:
        s.append(md_table(["what", "checkpoint s", "MB/s to --path", "loop total s", "n"], rows))
        s.append("")
    return s
