"""Running one program: its own process group (a timeout kills all of it),
its JSON lines."""

import json
import os
import signal
import subprocess
import time


def tail(text, n=25):
    lines = (text or "").rstrip().splitlines()
    return "\n".join(lines[-n:])


def run_process(cmd, env, timeout, cwd=None):
    """Runs cmd in its own process group; on timeout the whole group goes."""
    t0 = time.monotonic()
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, env=env, cwd=cwd, text=True,
                             errors="replace", start_new_session=True)
    except OSError as e:
        return 127, "", f"cannot start {cmd[0]}: {e}", time.monotonic() - t0, False
    try:
        out, err = p.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_group(p)
        out, err = p.communicate()
    except BaseException:
        kill_group(p)
        p.communicate()
        raise
    return p.returncode, out, err, time.monotonic() - t0, timed_out


def kill_group(p):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            p.wait(timeout=5)
            return
        except subprocess.TimeoutExpired:
            continue


def parse_json_lines(text):
    recs, other = [], 0
    for line in (text or "").splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except ValueError:
                other += 1
                continue
            if isinstance(obj, dict):
                recs.append(obj)
                continue
        other += 1
    return recs, other
