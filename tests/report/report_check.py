#!/usr/bin/env python3
"""report_check.py NP VERSION FLAVOR PROGRAM -- LAUNCHER...

Runs PROGRAM (tests/report/t_report.c) on NP ranks with MPISW_REPORT=1 and
checks every figure of the report against what the program did (see
t_report.c): the line at MPI_Init (version, MPI, ranks), windows by kind,
bytes placed, bytes written and syncs, and what was not freed. Sizes must
carry the unit that suits them (B below 1 KiB, else the number is in
[1, 1024) KiB/MiB/GiB)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
SIZE = r"(\d+(?:\.\d+)?) (B|KiB|MiB|GiB|TiB)"
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def size_ok(what, value, unit, want):
    v = float(value)
    if unit == "B":
        if v != want or want >= 1024:
            fail(f"{what}: '{value} {unit}', want {want} B")
        return
    if not 1 <= v < 1024:
        fail(f"{what}: '{value} {unit}' does not use the unit that suits it")
    if abs(v * UNITS[unit] - want) > 0.05 * UNITS[unit]:
        fail(f"{what}: '{value} {unit}' is not {want} B")


def one(pattern, text, what):
    m = re.findall(pattern, text, re.M)
    if len(m) != 1:
        fail(f"{what}: {len(m)} lines match /{pattern}/, want exactly 1")
        return None
    return m[0]


def main():
    np_, version, flavor, prog = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    launcher = sys.argv[6:] if sys.argv[5] == "--" else sys.argv[5:]
    d = tempfile.mkdtemp(prefix="mpisw-report-h6-")
    try:
        env = dict(os.environ, MPISW_REPORT="1")
        env.pop("MPISW_HINTS", None)
        r = subprocess.run(launcher + ["-n", str(np_), prog, d], env=env,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=60)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    out = r.stdout + r.stderr
    print(out)
    if r.returncode != 0:
        fail(f"the program exited {r.returncode}")
    n = np_
    built = {"mpich": "MPICH", "openmpi": "Open MPI"}[flavor]
    init = one(r"^mpisw: active: version (\S+), built for (.+), (\d+) ranks$", out, "init line")
    if init and init != (version, built, str(n)):
        fail(f"init line says {init}, want {(version, built, str(n))}")
    w = one(r"^mpisw:   windows: (\d+) in memory, (\d+) on storage, (\d+) combined, "
            r"(\d+) shared on storage; (\d+) MPI_Alloc_mem ranges on storage$", out, "windows")
    if w and tuple(map(int, w)) != (2 * n, 2 * n, 0, 0, n):
        fail(f"windows: {w}, want {(2 * n, 2 * n, 0, 0, n)}")
    p = one(rf"^mpisw:   placed: {SIZE} in memory, {SIZE} on storage$", out, "placed")
    if p:
        size_ok("placed in memory", p[0], p[1], 3000 * n)
        size_ok("placed on storage", p[2], p[3], 24576 * n)
    s = one(rf"^mpisw:   written: {SIZE} in (\d+) syncs, ([\d.]+) s in sync "
            r"\(slowest rank ([\d.]+) s\)$", out, "written")
    if s:
        size_ok("written", s[0], s[1], 4096 * n)
        if int(s[2]) != n:
            fail(f"syncs: {s[2]}, want {n}")
        if float(s[4]) > float(s[3]) + 1e-9:
            fail(f"slowest rank {s[4]} s exceeds the total {s[3]} s")
    lk = one(rf"^mpisw:   not freed at MPI_Finalize: (\d+) windows \({SIZE}\), (\d+) "
             rf"MPI_Alloc_mem ranges \({SIZE}\), on (\d+) of (\d+) ranks$", out, "leaks")
    if lk:
        if int(lk[0]) != 2 * n or int(lk[3]) != 2 * n:
            fail(f"not freed: {lk[0]} windows, {lk[3]} ranges; want {2 * n} and {2 * n}")
        size_ok("windows not freed", lk[1], lk[2], 14288 * n)
        size_ok("ranges not freed", lk[4], lk[5], 11192 * n)
        if (int(lk[6]), int(lk[7])) != (n, n):
            fail(f"leaky ranks {lk[6]} of {lk[7]}, want {n} of {n}")
    if len(re.findall(r"^mpisw: report over", out, re.M)) != 1:
        fail("the report must come from rank 0 only, once")
    if failures:
        return 1
    print(f"report_check: every figure right at {n} ranks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
