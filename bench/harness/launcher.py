"""The build tree's MPI launcher, as its mpisw-build.env (written by the root
CMake) names it."""

import os
import shlex


def read_build_env(build):
    """KEY='value' lines of BUILD/mpisw-build.env (written by the root CMake)."""
    path = os.path.join(build, "mpisw-build.env")
    env = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or "=" not in line:
                continue
            k, v = line.split("=", 1)
            words = shlex.split(v)
            env[k.strip()] = words[0] if words else ""
    return env


class Launcher:
    def __init__(self, build):
        self.build = build
        self.env = read_build_env(build)
        self.flavor = self.env.get("MPISW_MPI_FLAVOR", "unknown")
        self.mpiexec = self.env.get("MPISW_MPIEXEC") or "mpiexec"
        self.preflags = shlex.split(self.env.get("MPISW_MPIEXEC_PREFLAGS", ""))
        # VAR=VALUE words, set in the environment of the launcher.
        self.extra_env = {}
        for word in shlex.split(self.env.get("MPISW_MPIEXEC_ENV", "")):
            if "=" in word:
                k, v = word.split("=", 1)
                self.extra_env[k] = v

    def command(self, exe, args, ranks):
        if ranks <= 0:        # a plain process
            return [exe] + args
        return [self.mpiexec] + self.preflags + ["-n", str(ranks), exe] + args

    def shown(self, cmd):
        """The command as one would type it (launcher environment in front)."""
        pre = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.extra_env.items())
        text = shlex.join(cmd)
        return f"{pre} {text}" if pre and cmd and cmd[0] == self.mpiexec else text
