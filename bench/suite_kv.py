"""Suite kv: the mpisw_kv store (bench/kv_bench.c), object cache vs naive
table vs all in memory.

1 KiB values, 65,536 objects (a working set four times the 16 MiB memory
window of the cache), 90% gets, keys drawn from a Zipf(0.99) distribution.
The cache and naive runs go into a 44 MiB memory cgroup, so the naive table
(131 MiB of slots) cannot sit in the page cache; all-in-memory runs without
one. The naive table runs twice. As a user would have it (no hint: the
kernel's read-around decides, read_ahead_kb of the device, recorded): every
fault reads far more than a page (8 MiB on the development machine), so the
table is loaded by a run outside the cgroup and only 10,000 operations are
measured. And with access_style=random, the best hint the naive table can
be given (one page per fault).
"""

from harness.api import (Step, by_rep, fmt_stat, human_bytes, legend_outside, md_table,
                         ratio_stats, save_png)

KiB, MiB = 1 << 10, 1 << 20

SUITES = {"kv": "key-value store: object cache (memory window + log) vs naive table in a "
                "storage window vs all in memory; 1 KiB objects, working set 4x the cache, "
                "90% gets, Zipf 0.99, in a 44 MiB memory cgroup"}
PROGRAMS = {"kv": "kv_bench"}
KEY_FIELDS = {"kv": ["mode", "access", "read", "objects", "value", "cache", "ops", "warmup",
                     "get_ratio", "zipf", "think_us", "wbuf", "memlimit"]}
METRICS = {"kv": ["get_p50_us", "get_p99_us", "get_hit_p50_us", "put_p50_us", "put_p99_us", "ops_per_s",
                  "read_bytes_per_op", "write_bytes_per_op", "read_MiB", "write_MiB",
                  "dev_read_MiB", "dev_write_MiB", "hit_rate", "cgroup_peak_MiB"]}
PATH_ARG = {"kv"}

OBJECTS, VALUE, CACHE, OPS, WARMUP, WBUF = 65536, 1024, 16 * MiB, 200000, 100000, 1 * MiB
NAIVE_OPS, NAIVE_WARMUP = 10000, 5000   # naive table with read-around: ms per operation
MEMLIMIT = 44 * MiB
THINK = 5   # µs of the application's own work before each operation (paced runs)
MODES = [  # mode, access hint, memory cgroup, think µs, ops, warm-up, load outside the cgroup
    ("cache", None, MEMLIMIT, 0, OPS, WARMUP, False),
    ("naive", None, MEMLIMIT, 0, NAIVE_OPS, NAIVE_WARMUP, True),
    ("naive", "random", MEMLIMIT, 0, OPS, WARMUP, False),
    ("memory", None, None, 0, OPS, WARMUP, False),
    # Paced: a program that does some work between requests. Back to back,
    # the all-in-memory gets find the CPU caches warm; with gaps (even a
    # busy wait of a few µs) they do not, as the cache's hits after a miss.
    ("cache", None, MEMLIMIT, THINK, OPS, WARMUP, False),
    ("memory", None, None, THINK, OPS, WARMUP, False),
]
MODE_TEXT = {"cache": "cache (16 MiB window + log)", "naive": "naive table (storage window)",
             "memory": "all in memory"}


def _args(mode, access, objects, cache, ops, warmup, extra=(), think=0):
    a = ["--mode", mode, "--objects", str(objects), "--value", str(VALUE), "--cache", str(cache),
         "--ops", str(ops), "--warmup", str(warmup), "--wbuf", str(WBUF),
         "--think-us", str(think)] + list(extra)
    if access:
        a += ["--access", access]
    return a


def _preloaded(args, name):
    """(measured run's args, loading run's args) for a store loaded by a first run."""
    named = ["--name", name]
    return args + ["--stage", "run"] + named, args + ["--stage", "load"] + named


