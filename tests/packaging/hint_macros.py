#!/usr/bin/env python3
"""hint_macros.py SOURCE_DIR: every hint the library reads has a macro in
include/mpisw.h, with the same spelling: the keys of the hint table
(mpisw_hint_keys[] in src/core/hints.c) and of the RMA extensions
(src/rmax/keys.c). Fails naming each key without a macro, and each
MPISW_HINT_* macro whose key the library does not read."""
import re
import sys

src = sys.argv[1]


def read(path):
    with open(f"{src}/{path}") as f:
        return f.read()


hints_c = read("src/core/hints.c")
m = re.search(r"mpisw_hint_keys\[\]\s*=\s*\{(.*?)\}", hints_c, re.S)
if not m:
    print("FAIL: no mpisw_hint_keys[] table in src/core/hints.c")
    sys.exit(1)
table = re.findall(r'"([^"]+)"', m.group(1))
rmax = re.findall(r'#define\s+KEY_\w+\s+"([^"]+)"', read("src/rmax/keys.c"))
m = re.search(r"mpisw_rma_keys\[\]\s*=\s*\{(.*?)\}", hints_c, re.S)
core_rma = re.findall(r'"([^"]+)"', m.group(1)) if m else []
if sorted(core_rma) != sorted(rmax):
    print(f"FAIL: the RMA keys parsed by src/core/hints.c {core_rma} are not those of "
          f"src/rmax/keys.c {rmax}")
    sys.exit(1)
standard = ["alloc_shared_noncontig"]  # the MPI's own key, read by shared windows
macros = dict(re.findall(r'#define\s+(MPISW_HINT_\w+)\s+"([^"]+)"', read("include/mpisw.h")))
values = set(macros.values())
bad = 0
if len(table) < 10 or len(rmax) < 3:
    print(f"FAIL: the tables look wrong: {len(table)} hint keys, {len(rmax)} RMA keys")
    bad += 1
for key in table + rmax + standard:
    if key not in values:
        print(f"FAIL: hint '{key}' has no MPISW_HINT_* macro in include/mpisw.h")
        bad += 1
for name, key in sorted(macros.items()):
    if key not in table + rmax + standard:
        print(f"FAIL: {name} names '{key}', which the library does not read")
        bad += 1
if bad:
    sys.exit(1)
print(f"hint_macros: {len(table)} hint keys, {len(rmax)} RMA keys and "
      f"{len(standard)} MPI key, each with its macro")
