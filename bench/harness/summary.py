"""A run's records grouped by configuration (min / median / max of each
measurement over the reps), the ratios the project tracks, and the
machine's limits drawn as lines in the plots."""

from .fio import best_limit_mibps, best_limit_summary, limit_job_name
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
        if fields.get("test") == "limit":
            return (f"fio {limit_job_name(fields.get('rw'), fields.get('engine'), fields.get('bs'), fields.get('iodepth'), fields.get('numjobs'))}"
                    f" {human_bytes(fields.get('size', 0))}")
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
    # The device's limit: the best write of fio's matrix in each rep; psync
    # (one request in flight, the limit of earlier results) a second column.
    best = best_limit_mibps(runs, "write")
    best_job = (best_limit_summary(runs, "write") or {}).get("name", "?")
    psync = by_rep(runs, "MiBps", bench="fio", test="write_direct")

    def storage_ratio(num, **row):
        s = ratio_stats(num, best)
        if not s:
            return None
        p = ratio_stats(num, psync)
        return {**row, **s, "limit": best_job, **({"psync": p} if p else {})}
    memcpy = {k: v * 1024 for k, v in
              by_rep(runs, "GiBps_copied", bench="membw", kernel="memcpy").items()}
    ms = sorted({(r.get("ranks"), r.get("size")) for r in runs if r.get("bench") == "mstream"
                 and r.get("memlimit") is None},
                key=lambda t: (t[0] or 0, t[1] or 0))
    for ranks, size in ms:
        # In-memory runs only: no memory cgroup, no access hint.
        base = dict(bench="mstream", kernel="SEQ", ranks=ranks, size=size, memlimit=None,
                    access=None)
        which = f"{human_bytes(size)}, {ranks} rank(s)"
        r = storage_ratio(by_rep(runs, "bw_MiBps", kind="storage", sync=True, **base),
                          name="storage SEQ / best fio write", which=which,
                          detail=f"mstream SEQ storage window (with sync), {human_bytes(size)}, "
                                 f"{ranks} rank(s), bw_MiBps / the best sequential O_DIRECT "
                                 f"write of fio's matrix in the same rep ({best_job})")
        if r:
            ratios.append(r)
        s = ratio_stats(by_rep(runs, "bw_MiBps", kind="memory", **base), memcpy)
        if s:
            ratios.append({"name": "memory SEQ / memcpy", "which": which,
                           "detail": f"mstream SEQ memory window, {human_bytes(size)}, {ranks} "
                                     f"rank(s), bw_MiBps / membw memcpy GiBps_copied (bytes "
                                     f"copied, counted once) x 1024", **s})
    # Out of core: the window does not fit the memory cgroup, the device is the limit.
    ooc = sorted({(r.get("ranks"), r.get("size"), r.get("memlimit"), r.get("access"))
                  for r in runs if r.get("bench") == "mstream" and r.get("memlimit")
                  and r.get("kernel") == "SEQ" and r.get("kind") == "storage"},
                 key=lambda t: (t[0] or 0, t[1] or 0, t[2] or 0, t[3] or ""))
    for ranks, size, memlimit, access in ooc:
        st = by_rep(runs, "bw_MiBps", bench="mstream", kernel="SEQ", kind="storage", sync=True,
                    ranks=ranks, size=size, memlimit=memlimit, access=access)
        hint = f"access={access}" if access else "no access hint"
        r = storage_ratio(st, name="out-of-core storage SEQ"
                                   + (f" (access={access})" if access else "")
                                   + " / best fio write",
                          which=f"{human_bytes(size)} in {human_bytes(memlimit)}, "
                                f"{ranks} rank(s), {hint}",
                          detail=f"mstream SEQ storage window (with sync), "
                                 f"{human_bytes(size)}, {ranks} rank(s), in a "
                                 f"{human_bytes(memlimit)} memory cgroup, {hint}, "
                                 f"bw_MiBps / the best sequential O_DIRECT write of fio's "
                                 f"matrix in the same rep ({best_job})",
                          memlimit=memlimit, access=access)
        if r:
            ratios.append(r)
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
    for rw, color, style in (("write", "tab:red", "-"), ("read", "tab:brown", "-")):
        b = best_limit_summary(runs, rw)
        if b:
            out.append((f"fio best {rw} ({b['name']})", b["median"], color, style))
    for test, label, color, style in (("write_direct", "fio write O_DIRECT psync", "tab:red", "--"),
                                      ("write_fsync", "fio write buffered+fsync", "tab:purple", "-."),
                                      ("read_cold", "fio read cold", "tab:brown", ":")):
        s = stats([r["MiBps"] for r in runs if r.get("bench") == "fio" and r.get("test") == test])
        if s:
            out.append((label, s["median"], color, style))
    return out
