"""The file system's own limits, measured by fio on the file system of --path:
sequential write buffered + fsync, with O_DIRECT (psync, and libaio with a
queue of 32: the device's best sequential write), sequential read from a
cold page cache."""

from .fmt import MiB, human_bytes
from .step import Step

FIO_TESTS = {
    # test: (description, fio options)
    "write_fsync": ("sequential write, buffered, fsync at end",
                    ["--rw=write", "--end_fsync=1"]),
    "write_direct": ("sequential write, O_DIRECT", ["--rw=write", "--direct=1"]),
    # Deep queue: what the device gives at best (issue 15's storage-spill target).
    "write_qd32": ("sequential write, O_DIRECT, libaio, queue depth 32",
                   ["--rw=write", "--direct=1", "--ioengine=libaio", "--iodepth=32"]),
    "read_cold": ("sequential read, cold page cache",
                  ["--rw=read", "--invalidate=1"]),
}


def command(test, filename, size, bs):
    opts = FIO_TESTS[test][1]
    engine = [] if any(o.startswith("--ioengine=") for o in opts) else ["--ioengine=psync"]
    return ["fio", f"--name=mpisw-{test}", f"--filename={filename}", f"--size={size}",
            f"--bs={bs}"] + engine + ["--output-format=json"] + opts


# What a suite gets without naming tests (the built-in suites).
DEFAULT_TESTS = ("write_fsync", "write_direct", "read_cold")


def fio_steps(fio_size, timeout, tests=None, bs=None):
    """bs: fio's block size (default 16 MiB, at most the size)."""
    shown_bs = f" bs {human_bytes(bs)}" if bs else ""
    bs = bs or min(16 * MiB, fio_size)
    return [Step("fio", f"fio {test} {human_bytes(fio_size)}{shown_bs} ({desc})", fio_test=test,
                 size=fio_size, timeout=timeout, extra={"bs": bs})
            for test, (desc, _) in FIO_TESTS.items() if test in (tests or DEFAULT_TESTS)]
