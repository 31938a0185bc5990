#!/usr/bin/env python3
"""The key-value store's files call each other without a circle (issue 14).

Arguments: nm, then the library's object files (CMake's list of
$<TARGET_OBJECTS:...>, maybe ;-joined); those under kvcache/ are checked.
A file "calls" another when it uses a symbol the other defines. Besides no
circle: the slab allocator and the log never reach the cache backend, the
naive backend never reaches the log, and kv_open.c reaches the backends
only through their tables (mpisw__kv_cache_backend, mpisw__kv_naive_backend)."""
import os
import subprocess
import sys


def symbols(nm, obj, *flags):
    out = subprocess.run([nm, *flags, obj], check=True, capture_output=True, text=True).stdout
    return [line.split() for line in out.splitlines() if line.strip()]


def main():
    nm, args = sys.argv[1], sys.argv[2:]
    objs = [o for a in args for o in a.split(";") if "/kvcache/" in o and o.endswith(".o")]
    if len(objs) < 5:
        print(f"FAIL: found {len(objs)} kvcache objects in {args[:3]}...")
        return 1
    name = {o: os.path.basename(o).split(".")[0] for o in objs}
    owner = {}
    for o in objs:
        for f in symbols(nm, o, "--defined-only"):
            if len(f) == 3 and f[1] in "TDRB":
                owner[f[2]] = name[o]
    uses = {}   # file -> {file: [symbols]}
    for o in objs:
        for f in symbols(nm, o, "-u"):
            s = f[-1]
            if s in owner and owner[s] != name[o]:
                uses.setdefault(name[o], {}).setdefault(owner[s], []).append(s)
    for a in sorted(uses):
        print(f"{a} -> {' '.join(sorted(uses[a]))}")
    bad = []
    # a circle: depth-first search for a back edge
    state = {}

    def visit(a, path):
        state[a] = 1
        for b in uses.get(a, {}):
            if state.get(b) == 1:
                bad.append("circle: " + " -> ".join(path[path.index(b):] + [b]))
            elif b not in state:
                visit(b, path + [b])
        state[a] = 2

    for a in sorted(name.values()):
        if a not in state:
            visit(a, [a])
    for a, b in (("kv_slab", "kv_cache"), ("kv_log", "kv_cache"), ("kv_naive", "kv_log")):
        if b in uses.get(a, {}):
            bad.append(f"{a} calls {b}: {uses[a][b]}")
    tables = {"kv_cache": {"mpisw__kv_cache_backend"}, "kv_naive": {"mpisw__kv_naive_backend"}}
    for b, allowed in tables.items():
        extra = set(uses.get("kv_open", {}).get(b, [])) - allowed
        if extra:
            bad.append(f"kv_open reaches {b} past its table: {sorted(extra)}")
    for m in bad:
        print("FAIL:", m)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
