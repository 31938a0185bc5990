#!/usr/bin/env python3
"""interposed_list.py README LIBRARY FLAVOR: the README's list of interposed
calls (between <!-- interposed-calls:begin/end -->) equals the MPI_*/MPIX_*
functions LIBRARY exports (nm -D --defined-only), and each MPI_X is exported
as PMPI_X too. The README lists the MPICH
build; an Open MPI build may lack only the MPI-4 large-count `_c` calls.
Each group's "(N)" must be its number of calls, and "N in the MPICH build"
the total."""
import re
import subprocess
import sys

readme, lib, flavor = sys.argv[1:4]
text = open(readme).read()
m = re.search(r"<!-- interposed-calls:begin -->(.*?)<!-- interposed-calls:end -->", text, re.S)
if not m:
    print("FAIL: no interposed-calls list in the README")
    sys.exit(1)
bad = 0
listed = []
for line in m.group(1).strip().splitlines():
    g = re.match(r"- \*\*.*?\*\* \((\d+)\): (.*)$", line)
    if not g:
        print(f"FAIL: not a group line: {line}")
        bad += 1
        continue
    names = re.findall(r"`(MPIX?_\w+)`", g.group(2))
    if int(g.group(1)) != len(names):
        print(f"FAIL: group says ({g.group(1)}) but lists {len(names)}: {line[:60]}")
        bad += 1
    listed += names
total = re.search(r"\*\*The interposed calls\*\*, (\d+) in the MPICH build", text)
if not total or int(total.group(1)) != len(listed):
    print(f"FAIL: the README's total is not {len(listed)}")
    bad += 1
nm = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                    check=True).stdout
exported = {f[2] for f in (l.split() for l in nm.splitlines())
            if len(f) == 3 and f[1] == "T" and re.match(r"MPIX?_", f[2])}
pmpi = {f[2] for f in (l.split() for l in nm.splitlines())
        if len(f) == 3 and f[1] == "T" and f[2].startswith("PMPI_")}
# Every MPI_ call is defined under its profiling name too (Fortran 2008
# bindings and PMPI tools in front of mpisw call PMPI_X); nothing else is.
for c in sorted(c for c in exported if c.startswith("MPI_")):
    if "P" + c not in pmpi:
        print(f"FAIL: {c} is exported but P{c} is not")
        bad += 1
for c in sorted(pmpi - {"P" + c for c in exported}):
    print(f"FAIL: {c} is exported without {c[1:]}")
    bad += 1
listed_set = set(listed)
if len(listed_set) != len(listed):
    print("FAIL: a call is listed twice")
    bad += 1
for c in sorted(exported - listed_set):
    print(f"FAIL: {c} is exported but not in the README's list")
    bad += 1
for c in sorted(listed_set - exported):
    if not (flavor == "openmpi" and c.endswith("_c")):
        print(f"FAIL: {c} is in the README's list but {lib} does not export it")
        bad += 1
if bad:
    sys.exit(1)
print(f"interposed_list: the README lists the {len(exported)} calls the {flavor} build exports")