def steps(suite):
    if suite == "smoke":
        # Tiny runs: the program and the store work end to end, also when a
        # first run loads the store and a second one measures it.
        run, load = _preloaded(_args("naive", None, 2048, 512 * KiB, 4000, 1000),
                               "kv-bench-smoke-preloaded.kv")
        return [Step("kv", "kv cache 2048 x 1 KiB objects, 512 KiB cache (tiny)",
                     _args("cache", None, 2048, 512 * KiB, 4000, 1000,
                             ["--log-size", str(16 * MiB)]),
                     ranks=1, timeout=120),
                Step("kv", "kv naive table 2048 x 1 KiB objects, loaded by a first run (tiny)",
                     run, ranks=1, timeout=120, prepare=load)]
    if suite != "kv":
        return []
    out = []
    for mode, access, memlimit, think, ops, warmup, preload in MODES:
        label = (f"kv {MODE_TEXT[mode]} {OBJECTS} x {human_bytes(VALUE)}, "
                 f"{ops} ops" + (f", access={access}" if access else "")
                 + (", no hint, loaded outside the cgroup" if preload else "")
                 + (f", {think} µs think time" if think else "")
                 + (f", in {human_bytes(memlimit)} cgroup" if memlimit else ""))
        args = _args(mode, access, OBJECTS, CACHE, ops, warmup, think=think)
        prepare = None
        if preload:
            args, prepare = _preloaded(args, f"kv-bench-{mode}-preloaded.kv")
        out.append(Step("kv", label, args, ranks=1, timeout=600, memlimit=memlimit,
                        extra={"memlimit": memlimit}, prepare=prepare))
    return out


def _per_rep(runs, metric, mode, think=0, access=None, ops=OPS):
    return by_rep(runs, metric, bench="kv", mode=mode, objects=OBJECTS, ops=ops, think_us=think,
                  access=access)


def ratios(runs):
    out = []
    cache_g = _per_rep(runs, "get_p50_us", "cache")
    mem_g = _per_rep(runs, "get_p50_us", "memory")
    what = (f"{OBJECTS} x 1 KiB, 16 MiB cache, 90% gets, Zipf 0.99, "
            f"{human_bytes(MEMLIMIT)} cgroup")
    naive = [  # access hint, ops, how the naive table is named
        (None, NAIVE_OPS, "no hint: the kernel's read-around, read_ahead_kb of the device"),
        ("random", OPS, "access_style=random: one page per fault, the best hint"),
    ]
    for access, ops, how in naive:
        tag = "naive" if access is None else f"naive access={access}"
        for metric, word, target in (("write_bytes_per_op", "written", "0.20"),
                                     ("read_bytes_per_op", "read", "0.05")):
            s = ratio_stats(_per_rep(runs, metric, "cache"),
                            _per_rep(runs, metric, "naive", access=access, ops=ops))
            if s:
                out.append({"name": f"kv: cache / {tag} bytes {word} (target <= {target})",
                            "which": what,
                            "detail": f"kv_bench {metric.replace('_per_op', '')} (/proc/self/io) "
                                      f"per op, measured phase and final sync: cache ({OPS} ops) "
                                      f"/ naive table ({ops} ops), {how}", **s})
    s = ratio_stats(cache_g, mem_g)
    if s:
        out.append({"name": "kv: cache / all-in-memory get p50, back to back (target <= 2)",
                    "which": what,
                    "detail": "kv_bench get_p50_us: cache (in the cgroup) / all in memory "
                              "(window holding every object, no cgroup), operations back to back",
                    **s})
    s = ratio_stats(_per_rep(runs, "get_p50_us", "cache", THINK),
                    _per_rep(runs, "get_p50_us", "memory", THINK))
    if s:
        out.append({"name": f"kv: cache / all-in-memory get p50, {THINK} µs think time "
                            "(target <= 2)", "which": what,
                    "detail": f"kv_bench --think-us {THINK} get_p50_us: cache (in the cgroup) / "
                              "all in memory; the same busy wait before every operation", **s})
    return out


