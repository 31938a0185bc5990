"""The file system's own limits, measured by fio on the file system of --path:
sequential write buffered + fsync, with O_DIRECT, sequential read from a
cold page cache."""

from .fmt import MiB, human_bytes
from .step import Step

FIO_TESTS = {
    # test: (description, fio options)
    "write_fsync": ("sequential write, buffered, fsync at end",
                    ["--rw=write", "--end_fsync=1"]),
    "write_direct": ("sequential write, O_DIRECT", ["--rw=write", "--direct=1"]),
    "read_cold": ("sequential read, cold page cache",
                  ["--rw=read", "--invalidate=1"]),
}


def command(test, filename, size, bs):
    return ["fio", f"--name=mpisw-{test}", f"--filename={filename}", f"--size={size}",
            f"--bs={bs}", "--ioengine=psync", "--output-format=json"] + FIO_TESTS[test][1]


def fio_steps(fio_size, timeout, tests=None):
    bs = min(16 * MiB, fio_size)
    return [Step("fio", f"fio {test} {human_bytes(fio_size)} ({desc})", fio_test=test,
                 size=fio_size, timeout=timeout, extra={"bs": bs})
            for test, (desc, _) in FIO_TESTS.items() if tests is None or test in tests]
