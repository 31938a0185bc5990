"""Benchmark suite `hacc`: HACC-IO checkpoint and restart (apps/hacc_io, the
CORAL HACC I/O kernel's data layout; paper section 3.5.1), strong scaling at
1, 2 and 4 ranks with a fixed total of particles, every method:

  indep       MPI_File_write_at / read_at (the kernel's own way), twice: the
              second copy ("indep (A/A)") shows the noise of the machine
  coll        MPI_File_write_at_all / read_at_all
  win mmap    storage windows over the shared file, storage_backend=mmap
  win pager   storage windows, storage_backend=pager (mpisw's user-level pager)
  pool        a mem: pooled file (memory of the job; checkpoint and restart
              in one job)
  ckpt        mpisw_ckpt_take / mpisw_ckpt_restart (one image per rank)

Checkpoint: the particles written and made durable (sync inside the timed
phase), the header committed. Restart: cold, each rank's part of the file
written back and dropped from the page cache (posix_fadvise DONTNEED;
"cached_bytes" shows what was left) before the timed read; every byte then
verified. The reps are the driver's (outermost), so the methods alternate.

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
    ("win pager", ["--method", "win", "--backend", "pager"],
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
KEY_FIELDS = {"hacc_io": ["phase", "method", "backend", "ranks", "particles", "pair"]}
METRICS = {"hacc_io": ["seconds", "gb_per_s", "cached_bytes"]}
PATH_ARG = {"hacc_io"}


def steps(suite):
    common = ["--remove", "--quiet"]
    if suite == "smoke":   # the program and its verification, tiny
        return [Step("hacc_io", "hacc_io win 200K particles n=2 (tiny)",
                     ["--particles", "200K", "--method", "win"] + common, ranks=2, timeout=120)]
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


def _sel(label):
    return next(f for lab, _, f in METHODS if lab == label)


def ratios(runs):
    d = _runs(runs)
    out = []
    pairs = [("win mmap", "indep"), ("win pager", "indep"), ("indep (A/A)", "indep")]
    for phase in ("checkpoint", "restart"):
        for num_label, den_label in pairs:
            allv = []
            for ranks in RANKS:
                win = by_rep(d, "seconds", phase=phase, ranks=ranks, label=num_label)
                ind = by_rep(d, "seconds", phase=phase, ranks=ranks, label=den_label)
                vals = ratio_values(ind, win)   # > 1: the first is faster
                allv += vals
                s = stats(vals)
                if s:
                    out.append({"name": f"HACC {phase}: {den_label} / {num_label} time",
                                "which": f"{ranks} rank(s)",
                                "detail": f"hacc_io {phase} seconds, {den_label} over "
                                          f"{num_label}, same rep ({PARTICLES} particles)",
                                "target": TARGET if num_label.startswith("win") else None,
                                **s})
            s = stats(allv)
            if s:
                out.append({"name": f"HACC {phase}: {den_label} / {num_label} time",
                            "which": "1, 2 and 4 ranks",
                            "detail": f"hacc_io {phase} seconds, {den_label} over {num_label}, "
                                      f"per rep and rank count",
                            "target": TARGET if num_label.startswith("win") else None, **s})
    return out


def plot(suite, summary, runs, out, stamp, plt):
    if suite != "hacc":
        return {}
    d = _runs(runs)
    if not d:
        return {}
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    for ax, phase in zip(axes, ("checkpoint", "restart")):
        for label, _, _ in METHODS:
            pts, xs = [], []
            for ranks in RANKS:
                s = stats([r["seconds"] for r in d if r.get("label") == label
                           and r.get("phase") == phase and r.get("ranks") == ranks])
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
        what = ("written and synced" if phase == "checkpoint"
                else "read back, cold page cache" + " (pool: memory)")
        ax.set_title(f"{phase}: {human_bytes(PARTICLES * 38)} {what}", fontsize=9)
    legend_outside(axes[1])
    fig.suptitle(f"HACC-IO, {PARTICLES} particles in total\n{stamp}", fontsize=9)
    return save_png(fig, plt, out, suite, "hacc_io")


def readme(doc):
    d = _runs(doc.get("runs", []))
    if not d:
        return []
    s = [f"### HACC-IO checkpoint and restart ({PARTICLES} particles, "
         f"{human_bytes(PARTICLES * 38)})", ""]
    rows = []
    for phase in ("checkpoint", "restart"):
        for ranks in RANKS:
            for label, _, _ in METHODS:
                sel = [r for r in d if r.get("label") == label and r.get("phase") == phase
                       and r.get("ranks") == ranks]
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
             "int64, a uint16: 38 bytes) in one shared file, a section per rank. Checkpoint s: "
             "write + sync + header commit, between two barriers (slowest rank). Restart s: "
             "header + read (win: window over the file + copy out; ckpt: "
             "mpisw_ckpt_restart) after each rank's range was dropped from the page cache "
             "(posix_fadvise DONTNEED; pool: memory); the verification of every byte comes "
             "after the timed phase. Ratios: indep time over the other's, same rep, so above "
             "1 the other is faster; target (issue 17): storage windows ≥ 1.0x MPI-IO "
             "independent on both phases. The A/A row is indep against itself.")
    note = load_note(d, "hacc_io")
    if note:
        s.append("")
        s.append(note)
    s.append("")
    return s
