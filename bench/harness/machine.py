"""Facts about the machine a run measured on (CPU, memory, kernel, the file
system and device under --path, MPI, fio, the mpisw commit)."""

import json
import os
import platform
import subprocess

from .paths import ROOT


def sh(cmd, timeout=20):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, text=True, timeout=timeout,
                           errors="replace")
        return p.stdout.strip() if p.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def mount_of(path):
    """(fstype, source, target, options) of the file system holding path."""
    out = sh(["findmnt", "-J", "-T", path, "-o", "TARGET,SOURCE,FSTYPE,OPTIONS"])
    if out:
        try:
            fsys = json.loads(out)["filesystems"][0]
            return fsys.get("fstype"), fsys.get("source"), fsys.get("target"), fsys.get("options")
        except (ValueError, KeyError, IndexError):
            pass
    best = None   # longest mount point that is a prefix of path (/proc/self/mounts)
    real = os.path.realpath(path)
    try:
        with open("/proc/self/mounts") as f:
            for line in f:
                src, tgt, fstype, opts = line.split()[:4]
                tgt = tgt.replace("\\040", " ")
                if real == tgt or real.startswith(tgt.rstrip("/") + "/"):
                    if best is None or len(tgt) >= len(best[2]):
                        best = (fstype, src, tgt, opts)
    except OSError:
        pass
    return best or (None, None, None, None)


def device_info(source):
    info = {}
    if not source or not source.startswith("/dev/"):
        return info
    name = os.path.basename(os.path.realpath(source))
    sysdir = f"/sys/class/block/{name}"
    if os.path.exists(os.path.join(sysdir, "partition")):
        sysdir = os.path.dirname(os.path.realpath(sysdir))
    for key, rel in (("model", "device/model"), ("rotational", "queue/rotational"),
                     ("scheduler", "queue/scheduler"), ("sectors", "size"),
                     ("read_ahead_kb", "queue/read_ahead_kb")):
        try:
            with open(os.path.join(sysdir, rel)) as f:
                info[key] = f.read().strip()
        except OSError:
            pass
    if "sectors" in info:
        info["size_bytes"] = int(info.pop("sectors")) * 512
    return info


def machine_facts(a, launcher):
    m = {"kernel": platform.release(), "hostname": platform.node()}
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    m["os"] = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    try:
        with open("/proc/cpuinfo") as f:
            models = [l.split(":", 1)[1].strip() for l in f if l.startswith("model name")]
        m["cpu"] = models[0] if models else platform.processor() or None
    except OSError:
        m["cpu"] = None
    m["cores"] = os.cpu_count()
    try:
        m["cores_usable"] = len(os.sched_getaffinity(0))
    except AttributeError:
        pass
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    m["memory_bytes"] = int(line.split()[1]) * 1024
    except OSError:
        pass
    fstype, source, target, opts = mount_of(a.path)
    m["path"] = a.path
    m["fs"] = fstype
    m["mount"] = target
    m["mount_options"] = opts
    m["device"] = source
    m["device_info"] = device_info(source)
    m["mpi_flavor"] = launcher.flavor
    m["mpi_launcher"] = launcher.mpiexec
    if launcher.flavor == "mpich":
        v = sh(["mpichversion"])
        m["mpi_version"] = (" ".join(v.split("\n")[0].split()[2:]) if v else None)
        m["mpi_version_full"] = v
    elif launcher.flavor == "openmpi":
        v = sh(["ompi_info", "--version"])
        m["mpi_version"] = v.split("\n")[0].replace("Open MPI v", "") if v else None
    if not m.get("mpi_version"):
        v = sh([launcher.mpiexec, "--version"])
        m["mpi_version"] = v.split("\n")[0] if v else None
    v = sh(["fio", "--version"])
    m["fio_version"] = v
    m["python"] = platform.python_version()
    try:
        import matplotlib
        m["matplotlib"] = matplotlib.__version__
    except ImportError:
        m["matplotlib"] = None
    commit = sh(["git", "-C", ROOT, "rev-parse", "HEAD"])
    if commit:
        dirty = sh(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"])
        commit += "-dirty" if dirty else ""
    m["git_commit"] = commit
    m["build"] = a.build
    return m
