"""Benchmark suite `hacc`: HACC-IO checkpoint and restart (apps/hacc_io, the
CORAL HACC I/O kernel's data layout; paper section 3.5.1), strong scaling at
1, 2 and 4 ranks with a fixed total of particles, every method:

  indep       MPI_File_write_at / read_at (the kernel's own way), twice: the
              second copy ("indep (A/A)") shows the noise of the machine
  coll        MPI_File_write_at_all / read_at_all
  win mmap    storage windows over the shared file, storage_backend=mmap
  win pager   storage windows, storage_backend=pager (mpisw's user-level pager),
              the checkpoint's arrays put into the window with MPI_Put (--fill put:
              the pager then knows whole blocks are overwritten, not read)
  pool        a mem: pooled file (memory of the job; checkpoint and restart
              in one job)
  ckpt        mpisw_ckpt_take / mpisw_ckpt_restart (one image per rank)

Checkpoint: the particles written and made durable (sync inside the timed
phase), the header committed; two steps per run (--steps 2), as HACC
checkpoints every few steps: "first checkpoint" is step 0 (a fresh file, and
fresh memory for its page cache or window), "checkpoint" is step 1, which
overwrites step 0's file: the steady state of a run, and the figure the
target is about. (Step 0 is not: this virtual machine hands memory freed a
few seconds earlier back to its host, and the first touch of it costs up
to 1-3 s per GB, so the same 797 MB write took 0.6 to 3.3 s as step 0 and
0.23-0.38 s as step 1.) Before each timed phase every rank syncs the file
system and all wait 0.5 s (--settle 0.5), so no phase inherits the write-back
or the discards (ext4 is mounted with discard) of the run before. Restart:
cold, each rank's part of the file written back and dropped from the page
cache (posix_fadvise DONTNEED; "cached_bytes" shows what was left) before
the timed read; every byte then verified. The reps are the driver's
(outermost), so the methods alternate.

Size: MPISW_BENCH_HACC_PARTICLES (default 20M = 20 x 2^20 particles, 797 MB;
the program's own default is 100 million, 3.8 GB) so the suite ends in about
ten minutes on a 2-core machine. Target (issue 17): storage windows at least
1.0x MPI-IO independent, checkpoint and restart time (ratio indep / win)."""

import os

from harness.api import (Step, by_rep, fmt_stat, human_bytes, legend_outside, load_note,
                         md_table, median_and_spread, ratio_values, save_png, stats)

PARTICLES = int(os.environ.get("MPISW_BENCH_HACC_PARTICLES", str(20 << 20)))
RANKS = [1, 2, 4]
TARGET = 1.0     # indep seconds / win seconds, at least
# label, hacc_io options, record fields that tell it apart
METHODS = [
    ("indep", ["--method", "indep"], {"method": "indep", "pair": "a"}),
    ("coll", ["--method", "coll"], {"method": "coll"}),
    ("win mmap", ["--method", "win", "--backend", "mmap"], {"method": "win", "backend": "mmap"}),
    ("win pager", ["--method", "win", "--backend", "pager", "--fill", "put"],
     {"method": "win", "backend": "pager"}),
    ("pool", ["--method", "pool"], {"method": "pool"}),
    ("ckpt", ["--method", "ckpt"], {"method": "ckpt"}),
    ("indep (A/A)", ["--method", "indep"], {"method": "indep", "pair": "b"}),
]
COLORS = {"indep": "tab:blue", "indep (A/A)": "lightsteelblue", "coll": "tab:cyan",
          "win mmap": "tab:orange", "win pager": "tab:red", "pool": "tab:green",
          "ckpt": "tab:purple"}

SUITES = {"hacc": "HACC-IO checkpoint/restart (apps/hacc_io): MPI-IO independent and "
                  "collective, storage windows (mmap, pager), a pooled file and the checkpoint "
                  "API; 1, 2, 4 ranks, fixed total (MPISW_BENCH_HACC_PARTICLES, default 20M), "
                  "cold restarts, every byte verified, an A/A pair"}
