"""Suite "intrinsic": MPI_Fetch_and_op and MPI_Accumulate (MPI_SUM, 8 B, rank 0
to rank 1) on a node-shared storage window with mpi_assert_accumulate_intrinsic
=true and accumulate_ordering=none (mpisw's processor atomics) against the same
window without the keys (the MPI's own accumulate); bench/intrinsic_bench.c,
2 ranks. Both windows are measured in interleaved rounds (A B, B A, ...); the
ratio MPI / atomics is taken per (rep, round) and summarised as min / median /
max, and an A/A step (atomics against atomics) shows what noise alone gives.
See docs/RMA_EXTENSIONS.md."""

from harness.api import Step, fmt_stat, md_table, stats

SUITES = {"intrinsic": "MPI_Fetch_and_op / MPI_Accumulate sum on 8 B: processor atomics "
                       "(intrinsic keys) vs the MPI's accumulate on one node-shared storage "
                       "window, interleaved A/B rounds + an A/A pair (2 ranks)"}
PROGRAMS = {"intrinsic": "intrinsic_bench"}
KEY_FIELDS = {"intrinsic": ["op", "mode", "kind", "aa", "contend", "bytes", "ranks"]}
METRICS = {"intrinsic": ["usec"]}
PATH_ARG = {"intrinsic"}

ROUNDS = 10
ITERS = 20000


def steps(suite):
    if suite == "smoke":
        return [Step("intrinsic", "intrinsic atomics vs MPI 8 B x2 rounds",
                     ["--iters", "200", "--rounds", "2"], ranks=2, timeout=120)]
    if suite != "intrinsic":
        return []
    return [
        Step("intrinsic", f"intrinsic atomics vs MPI 8 B x{ROUNDS} rounds",
             ["--iters", str(ITERS), "--rounds", str(ROUNDS)], ranks=2, timeout=600),
        Step("intrinsic", f"intrinsic atomics vs atomics (A/A) 8 B x{ROUNDS} rounds",
             ["--iters", str(ITERS), "--rounds", str(ROUNDS), "--aa"], ranks=2, timeout=600),
        Step("intrinsic", f"intrinsic atomics vs MPI 8 B, both ranks on one location "
                          f"x{ROUNDS} rounds",
             ["--iters", str(ITERS), "--rounds", str(ROUNDS), "--contend"], ranks=2,
             timeout=600),
    ]


def _pairs(runs, op, mode, aa, contend):
    """usec of the second window / the first ("mpi" / "atomic", or "atomic2" /
    "atomic" for A/A), per (rep, round)."""
    cells = {}
    for r in runs:
        if (r.get("bench") != "intrinsic" or r.get("op") != op or r.get("mode") != mode
                or bool(r.get("aa")) != aa or bool(r.get("contend")) != contend or not isinstance(r.get("usec"), (int, float))):
            continue
        cells[(r.get("rep"), r.get("round"), r.get("kind"))] = r["usec"]
    other = "atomic2" if aa else "mpi"
    out = []
    for (rep, rnd, kind), v in cells.items():
        base = cells.get((rep, rnd, "atomic"))
        if kind == other and base:
            out.append(v / base)
    return out


def ratios(runs):
    out = []
    for op in ("fetch_and_op", "accumulate"):
        for mode in ("flush_each", "flush_once"):
            for aa, contend, name in ((False, False, "MPI / atomics"),
                                      (True, False, "atomics / atomics (A/A)"),
                                      (False, True, "MPI / atomics, both ranks")):
                s = stats(_pairs(runs, op, mode, aa, contend))
                if s:
                    out.append(dict(name=f"intrinsic {op} {name}, {mode}", which="8 B",
                                    detail="intrinsic_bench usec per op (flush_each: op + "
                                           "flush; flush_once: ops then one flush), ratio per "
                                           "interleaved round", **s))
    return out


def readme(doc):
    summ = [x for x in doc.get("summary", []) if x.get("bench") == "intrinsic"]
    if not summ:
        return []
    s = ["### Intrinsic accumulates (intrinsic)", "",
         "µs per operation, 8 B MPI_SUM, rank 0 to rank 1 (min / median / max over rounds "
         "and reps of rank 0; \"both ranks\": rank 1 hits the same location meanwhile); kind atomic: mpisw's processor atomics, mpi: the MPI's accumulate on "
         "the same kind of window without the keys.", ""]
    rows = []
    for x in sorted(summ, key=lambda x: (x["fields"].get("op"), x["fields"].get("mode"),
                                         bool(x["fields"].get("aa")),
                                         bool(x["fields"].get("contend")),
                                         x["fields"].get("kind"))):
        f, m = x["fields"], x["metrics"]
        step = "A/A" if f.get("aa") else "A/B, both ranks" if f.get("contend") else "A/B"
        rows.append([f.get("op"), f.get("mode"), step, f.get("kind"),
                     fmt_stat(m.get("usec"))])
    s.append(md_table(["op", "mode", "step", "kind", "µs"], rows))
    s.append("")
    return s
