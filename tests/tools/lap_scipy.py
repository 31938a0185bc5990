#!/usr/bin/env python3
"""mpisw's assignment solver (src/core/lap.c, run through the small program
bench/lap_solve.c) against scipy's linear_sum_assignment on the same
matrices.

  lap_scipy.py check SOLVER
      The test (unit_lap_scipy): optimal totals equal scipy's on random
      matrices up to 2000 x 2000 (uniform doubles, small integers with many
      ties, forbidden +inf entries, hop-bytes workloads W = D.C; square, tall,
      wide), the same infeasible verdicts, and our assignment is valid.
      Exit 0 / 1, or 77 when scipy is missing.

  lap_scipy.py bench SOLVER [--n N] [--rounds R] [--kinds uniform,hopbytes]
      The benchmark (suite "lap", bench/suite_lap.py): per round and kind one
      fresh N x N matrix solved by both, in alternating order; one JSON line
      per solve with the solve time alone (seconds).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    from scipy.optimize import linear_sum_assignment
    from scipy.sparse import csr_matrix
except ImportError:
    linear_sum_assignment = None


def write_matrix(path, c):
    c = np.ascontiguousarray(c, dtype=np.float64)
    with open(path, "wb") as f:
        f.write(np.array(c.shape, dtype=np.int64).tobytes())
        f.write(c.tobytes())


def run_ours(solver, c, tmp):
    """(record, col_row, row_col) of one solve; the arrays None on an error."""
    mat, out = os.path.join(tmp, "m.bin"), os.path.join(tmp, "a.bin")
    write_matrix(mat, c)
    if os.path.exists(out):
        os.unlink(out)
    p = subprocess.run([solver, mat, out], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{solver} failed ({p.returncode}): {p.stderr.strip()}")
    rec = json.loads(p.stdout)
    if rec["code"] != 0:
        return rec, None, None
    a = np.fromfile(out, dtype=np.int64)
    nr, nc = c.shape
    return rec, a[:nc], a[nc:nc + nr]


def run_scipy(c):
    """(total or None when infeasible, seconds)."""
    t0 = time.perf_counter()
    try:
        r, k = linear_sum_assignment(c)
    except ValueError:      # "cost matrix is infeasible"
        return None, time.perf_counter() - t0
    secs = time.perf_counter() - t0
    return float(c[r, k].sum()), secs


def uniform(rng, nr, nc):
    return rng.random((nr, nc))


def small_ints(rng, nr, nc, inf_share=0.0):
    """Integers 0..9 (ties everywhere) on small matrices, 0..999 on larger
    ones (which 0..9 would fill with zero-cost choices)."""
    top = 10 if max(nr, nc) <= 12 else 1000
    c = rng.integers(0, top, size=(nr, nc)).astype(np.float64)
    if inf_share:
        c[rng.random((nr, nc)) < inf_share] = np.inf
    return c


def hopbytes(rng, nr, nc, ppn=16, nodes_per_switch=8, scattered=True):
    """The workload of a collective write: nr processes on nodes of ppn, in
    switches of nodes_per_switch (distance 0 to itself, 1 in a node, 2 in a
    switch, 4 across), each holding 1..4 runs of bytes of neighbouring file
    domains of nc; W = D.C (integers: exact). scattered: processes placed on
    nodes in a random order, like a busy machine's."""
    node = np.arange(nr) // ppn
    if scattered:
        node = node[rng.permutation(nr)]
    sw = node // nodes_per_switch
    d = np.where(sw[:, None] != sw[None, :], 4.0, 2.0)
    d[node[:, None] == node[None, :]] = 1.0
    np.fill_diagonal(d, 0.0)
    rows, cols, vals = [], [], []
    for p in range(nr):
        k = int(rng.integers(1, 5))
        first = (p * nc) // nr
        for j in range(k):
            rows.append(p)
            cols.append((first + j) % nc)
            vals.append(float(rng.integers(1, 1 << 20)))
    cm = csr_matrix((vals, (rows, cols)), shape=(nr, nc))
    return np.ascontiguousarray((cm.T @ d.T).T)   # D.C with C sparse


GENERATORS = {"uniform": uniform, "hopbytes": hopbytes}


