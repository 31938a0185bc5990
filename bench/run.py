#!/usr/bin/env python3
"""Runs the mpisw benchmark suites and reports what this machine measured.

    python3 bench/run.py --suite quick|full|outofcore|smoke|<suite of a bench/suite_*.py>
                         [--build build/mpich]
                         [--path /tmp] [--out build/results] [--reps 3]

One run of a suite:
  * runs the benchmark programs of a build tree (BUILD/bench/mstream,
    rma_bench, membw), MPI ones through the launcher that the build's
    mpisw-build.env names, each configuration --reps times, and keeps every
    JSON line they print, with a "rep" field;
  * measures the machine's own limits in the same run with fio, on the file
    system of --path: sequential write buffered + fsync, sequential write with
    O_DIRECT, sequential read from a cold page cache;
  * out of core (suites full and outofcore): mstream on a 2 GiB storage
    window in a 384 MiB memory cgroup that the driver makes for the run
    (cgroup v1 or v2; root needed, otherwise recorded as skipped), so the
    window cannot stay in the page cache and the device is the limit;
    kernels SEQ and RND, each without and with the matching access hint;
  * writes OUT/<suite>-<UTC time>.json and OUT/latest-<suite>.json (machine
    facts, every run, per-configuration min/median/max), PNG plots
    OUT/<suite>-<bench>.png and OUT/README.md (tables and the ratios the
    project tracks, for the latest run of every suite found in OUT).
    OUT is build/results/ unless given: git ignores it, so a run leaves the
    checkout clean; the project's published figures change only with
    --out results. Paths inside the checkout are recorded relative to it.

A build tree whose programs are missing stops the run before any step, with
the command that builds them. The smoke suite's figures are no measurements
(tiny sizes): it says so.

A program run that fails is recorded with the tail of its stderr and the
suite goes on; the exit status is 1 when anything failed.
Python 3 standard library, plus matplotlib for the plots.
"""

import argparse
import datetime as dt
import json
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30

# Benchmark programs: name of the executable in BUILD/bench.
PROGRAMS = {"mstream": "mstream", "rma": "rma_bench", "membw": "membw"}

# Which fields of a record name its configuration, and which are measurements
# (summarised as min/median/max over the reps).
KEY_FIELDS = {
    "mstream": ["kernel", "kind", "factor", "order", "ranks", "size", "segment",
                "iters", "sync", "target", "access", "memlimit", "backend"],
    "rma": ["op", "kind", "bytes", "ranks"],
    "membw": ["kernel", "size"],
    "fio": ["test", "size", "bs"],
}
METRICS = {
    "mstream": ["bw_MiBps", "bw_nosync_MiBps", "seconds", "sync_seconds", "dev_write_MiB",
                "dev_read_MiB", "cgroup_peak_MiB"],
    "rma": ["usec", "MiBps"],
    "membw": ["GiBps_copied", "GiBps_moved", "best_s"],
    "fio": ["MiBps"],
}

KERNELS = ["SEQ", "PAD", "RND", "MIX"]


# ---------------------------------------------------------------------------
# Suite modules: every bench/suite_<name>.py adds its own suites, programs,
# ratios, plots and README text, so a new benchmark never edits this file.
# A module may define (all optional):
#   SUITES = {"name": "help"}      suites it owns (--suite name)
#   PROGRAMS, KEY_FIELDS, METRICS  merged into the tables above; a PROGRAMS
#                                  value with a "/" is relative to BUILD,
#                                  otherwise to BUILD/bench
#   PATH_ARG = {"bench"}           programs that get --path WORKDIR
#   steps(suite, a, R) -> [Step]   its suites' steps, or extra steps it adds
#                                  to the built-in suites (e.g. to smoke)
#   ratios(runs, R) -> [ratio]     like compute_ratios' entries
#   plot(suite, summary, runs, out, stamp, R, plt) -> {bench: png name}
#   readme(doc, R) -> [markdown lines]
# R is this module (Step, human_bytes, by_rep, stats, md_table, fmt_stat...).

def load_suite_modules():
    import glob
    import importlib.util
    mods = []
    for path in sorted(glob.glob(os.path.join(HERE, "suite_*.py"))):
        name = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(f"mpisw_bench_{name}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        PROGRAMS.update(getattr(mod, "PROGRAMS", {}))
        KEY_FIELDS.update(getattr(mod, "KEY_FIELDS", {}))
        METRICS.update(getattr(mod, "METRICS", {}))
        PATH_ARG.update(getattr(mod, "PATH_ARG", set()))
        mods.append(mod)
    return mods


BUILTIN_SUITES = ["smoke", "quick", "full", "outofcore"]
PATH_ARG = {"mstream", "rma"}
SUITE_MODULES = []     # filled by main()


def this_module():
    return sys.modules[__name__]


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


def repo_path(p):
    """A path as recorded in results: relative to the repository when inside
    it (results are shared; the local checkout's location is nobody's
    business), otherwise as given. Also used on paths recorded by another
    checkout (an absolute .../build/<x>, shown from build/)."""
    if not isinstance(p, str) or not os.path.isabs(p):
        return p
    if p == ROOT or p.startswith(ROOT + os.sep):
        return os.path.relpath(p, ROOT)
    m = re.search(r"(?:^|/)(build(?:-[^/]*)?/.*)$", p)
    return m.group(1) if m else p


def repo_text(text):
    """Text (a command line) with this checkout's location left out."""
    if not isinstance(text, str):
        return text
    return text.replace(ROOT + os.sep, "")


def program_path(build, bench):
    prog = PROGRAMS[bench]
    return os.path.join(build, prog) if "/" in prog else os.path.join(build, "bench", prog)
RMA_OPS = ["put", "get", "accumulate", "get_accumulate", "fetch_and_op", "compare_and_swap"]


def op_rank(op):
    return (RMA_OPS.index(op) if op in RMA_OPS else len(RMA_OPS), str(op))
FIO_TESTS = {
    # test: (description, fio options)
    "write_fsync": ("sequential write, buffered, fsync at end",
                    ["--rw=write", "--end_fsync=1"]),
    "write_direct": ("sequential write, O_DIRECT", ["--rw=write", "--direct=1"]),
    "read_cold": ("sequential read, cold page cache",
                  ["--rw=read", "--invalidate=1"]),
}


def human_bytes(n):
    n = int(n)
    for unit, size in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} B"


def fmt_num(x):
    if x is None:
        return "–"
    ax = abs(x)
    if ax >= 1000:
        return f"{x:,.0f}"
    if ax >= 100:
        return f"{x:.0f}"
    if ax >= 10:
        return f"{x:.1f}"
    if ax >= 1:
        return f"{x:.2f}"
    return f"{x:.3g}"


def fmt_stat(s):
    """'median (min–max)' of a {"min","median","max"} dict."""
    if not s:
        return "–"
    if s["n"] == 1:
        return fmt_num(s["median"])
    return f"{fmt_num(s['median'])} ({fmt_num(s['min'])}–{fmt_num(s['max'])})"


def stats(values):
    values = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if not values:
        return None
    return {"min": min(values), "median": statistics.median(values),
            "max": max(values), "n": len(values)}


def exit_text(rc):
    if rc is None:
        return "not run"
    if rc < 0:
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit {rc}"


def now_utc():
    return dt.datetime.now(dt.timezone.utc)


def say(msg=""):
    print(msg, flush=True)


# ---------------------------------------------------------------------------
# The build tree and its MPI launcher

def read_build_env(build):
    """KEY='value' lines of BUILD/mpisw-build.env (written by the root CMake)."""
    path = os.path.join(build, "mpisw-build.env")
    env = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or "=" not in line:
                continue
            k, v = line.split("=", 1)
            words = shlex.split(v)
            env[k.strip()] = words[0] if words else ""
    return env


