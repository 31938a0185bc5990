"""Where the checkout is, and paths as results record them (relative to the
checkout: results are shared, a local checkout's location is nobody's
business)."""

import os
import re
import shlex

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(BENCH)
# Untracked by default (build/ is in .gitignore): a user's run must not dirty
# the checkout; the project's published results/ change only when asked.
DEFAULT_OUT = os.path.join(ROOT, "build", "results")


def repo_path(p):
    """A path as recorded in results: relative to the repository when inside
    it (results are shared; the local checkout's location is nobody's
    business), otherwise as given. Also used on paths recorded by another
    checkout (an absolute .../build/<x>, shown from build/)."""
    if not isinstance(p, str) or not os.path.isabs(p):
        return p
    if p == ROOT or p.startswith(ROOT + os.sep):
        return os.path.relpath(p, ROOT)
    m = re.search(r"(?:^|/)(build(?:-[^/]*)?/.*)$", p)
    return m.group(1) if m else p


def repo_text(text):
    """Text (a command line) with this checkout's location left out."""
    if not isinstance(text, str):
        return text
    return text.replace(ROOT + os.sep, "")


def build_command(build):
    """What to type to build the tree BUILD (make build for the usual ones)."""
    rel = repo_path(build)
    if rel in ("build/mpich", "build/openmpi"):
        return "make build"
    return f"cmake --build {shlex.quote(build)}"