PROGRAMS = {"hacc_io": "apps/hacc_io/hacc_io"}
# sim_step: the checkpoint's step ("step" in a record is the driver's label)
KEY_FIELDS = {"hacc_io": ["phase", "sim_step", "method", "backend", "ranks", "particles", "pair"]}
PHASES = ("first checkpoint", "checkpoint", "restart")
METRICS = {"hacc_io": ["seconds", "gb_per_s", "cached_bytes"]}
PATH_ARG = {"hacc_io"}


def steps(suite):
    common = ["--remove", "--quiet", "--steps", "2", "--settle", "0.5"]
    if suite == "smoke":   # the program and its verification, tiny
        return [Step("hacc_io", "hacc_io win 200K particles n=2 (tiny)",
                     ["--particles", "200K", "--method", "win", "--remove", "--quiet"],
                     ranks=2, timeout=120)]
    if suite != "hacc":
        return []
    out = []
    for ranks in RANKS:
        for label, opts, fields in METHODS:
            out.append(Step("hacc_io", f"hacc_io {label} {human_bytes(PARTICLES * 38)} n={ranks}",
                            ["--particles", str(PARTICLES)] + opts + common, ranks=ranks,
                            timeout=900, extra={"pair": fields.get("pair", "a"),
                                                "label": label}))
    return out


def _runs(runs):
    return [r for r in runs if r.get("bench") == "hacc_io" and r.get("label")]


def _label(f):
    return f.get("label") or ("win " + f.get("backend", "") if f.get("method") == "win"
                              else f.get("method"))


def _phase(r):
    """first checkpoint (step 0), checkpoint (the steady steps) or restart.
    Records without sim_step come from runs of one step: a first checkpoint."""
    if r.get("phase") == "checkpoint" and r.get("sim_step", 0) == 0:
        return "first checkpoint"
    return r.get("phase")


def _sel(d, phase, **match):
    return [r for r in d if _phase(r) == phase and all(r.get(k) == v for k, v in match.items())]


def target(phase, label):
    """The issue's target: windows on the steady checkpoint and the restart."""
    return TARGET if label.startswith("win") and phase != "first checkpoint" else None


def ratios(runs):
    d = _runs(runs)
    out = []
    pairs = [("win mmap", "indep"), ("win pager", "indep"), ("indep (A/A)", "indep")]
    for phase in PHASES:
        for num_label, den_label in pairs:
            allv = []
            for ranks in RANKS:
                win = by_rep(_sel(d, phase), "seconds", ranks=ranks, label=num_label)
                ind = by_rep(_sel(d, phase), "seconds", ranks=ranks, label=den_label)
                vals = ratio_values(ind, win)   # > 1: the first is faster
                allv += vals
                s = stats(vals)
                if s:
                    out.append({"name": f"HACC {phase}: {den_label} / {num_label} time",
                                "which": f"{ranks} rank(s)",
                                "detail": f"hacc_io {phase} seconds, {den_label} over "
                                          f"{num_label}, same rep ({PARTICLES} particles)",
                                "target": target(phase, num_label), **s})
            s = stats(allv)
            if s:
                out.append({"name": f"HACC {phase}: {den_label} / {num_label} time",
                            "which": "1, 2 and 4 ranks",
                            "detail": f"hacc_io {phase} seconds, {den_label} over {num_label}, "
                                      f"per rep and rank count",
                            "target": target(phase, num_label), **s})
    return out


