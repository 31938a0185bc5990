"""The file system's own limits, measured by fio on the file system of --path.

Two kinds of fio step:
- named tests (FIO_TESTS): one job each, kept because earlier results and
  some suites compare with them (write_direct, psync with one request in
  flight, is the "psync" second column of every storage ratio);
- the limit matrix (limit_steps): sequential O_DIRECT writes and reads with
  psync, libaio and io_uring, several block sizes, requests in flight and
  jobs. The best write and the best read of a rep are "the device's limit"
  that every storage ratio is computed against (best_limit): one request in
  flight (psync) is not what the device can do.
"""

from .fmt import MiB, human_bytes
from .stats import stats
from .step import Step

FIO_TESTS = {
    # test: (description, fio options)
    "write_fsync": ("sequential write, buffered, fsync at end",
                    ["--rw=write", "--end_fsync=1"]),
    "write_direct": ("sequential write, O_DIRECT, psync (one request in flight)",
                     ["--rw=write", "--direct=1"]),
    "write_qd32": ("sequential write, O_DIRECT, libaio, queue depth 32",
                   ["--rw=write", "--direct=1", "--ioengine=libaio", "--iodepth=32"]),
    "read_cold": ("sequential read, cold page cache",
                  ["--rw=read", "--invalidate=1"]),
}


def command(test, filename, size, bs):
    opts = FIO_TESTS[test][1]
    engine = [] if any(o.startswith("--ioengine=") for o in opts) else ["--ioengine=psync"]
    return ["fio", f"--name=mpisw-{test}", f"--filename={filename}", f"--size={size}",
            f"--bs={bs}"] + engine + ["--output-format=json"] + opts


# What a suite gets without naming tests (the built-in suites).
DEFAULT_TESTS = ("write_fsync", "write_direct", "read_cold")


def fio_steps(fio_size, timeout, tests=None, bs=None):
    """bs: fio's block size (default 16 MiB, at most the size)."""
    shown_bs = f" bs {human_bytes(bs)}" if bs else ""
    bs = bs or min(16 * MiB, fio_size)
    return [Step("fio", f"fio {test} {human_bytes(fio_size)}{shown_bs} ({desc})", fio_test=test,
                 size=fio_size, timeout=timeout, extra={"bs": bs})
            for test, (desc, _) in FIO_TESTS.items() if test in (tests or DEFAULT_TESTS)]


# ---- the limit matrix

# (engine, requests in flight): psync has one by construction.
ENGINES = {"full": [("psync", 1), ("libaio", 8), ("libaio", 32), ("io_uring", 8),
                    ("io_uring", 32)],
           "quick": [("psync", 1), ("libaio", 32), ("io_uring", 32)]}
BLOCKS = {"full": [1 * MiB, 4 * MiB, 16 * MiB], "quick": [1 * MiB, 16 * MiB]}
JOBS = {"full": [1, 2], "quick": [1, 2]}
# Seconds each job runs (looping over its files): a sustained rate, not the
# burst of a queue that holds the whole file (16 MiB x 32 x 2 jobs = 1 GiB).
RUNTIME = {"full": 2, "quick": 1}


def limit_job_name(rw, engine, bs, iodepth, numjobs):
    """How a job of the matrix is named in records, tables and plots."""
    return f"{rw} {engine} bs {human_bytes(bs)} qd{iodepth} x{numjobs}"


def limit_steps(size, timeout, matrix="full"):
    """Steps of the limit matrix: every write job, then every read job (the
    reads reuse the files the writes leave). size: bytes of each job in all
    (split among its numjobs). matrix: "full" (30 jobs each way) or "quick"
    (12)."""
    steps = []
    for rw in ("write", "read"):
        for numjobs in JOBS[matrix]:
            for bs in BLOCKS[matrix]:
                if bs * numjobs > size:
                    continue
                for engine, qd in ENGINES[matrix]:
                    extra = {"rw": rw, "engine": engine, "bs": bs, "iodepth": qd,
                             "numjobs": numjobs, "runtime_s": RUNTIME[matrix]}
                    steps.append(Step("fio", f"fio limit {limit_job_name(rw, engine, bs, qd, numjobs)}"
                                             f" {human_bytes(size)}",
                                      fio_test="limit", size=size, timeout=timeout, extra=extra))
    return steps


def limit_command(directory, size, rw, engine, bs, iodepth, numjobs, runtime_s):
    """One job of the matrix: O_DIRECT, sequential, numjobs processes each on
    its own file of size/numjobs bytes under directory (fio names them
    mpisw-limit-<numjobs>.<job>.0: the reads find the files the writes of
    the same numjobs left), for runtime_s seconds (time based: the files
    again and again). Reported as one group (all jobs' bytes)."""
    per_job = max(bs, (size // numjobs) // bs * bs)
    return ["fio", f"--name=mpisw-limit-{numjobs}", f"--directory={directory}",
            f"--size={per_job}", f"--bs={bs}", f"--ioengine={engine}", f"--iodepth={iodepth}",
            f"--numjobs={numjobs}", f"--rw={rw}", "--direct=1", "--time_based",
            f"--runtime={runtime_s}", "--group_reporting",
            "--output-format=json"]


def best_limit(runs, rw):
    """{rep: (MiBps, job name)} of the best fio job of each rep for rw
    "write" or "read": every job of the limit matrix and the named tests of
    that direction that bypass or drop the page cache (write_direct,
    write_qd32; read_cold), so results from before the matrix still have a
    limit."""
    named = ("write_qd32", "write_direct") if rw == "write" else ("read_cold",)
    best = {}
    for r in runs:
        if r.get("bench") != "fio" or not isinstance(r.get("MiBps"), (int, float)):
            continue
        if r.get("test") == "limit" and r.get("rw") == rw:
            name = limit_job_name(rw, r.get("engine"), r.get("bs"), r.get("iodepth"),
                                  r.get("numjobs"))
        elif r.get("test") in named:
            name = f"{r['test']} ({FIO_TESTS[r['test']][0]})"
        else:
            continue
        if r["rep"] not in best or r["MiBps"] > best[r["rep"]][0]:
            best[r["rep"]] = (r["MiBps"], name)
    return best


def best_limit_mibps(runs, rw):
    """{rep: MiB/s} of best_limit, the denominator of the storage ratios."""
    return {rep: v for rep, (v, _) in best_limit(runs, rw).items()}


def best_limit_bps(runs, rw):
    """best_limit_mibps in bytes/s, for numerators measured in bytes/s."""
    return {rep: v * MiB for rep, v in best_limit_mibps(runs, rw).items()}


def best_limit_job(runs, rw):
    """The name of the fio job that was best most often, "?" without one."""
    return (best_limit_summary(runs, rw) or {}).get("name", "?")


def best_limit_summary(runs, rw):
    """{"name": the job that was best most often, "jobs": {name: reps won},
    min/median/max of the best MiB/s} or None."""
    best = best_limit(runs, rw)
    if not best:
        return None
    won = {}
    for _, name in best.values():
        won[name] = won.get(name, 0) + 1
    top = max(won, key=lambda n: (won[n], n))
    return {"name": top, "jobs": won, **stats([v for v, _ in best.values()])}
