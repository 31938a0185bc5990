"""Suite "acc": accumulate into memory vs storage windows, A/B interleaved
(bench/rma_bench.c with --rounds, 2 ranks; issue 21's slow accumulate).

Each step runs both kinds in one process, N rounds in alternating order
(memory, storage, storage, memory, ...), each round in new windows, so that
the drift of a shared machine falls on both kinds. The ratio storage/memory
is taken per (rep, round) pair and summarised as min/median/max; an A/A
step (memory against memory, consecutive rounds) shows what the noise alone
gives. Besides the time, every record carries page faults and kernel time per
epoch at both ranks: those do not depend on the load, and show whether the
two kinds take the same path."""

from harness.api import Step, fmt_stat, human_bytes, md_table, stats

SUITES = {"acc": "MPI_Accumulate (MPI_SUM on doubles) into memory vs storage windows, "
                 "MPI_Alloc_mem+MPI_Win_create and MPI_Win_allocate, interleaved A/B "
                 "rounds + an A/A pair, medians (2 ranks)"}
PROGRAMS = {"rma_ab": "rma_bench"}
KEY_FIELDS = {"rma_ab": ["op", "kind", "window", "type", "bytes", "ranks", "aa"]}
METRICS = {"rma_ab": ["usec", "MiBps", "origin_faults", "target_faults", "target_sys_us"]}
PATH_ARG = {"rma_ab"}

KIB, MIB = 1024, 1024 * 1024
ROUNDS = 10


def _args(window, kind, rounds, lo, hi, iters):
    return ["--ops", "accumulate", "--type", "double", "--window", window, "--kind", kind,
            "--rounds", str(rounds), "--min", str(lo), "--max", str(hi), "--iters", str(iters)]


def steps(suite):
    if suite == "smoke":
        return [Step("rma_ab", "acc double create memory+storage 8 B..64 B x2 rounds",
                     _args("create", "both", 2, 8, 64, 10), ranks=2, timeout=120)]
    if suite != "acc":
        return []
    t = 900
    out = []
    for window in ("create", "allocate"):
        out.append(Step("rma_ab", f"acc double {window} memory/storage 64 KiB..1 MiB "
                                    f"x{ROUNDS} rounds",
                        _args(window, "both", ROUNDS, 64 * KIB, MIB, 200), ranks=2, timeout=t))
    # A/A: memory only, consecutive rounds compared with each other
    out.append(Step("rma_ab", f"acc double create memory/memory (A/A) 64 KiB..1 MiB "
                                f"x{2 * ROUNDS} rounds",
                    _args("create", "memory", 2 * ROUNDS, 64 * KIB, MIB, 200), ranks=2,
                    timeout=t, extra={"aa": True}))
    return out


def _pairs(runs, window, size, aa):
    """usec ratios of the A/B (storage / memory of one round) or A/A
    (memory round 2i+1 / memory round 2i) pairs, per rep."""
    cells = {}
    for r in runs:
        if (r.get("bench") != "rma_ab" or r.get("window") != window or r.get("bytes") != size
                or bool(r.get("aa")) != aa or not isinstance(r.get("usec"), (int, float))):
            continue
        cells[(r.get("rep"), r.get("round"), r.get("kind"))] = r["usec"]
    out = []
    for (rep, rnd, kind), v in cells.items():
        if aa and kind == "memory" and rnd % 2 == 1:
            base = cells.get((rep, rnd - 1, "memory"))
        elif not aa and kind == "storage":
            base = cells.get((rep, rnd, "memory"))
        else:
            continue
        if base:
            out.append(v / base)
    return out


def ratios(runs):
    out = []
    sizes = sorted({r["bytes"] for r in runs if r.get("bench") == "rma_ab"})
    windows = sorted({r.get("window") for r in runs if r.get("bench") == "rma_ab"})
    for window in windows:
        for size in sizes:
            for aa, name in ((False, "storage / memory"), (True, "memory / memory (A/A)")):
                s = stats(_pairs(runs, window, size, aa))
                if s:
                    out.append(dict(name=f"accumulate {name}, {window}",
                                    which=human_bytes(size), bytes=size,
                                    detail="rma_bench usec per lock+accumulate+unlock epoch, "
                                           "MPI_SUM on doubles, ratio per interleaved round",
                                    **s))
    return out


def readme(doc):
    summ = [x for x in doc.get("summary", []) if x.get("bench") == "rma_ab"]
    if not summ:
        return []
    s = ["### Accumulate, memory vs storage (acc)", "",
         "Per epoch: µs and the page faults at the target (min / median / max over rounds "
         "and reps). Faults do not depend on the machine's load.", ""]
    rows = []
    for x in sorted(summ, key=lambda x: (x["fields"].get("window"), x["fields"].get("bytes"),
                                         x["fields"].get("kind"))):
        f, m = x["fields"], x["metrics"]
        rows.append([f.get("window"), human_bytes(f.get("bytes", 0)), f.get("kind"),
                     fmt_stat(m.get("usec")), fmt_stat(m.get("target_faults"))])
    s.append(md_table(["window", "size", "kind", "µs", "target faults"], rows))
    s.append("")
    return s