def plot(suite, summary, runs, out, title_tail, plt):
    import os
    rows = [s for s in summary if s["bench"] == "kv" and s["fields"].get("objects") == OBJECTS]
    if suite != "kv" or not rows:
        return {}
    order = {}
    for i, (m, *_) in enumerate(MODES):
        order.setdefault(m, i)
    rows.sort(key=lambda s: (s["fields"].get("think_us") or 0,
                             order.get(s["fields"].get("mode"), 9),
                             s["fields"].get("access") or ""))
    short = {"cache": "cache\n(16 MiB window + log)", "naive": "naive table\n(storage window)",
             "memory": "all in memory"}
    names = [short.get(s["fields"].get("mode"), s["fields"].get("mode"))
             + (f"\naccess={s['fields']['access']}" if s["fields"].get("access")
                else "\nno hint" if s["fields"].get("mode") == "naive" else "")
             + (f"\n{s['fields']['think_us']:g} µs think" if s["fields"].get("think_us") else "")
             for s in rows]
    panels = [
        ("latency, µs (log)", [("get_p50_us", "get p50"), ("get_p99_us", "get p99"),
                                ("put_p50_us", "put p50"), ("put_p99_us", "put p99")], True),
        ("device bytes per operation (log)", [("read_bytes_per_op", "read"),
                                              ("write_bytes_per_op", "written")], True),
        ("operations per second", [("ops_per_s", "throughput")], True),
    ]
    # One panel per row: the long configuration names fit under the bars and
    # the legends to the right of them.
    fig, axes = plt.subplots(3, 1, figsize=(11, 12.5))
    for ax, (ylabel, metrics, logy) in zip(axes, panels):
        width = 0.8 / len(metrics)
        for j, (m, mlabel) in enumerate(metrics):
            xs, ys, lo, hi = [], [], [], []
            for x, s in enumerate(rows):
                st = s["metrics"].get(m)
                if st:
                    xs.append(x - 0.4 + width * (j + 0.5))
                    ys.append(max(st["median"], 1e-3))
                    lo.append(st["median"] - st["min"])
                    hi.append(st["max"] - st["median"])
            ax.bar(xs, ys, width * 0.9, yerr=[lo, hi], capsize=3, label=mlabel)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, fontsize=6.5)
        if logy:
            ax.set_yscale("log")
            if ylabel.startswith("device bytes"):
                ax.set_ylim(bottom=1)   # all in memory reads nothing
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", alpha=0.3)
        legend_outside(ax, fontsize=7)
    fig.suptitle(f"mpisw_kv: {OBJECTS} x 1 KiB objects, 16 MiB cache, 90% gets, Zipf 0.99, "
                 f"{human_bytes(MEMLIMIT)} memory cgroup (not for all in memory) "
                 f"({title_tail}; median, bars min–max)", fontsize=9)
    return save_png(fig, plt, out, suite, "kv")


def readme(doc):
    rows = [x for x in doc.get("summary", []) if x["bench"] == "kv"]
    if not rows:
        return []
    s = ["### Key-value store (kv_bench)", ""]
    table = []
    # How much a fault reads around: a device fact (records before it was one carry it).
    ra_dev = (doc.get("machine", {}).get("device_info") or {}).get("read_ahead_kb")
    for x in rows:
        f, m = x["fields"], x["metrics"]
        ra = f.get("read_ahead_kb", ra_dev)
        access = f.get("access") or ("no hint" + (f", read_ahead_kb {ra}" if ra else "")
                                     if f.get("mode") == "naive" else "–")
        table.append([MODE_TEXT.get(f.get("mode"), f.get("mode")), access,
                      f"{f.get('think_us') or 0:g}",
                      f"{f.get('objects')} x {human_bytes(f.get('value', 0))}",
                      f"{f.get('ops')}",
                      human_bytes(f["memlimit"]) if f.get("memlimit") else "none",
                      fmt_stat(m.get("get_p50_us")), fmt_stat(m.get("get_p99_us")),
                      fmt_stat(m.get("get_hit_p50_us")),
                      fmt_stat(m.get("put_p50_us")), fmt_stat(m.get("put_p99_us")),
                      fmt_stat(m.get("ops_per_s")), fmt_stat(m.get("read_bytes_per_op")),
                      fmt_stat(m.get("write_bytes_per_op")), fmt_stat(m.get("hit_rate")),
                      fmt_stat(m.get("cgroup_peak_MiB"))])
    s.append(md_table(["store", "access", "think µs", "objects", "ops", "cgroup", "get p50 µs",
                       "get p99 µs",
                       "hit p50 µs",
                       "put p50 µs", "put p99 µs", "ops/s", "read B/op", "written B/op",
                       "hit rate", "cgroup peak MiB"], table))
    s.append("")
    s.append("Bytes per operation: what the process made the storage read and write "
             "(`/proc/self/io` read_bytes/write_bytes) over the measured operations and the "
             "final `mpisw_kv_sync`, divided by the operations. Hit rate: gets served from "
             "the memory window; hit p50: the median of those gets alone. Think µs: a busy "
             "wait before every operation (the program's own work; not timed): back to back, "
             "all-in-memory gets find the CPU caches warm, with gaps they do not. "
             "The naive table without a hint is loaded by a run outside the cgroup (its "
             "read-around makes loading inside take many minutes) and measured for fewer "
             "operations; read_ahead_kb (the device's, in the machine facts) is how much a fault "
             "reads around.")
    s.append("")
    return s
