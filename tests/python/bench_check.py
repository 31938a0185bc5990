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

Exit 0 when every check holds, 1 with the failed checks listed.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RUN = os.path.join(ROOT, "bench", "run.py")
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
    import run
    import matplotlib
    matplotlib.use("Agg")
    bad = []
    real = run.save_png

    def inspecting(fig, plt, out, suite, bench, layout=True):
        if layout:
            fig.tight_layout()
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
        return real(fig, plt, out, suite, bench, layout=False)

    run.SUITE_MODULES[:] = run.load_suite_modules()
    run.save_png = inspecting
    tmp = tempfile.mkdtemp(prefix="mpisw-bench-check-")
    try:
        run.plot_all(doc["suite"], doc["summary"], doc["runs"], tmp, "check")
    finally:
        run.save_png = real
        shutil.rmtree(tmp, ignore_errors=True)
    return bad


def empty_figure_not_saved():
    import run
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
    import run
    check(run.build_command(os.path.join(ROOT, "build", "mpich")) == "make build",
          "the project's own build trees are built with make build")


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("smoke", "unbuilt"):
        print(__doc__, file=sys.stderr)
        return 2
    build = os.path.abspath(sys.argv[2])
    {"smoke": smoke, "unbuilt": unbuilt}[sys.argv[1]](build)
    if failed:
        print(f"{len(failed)} check(s) failed:\n  " + "\n  ".join(failed))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
