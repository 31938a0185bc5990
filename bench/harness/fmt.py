"""Units and the text forms of numbers, sizes, statistics and tables."""

import datetime as dt
import signal

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30


def human_bytes(n):
    n = int(n)
    for unit, size in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} B"


def fmt_num(x):
    if x is None:
        return "–"
    ax = abs(x)
    if ax >= 1000:
        return f"{x:,.0f}"
    if ax >= 100:
        return f"{x:.0f}"
    if ax >= 10:
        return f"{x:.1f}"
    if ax >= 1:
        return f"{x:.2f}"
    return f"{x:.3g}"


def fmt_stat(s):
    """'median (min–max)' of a {"min","median","max"} dict."""
    if not s:
        return "–"
    if s["n"] == 1:
        return fmt_num(s["median"])
    return f"{fmt_num(s['median'])} ({fmt_num(s['min'])}–{fmt_num(s['max'])})"


def fmt_ratio(x):
    """Three decimals, or three significant digits for ratios below 0.001."""
    return f"{x:.3f}" if abs(x) >= 0.001 or x == 0 else f"{x:.3g}"


def md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(lines)


def exit_text(rc):
    if rc is None:
        return "not run"
    if rc < 0:
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit {rc}"


def now_utc():
    return dt.datetime.now(dt.timezone.utc)


def say(msg=""):
    print(msg, flush=True)



def load_note(runs, program):
    """The sentence on the load average (1 min) that a program's records
    carry ("load1", "cores"; runs: those records only), or None without any."""
    from .stats import stats
    load = stats([r.get("load1") for r in runs
                  if isinstance(r.get("load1"), (int, float)) and r["load1"] >= 0])
    if not load:
        return None
    cores = next((r.get("cores") for r in runs if r.get("cores")), None)
    return (f"Load average (1 min) while {program} printed its records: median "
            f"{load['median']:.1f}, {load['min']:.1f}–{load['max']:.1f}"
            + (f" on {cores} cores" if cores else "")
            + ": above the core count the programs shared the cores with others, "
              "which the min–max spreads show.")
