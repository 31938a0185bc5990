#!/usr/bin/env python3
"""Checks of the benchmark driver bench/run.py that a user would notice.

    bench_check.py smoke BUILD    the smoke suite with the default output
                                  folder: it passes, the output is untracked
                                  (git status unchanged), paths are recorded
                                  relative to the repository, no matplotlib
                                  warning, a word that smoke numbers are not
                                  measurements, no empty plot, no legend on a
                                  panel; --plots-only draws them again
    bench_check.py unbuilt BUILD  a configured but unbuilt tree: one message
                                  with the command to run, no step runs
    bench_check.py latest BUILD   two runs into one OUT leave one JSON per
                                  suite (latest-<suite>.json, overwritten),
                                  and the README links to it
    bench_check.py api            every bench/suite_*.py uses only
                                  bench/harness/api.py, with the hooks it
                                  documents
    bench_check.py stepenv        a step's own environment (Step(env=...)):
                                  the program gets it, "{workdir}" becomes
                                  the run's directory, the recorded command
                                  shows it (as DIR)
    bench_check.py results        the tracked results/: no file twice, one
                                  JSON per suite and folder, every README
                                  link exists, each README is what the
                                  driver writes from the JSON next to it

Exit 0 when every check holds, 1 with the failed checks listed.
"""

import ast
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RUN = os.path.join(ROOT, "bench", "run.py")
RESULTS = os.path.join(ROOT, "results")
sys.path.insert(0, os.path.join(ROOT, "bench"))

failed = []


def check(ok, what):
    print(("ok:   " if ok else "FAIL: ") + what, flush=True)
    if not ok:
        failed.append(what)


def git_status():
    """git status --porcelain of the checkout, or None outside one."""
    try:
        p = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=all"],
                           capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout if p.returncode == 0 else None


def run_driver(args, timeout=280):
    env = dict(os.environ)
    env.pop("PYTHONWARNINGS", None)
    return subprocess.run([sys.executable, RUN] + args, capture_output=True, text=True,
                          timeout=timeout, env=env, stdin=subprocess.DEVNULL)


def overlaps(a, b):
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def legends_clear(doc):
    """Draws the run's plots again and returns the figures where a legend
    covers part of a panel (bars, lines and tick labels live there)."""
    from harness import plots, registry
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.figure
    bad = []
    real = matplotlib.figure.Figure.savefig

    seen = []

    def inspecting(fig, fname, *args, **kw):
        bench = os.path.basename(str(fname))
        seen.append(bench)
        fig.canvas.draw()
        r = fig.canvas.get_renderer()
        axes = [ax for ax in fig.get_axes() if ax.axison and ax.has_data()]
        legends = list(fig.legends) + [ax.get_legend() for ax in fig.get_axes()
                                       if ax.get_legend() is not None]
        for leg in legends:
            lb = leg.get_window_extent(r)
            for ax in axes:
                if overlaps(lb, ax.get_window_extent(r)):
                    bad.append(f"{bench}: legend over panel '{ax.get_title()}'")
        return real(fig, fname, *args, **kw)

    registry.load_suite_modules()
    matplotlib.figure.Figure.savefig = inspecting
    tmp = tempfile.mkdtemp(prefix="mpisw-bench-check-")
    try:
        plots.plot_all(doc["suite"], doc["summary"], doc["runs"], tmp, "check")
    finally:
        matplotlib.figure.Figure.savefig = real
        shutil.rmtree(tmp, ignore_errors=True)
    if len(seen) != len(doc["plots"]):
        bad.append(f"{len(seen)} figures inspected, the run drew {len(doc['plots'])}")
    return bad


