"""Suite "kinds": every storage window kind against a memory window, RMA put
and get from 64 KiB to 4 MiB, 2 ranks (issue 19, item 5; bench/rma_bench.c
with --label).

Kinds: a storage window (MPI_Win_allocate, wholly on storage), a combined
window (storage_alloc_factor=0.5: half memory, half storage), MPI_Win_create
over MPI_Alloc_mem storage (wholly, and combined), MPI_Win_allocate_shared on
storage (wholly, and combined), and a pager window (storage_backend=pager),
whose storage part the pager holds whole: on one node where the node-shared
route is on (Open MPI's default) its pages are a memfd every rank maps. A
reference row, pager_private, is a pager window larger than its memory
(MPISW_PAGER_BLOCK=256K, storage_pager_memory=512K): private pager memory
and the MPI's MPI_Win_create path (Open MPI: osc/ucx, which with the build's
UCX_TLS=^sysv,posix emulates RMA with TCP messages); it has no target.
The memory side is always MPI_Win_allocate in memory, the fastest memory
window of both MPIs, so a kind meets the target only when it is as fast as
that. Each step runs both sides in one process, in rounds of alternating
order (memory, storage, storage, memory, ...), each round in new windows; the
ratio storage / memory of MiB/s is taken per (rep, round, op, size) pair. An
A/A step (memory against memory, consecutive rounds) shows what the noise
of the machine alone gives. Records carry the route the storage window took
(MPI_Win_get_info's mpisw_storage_route: node_shared or win_create) and the
page faults per epoch at the target, which do not depend on the load."""

from harness.api import (Step, fmt_stat, human_bytes, legend_outside, load_note, md_table,
                         save_png, stats)

SUITES = {"kinds": "RMA put/get into every storage window kind (storage, combined, "
                   "Win_create over Alloc_mem storage, shared, pager) vs a memory "
                   "MPI_Win_allocate window, 64 KiB..4 MiB, interleaved rounds + an A/A "
                   "pair, 2 ranks (issue 19, item 5; target >= 0.98)"}
PROGRAMS = {"rma_kinds": "rma_bench"}
KEY_FIELDS = {"rma_kinds": ["label", "op", "kind", "bytes", "ranks", "aa"]}
METRICS = {"rma_kinds": ["usec", "MiBps", "origin_faults", "target_faults", "target_sys_us"]}
PATH_ARG = {"rma_kinds"}

KIB, MIB = 1024, 1024 * 1024
ROUNDS = 8
ITERS = 100  # epochs per size (fewer for 4 MiB: rma_bench caps each size at 256 MiB)
TARGET = 0.98

# label: (window call of the storage side, extra storage hints)
KINDS = {
    "storage": ("allocate", ""),
    "combined": ("allocate", "storage_alloc_factor=0.5"),
    "create": ("create", ""),
    "create_combined": ("create", "storage_alloc_factor=0.5"),
    "shared": ("shared", ""),
    "shared_combined": ("shared", "storage_alloc_factor=0.5"),
    "pager": ("allocate", "storage_backend=pager"),
    "pager_private": ("allocate", "storage_backend=pager,storage_pager_memory=512K"),
}
# Rows without a target: what a kind's other path gives, for reference.
REFERENCE = {"pager_private": {"MPISW_PAGER_BLOCK": "256K"}}
REFERENCE_ROUNDS = 4  # the slow path: fewer rounds keep the suite's time


def _args(label, window, hints, kind, rounds, lo, hi, iters):
    out = ["--ops", "put,get", "--window", window, "--memory-window", "allocate",
           "--kind", kind, "--rounds", str(rounds), "--min", str(lo), "--max", str(hi),
           "--iters", str(iters), "--label", label]
    if hints:
        out += ["--hints", hints]
    return out


def steps(suite):
    if suite == "smoke":
        return [Step("rma_kinds", "kinds combined memory+storage 64 KiB x2 rounds",
                     _args("combined", "allocate", "storage_alloc_factor=0.5", "both", 2,
                           64 * KIB, 64 * KIB, 10), ranks=2, timeout=120)]
    if suite != "kinds":
        return []
    out = []
    for label, (window, hints) in KINDS.items():
        rounds = REFERENCE_ROUNDS if label in REFERENCE else ROUNDS
        out.append(Step("rma_kinds", f"kinds {label} vs memory put/get 64 KiB..4 MiB "
                                     f"x{rounds} rounds",
                        _args(label, window, hints, "both", rounds, 64 * KIB, 4 * MIB, ITERS),
                        ranks=2, timeout=900, env=REFERENCE.get(label)))
    out.append(Step("rma_kinds", f"kinds memory/memory (A/A) put/get 64 KiB..4 MiB "
                                 f"x{2 * ROUNDS} rounds",
                    _args("memory", "allocate", "", "memory", 2 * ROUNDS, 64 * KIB, 4 * MIB,
                          ITERS), ranks=2, timeout=900, extra={"aa": True}))
    return out


def _pairs(runs, label, op, size=None):
    """MiB/s ratios storage / memory of one round (A/A: memory round 2i+1 /
    round 2i), per rep; every size from 64 KiB up when size is None."""
    cells = {}
    for r in runs:
        if (r.get("bench") != "rma_kinds" or r.get("label") != label or r.get("op") != op
                or not isinstance(r.get("MiBps"), (int, float)) or r.get("bytes", 0) < 64 * KIB
                or (size is not None and r.get("bytes") != size)):
            continue
        cells[(r.get("rep"), r.get("round"), r.get("bytes"), r.get("kind"))] = r["MiBps"]
    aa = label == "memory"
    out = []
    for (rep, rnd, b, kind), v in cells.items():
        if aa and kind == "memory" and rnd % 2 == 1:
            base = cells.get((rep, rnd - 1, b, "memory"))
        elif not aa and kind == "storage":
            base = cells.get((rep, rnd, b, "memory"))
        else:
            continue
        if base:
            out.append(v / base)
    return out