class Launcher:
    def __init__(self, build):
        self.build = build
        self.env = read_build_env(build)
        self.flavor = self.env.get("MPISW_MPI_FLAVOR", "unknown")
        self.mpiexec = self.env.get("MPISW_MPIEXEC") or "mpiexec"
        self.preflags = shlex.split(self.env.get("MPISW_MPIEXEC_PREFLAGS", ""))
        # VAR=VALUE words, set in the environment of the launcher.
        self.extra_env = {}
        for word in shlex.split(self.env.get("MPISW_MPIEXEC_ENV", "")):
            if "=" in word:
                k, v = word.split("=", 1)
                self.extra_env[k] = v

    def command(self, exe, args, ranks):
        if ranks <= 0:        # a plain process
            return [exe] + args
        return [self.mpiexec] + self.preflags + ["-n", str(ranks), exe] + args

    def shown(self, cmd):
        """The command as one would type it (launcher environment in front)."""
        pre = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.extra_env.items())
        text = shlex.join(cmd)
        return f"{pre} {text}" if pre and cmd and cmd[0] == self.mpiexec else text


# ---------------------------------------------------------------------------
# Suites

class Step:
    """One configuration: a program run (or one fio test), repeated per rep."""

    def __init__(self, bench, label, args=None, ranks=0, extra=None, timeout=300,
                 fio_test=None, size=None, memlimit=None, prepare=None):
        self.bench = bench
        self.label = label
        self.args = args or []
        self.ranks = ranks
        self.extra = extra or {}      # fields added to records that lack them
        self.timeout = timeout
        self.fio_test = fio_test
        self.size = size
        self.memlimit = memlimit      # bytes: run inside a memory cgroup of this limit
        self.prepare = prepare        # args of a run of the same program before it, outside
                                      # the cgroup (e.g. loading a store), or None


def mstream_kinds(full):
    kinds = [("memory", None, None), ("storage", None, None), ("combined", 0.5, None)]
    if full:
        kinds.append(("combined", 0.5, "storage_first"))
    return kinds


def kind_label(kind, factor, order):
    s = kind if factor is None else f"{kind} {factor:g}"
    return s + (f" {order}" if order else "")


# Out of core: a storage window larger than the memory the process may use
# (a memory cgroup of the driver's), so the page cache cannot hold it and the
# device's bandwidth is the limit. (kernel, matching access_style hint)
OOC_SIZE, OOC_MEMLIMIT, OOC_SEGMENT, OOC_ITERS = 2 * GiB, 384 * MiB, 16 * MiB, 2
OOC_KERNELS = [("SEQ", "sequential"), ("RND", "random")]
OOC_TAG = "out-of-core"


def outofcore_steps(timeout):
    steps = []
    for kernel, hint in OOC_KERNELS:
        for access in (None, hint):
            args = ["--kernel", kernel, "--size", str(OOC_SIZE), "--segment", str(OOC_SEGMENT),
                    "--iters", str(OOC_ITERS), "--kind", "storage"]
            if access:
                args += ["--access", access]
            label = (f"mstream {kernel} storage {human_bytes(OOC_SIZE)} x{OOC_ITERS} n=1 "
                     f"{OOC_TAG} in {human_bytes(OOC_MEMLIMIT)} "
                     + (f"access={access}" if access else "no hint"))
            steps.append(Step("mstream", label, args, ranks=1, timeout=timeout,
                              memlimit=OOC_MEMLIMIT,
                              extra={"order": "memory_first", "memlimit": OOC_MEMLIMIT,
                                     "access": access}))
    return steps


def fio_steps(fio_size, timeout, tests=None):
    bs = min(16 * MiB, fio_size)
    return [Step("fio", f"fio {test} {human_bytes(fio_size)} ({desc})", fio_test=test,
                 size=fio_size, timeout=timeout, extra={"bs": bs})
            for test, (desc, _) in FIO_TESTS.items() if tests is None or test in tests]


def build_suite(name, a):
    """The steps of a suite. a: parsed arguments (path for storage windows)."""
    steps = []
    R = this_module()
    for mod in SUITE_MODULES:
        if name in getattr(mod, "SUITES", {}):
            return mod.steps(name, a, R)
    extra = []
    for mod in SUITE_MODULES:
        if hasattr(mod, "steps"):
            extra += mod.steps(name, a, R) or []
    return build_builtin_suite(name, a) + extra


def build_builtin_suite(name, a):
    steps = []
    if name == "outofcore":
        # Only the out-of-core runs, and the file system limits they are
        # compared with (fio O_DIRECT write for the ratio).
        timeout = 300
        return fio_steps(1 * GiB, timeout) + outofcore_steps(timeout)
    if name == "smoke":
        sizes, segment, iters, kernels, ranks_list = [4 * MiB], 1 * MiB, 2, ["all"], [1]
        rma = dict(ops="put,get,accumulate", min=8, max=64 * KiB, iters=20)
        membw_size, fio_size, timeout, full = 8 * MiB, 8 * MiB, 120, False
    elif name == "quick":
        sizes, segment, iters, kernels, ranks_list = [256 * MiB], 16 * MiB, 3, ["SEQ,RND"], [1]
        rma = dict(ops="put,get,accumulate", min=8, max=4 * MiB, iters=100)
        membw_size, fio_size, timeout, full = 256 * MiB, 256 * MiB, 300, False
    elif name == "full":
        sizes, segment, iters, kernels, ranks_list = [1 * GiB, 2 * GiB], 16 * MiB, 10, ["all"], [1, 2]
        rma = dict(ops="put,get,accumulate,get_accumulate,fetch_and_op,compare_and_swap",
                   min=8, max=4 * MiB, iters=1000)
        membw_size, fio_size, timeout, full = 1 * GiB, 1 * GiB, 1200, True
    else:
        raise SystemExit(f"unknown suite {name}")

    # The machine's limits first: memory copy and the file system.
    steps.append(Step("membw", f"membw {human_bytes(membw_size)}",
                      ["--size", str(membw_size), "--reps", "5" if name != "smoke" else "2"],
                      timeout=timeout))
    steps += fio_steps(fio_size, timeout)

    for ranks in ranks_list:
        for size in sizes:
            for kernel in kernels:
                for kind, factor, order in mstream_kinds(full):
                    args = ["--kernel", kernel, "--size", str(size), "--segment", str(segment),
                            "--iters", str(iters), "--kind", kind]
                    extra = {"order": order or "memory_first"}
                    if factor is not None:
                        args += ["--factor", str(factor)]
                    if order:
                        args += ["--order", order]
                    label = (f"mstream {kernel} {kind_label(kind, factor, order)} "
                             f"{human_bytes(size)} x{iters} n={ranks}")
                    steps.append(Step("mstream", label, args, ranks=ranks, extra=extra,
                                      timeout=timeout))
    if full:
        steps += outofcore_steps(timeout)

    rma_args = ["--ops", rma["ops"], "--min", str(rma["min"]), "--max", str(rma["max"]),
                "--iters", str(rma["iters"]), "--kind", "both"]
    steps.append(Step("rma", f"rma {rma['ops']} memory+storage "
                             f"{human_bytes(rma['min'])}..{human_bytes(rma['max'])}",
                      rma_args, ranks=2, timeout=timeout))
    return steps


# ---------------------------------------------------------------------------
# Running

def tail(text, n=25):
    lines = (text or "").rstrip().splitlines()
    return "\n".join(lines[-n:])


def run_process(cmd, env, timeout, cwd=None):
    """Runs cmd in its own process group; on timeout the whole group goes."""
    t0 = time.monotonic()
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, env=env, cwd=cwd, text=True,
                             errors="replace", start_new_session=True)
    except OSError as e:
        return 127, "", f"cannot start {cmd[0]}: {e}", time.monotonic() - t0, False
    try:
        out, err = p.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_group(p)
        out, err = p.communicate()
    except BaseException:
        kill_group(p)
        p.communicate()
        raise
    return p.returncode, out, err, time.monotonic() - t0, timed_out


def kill_group(p):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            p.wait(timeout=5)
            return
        except subprocess.TimeoutExpired:
            continue


def parse_json_lines(text):
    recs, other = [], 0
    for line in (text or "").splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except ValueError:
                other += 1
                continue
            if isinstance(obj, dict):
                recs.append(obj)
                continue
        other += 1
    return recs, other


# ---------------------------------------------------------------------------
# Memory cgroups (out-of-core runs)

CGROUP_ROOT = "/sys/fs/cgroup"


