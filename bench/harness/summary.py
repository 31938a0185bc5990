"""A run's records grouped by configuration (min / median / max of each
measurement over the reps), the ratios the project tracks, and the
machine's limits drawn as lines in the plots."""

from .fmt import KiB, human_bytes
from .registry import KEY_FIELDS, METRICS, hooks
from .stats import by_rep, ratio_stats, ratio_values, stats
from .suites import OOC_TAG, op_rank


def config_key(rec):
    bench = rec.get("bench", "?")
    fields = KEY_FIELDS.get(bench)
    if fields is None:   # unknown bench: every non-measurement scalar
        fields = sorted(k for k, v in rec.items()
                        if k not in ("rep", "step") and isinstance(v, (str, bool)))
    return (bench,) + tuple((f, rec.get(f)) for f in fields if f in rec)


def config_label(key):
    bench, fields = key[0], dict(key[1:])
    if bench == "mstream":
        kind = fields.get("kind")
        s = f"mstream {fields.get('kernel')} {kind}"
        if kind == "combined":
            s += f" {fields.get('factor'):g}" if isinstance(fields.get("factor"), (int, float)) else ""
            s += f" {fields.get('order')}"
        s += f" {human_bytes(fields.get('size', 0))} n={fields.get('ranks')}"
        s += f" x{fields.get('iters')}" + ("" if fields.get("sync", True) else " nosync")
        if fields.get("access"):
            s += f" access={fields['access']}"
        if fields.get("backend") not in (None, "mmap"):
            s += f" backend={fields['backend']}"
        if fields.get("memlimit"):
            s += f" {OOC_TAG} in {human_bytes(fields['memlimit'])}"
        return s
    if bench == "rma":
        return f"rma {fields.get('op')} {fields.get('kind')} {human_bytes(fields.get('bytes', 0))}"
    if bench == "membw":
        return f"membw {fields.get('kernel')} {human_bytes(fields.get('size', 0))}"
    if bench == "fio":
        return f"fio {fields.get('test')} {human_bytes(fields.get('size', 0))}"
    return " ".join([bench] + [f"{k}={v}" for k, v in fields.items()])


def summarise(runs):
    groups = {}
    for r in runs:
        groups.setdefault(config_key(r), []).append(r)
    out = []
    for key, recs in groups.items():
        bench = key[0]
        metrics = {}
        for m in METRICS.get(bench, []):
            s = stats([r.get(m) for r in recs])
            if s:
                metrics[m] = s
        out.append({"config": config_label(key), "bench": bench, "fields": dict(key[1:]),
                    "reps": sorted({r.get("rep") for r in recs}), "metrics": metrics})
    return out


