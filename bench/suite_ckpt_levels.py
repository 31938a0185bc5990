"""Suite "ckpt_levels": what the PARTNER and XOR checkpoint levels cost and
whether they bring a lost node back (issue 16's target "XOR level with groups
of 4: storage overhead <= 1/3 of the data (k/(k-1) total), rebuild of one
lost node's data byte-exact"). bench/levels_bench.c through the public API
(mpisw_ckpt_*), on NODES simulated nodes of one rank (MPICH: the fork
launcher with -hosts; Open MPI: a host name per rank; both as root, through
BUILD/bench/levels_nodes.sh and tests/tools/redund_nodes.sh):

    python3 bench/run.py --suite ckpt_levels --build build/mpich --out results/ckpt_levels-mpich

Each step: every rank protects SIZE bytes, takes ITERS checkpoints (every
byte rewritten before each), ckpt_keep 2; then the bytes on disk of each
level (du: allocated blocks, over every rank's files), the set freed, the
last node's LOCAL directory deleted, and a new set's mpisw_ckpt_restart
(which rebuilds it) timed and every restored byte compared.
  local     LOCAL only: the baseline (its restart loses nothing)
  partner   ckpt_partner_every=1
  xor       ckpt_xor_every=1, ckpt_xor_size=4
  local A/A the baseline again (what noise alone gives)
Ratios per rep: XOR parity / LOCAL images (target <= 1/3 at k = 4), PARTNER
copies / LOCAL images, take time with XOR or PARTNER / LOCAL only, restart
after a lost node / a LOCAL restart."""

import subprocess

from harness.api import MiB, Step, by_rep, fmt_stat, human_bytes, load_note, md_table, \
    ratio_stats, save_png, stats

SUITES = {"ckpt_levels": "PARTNER and XOR checkpoint levels on 4 simulated nodes (root): "
                         "bytes on disk per level (XOR parity / data, target <= 1/3 at k=4), "
                         "take time vs LOCAL only, a lost node restored byte-exact"}
PROGRAMS = {"ckpt_levels": "levels_nodes.sh"}
KEY_FIELDS = {"ckpt_levels": ["mode", "aa", "size", "nodes", "ranks", "xor_size"]}
METRICS = {"ckpt_levels": ["take_s", "restart_s", "local_du_bytes", "partner_du_bytes",
                           "xor_du_bytes"]}
PATH_ARG = {"ckpt_levels"}

NODES = 4                 # simulated nodes, one rank each: one XOR group of 4
SIZE = 64 * MiB           # per rank
ITERS = 3
XOR_SIZE = 4
TIMEOUT = 600
MODES = ("local", "partner", "xor")


def _args(mode, size=SIZE, iters=ITERS, nodes=NODES):
    # levels_nodes.sh NODES PPN, then levels_bench's own arguments
    return [str(nodes), "1", "--mode", mode, "--size", str(size), "--iters", str(iters),
            "--xor-size", str(XOR_SIZE)]


