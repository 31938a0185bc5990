"""The built-in suites (smoke, quick, full, outofcore): mstream, rma_bench,
membw and fio, and the out-of-core runs in a memory cgroup."""

from .fio import fio_steps, limit_steps
from .fmt import KiB, MiB, GiB, human_bytes
from .registry import SUITE_MODULES, hooks
from .step import Step

KERNELS = ["SEQ", "PAD", "RND", "MIX"]
RMA_OPS = ["put", "get", "accumulate", "get_accumulate", "fetch_and_op", "compare_and_swap"]


def op_rank(op):
    return (RMA_OPS.index(op) if op in RMA_OPS else len(RMA_OPS), str(op))


def mstream_kinds(full):
    kinds = [("memory", None, None), ("storage", None, None), ("combined", 0.5, None)]
    if full:
        kinds.append(("combined", 0.5, "storage_first"))
    return kinds


def kind_label(kind, factor, order):
    s = kind if factor is None else f"{kind} {factor:g}"
    return s + (f" {order}" if order else "")


# Out of core: a storage window larger than the memory the process may use
# (a memory cgroup of the driver's), so the page cache cannot hold it and the
# device's bandwidth is the limit. (kernel, matching access_style hint)
OOC_SIZE, OOC_MEMLIMIT, OOC_SEGMENT, OOC_ITERS = 2 * GiB, 384 * MiB, 16 * MiB, 2
OOC_KERNELS = [("SEQ", "sequential"), ("RND", "random")]
OOC_TAG = "out-of-core"


def outofcore_steps(timeout):
    steps = []
    for kernel, hint in OOC_KERNELS:
        for access in (None, hint):
            args = ["--kernel", kernel, "--size", str(OOC_SIZE), "--segment", str(OOC_SEGMENT),
                    "--iters", str(OOC_ITERS), "--kind", "storage"]
            if access:
                args += ["--access", access]
            label = (f"mstream {kernel} storage {human_bytes(OOC_SIZE)} x{OOC_ITERS} n=1 "
                     f"{OOC_TAG} in {human_bytes(OOC_MEMLIMIT)} "
                     + (f"access={access}" if access else "no hint"))
            steps.append(Step("mstream", label, args, ranks=1, timeout=timeout,
                              memlimit=OOC_MEMLIMIT,
                              extra={"order": "memory_first", "memlimit": OOC_MEMLIMIT,
                                     "access": access}))
    return steps


def build_suite(name):
    """The steps of a suite: a suite module's own, or a built-in one and
    what the suite modules add to it."""
    for mod in SUITE_MODULES:
        if name in getattr(mod, "SUITES", {}):
            return mod.steps(name)
    extra = []
    for steps in hooks("steps"):
        extra += steps(name) or []
    return build_builtin_suite(name) + extra


def build_builtin_suite(name):
    steps = []
    if name == "outofcore":
        # Only the out-of-core runs, and the file system limits they are
        # compared with (fio O_DIRECT write for the ratio).
        timeout = 300
        return (fio_steps(1 * GiB, timeout) + limit_steps(1 * GiB, timeout, "quick")
                + outofcore_steps(timeout))
    if name == "smoke":
        sizes, segment, iters, kernels, ranks_list = [4 * MiB], 1 * MiB, 2, ["all"], [1]
        rma = dict(ops="put,get,accumulate", min=8, max=64 * KiB, iters=20)
        membw_size, fio_size, timeout, full = 8 * MiB, 8 * MiB, 120, False
    elif name == "quick":
        sizes, segment, iters, kernels, ranks_list = [256 * MiB], 16 * MiB, 3, ["SEQ,RND"], [1]
        rma = dict(ops="put,get,accumulate", min=8, max=4 * MiB, iters=100)
        membw_size, fio_size, timeout, full = 256 * MiB, 256 * MiB, 300, False
    elif name == "full":
        sizes, segment, iters, kernels, ranks_list = [1 * GiB, 2 * GiB], 16 * MiB, 10, ["all"], [1, 2]
        rma = dict(ops="put,get,accumulate,get_accumulate,fetch_and_op,compare_and_swap",
                   min=8, max=4 * MiB, iters=1000)
        membw_size, fio_size, timeout, full = 1 * GiB, 1 * GiB, 1200, True
    else:
        raise SystemExit(f"unknown suite {name}")

    # The machine's limits first: memory copy and the file system.
    steps.append(Step("membw", f"membw {human_bytes(membw_size)}",
                      ["--size", str(membw_size), "--reps", "5" if name != "smoke" else "2"],
                      timeout=timeout))
    steps += fio_steps(fio_size, timeout)
    # The device's limit: the best job of fio's matrix (the smoke suite's 8 MiB
    # has room for 1 MiB blocks only).
    if name != "smoke":
        steps += limit_steps(fio_size, timeout, "full" if full else "quick")
    else:
        steps += [s for s in limit_steps(fio_size, timeout, "quick")
                  if s.extra["engine"] == "libaio" and s.extra["numjobs"] == 1]

    for ranks in ranks_list:
        for size in sizes:
            for kernel in kernels:
                for kind, factor, order in mstream_kinds(full):
                    args = ["--kernel", kernel, "--size", str(size), "--segment", str(segment),
                            "--iters", str(iters), "--kind", kind]
                    extra = {"order": order or "memory_first"}
                    if factor is not None:
                        args += ["--factor", str(factor)]
                    if order:
                        args += ["--order", order]
                    label = (f"mstream {kernel} {kind_label(kind, factor, order)} "
                             f"{human_bytes(size)} x{iters} n={ranks}")
                    steps.append(Step("mstream", label, args, ranks=ranks, extra=extra,
                                      timeout=timeout))
    if full:
        steps += outofcore_steps(timeout)

    rma_args = ["--ops", rma["ops"], "--min", str(rma["min"]), "--max", str(rma["max"]),
                "--iters", str(rma["iters"]), "--kind", "both"]
    steps.append(Step("rma", f"rma {rma['ops']} memory+storage "
                             f"{human_bytes(rma['min'])}..{human_bytes(rma['max'])}",
                      rma_args, ranks=2, timeout=timeout))
    return steps