def empty_figure_not_saved():
    from harness import api as run
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    tmp = tempfile.mkdtemp(prefix="mpisw-bench-check-")
    try:
        fig, axes = plt.subplots(1, 2)
        run.legend_outside(axes[0])            # nothing labelled: no legend, no warning
        got = run.save_png(fig, plt, tmp, "t", "empty")
        return got == {} and not os.listdir(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def smoke(build):
    out = os.path.join(ROOT, "build", "results")
    before = git_status()
    t0 = time.time()
    p = run_driver(["--suite", "smoke", "--build", build,
                    "--path", os.path.join(build, "bench")])
    text = p.stdout + p.stderr
    sys.stdout.write(p.stdout[-3000:])
    sys.stderr.write(p.stderr[-3000:])
    check(p.returncode == 0, f"smoke suite exits 0 (got {p.returncode})")
    check("Warning" not in text and "warnings.warn" not in text,
          "no (matplotlib) warning in the output")
    check("not measurements" in p.stdout, "says that smoke numbers are not measurements")
    latest = os.path.join(out, "latest-smoke.json")
    check(os.path.isfile(latest) and os.path.getmtime(latest) >= t0 - 1,
          f"default output folder is {os.path.relpath(out, ROOT)}/")
    if before is not None:
        ign = subprocess.run(["git", "-C", ROOT, "check-ignore", "-q", latest])
        check(ign.returncode == 0, "git ignores the default output folder")
        check(git_status() == before, "git status unchanged by a run with the default output")
    else:
        print("note: not a git checkout, git status not checked")
    if not os.path.isfile(latest):
        return
    with open(latest) as f:
        raw = f.read()
    doc = json.loads(raw)
    with open(os.path.join(out, "README.md")) as f:
        readme = f.read()
    if os.path.abspath(build).startswith(ROOT + os.sep):
        check(doc["build"] == os.path.relpath(os.path.abspath(build), ROOT),
              f"build recorded relative to the repository ({doc['build']})")
    check(ROOT + os.sep not in raw, "no absolute path of the checkout in the JSON")
    check(ROOT + os.sep not in readme, "no absolute path of the checkout in README.md")
    for name in doc["plots"].values():
        check(os.path.isfile(os.path.join(out, name)), f"plot {name} written")
    check(empty_figure_not_saved(), "a figure without data is not saved")
    tmp = tempfile.mkdtemp(prefix="mpisw-bench-replot-")
    try:
        shutil.copy(latest, tmp)
        p = run_driver(["--suite", "smoke", "--plots-only", "--out", tmp], timeout=120)
        made = sorted(f for f in os.listdir(tmp) if f.endswith(".png"))
        check(p.returncode == 0 and made == sorted(doc["plots"].values()),
              f"--plots-only draws the run's plots again ({made})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    bad = legends_clear(doc)
    check(not bad, "no legend on a panel" + (": " + "; ".join(bad) if bad else ""))


def unbuilt(build):
    tmp = tempfile.mkdtemp(prefix="mpisw-bench-unbuilt-")
    try:
        shutil.copy(os.path.join(build, "mpisw-build.env"), tmp)
        t0 = time.monotonic()
        p = run_driver(["--suite", "smoke", "--build", tmp, "--out", os.path.join(tmp, "out")],
                       timeout=60)
        secs = time.monotonic() - t0
        print(p.stdout + p.stderr)
        check(p.returncode == 2, f"exit status 2 on an unbuilt tree (got {p.returncode})")
        check("not built" in p.stderr and f"run `cmake --build {tmp}` first" in p.stderr,
              "one message naming the command to run")
        check("[  1/" not in p.stdout and "FAILED" not in p.stdout, "no step ran")
        check(not os.path.exists(os.path.join(tmp, "out")), "no output written")
        check(secs < 30, f"stops at once ({secs:.1f} s)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    from harness.paths import build_command
    check(build_command(os.path.join(ROOT, "build", "mpich")) == "make build",
          "the project's own build trees are built with make build")


def latest(build):
    """The driver overwrites one file per suite instead of piling up dated
    copies (the tracked results/ once held 9 JSON files twice)."""
    tmp = tempfile.mkdtemp(prefix="mpisw-bench-latest-")
    try:
        for n in (1, 2):
            p = run_driver(["--suite", "smoke", "--only", "^membw", "--build", build,
                            "--path", tmp, "--out", os.path.join(tmp, "out"), "--no-plots"],
                           timeout=120)
            check(p.returncode == 0, f"run {n} of smoke --only membw exits 0 (got "
                                     f"{p.returncode}): {p.stderr[-300:]}")
        files = sorted(os.listdir(os.path.join(tmp, "out")))
        check(files == ["README.md", "latest-smoke.json"],
              f"after two runs OUT holds one JSON for the suite and the README ({files})")
        with open(os.path.join(tmp, "out", "latest-smoke.json")) as f:
            doc = json.load(f)
        check(doc.get("file") == "latest-smoke.json",
              f"the run records the file it is in ({doc.get('file')})")
        check(len({r["rep"] for r in doc["runs"]}) == 1 and doc["runs"],
              "the second run replaced the first (one run's records)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# What a suite module may define (harness/api.py's docstring) and the
# parameters of its hooks.
HOOKS = {"steps": ["suite"], "ratios": ["runs"], "readme": ["doc"],
         "plot": ["suite", "summary", "runs", "out", "stamp", "plt"]}


def api(_build=None):
    from harness import api as harness_api
    from harness import registry
    suites = sorted(glob.glob(os.path.join(ROOT, "bench", "suite_*.py")))
    check(suites, "there are suite modules")
    for path in suites:
        name = os.path.basename(path)
        tree = ast.parse(open(path).read())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "harness":
                check(node.module == "harness.api",
                      f"{name} imports from harness.api only (not {node.module})")
                extra = [a.name for a in node.names if a.name not in harness_api.__all__]
                check(not extra, f"{name} uses only names harness.api exports ({extra})")
            elif isinstance(node, ast.Import):
                bad = [a.name for a in node.names if a.name.split(".")[0] in ("harness", "run")]
                check(not bad, f"{name} does not import the driver itself ({bad})")
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name in HOOKS:
                got = [a.arg for a in node.args.args]
                want = HOOKS[node.name]
                if node.name == "plot":   # the stamp's name is the module's
                    got = got[:4] + ["stamp"] + got[5:]
                check(got == want, f"{name}: {node.name}({', '.join(want)}) ({got})")
    registry.SUITE_MODULES.clear()
    mods = registry.load_suite_modules()
    check(len(mods) == len(suites), f"every suite module loads ({len(mods)})")
    from harness.step import Step
    from harness.suites import build_suite
    for suite in list(registry.module_suites()) + registry.BUILTIN_SUITES:
        steps = build_suite(suite)
        check(steps and all(isinstance(s, Step) and s.bench in registry.PROGRAMS
                            or s.bench == "fio" for s in steps),
              f"suite {suite}: {len(steps)} steps of known programs")


def stepenv(_build=None):
    """Step(env=...) reaches the program and its recorded command."""
    from harness import registry
    from harness.runner import Runner
    from harness.step import Step
    tmp = tempfile.mkdtemp(prefix="mpisw-bench-stepenv-")
    try:
        probe = os.path.join(tmp, "probe.sh")
        with open(probe, "w") as f:
            f.write('#!/bin/sh\nprintf \'{"bench":"envprobe","pool":"%s","other":"%s"}\\n\' '
                    '"$MPISW_TEST_STEP_POOL" "$MPISW_TEST_STEP_OTHER"\n')
        os.chmod(probe, 0o755)
        registry.PROGRAMS["envprobe"] = probe

        class Launcher:      # a plain process (ranks 0): no mpiexec
            extra_env = {}

            def command(self, exe, args, ranks):
                return [exe] + args

            def shown(self, cmd):
                return " ".join(cmd)

        class Args:
            build = tmp

        workdir = os.path.join(tmp, "work")
        os.mkdir(workdir)
        runner = Runner(Args(), Launcher(), workdir, tmp)
        step = Step("envprobe", "env probe", ranks=0,
                    env={"MPISW_TEST_STEP_POOL": "dir={workdir};x=1",
                         "MPISW_TEST_STEP_OTHER": "a b"})
        ok, note = runner.run_step(step, 1)
        check(ok, f"the step runs ({note})")
        rec = runner.runs[0] if runner.runs else {}
        check(rec.get("pool") == f"dir={workdir};x=1",
              f"the program sees the variable with {{workdir}} replaced ({rec.get('pool')})")
        check(rec.get("other") == "a b", f"a second variable, with a space ({rec.get('other')})")
        shown = runner.commands.get("env probe", "")
        check(shown.startswith("MPISW_TEST_STEP_POOL='dir=DIR;x=1' MPISW_TEST_STEP_OTHER='a b' "),
              f"the recorded command starts with the variables ({shown})")
        plain = Step("envprobe", "no env", ranks=0)
        runner.run_step(plain, 1)
        check(runner.runs[-1].get("pool") == "" and "MPISW_TEST_STEP" not in
              runner.commands.get("no env", "?"), "a step without env adds nothing")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def results(_build=None):
    """The published results/: the latest figures of each suite, once."""
    files = [p for p in glob.glob(os.path.join(RESULTS, "**", "*"), recursive=True)
             if os.path.isfile(p) and not p.endswith(".gitkeep")]
    seen = {}
    for p in files:
        with open(p, "rb") as f:
            seen.setdefault(hashlib.sha256(f.read()).hexdigest(), []).append(
                os.path.relpath(p, RESULTS))
    twice = [v for v in seen.values() if len(v) > 1]
    check(not twice, f"no file in results/ twice ({twice})")
    dirs = sorted({os.path.dirname(p) for p in files})
    for d in dirs:
        rel = os.path.relpath(d, ROOT)
        jsons = sorted(f for f in os.listdir(d) if f.endswith(".json"))
        check(all(re.fullmatch(r"latest-[a-z0-9_]+\.json", f) for f in jsons),
              f"{rel}: only latest-<suite>.json files ({jsons})")
        readme = os.path.join(d, "README.md")
        if not os.path.isfile(readme):
            continue
        with open(readme) as f:
            text = f.read()
        links = set(re.findall(r"\]\(([^)#\s]+)\)", text))
        missing = sorted(x for x in links if not x.startswith("http")
                         and not os.path.exists(os.path.join(d, x)))
        check(not missing, f"{rel}/README.md links only to files that exist ({missing})")
        pngs = sorted(f for f in os.listdir(d) if f.endswith(".png"))
        unlinked = [f for f in pngs if f not in links]
        check(not unlinked, f"{rel}: every plot is in the README ({unlinked})")
        tmp = tempfile.mkdtemp(prefix="mpisw-bench-results-")
        try:
            for j in jsons:
                shutil.copy(os.path.join(d, j), tmp)
            for sub in os.listdir(d):     # result sets kept apart are listed
                if os.path.isfile(os.path.join(d, sub, "README.md")):
                    os.makedirs(os.path.join(tmp, sub))
                    shutil.copy(os.path.join(d, sub, "README.md"), os.path.join(tmp, sub))
            p = run_driver(["--suite", "quick", "--readme-only", "--out", tmp], timeout=60)
            with open(os.path.join(tmp, "README.md")) as f:
                check(p.returncode == 0 and f.read() == text,
                      f"{rel}/README.md is what `--readme-only` writes")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def main():
    modes = {"smoke": smoke, "unbuilt": unbuilt, "latest": latest, "api": api,
             "results": results, "stepenv": stepenv}
    need_build = ("smoke", "unbuilt", "latest")
    if len(sys.argv) < 2 or sys.argv[1] not in modes \
            or len(sys.argv) != (3 if sys.argv[1] in need_build else 2):
        print(__doc__, file=sys.stderr)
        return 2
    modes[sys.argv[1]](os.path.abspath(sys.argv[2]) if len(sys.argv) == 3 else None)
    if failed:
        print(f"{len(failed)} check(s) failed:\n  " + "\n  ".join(failed))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