def compute_ratios(runs):
    """The ratios the project tracks, each as min/median/max over reps."""
    ratios = []
    direct = by_rep(runs, "MiBps", bench="fio", test="write_direct")
    memcpy = {k: v * 1024 for k, v in
              by_rep(runs, "GiBps_copied", bench="membw", kernel="memcpy").items()}
    ms = sorted({(r.get("ranks"), r.get("size")) for r in runs if r.get("bench") == "mstream"
                 and r.get("memlimit") is None},
                key=lambda t: (t[0] or 0, t[1] or 0))
    for ranks, size in ms:
        # In-memory runs only: no memory cgroup, no access hint.
        base = dict(bench="mstream", kernel="SEQ", ranks=ranks, size=size, memlimit=None,
                    access=None)
        for name, num, den, detail in (
                ("storage SEQ / fio O_DIRECT write",
                 by_rep(runs, "bw_MiBps", kind="storage", sync=True, **base), direct,
                 f"mstream SEQ storage window (with sync), {human_bytes(size)}, {ranks} "
                 f"rank(s), bw_MiBps / fio sequential write O_DIRECT MiB/s"),
                ("memory SEQ / memcpy", by_rep(runs, "bw_MiBps", kind="memory", **base), memcpy,
                 f"mstream SEQ memory window, {human_bytes(size)}, {ranks} rank(s), "
                 f"bw_MiBps / membw memcpy GiBps_copied (bytes copied, counted once) x 1024")):
            s = ratio_stats(num, den)
            if s:
                ratios.append({"name": name, "which": f"{human_bytes(size)}, {ranks} rank(s)",
                               "detail": detail, **s})
    # Out of core: the window does not fit the memory cgroup, the device is the limit.
    ooc = sorted({(r.get("ranks"), r.get("size"), r.get("memlimit"), r.get("access"))
                  for r in runs if r.get("bench") == "mstream" and r.get("memlimit")
                  and r.get("kernel") == "SEQ" and r.get("kind") == "storage"},
                 key=lambda t: (t[0] or 0, t[1] or 0, t[2] or 0, t[3] or ""))
    for ranks, size, memlimit, access in ooc:
        st = by_rep(runs, "bw_MiBps", bench="mstream", kernel="SEQ", kind="storage", sync=True,
                    ranks=ranks, size=size, memlimit=memlimit, access=access)
        s = ratio_stats(st, direct)
        if s:
            hint = f"access={access}" if access else "no access hint"
            ratios.append({"name": "out-of-core storage SEQ"
                                   + (f" (access={access})" if access else "")
                                   + " / fio O_DIRECT write",
                           "which": f"{human_bytes(size)} in {human_bytes(memlimit)}, "
                                    f"{ranks} rank(s), {hint}",
                           "detail": f"mstream SEQ storage window (with sync), "
                                     f"{human_bytes(size)}, {ranks} rank(s), in a "
                                     f"{human_bytes(memlimit)} memory cgroup, {hint}, "
                                     f"bw_MiBps / fio sequential write O_DIRECT MiB/s",
                           "memlimit": memlimit, "access": access, **s})
    ops = sorted({r.get("op") for r in runs if r.get("bench") == "rma"}, key=op_rank)
    for op in ops:
        sizes = sorted({r["bytes"] for r in runs if r.get("bench") == "rma"
                        and r.get("op") == op and r.get("bytes", 0) >= 64 * KiB})
        allv = []
        rows = []
        for b in sizes:
            st = by_rep(runs, "MiBps", bench="rma", op=op, kind="storage", bytes=b)
            mem = by_rep(runs, "MiBps", bench="rma", op=op, kind="memory", bytes=b)
            vals = ratio_values(st, mem)
            allv += vals
            s = stats(vals)
            if s:
                rows.append({"name": f"RMA {op} storage / memory",
                             "detail": f"rma_bench {op} MiBps, {human_bytes(b)}",
                             "bytes": b, **s})
        s = stats(allv)
        if s:
            ratios.append({"name": f"RMA {op} storage / memory", "which": ">= 64 KiB",
                           "detail": f"rma_bench {op} MiBps, every size from 64 KiB up "
                                     f"({len(sizes)} sizes x reps)", "bytes": "all>=64KiB", **s})
            ratios.extend(rows)
    for more in hooks("ratios"):
        ratios += more(runs) or []
    return ratios


def limits(runs):
    """Horizontal lines for the mstream plot, MiB/s (medians over reps)."""
    out = []
    memcpy = stats([r["GiBps_copied"] * 1024 for r in runs
                    if r.get("bench") == "membw" and r.get("kernel") == "memcpy"
                    and isinstance(r.get("GiBps_copied"), (int, float))])
    if memcpy:
        out.append(("memcpy (membw, bytes copied)", memcpy["median"], "tab:gray", "-"))
    for test, label, color, style in (("write_direct", "fio write O_DIRECT", "tab:red", "--"),
                                      ("write_fsync", "fio write buffered+fsync", "tab:purple", "-."),
                                      ("read_cold", "fio read cold", "tab:brown", ":")):
        s = stats([r["MiBps"] for r in runs if r.get("bench") == "fio" and r.get("test") == test])
        if s:
            out.append((label, s["median"], color, style))
    return out