def memory_cgroup_support():
    """(version, directory new cgroups go into, None), or (None, None, why not)."""
    if os.geteuid() != 0:
        return None, None, ("needs root: the run goes into a memory cgroup that the driver "
                            "makes (run the driver as root)")
    v2 = os.path.join(CGROUP_ROOT, "cgroup.controllers")
    if os.path.isfile(v2):
        try:
            with open(v2) as f:
                controllers = f.read().split()
        except OSError as e:
            return None, None, f"cannot read {v2}: {e}"
        if "memory" in controllers:
            return "v2", CGROUP_ROOT, None
        return None, None, (f"cgroup v2 without the memory controller ({v2} lists "
                            f"{' '.join(controllers) or 'nothing'})")
    v1 = os.path.join(CGROUP_ROOT, "memory")
    if os.path.isfile(os.path.join(v1, "memory.limit_in_bytes")):
        return "v1", v1, None
    return None, None, (f"no memory cgroup controller (neither {v2} listing memory nor "
                        f"{v1}/memory.limit_in_bytes)")


class MemoryCgroup:
    """A memory cgroup of its own for one program run; remove() always after."""

    def __init__(self, version, base, name, limit):
        self.version = version
        self.path = os.path.join(base, name)
        self.limit = limit
        self.limit_file = "memory.limit_in_bytes" if version == "v1" else "memory.max"
        self.procs_file = os.path.join(self.path, "cgroup.procs")
        self.made = False

    def create(self):
        """None, or why the cgroup cannot be had (the directory is gone again then)."""
        try:
            os.mkdir(self.path)
        except OSError as e:
            return f"cannot make the memory cgroup {self.path}: {e.strerror}"
        self.made = True
        limit_path = os.path.join(self.path, self.limit_file)
        if not os.path.exists(limit_path):
            why = f"{limit_path} does not exist"
            if self.version == "v2":
                why += (" (the memory controller is not enabled for the children of "
                        f"{os.path.dirname(self.path)}: cgroup.subtree_control)")
            self.remove()
            return why
        try:
            with open(limit_path, "w") as f:
                f.write(str(self.limit))
        except OSError as e:
            self.remove()
            return f"cannot write {self.limit} to {limit_path}: {e.strerror}"
        return None

    def wrap(self, cmd):
        """cmd, started by a shell that first moves itself into this cgroup."""
        script = (f"echo $$ > {shlex.quote(self.procs_file)} || "
                  f"{{ echo 'cannot join the memory cgroup' >&2; exit 125; }}; exec \"$@\"")
        return ["sh", "-c", script, "sh"] + cmd

    def _read(self, name):
        try:
            with open(os.path.join(self.path, name)) as f:
                return f.read()
        except OSError:
            return None

    def facts(self):
        """Peak memory use (bytes) and how often the limit was hit, where the kernel says."""
        out = {}
        peak = self._read("memory.max_usage_in_bytes" if self.version == "v1" else "memory.peak")
        if peak and peak.strip().isdigit():
            out["cgroup_peak_bytes"] = int(peak)
        if self.version == "v1":
            fc = self._read("memory.failcnt")
            if fc and fc.strip().isdigit():
                out["cgroup_failcnt"] = int(fc)
        else:
            for line in (self._read("memory.events") or "").splitlines():
                k, _, v = line.partition(" ")
                if k in ("max", "oom_kill") and v.strip().isdigit():
                    out[f"cgroup_events_{k}"] = int(v)
        return out

    def procs(self):
        return [int(x) for x in (self._read("cgroup.procs") or "").split() if x.isdigit()]

    def remove(self):
        """Removes the cgroup; processes still in it (ours: only our runs get in)
        are killed by pid first. None, or why it could not be removed."""
        if not self.made:
            return None
        why = None
        deadline = time.monotonic() + 15
        while True:
            for pid in self.procs():
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            try:
                os.rmdir(self.path)
                self.made = False
                return None
            except FileNotFoundError:
                self.made = False
                return None
            except OSError as e:
                why = f"cannot remove {self.path}: {e.strerror}"
            if time.monotonic() > deadline:
                return why
            time.sleep(0.2)


def _raise_terminated(signum, _frame):
    raise KeyboardInterrupt(f"signal {signum}")


