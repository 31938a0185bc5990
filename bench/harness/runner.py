"""Runs the steps of a suite: each program run (launched as the build says,
in a memory cgroup when the step asks), its JSON records with the step's
fields, failures with the tail of stderr, skips with the reason."""

import json
import os
import shlex
import signal

from . import fio
from .cgroup import MemoryCgroup, memory_cgroup_support, _raise_terminated
from .fmt import MiB, exit_text
from .paths import repo_text
from .process import parse_json_lines, run_process, tail
from .registry import PATH_ARG, program_path


class Runner:
    def __init__(self, a, launcher, workdir, fiodir):
        self.a = a
        self.launcher = launcher
        self.workdir = workdir     # where storage windows go (fresh, removed at the end)
        self.fiodir = fiodir       # fio's files (fresh, removed at the end)
        self.runs = []
        self.failures = []
        self.skipped = []
        self.commands = {}         # step label -> command as typed
        self.cgroup_support = None # (version, base, why not), found at first need
        self.cgroups_made = 0

    def env(self, step=None):
        env = dict(os.environ)
        env.update(self.launcher.extra_env)
        if step is not None:
            env.update(step.environment(self.workdir))
        return env

    def shown(self, step, cmd):
        """cmd as one would type it, with the step's own variables in front."""
        text = self.launcher.shown(cmd)
        return f"{step.shown_env()} {text}" if step.env else text

    def run_step(self, step, rep):
        """Returns (ok, short note)."""
        if step.bench == "fio":
            return self.run_fio(step, rep)
        exe = program_path(self.a.build, step.bench)
        args = list(step.args)
        if step.bench in PATH_ARG:
            args += ["--path", self.workdir]
        cmd = self.launcher.command(exe, args, step.ranks)
        self.commands[step.label] = self.shown(step, cmd)
        if step.memlimit:
            self.commands[step.label] = (f"(in a memory cgroup of the driver's, limit "
                                         f"{step.memlimit} bytes) " + self.commands[step.label])
        if not os.access(exe, os.X_OK):
            return self.fail(step, rep, cmd, None, f"{exe} is not built "
                             f"(cmake --build {self.a.build})", 0.0)
        if step.prepare:
            pre = self.launcher.command(exe, list(step.prepare) + (
                ["--path", self.workdir] if step.bench in PATH_ARG else []), step.ranks)
            self.commands[step.label] = (self.shown(step, pre) + " && "
                                         + self.commands[step.label])
            rc, out, err, secs, timed_out = run_process(pre, self.env(step), step.timeout)
            if rc != 0 or timed_out:
                return self.fail(step, rep, pre, rc, ("timed out; " if timed_out else "")
                                 + tail(err, 10), secs, out)
        cgroup_facts, left = {}, None
        if step.memlimit:
            if self.cgroup_support is None:
                self.cgroup_support = memory_cgroup_support()
            version, base, why = self.cgroup_support
            if why:
                return self.skip(step, rep, why)
            self.cgroups_made += 1
            cg = MemoryCgroup(version, base, f"mpisw-bench-{os.getpid()}-{self.cgroups_made}",
                              step.memlimit)
            # The cgroup goes whatever happens, also when the driver is told to stop.
            old = {sig: signal.signal(sig, _raise_terminated)
                   for sig in (signal.SIGTERM, signal.SIGHUP)}
            try:
                why = cg.create()
                if why:
                    return self.skip(step, rep, why)
                rc, out, err, secs, timed_out = run_process(cg.wrap(cmd), self.env(step),
                                                            step.timeout)
                cgroup_facts = cg.facts()
            finally:
                left = cg.remove()
                for sig, handler in old.items():
                    signal.signal(sig, handler)
            cgroup_facts["cgroup"] = version
            if left:
                self.fail(step, rep, None, None, left, 0.0)
        else:
            rc, out, err, secs, timed_out = run_process(cmd, self.env(step), step.timeout)
        recs, _ = parse_json_lines(out)
        for r in recs:
            for k, v in step.extra.items():
                r.setdefault(k, v)
            for k, v in cgroup_facts.items():
                r.setdefault(k, v)
            if isinstance(r.get("dev_write_bytes"), (int, float)):
                r["dev_write_MiB"] = r["dev_write_bytes"] / MiB
            if isinstance(r.get("dev_read_bytes"), (int, float)):
                r["dev_read_MiB"] = r["dev_read_bytes"] / MiB
            if isinstance(r.get("cgroup_peak_bytes"), (int, float)):
                r["cgroup_peak_MiB"] = r["cgroup_peak_bytes"] / MiB
            r["rep"] = rep
            r["step"] = step.label
        self.runs.extend(recs)
        if timed_out:
            return self.fail(step, rep, cmd, rc, f"timed out after {step.timeout} s\n"
                             + tail(err), secs, stdout=out)
        if rc != 0:
            return self.fail(step, rep, cmd, rc, tail(err), secs, stdout=out)
        if not recs:
            return self.fail(step, rep, cmd, rc, "printed no JSON line\n" + tail(err),
                             secs, stdout=out)
        if left:
            return False, f"FAILED (cgroup left behind) {left}"
        note = f"ok {secs:.1f} s, {len(recs)} line{'s' * (len(recs) != 1)}"
        if step.memlimit and "cgroup_peak_bytes" in cgroup_facts:
            note += (f", cgroup {cgroup_facts['cgroup']} peak "
                     f"{cgroup_facts['cgroup_peak_bytes'] / MiB:.0f} MiB")
        return True, note

    def skip(self, step, rep, why):
        """A configuration this machine (or this user) cannot run: not a failure."""
        self.skipped.append({"step": step.label, "rep": rep, "why": why})
        return True, f"skipped: {why}"

    def fail(self, step, rep, cmd, rc, why, secs, stdout=""):
        shown = repo_text(self.shown(step, cmd)) if cmd else None
        if shown and step.memlimit:
            shown = f"(in a memory cgroup of the driver's, limit {step.memlimit} bytes) " + shown
        self.failures.append({"step": step.label, "bench": step.bench, "rep": rep,
                              "command": shown,
                              "returncode": rc, "seconds": round(secs, 3),
                              "stderr_tail": why, "stdout_tail": tail(stdout, 10)})
        first = (why or "").strip().splitlines()
        status = "timed out" if (why or "").startswith("timed out") else exit_text(rc)
        return False, f"FAILED ({status}) " + \
            (first[-1][:120] if first else "")

    # fio: the machine's limits on the file system of --path.
    def run_fio(self, step, rep):
        if step.fio_test == "limit":
            return self.run_fio_limit(step, rep)
        test, size, bs = step.fio_test, step.size, step.extra["bs"]
        f = os.path.join(self.fiodir, "limit.dat")
        if test.startswith("write") and os.path.exists(f):
            os.unlink(f)      # every write test writes a new file
        if test == "read_cold" and (not os.path.exists(f) or os.path.getsize(f) < size):
            # The file to read: written (buffered, fsync) when no write left one.
            prep = fio.command("write_fsync", f, size, bs)
            rc, out, err, secs, _ = run_process(prep, self.env(), step.timeout)
            if rc != 0:
                return self.fail(step, rep, prep, rc, "writing the file to read failed\n"
                                 + tail(err or out), secs)
        cmd = fio.command(test, f, size, bs)
        rw = "read" if test == "read_cold" else "write"
        fields = {"test": test, "size": size, "bs": bs, "options": fio.FIO_TESTS[test][1]}
        after = (lambda: os.unlink(f) if test == "read_cold" and os.path.exists(f) else None)
        return self.fio_job(step, rep, cmd, rw, fields, after,
                            may_skip="--direct=1" in fio.FIO_TESTS[test][1])

    # One job of fio's limit matrix (fio.limit_steps).
    def run_fio_limit(self, step, rep):
        x = step.extra
        d = os.path.join(self.fiodir, "limit")
        os.makedirs(d, exist_ok=True)
        prefix = f"mpisw-limit-{x['numjobs']}."
        if x["rw"] == "write":   # every write job writes new files
            for name in os.listdir(d):
                if name.startswith(prefix):
                    os.unlink(os.path.join(d, name))
        cmd = fio.limit_command(d, step.size, x["rw"], x["engine"], x["bs"], x["iodepth"],
                                x["numjobs"], x["runtime_s"])
        return self.fio_job(step, rep, cmd, x["rw"], {"test": "limit", "size": step.size, **x},
                            may_skip=True)

    # Runs one fio command and records its bandwidth (fields added to the
    # record); after() runs once fio is done. may_skip: a file system without
    # O_DIRECT (tmpfs) or an engine fio lacks skips the step instead of
    # failing it.
    def fio_job(self, step, rep, cmd, rw, fields, after=None, may_skip=False):
        self.commands[step.label] = shlex.join(cmd).replace(self.fiodir, "DIR")
        rc, out, err, secs, timed_out = run_process(cmd, self.env(), step.timeout)
        if after:
            after()
        rec, why = None, None
        if timed_out:
            why = f"timed out after {step.timeout} s"
        elif rc != 0:
            why = tail(err or out)
        else:
            try:
                j = json.loads(out[out.index("{"):])
                job = j["jobs"][0]
                if job.get("error"):
                    why = f"fio job error {job['error']}\n" + tail(err)
                else:
                    d = job[rw]
                    rec = {"bench": "fio", **fields, "MiBps": d["bw_bytes"] / MiB,
                           "runtime_ms": d["runtime"], "io_bytes": d["io_bytes"],
                           "fio_version": j.get("fio version"), "rep": rep, "step": step.label}
            except (ValueError, KeyError, IndexError) as e:
                why = f"cannot read fio's JSON output: {e}\n" + tail(err)
        if rec:
            self.runs.append(rec)
            return True, f"ok {secs:.1f} s, {rec['MiBps']:.0f} MiB/s"
        text = ((why or "") + (err or "")).strip()
        if may_skip and ("Invalid argument" in text or ("engine" in text and "load" in text)):
            last = text.splitlines()[-1][:120] if text else "not supported"
            self.skipped.append({"step": step.label, "rep": rep,
                                 "why": f"O_DIRECT or the fio engine is not supported here: {last}"})
            return True, f"skipped: {last}"
        return self.fail(step, rep, cmd, rc, why, secs, stdout=out)