def _labels(runs):
    seen = [r.get("label") for r in runs if r.get("bench") == "rma_kinds"]
    return [x for x in list(KINDS) + ["memory"] if x in seen]


def _routes(runs, label):
    return sorted({r.get("route") for r in runs if r.get("bench") == "rma_kinds"
                   and r.get("label") == label and r.get("kind") == "storage"})


def _target(label):
    return None if label == "memory" or label in REFERENCE else TARGET


def ratios(runs):
    out = []
    for label in _labels(runs):
        name = "memory / memory (A/A)" if label == "memory" else f"{label} / memory"
        route = ", ".join(x for x in _routes(runs, label) if x)
        for op in ("put", "get"):
            s = stats(_pairs(runs, label, op))
            if s:
                what = ("; the noise alone" if label == "memory" else
                        "; reference, no target" if label in REFERENCE else
                        f"; target >= {TARGET}")
                out.append(dict(name=f"RMA {op} {name}", which="64 KiB..4 MiB",
                                detail="rma_bench MiB/s, ratio per interleaved round and size"
                                       + what + (f"; route {route}" if route else ""),
                                target=_target(label), **s))
    return out


def plot(suite, summary, runs, out, stamp, plt):
    labels = _labels(runs)
    if not labels:
        return {}
    sizes = sorted({r["bytes"] for r in runs if r.get("bench") == "rma_kinds"
                    and r.get("bytes", 0) >= 64 * KIB})
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.5), sharey=True)
    for ax, op in zip(axes, ("put", "get")):
        for i, label in enumerate(labels):
            pts = [(b, stats(_pairs(runs, label, op, b))) for b in sizes]
            pts = [(b, s) for b, s in pts if s]
            if not pts:
                continue
            xs = [j + (i - len(labels) / 2) * 0.08 for j, _ in enumerate(pts)]
            med = [s["median"] for _, s in pts]
            err = [[s["median"] - s["min"] for _, s in pts], [s["max"] - s["median"] for _, s in pts]]
            ax.errorbar(xs, med, yerr=err, marker="o", ms=4, capsize=2, lw=1,
                        label="memory/memory (A/A)" if label == "memory" else label)
        ax.axhline(TARGET, color="red", ls="--", lw=1, label=f"target {TARGET}")
        ax.set_xticks(range(len(sizes)))
        ax.set_xticklabels([human_bytes(b) for b in sizes], fontsize=8)
        ax.set_title(f"MPI_{op.capitalize()}: storage kind / memory window (MiB/s)", fontsize=9)
        ax.set_xlabel("message size")
        ax.set_yscale("log")
    axes[0].set_ylabel("ratio (median, bars min..max)")
    legend_outside(axes[1])
    fig.suptitle(f"Storage window kinds vs memory, 2 ranks — {stamp}", fontsize=10)
    return save_png(fig, plt, out, suite, "rma_kinds")


def readme(doc):
    runs = doc.get("runs", [])
    labels = _labels(runs)
    if not labels:
        return []
    s = ["### Storage window kinds vs memory (kinds)", "",
         "RMA MiB/s of each storage window kind divided by a memory `MPI_Win_allocate` "
         "window's in the same round (64 KiB to 4 MiB, put and get; min / median / max over "
         "rounds, sizes and reps), the route the storage window took "
         "(`mpisw_storage_route`), and the page faults per epoch at the target.", ""]
    rows = []
    for label in labels:
        faults = stats([r.get("target_faults") for r in runs if r.get("bench") == "rma_kinds"
                        and r.get("label") == label and r.get("kind") == "storage"
                        and isinstance(r.get("target_faults"), (int, float))])
        for op in ("put", "get"):
            st = stats(_pairs(runs, label, op))
            if not st:
                continue
            ok = "" if _target(label) is None else ("met" if st["median"] >= TARGET
                                                     else "**not met**")
            rows.append([label, op, ", ".join(x for x in _routes(runs, label) if x) or "-",
                         fmt_stat(st), ok, fmt_stat(faults) if faults else "-"])
    s.append(md_table(["kind", "op", "route", "storage / memory", f"target {TARGET}",
                       "target faults / epoch"], rows))
    s.append("")
    note = load_note([r for r in runs if r.get("bench") == "rma_kinds"], "rma_bench")
    if note:
        s += [note, ""]
    s += ["A pager window (`storage_backend=pager`) whose storage part the pager holds whole "
          "pages a memfd that the node-shared route maps into every rank (route node_shared; "
          "a sync finds other ranks' writes by each block's hash). `pager_private` (no "
          "target) is a pager window larger than its memory (`MPISW_PAGER_BLOCK=256K`, "
          "`storage_pager_memory=512K`): private pager memory, which no other process can "
          "map, on the MPI's `MPI_Win_create` path (Open MPI: osc/ucx; with the build's "
          "`UCX_TLS=^sysv,posix` UCX emulates each put and get with TCP messages the "
          "target answers). MPICH keeps every kind on `MPI_Win_create` by default "
          "(`storage_node_shared`, README).", ""]
    return s