class Runner:
    def __init__(self, a, launcher, workdir, fiodir):
        self.a = a
        self.launcher = launcher
        self.workdir = workdir     # where storage windows go (fresh, removed at the end)
        self.fiodir = fiodir       # fio's files (fresh, removed at the end)
        self.runs = []
        self.failures = []
        self.skipped = []
        self.commands = {}         # step label -> command as typed
        self.cgroup_support = None # (version, base, why not), found at first need
        self.cgroups_made = 0

    def env(self):
        env = dict(os.environ)
        env.update(self.launcher.extra_env)
        return env

    def run_step(self, step, rep):
        """Returns (ok, short note)."""
        if step.bench == "fio":
            return self.run_fio(step, rep)
        exe = program_path(self.a.build, step.bench)
        args = list(step.args)
        if step.bench in PATH_ARG:
            args += ["--path", self.workdir]
        cmd = self.launcher.command(exe, args, step.ranks)
        self.commands[step.label] = self.launcher.shown(cmd)
        if step.memlimit:
            self.commands[step.label] = (f"(in a memory cgroup of the driver's, limit "
                                         f"{step.memlimit} bytes) " + self.commands[step.label])
        if not os.access(exe, os.X_OK):
            return self.fail(step, rep, cmd, None, f"{exe} is not built "
                             f"(cmake --build {self.a.build})", 0.0)
        if step.prepare:
            pre = self.launcher.command(exe, list(step.prepare) + (
                ["--path", self.workdir] if step.bench in PATH_ARG else []), step.ranks)
            self.commands[step.label] = (self.launcher.shown(pre) + " && "
                                         + self.commands[step.label])
            rc, out, err, secs, timed_out = run_process(pre, self.env(), step.timeout)
            if rc != 0 or timed_out:
                return self.fail(step, rep, pre, rc, ("timed out; " if timed_out else "")
                                 + tail(err, 10), secs, out)
        cgroup_facts, left = {}, None
        if step.memlimit:
            if self.cgroup_support is None:
                self.cgroup_support = memory_cgroup_support()
            version, base, why = self.cgroup_support
            if why:
                return self.skip(step, rep, why)
            self.cgroups_made += 1
            cg = MemoryCgroup(version, base, f"mpisw-bench-{os.getpid()}-{self.cgroups_made}",
                              step.memlimit)
            # The cgroup goes whatever happens, also when the driver is told to stop.
            old = {sig: signal.signal(sig, _raise_terminated)
                   for sig in (signal.SIGTERM, signal.SIGHUP)}
            try:
                why = cg.create()
                if why:
                    return self.skip(step, rep, why)
                rc, out, err, secs, timed_out = run_process(cg.wrap(cmd), self.env(),
                                                            step.timeout)
                cgroup_facts = cg.facts()
            finally:
                left = cg.remove()
                for sig, handler in old.items():
                    signal.signal(sig, handler)
            cgroup_facts["cgroup"] = version
            if left:
                self.fail(step, rep, None, None, left, 0.0)
        else:
            rc, out, err, secs, timed_out = run_process(cmd, self.env(), step.timeout)
        recs, _ = parse_json_lines(out)
        for r in recs:
            for k, v in step.extra.items():
                r.setdefault(k, v)
            for k, v in cgroup_facts.items():
                r.setdefault(k, v)
            if isinstance(r.get("dev_write_bytes"), (int, float)):
                r["dev_write_MiB"] = r["dev_write_bytes"] / MiB
            if isinstance(r.get("dev_read_bytes"), (int, float)):
                r["dev_read_MiB"] = r["dev_read_bytes"] / MiB
            if isinstance(r.get("cgroup_peak_bytes"), (int, float)):
                r["cgroup_peak_MiB"] = r["cgroup_peak_bytes"] / MiB
            r["rep"] = rep
            r["step"] = step.label
        self.runs.extend(recs)
        if timed_out:
            return self.fail(step, rep, cmd, rc, f"timed out after {step.timeout} s\n"
                             + tail(err), secs, stdout=out)
        if rc != 0:
            return self.fail(step, rep, cmd, rc, tail(err), secs, stdout=out)
        if not recs:
            return self.fail(step, rep, cmd, rc, "printed no JSON line\n" + tail(err),
                             secs, stdout=out)
        if left:
            return False, f"FAILED (cgroup left behind) {left}"
        note = f"ok {secs:.1f} s, {len(recs)} line{'s' * (len(recs) != 1)}"
        if step.memlimit and "cgroup_peak_bytes" in cgroup_facts:
            note += (f", cgroup {cgroup_facts['cgroup']} peak "
                     f"{cgroup_facts['cgroup_peak_bytes'] / MiB:.0f} MiB")
        return True, note

    def skip(self, step, rep, why):
        """A configuration this machine (or this user) cannot run: not a failure."""
        self.skipped.append({"step": step.label, "rep": rep, "why": why})
        return True, f"skipped: {why}"

    def fail(self, step, rep, cmd, rc, why, secs, stdout=""):
        shown = repo_text(self.launcher.shown(cmd)) if cmd else None
        if shown and step.memlimit:
            shown = f"(in a memory cgroup of the driver's, limit {step.memlimit} bytes) " + shown
        self.failures.append({"step": step.label, "bench": step.bench, "rep": rep,
                              "command": shown,
                              "returncode": rc, "seconds": round(secs, 3),
                              "stderr_tail": why, "stdout_tail": tail(stdout, 10)})
        first = (why or "").strip().splitlines()
        status = "timed out" if (why or "").startswith("timed out") else exit_text(rc)
        return False, f"FAILED ({status}) " + \
            (first[-1][:120] if first else "")

    # fio: the machine's limits on the file system of --path.
    def fio_cmd(self, test, filename, size, bs):
        return ["fio", f"--name=mpisw-{test}", f"--filename={filename}", f"--size={size}",
                f"--bs={bs}", "--ioengine=psync", "--output-format=json"] + FIO_TESTS[test][1]

    def run_fio(self, step, rep):
        test, size, bs = step.fio_test, step.size, step.extra["bs"]
        f = os.path.join(self.fiodir, "limit.dat")
        if test in ("write_fsync", "write_direct") and os.path.exists(f):
            os.unlink(f)      # every write test writes a new file
        if test == "read_cold" and (not os.path.exists(f) or os.path.getsize(f) < size):
            # The file to read: written (buffered, fsync) when no write left one.
            prep = self.fio_cmd("write_fsync", f, size, bs)
            rc, out, err, secs, _ = run_process(prep, self.env(), step.timeout)
            if rc != 0:
                return self.fail(step, rep, prep, rc, "writing the file to read failed\n"
                                 + tail(err or out), secs)
        cmd = self.fio_cmd(test, f, size, bs)
        self.commands[step.label] = shlex.join(cmd).replace(self.fiodir, "DIR")
        rc, out, err, secs, timed_out = run_process(cmd, self.env(), step.timeout)
        if test == "read_cold" and os.path.exists(f):
            os.unlink(f)
        rec, why = None, None
        if timed_out:
            why = f"timed out after {step.timeout} s"
        elif rc != 0:
            why = tail(err or out)
        else:
            try:
                j = json.loads(out[out.index("{"):])
                job = j["jobs"][0]
                if job.get("error"):
                    why = f"fio job error {job['error']}\n" + tail(err)
                else:
                    d = job["read" if test == "read_cold" else "write"]
                    rec = {"bench": "fio", "test": test, "size": size, "bs": bs,
                           "MiBps": d["bw_bytes"] / MiB, "runtime_ms": d["runtime"],
                           "io_bytes": d["io_bytes"], "fio_version": j.get("fio version"),
                           "options": FIO_TESTS[test][1], "rep": rep, "step": step.label}
            except (ValueError, KeyError, IndexError) as e:
                why = f"cannot read fio's JSON output: {e}\n" + tail(err)
        if rec:
            self.runs.append(rec)
            return True, f"ok {secs:.1f} s, {rec['MiBps']:.0f} MiB/s"
        if test == "write_direct" and "Invalid argument" in (why or "") + (err or ""):
            # A file system without O_DIRECT (tmpfs): no such limit here.
            self.skipped.append({"step": step.label, "rep": rep,
                                 "why": "O_DIRECT not supported on this file system"})
            return True, "skipped: O_DIRECT not supported by this file system"
        return self.fail(step, rep, cmd, rc, why, secs, stdout=out)


# ---------------------------------------------------------------------------
# Machine facts

def sh(cmd, timeout=20):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, text=True, timeout=timeout,
                           errors="replace")
        return p.stdout.strip() if p.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def mount_of(path):
    """(fstype, source, target, options) of the file system holding path."""
    out = sh(["findmnt", "-J", "-T", path, "-o", "TARGET,SOURCE,FSTYPE,OPTIONS"])
    if out:
        try:
            fsys = json.loads(out)["filesystems"][0]
            return fsys.get("fstype"), fsys.get("source"), fsys.get("target"), fsys.get("options")
        except (ValueError, KeyError, IndexError):
            pass
    best = None   # longest mount point that is a prefix of path (/proc/self/mounts)
    real = os.path.realpath(path)
    try:
        with open("/proc/self/mounts") as f:
            for line in f:
                src, tgt, fstype, opts = line.split()[:4]
                tgt = tgt.replace("\\040", " ")
                if real == tgt or real.startswith(tgt.rstrip("/") + "/"):
                    if best is None or len(tgt) >= len(best[2]):
                        best = (fstype, src, tgt, opts)
    except OSError:
        pass
    return best or (None, None, None, None)


def device_info(source):
    info = {}
    if not source or not source.startswith("/dev/"):
        return info
    name = os.path.basename(os.path.realpath(source))
    sysdir = f"/sys/class/block/{name}"
    if os.path.exists(os.path.join(sysdir, "partition")):
        sysdir = os.path.dirname(os.path.realpath(sysdir))
    for key, rel in (("model", "device/model"), ("rotational", "queue/rotational"),
                     ("scheduler", "queue/scheduler"), ("sectors", "size"),
                     ("read_ahead_kb", "queue/read_ahead_kb")):
        try:
            with open(os.path.join(sysdir, rel)) as f:
                info[key] = f.read().strip()
        except OSError:
            pass
    if "sectors" in info:
        info["size_bytes"] = int(info.pop("sectors")) * 512
    return info


