"""Suite "pio_spill": pooled files on a pool larger than the memory the job
may use (issue 15's last target: sequential write >= 0.8 x the device's best
sequential write measured by fio in the same run).

The pool lives on storage windows with the pager backend
(MPISW_POOL_HINTS alloc_type=storage, storage_backend=pager, the pool's file
in the run's fresh directory on --path), 1 GiB per rank, 2 ranks. Two limits
keep it out of memory: the pager may hold 128 MiB per rank
(storage_pager_memory: the limit that binds, the pager reads and writes
with O_DIRECT, no page cache), and the whole job (mpiexec and both ranks)
runs in a memory cgroup of the driver's of 512 MiB plus pio_bench's own
buffers (it holds each rank's whole block, 768 MiB, to check the read), so
the 1.5 GiB of pool data cannot stay in memory even by a way around the
pager. pio_bench writes one shared file of
768 MiB per rank (1.5 GiB, 75% of the pool) sequentially in
1 MiB transfers, with MPI_File_sync at the end of the write phase (timed, so
the figure is what reached the device), then reads it back and checks it.
One round per run (a fresh pool each time), the driver's reps.

The device's limit, in the same run (issue 19): the best sequential O_DIRECT
write of fio's quick matrix (psync, libaio and io_uring; 1 and 16 MiB; 1 and
32 in flight; 1 and 2 jobs) on the same file system; fio's psync write of 1
GiB in 1 MiB blocks (one request at a time) as a second column."""

from harness.api import (GiB, MiB, Step, best_limit_bps, best_limit_job, by_rep,
                         fio_steps, fmt_stat, human_bytes, legend_outside, limit_steps,
                         load_note, md_table, ratio_stats, save_png, stats)

SUITES = {"pio_spill": "pooled files on a pager-backed storage pool larger than memory "
                       "(2 x 1 GiB pool, 1.5 GiB file, 384 MiB cgroup, pager 128 MiB/rank): "
                       "pio_bench sequential write+sync and read, 2 ranks, vs the best "
                       "write of fio's quick matrix (and psync)"}

TARGET = "pooled_spill"
RANKS = 2
POOL_SIZE = 1 * GiB           # per rank
PAGER_MEMORY = 128 * MiB      # per rank
BLOCK = 768 * MiB             # per rank: the shared file is 1.5 GiB
MEMLIMIT = 512 * MiB + RANKS * BLOCK   # the job's memory cgroup: pio_bench's buffers + 512 MiB
XFER = 1 * MiB
FIO_SIZE = 1 * GiB
FIO_BS = 1 * MiB
PSYNC = "write_direct"        # fio's psync write: the second column
TARGET_RATIO = 0.8            # of the best fio write (issue 15, restated by issue 19)
TIMEOUT = 600


def _env():
    return {"MPISW_POOL_SIZE": str(POOL_SIZE),
            "MPISW_POOL_HINTS": ("alloc_type=storage;storage_alloc_filename={workdir};"
                                 f"storage_backend=pager;storage_pager_memory={PAGER_MEMORY}")}


def steps(suite):
    if suite != "pio_spill":
        return []
    out = fio_steps(FIO_SIZE, TIMEOUT, tests=[PSYNC], bs=FIO_BS) + \
        limit_steps(FIO_SIZE, TIMEOUT, "quick")
    args = ["--xfer", str(XFER), "--block", str(BLOCK), "--layout", "shared", "--order", "seq",
            "--reps", "1", "--opens", "0", "--fsync", f"{TARGET}=mem:/mpisw-spill/f"]
    out.append(Step("pio", f"pio {human_bytes(BLOCK)}/rank pooled on pager storage, pool "
                           f"{human_bytes(POOL_SIZE)}/rank, in {human_bytes(MEMLIMIT)} n={RANKS}",
                    args, ranks=RANKS, timeout=TIMEOUT, memlimit=MEMLIMIT, env=_env(),
                    extra={"pair": "spill", "memlimit": MEMLIMIT, "pool_size": POOL_SIZE,
                           "pager_memory": PAGER_MEMORY}))
    return out


# ---- ratios

def _spill(runs, phase):
    """{rep: bytes/s} of the spill target's phase."""
    return {k: v * 1e9 for k, v in by_rep(runs, "GBps", bench="pio", target=TARGET,
                                          phase=phase).items()}


def _psync(runs):
    return {k: v * MiB for k, v in by_rep(runs, "MiBps", bench="fio", test=PSYNC,
                                          bs=FIO_BS).items()}


def _best(runs):
    """{rep: bytes/s} of the best write of fio's matrix, and that job's name."""
    return best_limit_bps(runs, "write"), best_limit_job(runs, "write")