def _can_simulate_nodes():
    """Simulated nodes need UTS namespaces (root): the smoke step runs only then."""
    try:
        return subprocess.run(["unshare", "--uts", "true"], capture_output=True,
                              timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def steps(suite):
    if suite == "smoke":
        if not _can_simulate_nodes():
            return []
        return [Step("ckpt_levels", "ckpt_levels xor 1 MiB x2, 4 simulated nodes, a node lost",
                     _args("xor", 1 * MiB, 2), timeout=120, extra={"aa": False})]
    if suite != "ckpt_levels":
        return []
    what = f"{human_bytes(SIZE)}/rank x{ITERS}, {NODES} simulated nodes x 1 rank"
    out = [Step("ckpt_levels", f"ckpt_levels {m}" + (f" (k={XOR_SIZE})" if m == "xor" else "")
                + f", {what}" + (", a node lost" if m != "local" else ""),
                _args(m), timeout=TIMEOUT, extra={"aa": False}) for m in MODES]
    out.append(Step("ckpt_levels", f"ckpt_levels local (A/A), {what}", _args("local"),
                    timeout=TIMEOUT, extra={"aa": True}))
    return out


# ---- ratios

def _m(runs, mode, metric, aa=False):
    return by_rep(runs, metric, bench="ckpt_levels", mode=mode, aa=aa, size=SIZE)


def _protected(runs, mode):
    """{rep: bytes} of the data the kept versions hold (every rank's SIZE x keep)."""
    return {r["rep"]: r["data_bytes"] * r["keep"] for r in runs
            if r.get("bench") == "ckpt_levels" and r.get("mode") == mode and not r.get("aa")
            and r.get("size") == SIZE and isinstance(r.get("data_bytes"), (int, float))}


def ratios(runs):
    which = f"{human_bytes(SIZE)}/rank, {NODES} nodes"
    out = []
    s = ratio_stats(_m(runs, "xor", "xor_du_bytes"), _m(runs, "xor", "local_du_bytes"))
    if s:
        out.append(dict(name=f"ckpt_levels: XOR parity / LOCAL images (k={XOR_SIZE})", which=which,
                        detail="bytes on disk (du) of every rank's parity files / of its LOCAL "
                               "images, the same 2 kept versions (target <= 1/3; each parity "
                               "file has a 4 KiB header)", **s))
    s = ratio_stats(_m(runs, "xor", "xor_bytes"), _protected(runs, "xor"))
    if s:
        out.append(dict(name=f"ckpt_levels: XOR parity / protected data (k={XOR_SIZE})",
                        which=which, detail="parity files' sizes / the ranks' protected bytes "
                                            "of the 2 kept versions (headers of both counted "
                                            "against the level)", **s))
    s = ratio_stats(_m(runs, "partner", "partner_du_bytes"), _m(runs, "partner", "local_du_bytes"))
    if s:
        out.append(dict(name="ckpt_levels: PARTNER copies / LOCAL images", which=which,
                        detail="bytes on disk (du) of every rank's partner window file / of its "
                               "LOCAL images, 2 kept versions (expected about 1)", **s))
    local = _m(runs, "local", "take_s")
    for mode in ("xor", "partner"):
        s = ratio_stats(_m(runs, mode, "take_s"), local)
        if s:
            out.append(dict(name=f"ckpt_levels: take time, LOCAL + {mode.upper()} / LOCAL only",
                            which=which, detail="mpisw_ckpt_take, slowest rank, median over the "
                                                "run's checkpoints; per rep", **s))
    restart = _m(runs, "local", "restart_s")
    for mode in ("xor", "partner"):
        s = ratio_stats(_m(runs, mode, "restart_s"), restart)
        if s:
            out.append(dict(name=f"ckpt_levels: restart, a node lost, rebuilt by {mode.upper()} "
                                 "/ LOCAL restart", which=which,
                            detail="mpisw_ckpt_restart (slowest rank) that rebuilds the lost "
                                   "node's image / one that reads every rank's LOCAL image", **s))
    s = ratio_stats(_m(runs, "local", "take_s", aa=True), local)
    if s:
        out.append(dict(name="ckpt_levels: take time, LOCAL only (A/A)", which=which,
                        detail="the same step twice: what noise alone gives", **s))
    return out


# ---- plots

LABEL = {"local": "LOCAL only", "partner": "LOCAL + PARTNER", "xor": f"LOCAL + XOR (k={XOR_SIZE})"}
COLOR = {"local": "tab:gray", "partner": "tab:orange", "xor": "tab:blue"}


def _bar(ax, i, s, color, scale=1.0):
    ax.bar(i, s["median"] * scale, color=color)
    ax.errorbar(i, s["median"] * scale, yerr=[[(s["median"] - s["min"]) * scale],
                                              [(s["max"] - s["median"]) * scale]],
                fmt="none", color="black", capsize=4)


def plot(suite, summary, runs, out, stamp, plt):
    if suite != "ckpt_levels":
        return {}
    fig, (a1, a2, a3) = plt.subplots(1, 3, figsize=(13, 4.2))
    # bytes on disk per version, per level, relative to the protected data
    bars = []
    for name, mode, metric in (("LOCAL images", "xor", "local_du_bytes"),
                               ("PARTNER copies", "partner", "partner_du_bytes"),
                               (f"XOR parity (k={XOR_SIZE})", "xor", "xor_du_bytes")):
        s = stats([v / _protected(runs, mode)[k] for k, v in _m(runs, mode, metric).items()
                   if _protected(runs, mode).get(k)])
        if s:
            bars.append((name, s, "tab:gray" if name.startswith("LOCAL") else
                         COLOR["partner" if name.startswith("PARTNER") else "xor"]))
    for i, (name, s, c) in enumerate(bars):
        _bar(a1, i, s, c)
    if bars:
        a1.axhline(1 / (XOR_SIZE - 1), color="tab:red", linestyle="--", linewidth=1)
        a1.text(len(bars) - 0.5, 1 / (XOR_SIZE - 1), f"1/{XOR_SIZE - 1}", color="tab:red",
                fontsize=8, va="bottom", ha="right")
    a1.set_xticks(range(len(bars)))
    a1.set_xticklabels([n for n, _, _ in bars], fontsize=8)
    a1.set_ylabel("bytes on disk (du) / protected data")
    a1.set_title("storage per level", fontsize=9)
    a1.grid(alpha=0.3, axis="y")
    for ax, metric, title in ((a2, "take_s", "mpisw_ckpt_take (median of the run)"),
                              (a3, "restart_s", "mpisw_ckpt_restart (PARTNER, XOR: a node lost)")):
        got = [(LABEL[m], stats(list(_m(runs, m, metric).values())), COLOR[m]) for m in MODES]
        got = [g for g in got if g[1]]
        for i, (_, s, c) in enumerate(got):
            _bar(ax, i, s, c)
        ax.set_xticks(range(len(got)))
        ax.set_xticklabels([n.replace(" + ", "\n+ ") for n, _, _ in got], fontsize=8)
        ax.set_ylabel("s, slowest rank (median; bars: min–max)")
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3, axis="y")
    fig.suptitle(f"checkpoint levels, {human_bytes(SIZE)}/rank, {NODES} simulated nodes — {stamp}",
                 fontsize=10)
    return save_png(fig, plt, out, suite, "ckpt_levels")


