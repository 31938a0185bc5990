"""What the driver knows about benchmarks: the programs, which record fields
name a configuration and which are measurements, and the suite modules
(bench/suite_*.py, see harness/api.py) that add to these tables."""

import glob
import importlib.util
import os
import sys

from .paths import BENCH

# Benchmark programs: name of the executable in BUILD/bench (a value with a
# "/" is relative to BUILD).
PROGRAMS = {"mstream": "mstream", "rma": "rma_bench", "membw": "membw"}

# Which fields of a record name its configuration, and which are measurements
# (summarised as min/median/max over the reps).
KEY_FIELDS = {
    "mstream": ["kernel", "kind", "factor", "order", "ranks", "size", "segment",
                "iters", "sync", "target", "access", "memlimit", "backend"],
    "rma": ["op", "kind", "bytes", "ranks"],
    "membw": ["kernel", "size"],
    "fio": ["test", "rw", "engine", "size", "bs", "iodepth", "numjobs"],
}
METRICS = {
    "mstream": ["bw_MiBps", "bw_nosync_MiBps", "seconds", "sync_seconds", "dev_write_MiB",
                "dev_read_MiB", "cgroup_peak_MiB"],
    "rma": ["usec", "MiBps"],
    "membw": ["GiBps_copied", "GiBps_moved", "best_s"],
    "fio": ["MiBps"],
}

BUILTIN_SUITES = ["smoke", "quick", "full", "outofcore"]
# Programs that get --path WORKDIR (where their storage windows go).
PATH_ARG = {"mstream", "rma"}
SUITE_MODULES = []     # filled by load_suite_modules()


def load_suite_modules():
    """Loads every bench/suite_*.py once (in name order), merges its tables
    into the ones above and returns the modules."""
    if SUITE_MODULES:
        return SUITE_MODULES
    if BENCH not in sys.path:      # the suites import harness.api
        sys.path.insert(0, BENCH)
    for path in sorted(glob.glob(os.path.join(BENCH, "suite_*.py"))):
        name = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(f"mpisw_bench_{name}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        PROGRAMS.update(getattr(mod, "PROGRAMS", {}))
        KEY_FIELDS.update(getattr(mod, "KEY_FIELDS", {}))
        METRICS.update(getattr(mod, "METRICS", {}))
        PATH_ARG.update(getattr(mod, "PATH_ARG", set()))
        SUITE_MODULES.append(mod)
    return SUITE_MODULES


def module_suites():
    """{suite name: help} of the suite modules, in load order."""
    return {n: h for m in SUITE_MODULES for n, h in getattr(m, "SUITES", {}).items()}


def hooks(name):
    """The suite modules' functions called name (steps, ratios, plot, readme)."""
    return [getattr(m, name) for m in SUITE_MODULES if hasattr(m, name)]


def program_path(build, bench):
    prog = PROGRAMS[bench]
    return os.path.join(build, prog) if "/" in prog else os.path.join(build, "bench", prog)