def ratios(runs):
    best, job = _best(runs)
    s = ratio_stats(_spill(runs, "write"), best)
    if not s:
        return []
    p = ratio_stats(_spill(runs, "write"), _psync(runs))
    return [dict(name="pio spill: pooled write / best fio write",
                 which=f"{human_bytes(2 * BLOCK)} file, pool {RANKS} x "
                       f"{human_bytes(POOL_SIZE)} on the pager, {RANKS} ranks", limit=job,
                 target=TARGET_RATIO,
                 detail=f"pio_bench write phase + MPI_File_sync (bytes/s) of a "
                        f"{human_bytes(2 * BLOCK)} pooled file on a pager-backed storage pool "
                        f"in a {human_bytes(MEMLIMIT)} memory cgroup / the best fio write of the "
                        f"rep ({job}); target >= {TARGET_RATIO}", **s,
                 **({"psync": p} if p else {}))]


def _fio_bars(runs):
    best, job = _best(runs)
    return [(f"fio best write ({job})", stats(list(best.values()))),
            ("fio O_DIRECT psync write", stats(list(_psync(runs).values())))]


# ---- plots

def plot(suite, summary, runs, out, stamp, plt):
    if suite != "pio_spill":
        return {}
    bars = _fio_bars(runs)
    for phase in ("write", "read"):
        bars.append((f"pooled spill {phase}" + (" + sync" if phase == "write" else ""),
                     stats(list(_spill(runs, phase).values()))))
    bars = [(n, s) for n, s in bars if s]
    if not bars:
        return {}
    fig, ax = plt.subplots(figsize=(8, 4))
    for i, (name, s) in enumerate(bars):
        ax.bar(i, s["median"] / 1e9, color="tab:gray" if name.startswith("fio") else "tab:green",
               label=name)
        ax.errorbar(i, s["median"] / 1e9, yerr=[[(s["median"] - s["min"]) / 1e9],
                                                  [(s["max"] - s["median"]) / 1e9]],
                    fmt="none", color="black", capsize=4)
    ax.set_xticks(range(len(bars)))
    ax.set_xticklabels([n.replace("fio ", "fio\n").replace(" write", "\nwrite")
                        .replace(" read", "\nread") for n, _ in bars], fontsize=8)
    ax.set_ylabel("GB/s (median; bars: min–max over reps)")
    ax.grid(alpha=0.3, axis="y")
    legend_outside(ax)
    fig.suptitle(f"pooled file on a pager storage pool larger than memory vs fio — {stamp}",
                 fontsize=10)
    return save_png(fig, plt, out, suite, "pio_spill")


# ---- README

def readme(doc):
    if doc.get("suite") != "pio_spill":
        return []
    runs = doc.get("runs", [])
    s = ["### Pooled files spilling to storage (pio_spill)", "",
         f"A pool of {RANKS} x {human_bytes(POOL_SIZE)} on storage windows with the pager "
         f"backend (`MPISW_POOL_HINTS`: `alloc_type=storage`, `storage_backend=pager`, "
         f"`storage_pager_memory={human_bytes(PAGER_MEMORY)}` per rank; the pool's file in a "
         f"fresh directory on `--path`), the whole job in a {human_bytes(MEMLIMIT)} memory "
         f"cgroup (512 MiB plus pio_bench's own buffers, {human_bytes(BLOCK)} per rank, "
         f"which hold the data to write and check): the pager's limit is the one that binds "
         f"(O_DIRECT, no page cache). pio_bench writes a {human_bytes(2 * BLOCK)} shared file sequentially in "
         f"{human_bytes(XFER)} transfers, `MPI_File_sync` at the end of the write phase "
         "(timed: the figure is what reached the device), then reads it back and checks every "
         "byte. One round per run, on a fresh pool. The limit: the best sequential O_DIRECT "
         "write of fio's quick matrix on the same file system in the same rep (psync, libaio "
         "and io_uring; 1 and 16 MiB; 1 and 32 in flight; 1 and 2 jobs), fio's psync write "
         f"as a second figure; target >= {TARGET_RATIO} of the best.", ""]
    cmds = doc.get("commands", {})
    for label, cmd in cmds.items():
        s.append(f"- `{label}`:")
        s.append("")
        s.append("  ```sh\n  " + cmd + "\n  ```")
    if cmds:
        s.append("")
    load = load_note([r for r in runs if r.get("target") == TARGET], "pio_bench")
    if load:
        s += [load, ""]
    rows = []
    for name, st in _fio_bars(runs) + \
            [(f"pooled spill {p}", stats(list(_spill(runs, p).values())))
             for p in ("write", "read")]:
        if st:
            rows.append([name, fmt_stat({k: (v / 1e9 if k != "n" else v)
                                         for k, v in st.items()}), st["n"]])
    if rows:
        s.append(md_table(["what", "GB/s, median (min–max)", "n"], rows))
        s.append("")
    peaks = stats([r.get("cgroup_peak_MiB") for r in runs if r.get("target") == TARGET
                   and r.get("phase") == "write"])
    if peaks:
        s.append(f"Memory cgroup peak: median {peaks['median']:.0f} MiB "
                 f"({peaks['min']:.0f}–{peaks['max']:.0f}) of {human_bytes(MEMLIMIT)}.")
        s.append("")
    return s