def machine_facts(a, launcher):
    m = {"kernel": platform.release(), "hostname": platform.node()}
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    m["os"] = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    try:
        with open("/proc/cpuinfo") as f:
            models = [l.split(":", 1)[1].strip() for l in f if l.startswith("model name")]
        m["cpu"] = models[0] if models else platform.processor() or None
    except OSError:
        m["cpu"] = None
    m["cores"] = os.cpu_count()
    try:
        m["cores_usable"] = len(os.sched_getaffinity(0))
    except AttributeError:
        pass
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    m["memory_bytes"] = int(line.split()[1]) * 1024
    except OSError:
        pass
    fstype, source, target, opts = mount_of(a.path)
    m["path"] = a.path
    m["fs"] = fstype
    m["mount"] = target
    m["mount_options"] = opts
    m["device"] = source
    m["device_info"] = device_info(source)
    m["mpi_flavor"] = launcher.flavor
    m["mpi_launcher"] = launcher.mpiexec
    if launcher.flavor == "mpich":
        v = sh(["mpichversion"])
        m["mpi_version"] = (" ".join(v.split("\n")[0].split()[2:]) if v else None)
        m["mpi_version_full"] = v
    elif launcher.flavor == "openmpi":
        v = sh(["ompi_info", "--version"])
        m["mpi_version"] = v.split("\n")[0].replace("Open MPI v", "") if v else None
    if not m.get("mpi_version"):
        v = sh([launcher.mpiexec, "--version"])
        m["mpi_version"] = v.split("\n")[0] if v else None
    v = sh(["fio", "--version"])
    m["fio_version"] = v
    m["python"] = platform.python_version()
    try:
        import matplotlib
        m["matplotlib"] = matplotlib.__version__
    except ImportError:
        m["matplotlib"] = None
    commit = sh(["git", "-C", ROOT, "rev-parse", "HEAD"])
    if commit:
        dirty = sh(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"])
        commit += "-dirty" if dirty else ""
    m["git_commit"] = commit
    m["build"] = a.build
    return m


# ---------------------------------------------------------------------------
# Summary and ratios

def config_key(rec):
    bench = rec.get("bench", "?")
    fields = KEY_FIELDS.get(bench)
    if fields is None:   # unknown bench: every non-measurement scalar
        fields = sorted(k for k, v in rec.items()
                        if k not in ("rep", "step") and isinstance(v, (str, bool)))
    return (bench,) + tuple((f, rec.get(f)) for f in fields if f in rec)


def config_label(key):
    bench, fields = key[0], dict(key[1:])
    if bench == "mstream":
        kind = fields.get("kind")
        s = f"mstream {fields.get('kernel')} {kind}"
        if kind == "combined":
            s += f" {fields.get('factor'):g}" if isinstance(fields.get("factor"), (int, float)) else ""
            s += f" {fields.get('order')}"
        s += f" {human_bytes(fields.get('size', 0))} n={fields.get('ranks')}"
        s += f" x{fields.get('iters')}" + ("" if fields.get("sync", True) else " nosync")
        if fields.get("access"):
            s += f" access={fields['access']}"
        if fields.get("backend") not in (None, "mmap"):
            s += f" backend={fields['backend']}"
        if fields.get("memlimit"):
            s += f" {OOC_TAG} in {human_bytes(fields['memlimit'])}"
        return s
    if bench == "rma":
        return f"rma {fields.get('op')} {fields.get('kind')} {human_bytes(fields.get('bytes', 0))}"
    if bench == "membw":
        return f"membw {fields.get('kernel')} {human_bytes(fields.get('size', 0))}"
    if bench == "fio":
        return f"fio {fields.get('test')} {human_bytes(fields.get('size', 0))}"
    return " ".join([bench] + [f"{k}={v}" for k, v in fields.items()])


def summarise(runs):
    groups = {}
    for r in runs:
        groups.setdefault(config_key(r), []).append(r)
    out = []
    for key, recs in groups.items():
        bench = key[0]
        metrics = {}
        for m in METRICS.get(bench, []):
            s = stats([r.get(m) for r in recs])
            if s:
                metrics[m] = s
        out.append({"config": config_label(key), "bench": bench, "fields": dict(key[1:]),
                    "reps": sorted({r.get("rep") for r in recs}), "metrics": metrics})
    return out


def by_rep(runs, metric, **match):
    """{rep: value} of the records whose fields match."""
    d = {}
    for r in runs:
        if all(r.get(k) == v for k, v in match.items()) and isinstance(r.get(metric), (int, float)):
            d.setdefault(r["rep"], r[metric])
    return d


def ratio_values(num, den):
    """num / den per rep (the same rep of both), where den is non-zero."""
    return [num[k] / den[k] for k in num if k in den and den[k]]


def fmt_ratio(x):
    """Three decimals, or three significant digits for ratios below 0.001."""
    return f"{x:.3f}" if abs(x) >= 0.001 or x == 0 else f"{x:.3g}"


def ratio_stats(num, den):
    return stats(ratio_values(num, den))


def compute_ratios(runs):
    """The ratios the project tracks, each as min/median/max over reps."""
    ratios = []
    direct = by_rep(runs, "MiBps", bench="fio", test="write_direct")
    memcpy = {k: v * 1024 for k, v in
              by_rep(runs, "GiBps_copied", bench="membw", kernel="memcpy").items()}
    ms = sorted({(r.get("ranks"), r.get("size")) for r in runs if r.get("bench") == "mstream"
                 and r.get("memlimit") is None},
                key=lambda t: (t[0] or 0, t[1] or 0))
    for ranks, size in ms:
        # In-memory runs only: no memory cgroup, no access hint.
        base = dict(bench="mstream", kernel="SEQ", ranks=ranks, size=size, memlimit=None,
                    access=None)
        st = by_rep(runs, "bw_MiBps", kind="storage", sync=True, **base)
        s = ratio_stats(st, direct)
        if s:
            ratios.append({"name": "storage SEQ / fio O_DIRECT write",
                           "which": f"{human_bytes(size)}, {ranks} rank(s)",
                           "detail": f"mstream SEQ storage window (with sync), "
                                     f"{human_bytes(size)}, {ranks} rank(s), bw_MiBps / "
                                     f"fio sequential write O_DIRECT MiB/s", **s})
        mem = by_rep(runs, "bw_MiBps", kind="memory", **base)
        s = ratio_stats(mem, memcpy)
        if s:
            ratios.append({"name": "memory SEQ / memcpy",
                           "which": f"{human_bytes(size)}, {ranks} rank(s)",
                           "detail": f"mstream SEQ memory window, {human_bytes(size)}, "
                                     f"{ranks} rank(s), bw_MiBps / membw memcpy GiBps_copied "
                                     f"(bytes copied, counted once) x 1024", **s})
    # Out of core: the window does not fit the memory cgroup, the device is the limit.
    ooc = sorted({(r.get("ranks"), r.get("size"), r.get("memlimit"), r.get("access"))
                  for r in runs if r.get("bench") == "mstream" and r.get("memlimit")
                  and r.get("kernel") == "SEQ" and r.get("kind") == "storage"},
                 key=lambda t: (t[0] or 0, t[1] or 0, t[2] or 0, t[3] or ""))
    for ranks, size, memlimit, access in ooc:
        st = by_rep(runs, "bw_MiBps", bench="mstream", kernel="SEQ", kind="storage", sync=True,
                    ranks=ranks, size=size, memlimit=memlimit, access=access)
        s = ratio_stats(st, direct)
        if s:
            hint = f"access={access}" if access else "no access hint"
            ratios.append({"name": "out-of-core storage SEQ"
                                   + (f" (access={access})" if access else "")
                                   + " / fio O_DIRECT write",
                           "which": f"{human_bytes(size)} in {human_bytes(memlimit)}, "
                                    f"{ranks} rank(s), {hint}",
                           "detail": f"mstream SEQ storage window (with sync), "
                                     f"{human_bytes(size)}, {ranks} rank(s), in a "
                                     f"{human_bytes(memlimit)} memory cgroup, {hint}, "
                                     f"bw_MiBps / fio sequential write O_DIRECT MiB/s",
                           "memlimit": memlimit, "access": access, **s})
    ops = sorted({r.get("op") for r in runs if r.get("bench") == "rma"}, key=op_rank)
    for op in ops:
        sizes = sorted({r["bytes"] for r in runs if r.get("bench") == "rma"
                        and r.get("op") == op and r.get("bytes", 0) >= 64 * KiB})
        allv = []
        rows = []
        for b in sizes:
            st = by_rep(runs, "MiBps", bench="rma", op=op, kind="storage", bytes=b)
            mem = by_rep(runs, "MiBps", bench="rma", op=op, kind="memory", bytes=b)
            vals = ratio_values(st, mem)
            allv += vals
            s = stats(vals)
            if s:
                rows.append({"name": f"RMA {op} storage / memory",
                             "detail": f"rma_bench {op} MiBps, {human_bytes(b)}",
                             "bytes": b, **s})
        s = stats(allv)
        if s:
            ratios.append({"name": f"RMA {op} storage / memory", "which": ">= 64 KiB",
                           "detail": f"rma_bench {op} MiBps, every size from 64 KiB up "
                                     f"({len(sizes)} sizes x reps)", "bytes": "all>=64KiB", **s})
            ratios.extend(rows)
    for mod in SUITE_MODULES:
        if hasattr(mod, "ratios"):
            ratios += mod.ratios(runs, this_module()) or []
    return ratios


def limits(runs):
    """Horizontal lines for the mstream plot, MiB/s (medians over reps)."""
    out = []
    memcpy = stats([r["GiBps_copied"] * 1024 for r in runs
                    if r.get("bench") == "membw" and r.get("kernel") == "memcpy"
                    and isinstance(r.get("GiBps_copied"), (int, float))])
    if memcpy:
        out.append(("memcpy (membw, bytes copied)", memcpy["median"], "tab:gray", "-"))
    for test, label, color, style in (("write_direct", "fio write O_DIRECT", "tab:red", "--"),
                                      ("write_fsync", "fio write buffered+fsync", "tab:purple", "-."),
                                      ("read_cold", "fio read cold", "tab:brown", ":")):
        s = stats([r["MiBps"] for r in runs if r.get("bench") == "fio" and r.get("test") == test])
        if s:
            out.append((label, s["median"], color, style))
    return out


# ---------------------------------------------------------------------------
# Plots

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
                    xs = [p[0] for p in pts]
                    ys = [p[1]["median"] for p in pts]
                    lo = [p[1]["median"] - p[1]["min"] for p in pts]
                    hi = [p[1]["max"] - p[1]["median"] for p in pts]
                    ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", markersize=3, capsize=2,
                                color=color, label=f"{kind} window")
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
        fig, ax = plt.subplots(figsize=(6.5, 4.2))
        names = [s["fields"].get(xkey) for s in rows]
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
        ax.set_xticklabels([str(n) for n in names])
        ax.set_ylabel(f"{ylabel} (median; bars: min–max)")
        ax.grid(axis="y", alpha=0.3)
        legend_outside(ax)
        size = rows[0]["fields"].get("size")
        what = ("memory bandwidth (membw)" if bench == "membw"
                else "file system limits (fio, bs 16 MiB, psync)")
        ax.set_title(f"{what}, {human_bytes(size or 0)} ({title_tail})", fontsize=9)
        fig.tight_layout()
        save(fig, bench)
    for mod in SUITE_MODULES:
        if hasattr(mod, "plot"):
            pngs.update(mod.plot(suite, summary, runs, out, title_tail, this_module(), plt) or {})
    return pngs


