"""Memory cgroups of the driver's own (out-of-core runs): v1 or v2, made for
one program run and always removed after it."""

import os
import shlex
import signal
import time

CGROUP_ROOT = "/sys/fs/cgroup"


def memory_cgroup_support():
    """(version, directory new cgroups go into, None), or (None, None, why not)."""
    if os.geteuid() != 0:
        return None, None, ("needs root: the run goes into a memory cgroup that the driver "
                            "makes (run the driver as root)")
    v2 = os.path.join(CGROUP_ROOT, "cgroup.controllers")
    if os.path.isfile(v2):
        try:
            with open(v2) as f:
                controllers = f.read().split()
        except OSError as e:
            return None, None, f"cannot read {v2}: {e}"
        if "memory" in controllers:
            return "v2", CGROUP_ROOT, None
        return None, None, (f"cgroup v2 without the memory controller ({v2} lists "
                            f"{' '.join(controllers) or 'nothing'})")
    v1 = os.path.join(CGROUP_ROOT, "memory")
    if os.path.isfile(os.path.join(v1, "memory.limit_in_bytes")):
        return "v1", v1, None
    return None, None, (f"no memory cgroup controller (neither {v2} listing memory nor "
                        f"{v1}/memory.limit_in_bytes)")


class MemoryCgroup:
    """A memory cgroup of its own for one program run; remove() always after."""

    def __init__(self, version, base, name, limit):
        self.version = version
        self.path = os.path.join(base, name)
        self.limit = limit
        self.limit_file = "memory.limit_in_bytes" if version == "v1" else "memory.max"
        self.procs_file = os.path.join(self.path, "cgroup.procs")
        self.made = False

    def create(self):
        """None, or why the cgroup cannot be had (the directory is gone again then)."""
        try:
            os.mkdir(self.path)
        except OSError as e:
            return f"cannot make the memory cgroup {self.path}: {e.strerror}"
        self.made = True
        limit_path = os.path.join(self.path, self.limit_file)
        if not os.path.exists(limit_path):
            why = f"{limit_path} does not exist"
            if self.version == "v2":
                why += (" (the memory controller is not enabled for the children of "
                        f"{os.path.dirname(self.path)}: cgroup.subtree_control)")
            self.remove()
            return why
        try:
            with open(limit_path, "w") as f:
                f.write(str(self.limit))
        except OSError as e:
            self.remove()
            return f"cannot write {self.limit} to {limit_path}: {e.strerror}"
        return None

    def wrap(self, cmd):
        """cmd, started by a shell that first moves itself into this cgroup."""
        script = (f"echo $$ > {shlex.quote(self.procs_file)} || "
                  f"{{ echo 'cannot join the memory cgroup' >&2; exit 125; }}; exec \"$@\"")
        return ["sh", "-c", script, "sh"] + cmd

    def _read(self, name):
        try:
            with open(os.path.join(self.path, name)) as f:
                return f.read()
        except OSError:
            return None

    def facts(self):
        """Peak memory use (bytes) and how often the limit was hit, where the kernel says."""
        out = {}
        peak = self._read("memory.max_usage_in_bytes" if self.version == "v1" else "memory.peak")
        if peak and peak.strip().isdigit():
            out["cgroup_peak_bytes"] = int(peak)
        if self.version == "v1":
            fc = self._read("memory.failcnt")
            if fc and fc.strip().isdigit():
                out["cgroup_failcnt"] = int(fc)
        else:
            for line in (self._read("memory.events") or "").splitlines():
                k, _, v = line.partition(" ")
                if k in ("max", "oom_kill") and v.strip().isdigit():
                    out[f"cgroup_events_{k}"] = int(v)
        return out

    def procs(self):
        return [int(x) for x in (self._read("cgroup.procs") or "").split() if x.isdigit()]

    def remove(self):
        """Removes the cgroup; processes still in it (ours: only our runs get in)
        are killed by pid first. None, or why it could not be removed."""
        if not self.made:
            return None
        why = None
        deadline = time.monotonic() + 15
        while True:
            for pid in self.procs():
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            try:
                os.rmdir(self.path)
                self.made = False
                return None
            except FileNotFoundError:
                self.made = False
                return None
            except OSError as e:
                why = f"cannot remove {self.path}: {e.strerror}"
            if time.monotonic() > deadline:
                return why
            time.sleep(0.2)


def _raise_terminated(signum, _frame):
    raise KeyboardInterrupt(f"signal {signum}")