def plot(suite, summary, runs, out, stamp, plt):
    if suite != "hacc":
        return {}
    d = _runs(runs)
    if not d:
        return {}
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    for ax, phase in zip(axes, PHASES):
        for label, _, _ in METHODS:
            pts, xs = [], []
            for ranks in RANKS:
                s = stats([r["seconds"] for r in _sel(d, phase, label=label, ranks=ranks)])
                if s:
                    pts.append(s)
                    xs.append(ranks)
            if not pts:
                continue
            ys, yerr = median_and_spread(pts)
            ax.errorbar(xs, ys, yerr=yerr, marker="o", capsize=3, label=label,
                        color=COLORS.get(label),
                        linestyle=":" if label == "indep (A/A)" else "-")
        ax.set_xscale("log", base=2)
        ax.set_xticks(RANKS)
        ax.set_xticklabels([str(r) for r in RANKS])
        ax.set_xlabel("ranks (fixed total: strong scaling)")
        ax.set_ylabel(f"{phase} time, s (median; bars: min–max)")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        what = {"first checkpoint": "written and synced, step 0",
                "checkpoint": "written and synced, step 1 (steady)",
                "restart": "read back, cold page cache (pool: memory)"}[phase]
        ax.set_title(f"{phase}: {human_bytes(PARTICLES * 38)} {what}", fontsize=9)
    legend_outside(axes[2])
    fig.suptitle(f"HACC-IO, {PARTICLES} particles in total\n{stamp}", fontsize=9)
    return save_png(fig, plt, out, suite, "hacc_io")


def readme(doc):
    d = _runs(doc.get("runs", []))
    if not d:
        return []
    s = [f"### HACC-IO checkpoint and restart ({PARTICLES} particles, "
         f"{human_bytes(PARTICLES * 38)})", ""]
    rows = []
    for phase in PHASES:
        for ranks in RANKS:
            for label, _, _ in METHODS:
                sel = _sel(d, phase, label=label, ranks=ranks)
                if not sel:
                    continue
                sec = stats([r["seconds"] for r in sel])
                gbs = stats([r["gb_per_s"] for r in sel])
                ver = sorted({r.get("verify") for r in sel})
                cached = stats([r.get("cached_bytes") for r in sel
                                if isinstance(r.get("cached_bytes"), int)
                                and r["cached_bytes"] >= 0])
                rows.append([phase, ranks, label, f"**{fmt_stat(sec)}**", fmt_stat(gbs),
                             "/".join(ver), human_bytes(cached["max"]) if cached else ""])
    s.append(md_table(["phase", "ranks", "method", "seconds", "GB/s", "verify",
                       "cached before (max)"], rows))
    s.append("")
    rat = [r for r in doc.get("ratios", []) if r["name"].startswith("HACC ")]
    if rat:
        rrows = []
        for r in rat:
            t = r.get("target")
            met = "" if t is None else ("met" if r["median"] >= t else "**not met**")
            rrows.append([r["name"], r["which"], f"{r['median']:.3f}",
                          f"{r['min']:.3f}–{r['max']:.3f}", r["n"],
                          f"≥ {t:.2f}" if t else "A/A", met])
        s.append(md_table(["ratio (> 1: the second is faster)", "which", "median", "min–max",
                           "n", "target", ""], rrows))
        s.append("")
    s.append("`apps/hacc_io/hacc_io` (README \"HACC-IO\"): 9 arrays a particle (7 float, an "
             "int64, a uint16: 38 bytes) in one shared file, a section per rank; two "
             "checkpoint steps per run (`--steps 2`). Checkpoint s: write (win: copy or "
             "`MPI_Put` into the run's one window) + sync + header commit, between two "
             "barriers (slowest rank); *first checkpoint* is step 0 (a fresh file and fresh "
             "memory, whose first touch this virtual machine's host makes slow and "
             "erratic), *checkpoint* is step 1, overwriting step 0's file: the steady "
             "state, which the target is about. Restart s: header + read (win: a window "
             "over the file, every page brought in by 2 threads at 1 rank, else 1, with "
             "`MADV_HUGEPAGE`; ckpt: mpisw_ckpt_restart) after each rank's range was "
             "dropped from the page cache (posix_fadvise DONTNEED; pool: memory); the "
             "verification of every byte comes after the timed phase. Before each timed "
             "phase: syncfs and 0.5 s of quiet (`--settle 0.5`). Ratios: indep time over "
             "the other's, same rep, so above 1 the other is faster; target (issue 17): "
             "storage windows ≥ 1.0x MPI-IO independent on both phases. The A/A row is "
             "indep against itself.")
    note = load_note(d, "hacc_io")
    if note:
        s.append("")
        s.append(note)
    s.append("")
    return s