def check(solver):
    if linear_sum_assignment is None:
        print("SKIP: scipy is not installed (scripts/install-deps.sh installs it)")
        return 77
    rng = np.random.default_rng(18)
    cases = []
    for nr, nc in ((1, 1), (3, 5), (5, 3), (7, 7), (40, 12), (12, 40), (100, 100),
                   (300, 200), (64, 256)):
        cases.append(("uniform", uniform(rng, nr, nc)))
        cases.append(("ints", small_ints(rng, nr, nc)))
        cases.append(("ints+inf", small_ints(rng, nr, nc, 0.3)))
        w = hopbytes(rng, max(nr, nc), min(nr, nc))
        cases.append(("hopbytes", w if nr >= nc else w.T))
    # forbidden rows: infeasible when no row is spare, fine with one spare
    c = small_ints(rng, 6, 6)
    c[2, :] = np.inf
    cases.append(("infeasible", c))
    c = small_ints(rng, 7, 6)
    c[2, :] = np.inf
    cases.append(("spare row", c))
    cases.append(("hopbytes", hopbytes(rng, 2000, 64)))
    cases.append(("uniform", uniform(rng, 2000, 2000)))
    failed = 0
    with tempfile.TemporaryDirectory(prefix="mpisw-lap-") as tmp:
        for kind, c in cases:
            rec, col_row, row_col = run_ours(solver, c, tmp)
            want, _ = run_scipy(c)
            name = f"{kind} {c.shape[0]}x{c.shape[1]}"
            if want is None:
                ok = rec["code"] != 0 and "no feasible assignment" in rec["status"]
                why = f"scipy: infeasible; ours: {rec['status']}"
            elif col_row is None:
                ok, why = False, f"ours failed: {rec['status']}"
            else:
                total = rec["total"]
                exact = kind not in ("uniform",)
                ok = total == want if exact else abs(total - want) <= 1e-9 * (1 + abs(want))
                why = f"total {total!r}, scipy {want!r}"
                # our assignment: the smaller side complete, distinct, permitted,
                # and its total the one reported
                nr, nc = c.shape
                got = [(int(col_row[j]), j) for j in range(nc) if col_row[j] >= 0]
                rows_used = [r for r, _ in got]
                valid = (len(got) == min(nr, nc) and len(set(rows_used)) == len(rows_used)
                         and all(row_col[r] == j for r, j in got)
                         and all(np.isfinite(c[r, j]) for r, j in got))
                mine = float(sum(c[r, j] for r, j in got)) if valid else None
                if not valid or abs(mine - total) > 1e-9 * (1 + abs(total)):
                    ok, why = False, f"invalid assignment ({why})"
            print(f"{'ok  ' if ok else 'FAIL'} {name}: {why} ({rec['seconds']:.3f} s)")
            failed += not ok
    print(f"lap_scipy: {len(cases)} matrices, {failed} failed")
    return 1 if failed else 0


def bench(solver, n, rounds, kinds):
    if linear_sum_assignment is None:
        print("lap_scipy: scipy is not installed: run scripts/install-deps.sh",
              file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="mpisw-lap-") as tmp:
        for rnd in range(rounds):
            for kind in kinds:
                rng = np.random.default_rng(1000 * rnd + kinds.index(kind))
                c = GENERATORS[kind](rng, n, n)
                results = {}
                # alternate who goes first, so neither always meets a warm cache
                order = ("mpisw", "scipy") if rnd % 2 == 0 else ("scipy", "mpisw")
                for who in order:
                    if who == "mpisw":
                        rec, _, _ = run_ours(solver, c, tmp)
                        if rec["code"] != 0:
                            print(f"lap_scipy: ours failed: {rec['status']}", file=sys.stderr)
                            return 1
                        results[who] = (rec["total"], rec["seconds"])
                    else:
                        results[who] = run_scipy(c)
                a, b = results["mpisw"][0], results["scipy"][0]
                if b is None or abs(a - b) > 1e-9 * (1 + abs(b)):
                    print(f"lap_scipy: totals differ on {kind} round {rnd}: {a!r} vs {b!r}",
                          file=sys.stderr)
                    return 1
                for who in order:
                    print(json.dumps({"bench": "lap", "solver": who, "kind": kind, "n": n,
                                      "round": rnd, "seconds": results[who][1],
                                      "total": results[who][0]}), flush=True)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=("check", "bench"))
    ap.add_argument("solver", help="the lap_solve program (BUILD/bench/lap_solve)")
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--kinds", default="uniform,hopbytes")
    a = ap.parse_args()
    if a.mode == "check":
        return check(a.solver)
    kinds = a.kinds.split(",")
    bad = [k for k in kinds if k not in GENERATORS]
    if bad:
        ap.error(f"unknown --kinds {','.join(bad)} (known: {','.join(GENERATORS)})")
    return bench(a.solver, a.n, a.rounds, kinds)


if __name__ == "__main__":
    sys.exit(main())
