"""Runs the mpisw benchmark suites and reports what this machine measured.

The command line of bench/run.py (see its docstring): parse, check the build
tree, run the steps, write OUT/latest-<suite>.json, the plots and
OUT/README.md."""

import argparse
import datetime as dt
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
import time

from .fio import FIO_TESTS, limit_command
from .fmt import exit_text, fmt_ratio, now_utc, say
from .launcher import Launcher
from .machine import machine_facts
from .paths import DEFAULT_OUT, ROOT, build_command, repo_path, repo_text
from .plots import plot_all
from .registry import BUILTIN_SUITES, load_suite_modules, module_suites, program_path
from .report import SMOKE_NOTE, write_readme
from .runner import Runner
from .suites import build_suite
from .summary import compute_ratios, summarise


def replot(suite, out):
    """Draws the plots of OUT/latest-SUITE.json again, and computes its ratios
    again from its runs (the suite's code may have changed since)."""
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
    ratios = compute_ratios(doc["runs"])
    if pngs != doc.get("plots") or ratios != doc.get("ratios"):  # what the README lists
        doc["plots"], doc["ratios"] = pngs, ratios
        with open(path, "w") as f:
            f.write(json.dumps(doc, indent=1) + "\n")
        write_readme(os.path.abspath(out))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    load_suite_modules()
    own = module_suites()
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
                    help="only draw the plots of OUT/latest-SUITE.json again and compute "
                         "its ratios again from its runs (after a change of the plots or "
                         "ratios; nothing is measured; the JSON and OUT/README.md follow)")
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
    steps = build_suite(a.suite)
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
                if s.fio_test == "limit":
                    x = s.extra
                    cmd = limit_command("DIR", s.size, x["rw"], x["engine"], x["bs"],
                                        x["iodepth"], x["numjobs"], x["runtime_s"])
                    print(f"{s.label}: {' '.join(cmd)}")
                else:
                    print(f"{s.label}: fio {' '.join(FIO_TESTS[s.fio_test][1])}")
            else:
                exe = program_path(a.build, s.bench)
                shown = launcher.shown(launcher.command(exe, s.args, s.ranks))
                if s.env:
                    shown = f"{s.shown_env()} {shown}"
                if s.memlimit:
                    shown = f"[memory cgroup, limit {s.memlimit} bytes] {shown}"
                print(f"{s.label}: {shown}")
        return 0

    os.makedirs(a.out, exist_ok=True)
    started = now_utc()
    t0 = time.monotonic()
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
    # One file per suite, overwritten by its next run: history lives in git.
    fname = f"latest-{a.suite}.json"
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
