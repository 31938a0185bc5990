"""The interface between the driver and a suite module (bench/suite_<name>.py).

A suite module imports what it needs from here, and nothing else of the
harness: `from harness.api import Step, by_rep, ...`. The driver loads every
bench/suite_*.py at start (in name order) and uses what it defines; all of it
is optional:

  SUITES = {"name": "help"}     suites it owns (--suite name; the help text
                                appears in --help)
  PROGRAMS = {"bench": "exe"}   its programs: "exe" in BUILD/bench, or a path
                                relative to BUILD when it has a "/"
  KEY_FIELDS = {"bench": [...]} record fields that name a configuration
  METRICS = {"bench": [...]}    record fields that are measurements
                                (summarised as min / median / max over reps)
  PATH_ARG = {"bench"}          programs that get --path WORKDIR (a fresh
                                directory on the measured file system)

  steps(suite) -> [Step]        the steps of its own suites, or steps it adds
                                to a built-in suite (smoke, quick, full,
                                outofcore); [] for the others
  ratios(runs) -> [dict]        ratios it tracks: {"name", "which", "detail",
                                "min", "median", "max", "n", ...}, as
                                ratio_stats gives them; a "bytes" int makes a
                                per-size row
  plot(suite, summary, runs, out, stamp, plt) -> {bench: png name}
                                its figures, each saved with save_png
                                (stamp: "<suite> suite, <date> UTC", for
                                titles; plt: matplotlib.pyplot, Agg)
  readme(doc) -> [lines]        its markdown section of OUT/README.md (doc:
                                the run's JSON: "summary", "runs", "ratios",
                                "machine", ...)

runs: every JSON record of the run (the program's fields, plus "rep",
"step" and the step's extra fields); summary: one entry per configuration,
{"config", "bench", "fields", "reps", "metrics": {metric: stats}}.
"""

from .fio import (best_limit, best_limit_bps, best_limit_job, best_limit_mibps, best_limit_summary,
                  fio_steps, limit_steps)
from .fmt import KiB, MiB, GiB, fmt_num, fmt_stat, human_bytes, load_note, md_table
from .plots import legend_outside, median_and_spread, save_png
from .stats import by_rep, ratio_stats, ratio_values, stats
from .step import Step
from .suites import OOC_ITERS, OOC_MEMLIMIT, OOC_SEGMENT, OOC_SIZE, OOC_TAG

__all__ = [
    # steps
    "Step", "fio_steps", "limit_steps", "OOC_SIZE", "OOC_MEMLIMIT", "OOC_SEGMENT", "OOC_ITERS", "OOC_TAG",
    # statistics over reps
    "stats", "by_rep", "ratio_values", "ratio_stats",
    # the device's limit: the best job of fio's matrix per rep
    "best_limit", "best_limit_bps", "best_limit_job", "best_limit_mibps", "best_limit_summary",
    # text
    "KiB", "MiB", "GiB", "human_bytes", "fmt_num", "fmt_stat", "md_table", "load_note",
    # plots
    "save_png", "legend_outside", "median_and_spread",
]