# ---- README

def readme(doc):
    if doc.get("suite") != "ckpt_levels":
        return []
    runs = [r for r in doc.get("runs", []) if r.get("bench") == "ckpt_levels"]
    s = ["### Checkpoint levels PARTNER and XOR (ckpt_levels)", "",
         f"`bench/levels_bench.c` through `mpisw_ckpt_*`, {NODES} simulated nodes × 1 rank "
         f"(`BUILD/bench/levels_nodes.sh`), {ITERS} checkpoints of {human_bytes(SIZE)} per rank "
         "(every byte rewritten before each), `ckpt_keep` 2, LOCAL under `--path` "
         f"(`{doc.get('path', '?')}`). Bytes: du of every rank's files of a level (2 kept "
         "versions); protected data: ranks × size × 2. Take: slowest rank, median over the "
         "run's checkpoints. Restart: a new set's `mpisw_ckpt_restart` after the last node's "
         "LOCAL directory was deleted (PARTNER, XOR; it rebuilds that node's image), or with "
         "nothing lost (LOCAL); every restored byte compared with the data.", ""]
    load = load_note(runs, "levels_bench")
    if load:
        s += [load, ""]
    rows = []
    for mode in MODES:
        for aa in (False, True):
            rs = [r for r in runs if r.get("mode") == mode and bool(r.get("aa")) == aa
                  and r.get("size") == SIZE]
            if not rs:
                continue
            prot = _protected(runs, mode)
            own = {"local": "local_du_bytes", "partner": "partner_du_bytes",
                   "xor": "xor_du_bytes"}[mode]
            share = stats([v / prot[k] for k, v in _m(runs, mode, own, aa).items()
                           if prot.get(k)]) if not aa else None
            exact = [r.get("byte_exact") for r in rs]
            rows.append([LABEL[mode] + (" (A/A)" if aa else ""),
                         f"{share['median']:.5f} ({share['min']:.5f}–{share['max']:.5f})"
                         if share else "–",
                         fmt_stat(stats(list(_m(runs, mode, "take_s", aa).values()))),
                         fmt_stat(stats(list(_m(runs, mode, "restart_s", aa).values()))),
                         ", ".join(sorted({str(r.get("restored_level")) for r in rs})),
                         f"{sum(e is True for e in exact)}/{len(exact)}", len(rs)])
    if rows:
        s.append(md_table(["level", "its files (du) / protected data", "take s", "restart s",
                           "restored from", "byte-exact", "n"], rows))
        s.append("")
    return s
