"""One configuration of a suite."""


class Step:
    """One configuration: a program run (or one fio test), repeated per rep."""

    def __init__(self, bench, label, args=None, ranks=0, extra=None, timeout=300,
                 fio_test=None, size=None, memlimit=None, prepare=None):
        self.bench = bench
        self.label = label
        self.args = args or []
        self.ranks = ranks
        self.extra = extra or {}      # fields added to records that lack them
        self.timeout = timeout
        self.fio_test = fio_test
        self.size = size
        self.memlimit = memlimit      # bytes: run inside a memory cgroup of this limit
        self.prepare = prepare        # args of a run of the same program before it, outside
                                      # the cgroup (e.g. loading a store), or None
