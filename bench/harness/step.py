"""One configuration of a suite."""

import shlex


class Step:
    """One configuration: a program run (or one fio test), repeated per rep."""

    def __init__(self, bench, label, args=None, ranks=0, extra=None, timeout=300,
                 fio_test=None, size=None, memlimit=None, prepare=None, env=None):
        self.bench = bench            # a PROGRAMS key (or "fio")
        self.label = label            # what the run prints; --only matches it
        self.args = args or []        # the program's arguments (--path is added for PATH_ARG)
        self.ranks = ranks            # MPI ranks; 0: a plain process without mpiexec
        self.extra = extra or {}      # fields added to records that lack them
        self.timeout = timeout
        self.fio_test = fio_test
        self.size = size
        self.memlimit = memlimit      # bytes: run inside a memory cgroup of this limit
        self.prepare = prepare        # args of a run of the same program before it, outside
                                      # the cgroup (e.g. loading a store), or None
        self.env = env or {}          # VAR: value added to the program's environment (its
                                      # prepare run's too); "{workdir}" in a value becomes
                                      # the run's fresh directory on --path


    def environment(self, workdir):
        """The variables this step adds, "{workdir}" replaced."""
        return {k: v.replace("{workdir}", workdir) for k, v in self.env.items()}

    def shown_env(self):
        """VAR=value words in front of a command as shown ("{workdir}" as DIR), or ""."""
        return " ".join(f"{k}={shlex.quote(v.replace('{workdir}', 'DIR'))}"
                        for k, v in self.env.items())