# ---------------------------------------------------------------------------
# README

SUITE_ORDER = ["full", "quick", "outofcore", "smoke"]
# Untracked by default (build/ is in .gitignore): a user's run must not dirty
# the checkout; the project's published results/ change only when asked.
DEFAULT_OUT = os.path.join(ROOT, "build", "results")
SMOKE_NOTE = ("smoke suite: tiny sizes that check the programs and this driver; "
              "its numbers and ratios are not measurements")


def md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(lines)


def readme_section(doc):
    m = doc["machine"]
    s = []
    started = doc["started"]
    s.append(f"## `{doc['suite']}` suite — {started[:10]} {started[11:16]} UTC")
    s.append("")
    s.append(f"Measured on this machine on {started[:10]}, by:")
    s.append("")
    s.append("```sh\n" + repo_text(doc["command"]) + "\n```")
    s.append("")
    dur = doc.get("duration_s")
    s.append(f"Build `{repo_path(doc['build'])}`"
             f" ({m.get('mpi_flavor')}), {doc['reps']} rep(s) per configuration"
             + (f", {dur:.0f} s in all" if dur is not None else "")
             + f". Data: [`{doc['file']}`]({doc['file']}).")
    s.append("")
    fails = doc.get("failures", [])
    if fails:
        s.append(f"**{len(fails)} program run(s) failed** — their figures are missing below:")
        s.append("")
        for f in fails:
            last = (f.get("stderr_tail") or "").strip().splitlines()
            s.append(f"- {f['step']} (rep {f['rep']}): {exit_text(f.get('returncode'))}: "
                     f"`{last[-1][:160] if last else ''}`")
        s.append("")
    for sk in doc.get("skipped", []):
        s.append(f"- skipped: {sk['step']} (rep {sk['rep']}): {sk['why']}")
    if doc.get("skipped"):
        s.append("")

    mem = m.get("memory_bytes")
    dev = m.get("device") or "?"
    di = m.get("device_info") or {}
    devs = ", ".join(f"{k} {v}" for k, v in di.items()
                     if k in ("model", "rotational", "read_ahead_kb"))
    s.append("### Machine")
    s.append("")
    s.append(md_table(["what", "value"], [
        ["CPU", f"{m.get('cpu')} — {m.get('cores')} cores"],
        ["memory", f"{mem / GiB:.1f} GiB" if mem else "?"],
        ["kernel / OS", f"{m.get('kernel')} / {m.get('os', '?')}"],
        ["--path", f"`{m.get('path')}`: {m.get('fs')} on {dev}"
                   + (f" ({devs})" if devs else "") + f", mounted at `{m.get('mount')}`"],
        ["MPI", f"{m.get('mpi_flavor')} {m.get('mpi_version')} (`{m.get('mpi_launcher')}`)"],
        ["fio", m.get("fio_version")],
        ["Python / matplotlib", f"{m.get('python')} / {m.get('matplotlib')}"],
        ["mpisw commit", f"`{m.get('git_commit')}`"],
    ]))
    s.append("")

    ratios = doc.get("ratios", [])
    if ratios:
        s.append("### Ratios the project tracks (min / median / max over reps)")
        s.append("")
        rows = []
        for r in ratios:
            per_size_rma = isinstance(r.get("bytes"), int) and r["name"].startswith("RMA ")
            if per_size_rma:   # in the per-size table below
                continue
            name = r["name"] + (f" ({human_bytes(r['bytes'])})"
                                if isinstance(r.get("bytes"), int) else "")
            rows.append([name, fmt_ratio(r['min']), f"**{fmt_ratio(r['median'])}**",
                         fmt_ratio(r['max']), r["detail"]])
        s.append(md_table(["ratio", "min", "median", "max", "what is divided"], rows))
        # Per-size rows of the built-in RMA ratios; suite modules' per-size
        # rows appear in their own README sections.
        rma_rows = [r for r in ratios if isinstance(r.get("bytes"), int)
                    and r["name"].startswith("RMA ")]
        if rma_rows:
            s.append("")
            s.append("RMA storage / memory bandwidth per size:")
            s.append("")
            s.append(md_table(["op", "size", "min", "median", "max"],
                              [[r["name"].split()[1], human_bytes(r["bytes"]), f"{r['min']:.3f}",
                                f"{r['median']:.3f}", f"{r['max']:.3f}"] for r in rma_rows]))
        s.append("")

    summary = doc.get("summary", [])
    cell = "median (min–max)"
    lim = [x for x in summary if x["bench"] in ("membw", "fio")]
    if lim:
        s.append(f"### Limits of this machine ({cell})")
        s.append("")
        rows = []
        for x in lim:
            f = x["fields"]
            if x["bench"] == "membw":
                cp = x["metrics"].get("GiBps_copied")
                rows.append([f"membw {f.get('kernel')}", human_bytes(f.get("size", 0)),
                             (fmt_stat(cp) + " GiB/s copied") if cp else "–",
                             fmt_stat(x["metrics"].get("GiBps_moved")) + " GiB/s moved"])
            else:
                rows.append([f"fio {f.get('test')}: {FIO_TESTS.get(f.get('test'), ('?',))[0]}",
                             human_bytes(f.get("size", 0)),
                             fmt_stat(x["metrics"].get("MiBps")) + " MiB/s", ""])
        s.append(md_table(["what", "size", "bandwidth", "membw: moved"], rows))
        s.append("")

    ms = [x for x in summary if x["bench"] == "mstream" and not x["fields"].get("memlimit")]
    if ms:
        s.append(f"### mstream ({cell})")
        s.append("")
        rows = []
        for x in sorted(ms, key=lambda x: (x["fields"].get("ranks") or 0, x["fields"].get("size") or 0,
                                           KERNELS.index(x["fields"]["kernel"])
                                           if x["fields"].get("kernel") in KERNELS else 9)):
            f, mt = x["fields"], x["metrics"]
            rows.append([f.get("kernel"), mstream_series_name(f), human_bytes(f.get("size", 0)),
                         f.get("ranks"), f.get("iters"),
                         fmt_stat(mt.get("bw_MiBps")), fmt_stat(mt.get("bw_nosync_MiBps")),
                         fmt_stat(mt.get("sync_seconds")), fmt_stat(mt.get("dev_write_MiB"))])
        s.append(md_table(["kernel", "window", "size", "ranks", "iters", "MiB/s (with sync)",
                           "MiB/s (without sync)", "sync s", "device MiB written"], rows))
        s.append("")
        s.append("MiB/s: bytes moved by all ranks' MPI_Put and MPI_Get over the timed "
                 "iterations / the slowest rank's time (mstream's definition); *device MiB "
                 "written*: what the block device under `--path` wrote meanwhile.")
        s.append("")

    oc = [x for x in summary if x["bench"] == "mstream" and x["fields"].get("memlimit")]
    oc_skipped = [sk for sk in doc.get("skipped", []) if OOC_TAG in sk.get("step", "")]
    if oc or oc_skipped:
        s.append("### mstream out of core (storage window larger than its memory cgroup)")
        s.append("")
    if oc:
        rows = []
        for x in sorted(oc, key=lambda x: (x["fields"].get("ranks") or 0,
                                           x["fields"].get("size") or 0,
                                           x["fields"].get("memlimit") or 0,
                                           KERNELS.index(x["fields"]["kernel"])
                                           if x["fields"].get("kernel") in KERNELS else 9,
                                           x["fields"].get("access") or "")):
            f, mt = x["fields"], x["metrics"]
            bw = mt.get("bw_MiBps") or {}
            rows.append([f.get("kernel"), f.get("access") or "none",
                         f"{human_bytes(f.get('size', 0))} in {human_bytes(f['memlimit'])}",
                         f.get("ranks"), f.get("iters"),
                         fmt_num(bw.get("min")), f"**{fmt_num(bw.get('median'))}**",
                         fmt_num(bw.get("max")),
                         fmt_stat(mt.get("dev_read_MiB")), fmt_stat(mt.get("dev_write_MiB")),
                         fmt_stat(mt.get("cgroup_peak_MiB"))])
        s.append(md_table(["kernel", "access hint", "window in cgroup", "ranks", "iters",
                           "MiB/s min", "median", "max", "device MiB read",
                           "device MiB written", "cgroup peak MiB"], rows))
        s.append("")
        s.append("mstream `--kind storage --segment 16M` on a window larger than the memory "
                 "the process may use: the driver runs mpiexec in a memory cgroup of its own "
                 "(limit as given; page cache counts), so the window cannot stay in memory and "
                 "the device's bandwidth is the limit. MiB/s: with the final `MPI_Win_sync`; "
                 f"device MiB: what the block device under `--path` read and wrote during the "
                 f"timed iterations ({cell}); cgroup peak: the cgroup's highest memory use.")
        s.append("")
    elif oc_skipped:
        whys = sorted({sk["why"] for sk in oc_skipped})
        s.append("Not measured here: " + "; ".join(whys) + ".")
        s.append("")

    rma = [x for x in summary if x["bench"] == "rma"]
    if rma:
        s.append(f"### RMA, 2 ranks ({cell})")
        s.append("")
        s.append(f"<details><summary>{len(rma)} configurations: latency and bandwidth per "
                 f"operation and size</summary>")
        s.append("")
        table = {}
        for x in rma:
            f = x["fields"]
            table.setdefault((f.get("op"), f.get("bytes")), {})[f.get("kind")] = x["metrics"]
        rows = []
        for (op, b), kinds in sorted(table.items(), key=lambda t: (op_rank(t[0][0]), t[0][1] or 0)):
            mm, st = kinds.get("memory", {}), kinds.get("storage", {})
            rows.append([op, human_bytes(b or 0), fmt_stat(mm.get("usec")), fmt_stat(st.get("usec")),
                         fmt_stat(mm.get("MiBps")), fmt_stat(st.get("MiBps"))])
        s.append(md_table(["op", "size", "memory µs", "storage µs", "memory MiB/s",
                           "storage MiB/s"], rows))
        s.append("")
        s.append("</details>")
        s.append("")

    for mod in SUITE_MODULES:
        if hasattr(mod, "readme"):
            s += mod.readme(doc, this_module()) or []
    pngs = doc.get("plots", {})
    if pngs:
        s.append("### Plots")
        s.append("")
        for bench in pngs:
            s.append(f"- [{bench.replace('_', ' ')}]({pngs[bench]})")
        s.append("")
        for bench in pngs:
            if bench not in ("membw", "fio"):
                s.append(f"![{bench}]({pngs[bench]})")
                s.append("")
    return "\n".join(s)


