"""OUT/README.md: for the latest run of every suite found in OUT, the
machine, the ratios the project tracks, tables and plots."""

import json
import os

from .fio import FIO_TESTS, best_limit_summary, limit_job_name
from .fmt import GiB, exit_text, fmt_num, fmt_ratio, fmt_stat, human_bytes, md_table
from .paths import repo_path, repo_text
from .plots import mstream_series_name
from .registry import hooks, module_suites
from .suites import KERNELS, OOC_TAG, op_rank

SUITE_ORDER = ["full", "quick", "outofcore", "smoke"]
# Untracked by default (build/ is in .gitignore): a user's run must not dirty
SMOKE_NOTE = ("smoke suite: tiny sizes that check the programs and this driver; "
              "its numbers and ratios are not measurements")


def readme_section(doc, data=None):
    """doc's section; data: the file it was read from (doc["file"] by default)."""
    m = doc["machine"]
    s = []
    started = doc["started"]
    s.append(f"## `{doc['suite']}` suite — {started[:10]} {started[11:16]} UTC")
    s.append("")
    s.append(f"Measured on this machine on {started[:10]}, by:")
    s.append("")
    s.append("```sh\n" + repo_text(doc["command"]) + "\n```")
    s.append("")
    data = data or doc["file"]
    dur = doc.get("duration_s")
    s.append(f"Build `{repo_path(doc['build'])}`"
             f" ({m.get('mpi_flavor')}), {doc['reps']} rep(s) per configuration"
             + (f", {dur:.0f} s in all" if dur is not None else "")
             + f". Data: [`{data}`]({data}).")
    s.append("")
    fails = doc.get("failures", [])
    if fails:
        s.append(f"**{len(fails)} program run(s) failed** — their figures are missing below:")
        s.append("")
        for f in fails:
            last = (f.get("stderr_tail") or "").strip().splitlines()
            s.append(f"- {f['step']} (rep {f['rep']}): {exit_text(f.get('returncode'))}: "
                     f"`{last[-1][:160] if last else ''}`")
        s.append("")
    for sk in doc.get("skipped", []):
        s.append(f"- skipped: {sk['step']} (rep {sk['rep']}): {sk['why']}")
    if doc.get("skipped"):
        s.append("")

    mem = m.get("memory_bytes")
    dev = m.get("device") or "?"
    di = m.get("device_info") or {}
    devs = ", ".join(f"{k} {v}" for k, v in di.items()
                     if k in ("model", "rotational", "read_ahead_kb"))
    s.append("### Machine")
    s.append("")
    s.append(md_table(["what", "value"], [
        ["CPU", f"{m.get('cpu')} — {m.get('cores')} cores"],
        ["memory", f"{mem / GiB:.1f} GiB" if mem else "?"],
        ["kernel / OS", f"{m.get('kernel')} / {m.get('os', '?')}"],
        ["--path", f"`{m.get('path')}`: {m.get('fs')} on {dev}"
                   + (f" ({devs})" if devs else "") + f", mounted at `{m.get('mount')}`"],
        ["MPI", f"{m.get('mpi_flavor')} {m.get('mpi_version')} (`{m.get('mpi_launcher')}`)"],
        ["fio", m.get("fio_version")],
        ["Python / matplotlib", f"{m.get('python')} / {m.get('matplotlib')}"],
        ["mpisw commit", f"`{m.get('git_commit')}`"],
    ]))
    s.append("")

    ratios = doc.get("ratios", [])
    if ratios:
        s.append("### Ratios the project tracks (min / median / max over reps)")
        s.append("")
        rows = []
        for r in ratios:
            per_size_rma = isinstance(r.get("bytes"), int) and r["name"].startswith("RMA ")
            if per_size_rma:   # in the per-size table below
                continue
            name = r["name"] + (f" ({human_bytes(r['bytes'])})"
                                if isinstance(r.get("bytes"), int) else "")
            p = r.get("psync")
            rows.append([name, fmt_ratio(r['min']), f"**{fmt_ratio(r['median'])}**",
                         fmt_ratio(r['max']), fmt_ratio(p["median"]) if p else "–", r["detail"]])
        s.append(md_table(["ratio", "min", "median", "max", "vs psync write (median)",
                           "what is divided"], rows))
        s.append("")
        s.append("Storage ratios divide by the best sequential O_DIRECT write of fio's matrix "
                 "in the same rep (psync, libaio and io_uring; 1 to 16 MiB blocks; 1 to 32 "
                 "requests in flight; 1 and 2 jobs): the device's limit. The psync column "
                 "divides by fio's psync write (one request in flight), the limit of earlier "
                 "results.")
        # Per-size rows of the built-in RMA ratios; suite modules' per-size
        # rows appear in their own README sections.
        rma_rows = [r for r in ratios if isinstance(r.get("bytes"), int)
                    and r["name"].startswith("RMA ")]
        if rma_rows:
            s.append("")
            s.append("RMA storage / memory bandwidth per size:")
            s.append("")
            s.append(md_table(["op", "size", "min", "median", "max"],
                              [[r["name"].split()[1], human_bytes(r["bytes"]), f"{r['min']:.3f}",
                                f"{r['median']:.3f}", f"{r['max']:.3f}"] for r in rma_rows]))
        s.append("")

    summary = doc.get("summary", [])
    cell = "median (min–max)"
    lim = [x for x in summary if x["bench"] in ("membw", "fio")]
    if lim:
        s.append(f"### Limits of this machine ({cell})")
        s.append("")
        rows = []
        for x in lim:
            f = x["fields"]
            if x["bench"] == "membw":
                cp = x["metrics"].get("GiBps_copied")
                rows.append([f"membw {f.get('kernel')}", human_bytes(f.get("size", 0)),
                             (fmt_stat(cp) + " GiB/s copied") if cp else "–",
                             fmt_stat(x["metrics"].get("GiBps_moved")) + " GiB/s moved"])
            elif f.get("test") == "limit":
                rows.append([f"fio {limit_job_name(f.get('rw'), f.get('engine'), f.get('bs'), f.get('iodepth'), f.get('numjobs'))}"
                             f" (O_DIRECT, sequential)", human_bytes(f.get("size", 0)),
                             fmt_stat(x["metrics"].get("MiBps")) + " MiB/s", ""])
            else:
                rows.append([f"fio {f.get('test')}: {FIO_TESTS.get(f.get('test'), ('?',))[0]}",
                             human_bytes(f.get("size", 0)),
                             fmt_stat(x["metrics"].get("MiBps")) + " MiB/s", ""])
        s.append(md_table(["what", "size", "bandwidth", "membw: moved"], rows))
        s.append("")
        for rw in ("write", "read"):
            b = best_limit_summary(doc.get("runs", []), rw)
            if b:
                won = ", ".join(f"{n} ({k} rep(s))" for n, k in sorted(b["jobs"].items()))
                s.append(f"- **Best fio {rw}** (the limit): {fmt_stat(b)} MiB/s; best job "
                         f"per rep: {won}.")
        s.append("")

    ms = [x for x in summary if x["bench"] == "mstream" and not x["fields"].get("memlimit")]
    if ms:
        s.append(f"### mstream ({cell})")
        s.append("")
        rows = []
        for x in sorted(ms, key=lambda x: (x["fields"].get("ranks") or 0, x["fields"].get("size") or 0,
                                           KERNELS.index(x["fields"]["kernel"])
                                           if x["fields"].get("kernel") in KERNELS else 9)):
            f, mt = x["fields"], x["metrics"]
            rows.append([f.get("kernel"), mstream_series_name(f), human_bytes(f.get("size", 0)),
                         f.get("ranks"), f.get("iters"),
                         fmt_stat(mt.get("bw_MiBps")), fmt_stat(mt.get("bw_nosync_MiBps")),
                         fmt_stat(mt.get("sync_seconds")), fmt_stat(mt.get("dev_write_MiB"))])
        s.append(md_table(["kernel", "window", "size", "ranks", "iters", "MiB/s (with sync)",
                           "MiB/s (without sync)", "sync s", "device MiB written"], rows))
        s.append("")
        s.append("MiB/s: bytes moved by all ranks' MPI_Put and MPI_Get over the timed "
                 "iterations / the slowest rank's time (mstream's definition); *device MiB "
                 "written*: what the block device under `--path` wrote meanwhile.")
        s.append("")

    oc = [x for x in summary if x["bench"] == "mstream" and x["fields"].get("memlimit")]
    oc_skipped = [sk for sk in doc.get("skipped", []) if OOC_TAG in sk.get("step", "")]
    if oc or oc_skipped:
        s.append("### mstream out of core (storage window larger than its memory cgroup)")
        s.append("")
    if oc:
        rows = []
        for x in sorted(oc, key=lambda x: (x["fields"].get("ranks") or 0,
                                           x["fields"].get("size") or 0,
                                           x["fields"].get("memlimit") or 0,
                                           KERNELS.index(x["fields"]["kernel"])
                                           if x["fields"].get("kernel") in KERNELS else 9,
                                           x["fields"].get("access") or "")):
            f, mt = x["fields"], x["metrics"]
            bw = mt.get("bw_MiBps") or {}
            rows.append([f.get("kernel"), f.get("access") or "none",
                         f"{human_bytes(f.get('size', 0))} in {human_bytes(f['memlimit'])}",
                         f.get("ranks"), f.get("iters"),
                         fmt_num(bw.get("min")), f"**{fmt_num(bw.get('median'))}**",
                         fmt_num(bw.get("max")),
                         fmt_stat(mt.get("dev_read_MiB")), fmt_stat(mt.get("dev_write_MiB")),
                         fmt_stat(mt.get("cgroup_peak_MiB"))])
        s.append(md_table(["kernel", "access hint", "window in cgroup", "ranks", "iters",
                           "MiB/s min", "median", "max", "device MiB read",
                           "device MiB written", "cgroup peak MiB"], rows))
        s.append("")
        s.append("mstream `--kind storage --segment 16M` on a window larger than the memory "
                 "the process may use: the driver runs mpiexec in a memory cgroup of its own "
                 "(limit as given; page cache counts), so the window cannot stay in memory and "
                 "the device's bandwidth is the limit. MiB/s: with the final `MPI_Win_sync`; "
                 f"device MiB: what the block device under `--path` read and wrote during the "
                 f"timed iterations ({cell}); cgroup peak: the cgroup's highest memory use.")
        s.append("")
    elif oc_skipped:
        whys = sorted({sk["why"] for sk in oc_skipped})
        s.append("Not measured here: " + "; ".join(whys) + ".")
        s.append("")

    rma = [x for x in summary if x["bench"] == "rma"]
    if rma:
        s.append(f"### RMA, 2 ranks ({cell})")
        s.append("")
        s.append(f"<details><summary>{len(rma)} configurations: latency and bandwidth per "
                 f"operation and size</summary>")
        s.append("")
        table = {}
        for x in rma:
            f = x["fields"]
            table.setdefault((f.get("op"), f.get("bytes")), {})[f.get("kind")] = x["metrics"]
        rows = []
        for (op, b), kinds in sorted(table.items(), key=lambda t: (op_rank(t[0][0]), t[0][1] or 0)):
            mm, st = kinds.get("memory", {}), kinds.get("storage", {})
            rows.append([op, human_bytes(b or 0), fmt_stat(mm.get("usec")), fmt_stat(st.get("usec")),
                         fmt_stat(mm.get("MiBps")), fmt_stat(st.get("MiBps"))])
        s.append(md_table(["op", "size", "memory µs", "storage µs", "memory MiB/s",
                           "storage MiB/s"], rows))
        s.append("")
        s.append("</details>")
        s.append("")

    for readme in hooks("readme"):
        s += readme(doc) or []
    pngs = doc.get("plots", {})
    if pngs:
        s.append("### Plots")
        s.append("")
        for bench in pngs:
            s.append(f"- [{bench.replace('_', ' ')}]({pngs[bench]})")
        s.append("")
        for bench in pngs:
            if bench not in ("membw", "fio"):
                s.append(f"![{bench}]({pngs[bench]})")
                s.append("")
    return "\n".join(s)


