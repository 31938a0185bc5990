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
  * writes OUT/latest-<suite>.json (machine facts, every run,
    per-configuration min/median/max; the suite's next run overwrites it:
    history lives in git), PNG plots OUT/<suite>-<bench>.png and
    OUT/README.md (tables and the ratios the project tracks, for the latest
    run of every suite found in OUT).
    OUT is build/results/ unless given: git ignores it, so a run leaves the
    checkout clean; the project's published figures change only with
    --out results. Paths inside the checkout are recorded relative to it.

A build tree whose programs are missing stops the run before any step, with
the command that builds them. The smoke suite's figures are no measurements
(tiny sizes): it says so.

A program run that fails is recorded with the tail of its stderr and the
suite goes on; the exit status is 1 when anything failed.
Python 3 standard library, plus matplotlib for the plots.

The driver is the package bench/harness/ (harness/__init__.py lists its
modules); a suite module bench/suite_<name>.py uses only harness/api.py,
which says what such a module defines and may call.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