def write_readme(out):
    docs = []
    order = SUITE_ORDER + [n for m in SUITE_MODULES for n in getattr(m, "SUITES", {})]
    for suite in order:
        p = os.path.join(out, f"latest-{suite}.json")
        if os.path.exists(p):
            try:
                with open(p) as f:
                    docs.append(json.load(f))
            except (OSError, ValueError):
                pass
    parts = ["# Benchmark results", "",
             "Generated by `bench/run.py` (do not edit by hand; run it again). Every figure "
             "here was measured on this one machine, on the date given in its section, and says "
             "nothing about any other: a virtual machine's disk and memory bandwidth vary from "
             "run to run, which the min–max spreads show. The file system limits come from fio "
             "on the same file system as the storage windows (`--path`), memory limits from "
             "`membw`.", "",
             "Ratios: *storage SEQ / fio O_DIRECT write* divides the mstream SEQ bandwidth of a "
             "window on storage, `MPI_Win_sync` included, by fio's sequential O_DIRECT write "
             "bandwidth; *memory SEQ / memcpy* divides the mstream SEQ bandwidth of a memory "
             "window by membw's memcpy bandwidth counted as bytes copied (`GiBps_copied`, each "
             "byte once); *RMA storage / memory* divides rma_bench bandwidth on a storage window "
             "by the same on a memory window, from 64 KiB up; *out-of-core storage SEQ / fio "
             "O_DIRECT write* is the storage SEQ ratio for a window larger than the memory cgroup it runs "
             "in (without and with `--access sequential`). Each ratio is taken per rep "
             "(same rep of numerator and denominator), then min / median / max over reps.", ""]
    # smoke (tiny sizes, a check of the programs and this driver) only when
    # nothing else was measured here: its figures mean little.
    if any(d.get("suite") != "smoke" for d in docs):
        smoke = [d for d in docs if d.get("suite") == "smoke"]
        docs = [d for d in docs if d.get("suite") != "smoke"]
        if smoke:
            parts.append(f"(The latest `smoke` run, {smoke[0]['started'][:16].replace('T', ' ')} UTC, "
                         f"is in `latest-smoke.json`: tiny sizes, not shown here.)")
            parts.append("")
    elif docs:
        parts.append("Only the `smoke` suite ran here: tiny sizes that check the programs and "
                     "the driver; its figures say little about the machine.")
        parts.append("")
    subdirs = sorted(d for d in os.listdir(out)
                     if os.path.isfile(os.path.join(out, d, "README.md")))
    if subdirs:
        parts.append("Result sets kept apart (one per MPI, run with `--out results/<dir>`): "
                     + ", ".join(f"[`{d}/`]({d}/README.md)" for d in subdirs) + ".")
        parts.append("")
    if not docs:
        parts.append("No results yet: run `python3 bench/run.py --suite quick`.")
    for d in docs:
        parts.append(readme_section(d))
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("\n".join(parts).rstrip() + "\n")


# ---------------------------------------------------------------------------

def replot(suite, out):
    """Draws the plots of OUT/latest-SUITE.json again, as its run did."""
    path = os.path.join(out, f"latest-{suite}.json")
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"bench: cannot read {path}: {e}", file=sys.stderr)
        return 2
    started = dt.datetime.fromisoformat(doc["started"])
    pngs = plot_all(suite, doc["summary"], doc["runs"], out,
                    started.strftime("%Y-%m-%d %H:%M UTC"))
    for p in pngs.values():
        say(f"bench: plot {os.path.join(out, p)}")
    return 0