def write_readme(out):
    docs, data = [], {}     # data: id(doc) -> the file it was read from
    order = SUITE_ORDER + list(module_suites())
    for suite in order:
        p = os.path.join(out, f"latest-{suite}.json")
        if os.path.exists(p):
            try:
                with open(p) as f:
                    docs.append(json.load(f))
                data[id(docs[-1])] = os.path.basename(p)
            except (OSError, ValueError):
                pass
    parts = ["# Benchmark results", "",
             "Generated by `bench/run.py` (do not edit by hand; run it again). Every figure "
             "here was measured on this one machine, on the date given in its section, and says "
             "nothing about any other: a virtual machine's disk and memory bandwidth vary from "
             "run to run, which the min–max spreads show. The file system limits come from fio "
             "on the same file system as the storage windows (`--path`), memory limits from "
             "`membw`.", "",
             "Ratios: *storage SEQ / best fio write* divides the mstream SEQ bandwidth of a "
             "window on storage, `MPI_Win_sync` included, by the best sequential write of fio's "
             "matrix in the same rep (O_DIRECT; psync, libaio and io_uring; 1 to 16 MiB blocks; "
             "1 to 32 requests in flight; 1 and 2 jobs: the device's limit, which job was best "
             "is named), and, in a second column, by fio's psync write with one request in "
             "flight (the limit of results before the matrix); *memory SEQ / memcpy* divides the mstream SEQ bandwidth of a memory "
             "window by membw's memcpy bandwidth counted as bytes copied (`GiBps_copied`, each "
             "byte once); *RMA storage / memory* divides rma_bench bandwidth on a storage window "
             "by the same on a memory window, from 64 KiB up; *out-of-core storage SEQ / best "
             "fio write* is the storage SEQ ratio for a window larger than the memory cgroup it runs "
             "in (without and with `--access sequential`). Each ratio is taken per rep "
             "(same rep of numerator and denominator), then min / median / max over reps.", ""]
    # smoke (tiny sizes, a check of the programs and this driver) only when
    # nothing else was measured here: its figures mean little.
    if any(d.get("suite") != "smoke" for d in docs):
        smoke = [d for d in docs if d.get("suite") == "smoke"]
        docs = [d for d in docs if d.get("suite") != "smoke"]
        if smoke:
            parts.append(f"(The latest `smoke` run, {smoke[0]['started'][:16].replace('T', ' ')} UTC, "
                         f"is in `latest-smoke.json`: tiny sizes, not shown here.)")
            parts.append("")
    elif docs:
        parts.append("Only the `smoke` suite ran here: tiny sizes that check the programs and "
                     "the driver; its figures say little about the machine.")
        parts.append("")
    subdirs = sorted(d for d in os.listdir(out)
                     if os.path.isfile(os.path.join(out, d, "README.md")))
    if subdirs:
        parts.append("Result sets kept apart (one per MPI, run with `--out results/<dir>`): "
                     + ", ".join(f"[`{d}/`]({d}/README.md)" for d in subdirs) + ".")
        parts.append("")
    if not docs:
        parts.append("No results yet: run `python3 bench/run.py --suite quick`.")
    for d in docs:
        parts.append(readme_section(d, data[id(d)]))
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("\n".join(parts).rstrip() + "\n")
