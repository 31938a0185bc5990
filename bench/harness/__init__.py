"""The benchmark driver behind bench/run.py, one job per module:

  cli       command line, the order of a run, OUT/latest-<suite>.json
  api       what a suite module (bench/suite_*.py) defines and may call
  registry  programs, configuration and measurement fields, suite modules
  step      Step: one configuration of a suite
  suites    the built-in suites (smoke, quick, full, outofcore)
  fio       the file system's limits (fio tests)
  launcher  the build tree's MPI launcher (mpisw-build.env)
  runner    running steps: records, failures, skips
  process   one program run in its own process group
  cgroup    memory cgroups for out-of-core runs
  machine   machine facts
  stats     min / median / max, ratios per rep
  summary   configurations, the tracked ratios, the machine's limits
  plots     PNG plots
  report    OUT/README.md
  fmt       units and number formats; paths: the checkout and recorded paths
"""