def build_command(build):
    """What to type to build the tree BUILD (make build for the usual ones)."""
    rel = repo_path(build)
    if rel in ("build/mpich", "build/openmpi"):
        return "make build"
    return f"cmake --build {shlex.quote(build)}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    SUITE_MODULES[:] = load_suite_modules()
    own = {n: h for m in SUITE_MODULES for n, h in getattr(m, "SUITES", {}).items()}
    ap.add_argument("--suite", required=True, choices=BUILTIN_SUITES + list(own),
                    help="smoke: tiny, checks programs and driver; quick; full (includes "
                         "outofcore); outofcore: only mstream on a storage window larger than "
                         "its memory cgroup (root needed) and fio"
                         # argparse formats help with %: "90% gets" must be "90%% gets"
                         + "".join(f"; {n}: {h}" for n, h in own.items()).replace("%", "%%"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "mpich"),
                    help="configured and built mpisw tree (has mpisw-build.env); "
                         "default build/mpich")
    ap.add_argument("--path", default="/tmp",
                    help="directory on the file system to measure: storage windows and "
                         "fio's files go to fresh temporary directories there (default /tmp)")
    ap.add_argument("--out", default=DEFAULT_OUT,
                    help="where the JSON, PNGs and README.md go (default build/results/, "
                         "which git ignores; the tracked results/ changes only when named: "
                         "--out results)")
    ap.add_argument("--reps", type=int, default=None,
                    help="runs of each configuration (default 3; smoke 1)")
    ap.add_argument("--only", default=None, metavar="REGEX",
                    help="run only the steps whose label matches REGEX")
    ap.add_argument("--timeout", type=float, default=None, metavar="S",
                    help="time limit of one program run (default: smoke 120 s, quick and "
                         "outofcore 300 s, full 1200 s); a run over it is killed and recorded as failed")
    ap.add_argument("--list", action="store_true", help="print the steps and exit")
    ap.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    ap.add_argument("--readme-only", action="store_true",
                    help="only write OUT/README.md again from the latest JSON files in OUT")
    ap.add_argument("--plots-only", action="store_true",
                    help="only draw the plots of OUT/latest-SUITE.json again (after a change "
                         "of the plots; nothing is measured)")
    a = ap.parse_args(argv)
    if a.readme_only:
        write_readme(os.path.abspath(a.out))
        return 0
    if a.plots_only:
        return replot(a.suite, os.path.abspath(a.out))
    given = sys.argv[1:] if argv is None else argv
    command = shlex.join(["python3", "bench/run.py"] + [repo_text(w) for w in given])
    a.build = os.path.abspath(a.build)
    a.path = os.path.abspath(a.path)
    a.out = os.path.abspath(a.out)
    if a.reps is None:
        a.reps = 1 if a.suite == "smoke" else 3
    if a.reps < 1:
        ap.error("--reps must be at least 1")
    if not os.path.isfile(os.path.join(a.build, "mpisw-build.env")):
        ap.error(f"{a.build}/mpisw-build.env not found: configure and build first "
                 f"({build_command(a.build)})")
    if not os.path.isdir(a.path):
        ap.error(f"--path {a.path} is not a directory")
    launcher = Launcher(a.build)
    steps = build_suite(a.suite, a)
    if a.only:
        steps = [s for s in steps if re.search(a.only, s.label)]
    # Once, before anything runs: a configured but unbuilt tree would
    # otherwise fail every step alike.
    missing = sorted({program_path(a.build, s.bench) for s in steps if s.bench != "fio"
                      and not os.access(program_path(a.build, s.bench), os.X_OK)})
    if missing and not a.list:
        shown = ", ".join(repo_path(m) for m in missing)
        print(f"bench: not built: {shown}\nbench: run `{build_command(a.build)}` first",
              file=sys.stderr)
        return 2
    if a.timeout:
        for s in steps:
            s.timeout = a.timeout
    if a.list:
        for s in steps:
            if s.bench == "fio":
                print(f"{s.label}: fio {' '.join(FIO_TESTS[s.fio_test][1])}")
            else:
                exe = program_path(a.build, s.bench)
                shown = launcher.shown(launcher.command(exe, s.args, s.ranks))
                if s.memlimit:
                    shown = f"[memory cgroup, limit {s.memlimit} bytes] {shown}"
                print(f"{s.label}: {shown}")
        return 0

    os.makedirs(a.out, exist_ok=True)
    started = now_utc()
    t0 = time.monotonic()
    stamp = started.strftime("%Y%m%dT%H%M%SZ")
    total = len(steps) * a.reps
    say(f"bench: suite {a.suite}, {len(steps)} configurations x {a.reps} rep(s) = {total} runs; "
        f"build {a.build} ({launcher.flavor}), path {a.path}, out {a.out}")
    machine = machine_facts(a, launcher)
    say(f"bench: {machine.get('cpu')}, {machine.get('cores')} cores; {a.path} is "
        f"{machine.get('fs')} on {machine.get('device')}")
    if a.suite == "smoke":
        say(f"bench: {SMOKE_NOTE}")

    workdir = tempfile.mkdtemp(prefix="mpisw-bench-", dir=a.path)
    fiodir = tempfile.mkdtemp(prefix="mpisw-fio-", dir=a.path)
    runner = Runner(a, launcher, workdir, fiodir)
    n = 0
    interrupted = False
    try:
        # Reps outermost: each configuration's runs are spread over the whole
        # suite, so a slow moment of the machine does not hit one of them only.
        for rep in range(1, a.reps + 1):
            for step in steps:
                n += 1
                el = time.monotonic() - t0
                print(f"[{n:3d}/{total}] {int(el // 60):d}:{int(el % 60):02d} rep {rep}/{a.reps} "
                      f"{step.label} ... ", end="", flush=True)
                ok, note = runner.run_step(step, rep)
                say(note)
    except KeyboardInterrupt:
        interrupted = True
        say("\nbench: interrupted; writing what was measured")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        shutil.rmtree(fiodir, ignore_errors=True)

    summary = summarise(runner.runs)
    fname = f"{a.suite}-{stamp}.json"
    doc = {"suite": a.suite, "command": command, "started": started.isoformat(timespec="seconds"),
           "finished": now_utc().isoformat(timespec="seconds"),
           "duration_s": round(time.monotonic() - t0, 1), "reps": a.reps,
           "build": repo_path(a.build), "path": a.path, "file": fname,
           "interrupted": interrupted, "machine": machine,
           "commands": {k: repo_text(v) for k, v in runner.commands.items()}, "runs": runner.runs, "failures": runner.failures,
           "skipped": runner.skipped, "summary": summary, "ratios": compute_ratios(runner.runs),
           "plots": {}}
    if not a.no_plots:
        try:
            doc["plots"] = plot_all(a.suite, summary, runner.runs, a.out,
                                    started.strftime("%Y-%m-%d %H:%M UTC"))
        except ImportError as e:
            runner.failures.append({"step": "plots", "bench": "plots", "rep": None,
                                    "command": None, "returncode": None, "seconds": 0,
                                    "stderr_tail": f"matplotlib is missing ({e}): "
                                                   "bash scripts/install-deps.sh"})
        except Exception as e:   # a plot must not lose the measurements
            runner.failures.append({"step": "plots", "bench": "plots", "rep": None,
                                    "command": None, "returncode": None, "seconds": 0,
                                    "stderr_tail": f"plotting failed: {type(e).__name__}: {e}"})
    doc["duration_s"] = round(time.monotonic() - t0, 1)
    path = os.path.join(a.out, fname)
    # Paths inside the checkout (build tree, --path, the programs' own
    # records, stderr tails) are kept relative to it: results are shared.
    text = json.dumps(doc, indent=1).replace(json.dumps(ROOT + os.sep)[1:-1], "")
    with open(path, "w") as f:
        f.write(text + "\n")
    shutil.copyfile(path, os.path.join(a.out, f"latest-{a.suite}.json"))
    write_readme(a.out)

    say(f"bench: {len(runner.runs)} records in {doc['duration_s']:.0f} s -> {path}")
    for p in doc["plots"].values():
        say(f"bench: plot {os.path.join(a.out, p)}")
    say(f"bench: {os.path.join(a.out, 'README.md')}")
    if a.suite == "smoke" and doc["ratios"]:
        say(f"bench: {SMOKE_NOTE}: the ratios below only show that they can be computed")
    for r in doc["ratios"]:
        if r.get("bytes") in (None, "all>=64KiB"):
            say(f"bench: {r['name']} ({r.get('which')}): median {fmt_ratio(r['median'])} "
                f"(min {fmt_ratio(r['min'])}, max {fmt_ratio(r['max'])}, n={r['n']})")
    if runner.failures:
        say(f"bench: {len(runner.failures)} FAILED:")
        for f in runner.failures:
            say(f"  {f['step']} rep {f['rep']}: {exit_text(f.get('returncode'))}")
            if f.get("command"):
                say(f"    $ {f['command']}")
            for line in (f.get("stderr_tail") or "").splitlines()[-8:]:
                say(f"    | {line}")
        return 1
    if interrupted:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
