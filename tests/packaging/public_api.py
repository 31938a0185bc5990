#!/usr/bin/env python3
"""public_api.py MODE ...: the public headers (include/*.h) keep their promise.

  docs HEADER...          every function declared carries MPISW_EXPORT and,
                          right above it, a /** */ comment with \\brief, a
                          \\param for each named parameter (and none for a
                          parameter it does not have) and a \\return
  compile CC CXX NM INCDIR MPIDIR... -- HEADER...
                          each header compiles alone, twice in one unit
                          (include guard), as C99 (-Wall -Wextra -Werror
                          -pedantic) and as C++; its functions have C
                          linkage in C++ (extern "C": unmangled names)
  exports NM LIB HEADER...  the built library exports every declared function

Fails naming each header and function at fault."""
import os
import re
import subprocess
import sys
import tempfile


def blank(m):
    """A comment or preprocessor line replaced by spaces (newlines kept), so
    that offsets still point into the original text."""
    return re.sub(r"[^\n]", " ", m.group(0))


def declarations(text):
    """(name, params, start offset, prefix) of every function declared at
    file scope: name(...) followed by ';' outside comments and directives."""
    code = re.sub(r"/\*.*?\*/", blank, text, flags=re.S)
    code = re.sub(r"//[^\n]*", blank, code)
    code = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", blank, code, flags=re.M)
    out = []
    # statements: text between ';', '{' or '}' (struct bodies hold no calls)
    for m in re.finditer(r"[^;{}]+;", code):
        stmt = m.group(0)
        d = re.fullmatch(r"\s*([A-Za-z_][\w\s\*]*?)\b([A-Za-z_]\w*)\s*\((.*)\)\s*;", stmt, re.S)
        if not d or "typedef" in d.group(1):
            continue
        start = m.start() + len(stmt) - len(stmt.lstrip())
        out.append((d.group(2), d.group(3), start, d.group(1)))
    return out


def param_names(params):
    names = []
    for p in params.split(","):
        p = p.strip()
        if not p or p == "void" or p == "...":
            continue
        ident = re.findall(r"[A-Za-z_]\w*", p)
        if ident:
            names.append(ident[-1])
    return names


def check_docs(headers):
    bad = total = 0
    for h in headers:
        text = open(h).read()
        decls = declarations(text)
        if not decls:
            print(f"FAIL: {h}: no function declarations found (parser broken?)")
            bad += 1
        for name, params, start, prefix in decls:
            total += 1
            where = f"{os.path.basename(h)}: {name}"
            if not re.match(r"\s*MPISW_EXPORT\b", prefix):
                print(f"FAIL: {where}: the declaration does not start with MPISW_EXPORT")
                bad += 1
            before = text[:start].rstrip()
            if not before.endswith("*/"):
                print(f"FAIL: {where}: no doc comment right above the declaration")
                bad += 1
                continue
            opening = before.rfind("/*")
            doc = before[opening:]
            if not doc.startswith("/**"):
                print(f"FAIL: {where}: the comment above is not a /** doc comment")
                bad += 1
                continue
            for tag in ("\\brief", "\\return"):
                if tag not in doc:
                    print(f"FAIL: {where}: the doc comment has no {tag}")
                    bad += 1
            named = param_names(params)
            documented = re.findall(r"\\param\s+(\w+)", doc)
            for p in named:
                if p not in documented:
                    print(f"FAIL: {where}: parameter '{p}' has no \\param")
                    bad += 1
            for p in documented:
                if p not in named:
                    print(f"FAIL: {where}: \\param '{p}' is not a parameter")
                    bad += 1
            if "MPI_SUCCESS" not in doc and "Never an error" not in doc \
                    and "never an error" not in doc:
                print(f"FAIL: {where}: \\return says neither MPI_SUCCESS and its errors "
                      "nor that there are none")
                bad += 1
    if bad:
        return 1
    print(f"public_api docs: {total} functions in {len(headers)} headers, each exported "
          "and documented")
    return 0


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def check_compile(cc, cxx, nm, incdir, mpidirs, headers):
    bad = 0
    sysinc = [f"-isystem{d}" for d in mpidirs]  # the MPI's header is not ours to judge
    with tempfile.TemporaryDirectory(prefix="mpisw-pubapi-") as tmp:
        for h in headers:
            base = os.path.basename(h)
            here = f"-I{os.path.dirname(os.path.abspath(h))}"
            names = [d[0] for d in declarations(open(h).read())]
            unit = f'#include "{base}"\n#include "{base}"\n'
            c = os.path.join(tmp, "alone.c")
            with open(c, "w") as f:
                f.write(unit + "int main(void) { return 0; }\n")
            rc, out = run([cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic",
                           "-fsyntax-only", here, f"-I{incdir}", *sysinc, c])
            if rc:
                print(f"FAIL: {base} does not compile alone as C99:\n{out}")
                bad += 1
            cc_unit = os.path.join(tmp, "alone.cc")
            refs = "".join(f"  reinterpret_cast<void (*)()>(&{n}),\n" for n in names)
            with open(cc_unit, "w") as f:
                f.write(unit + "void (*const mpisw_refs[])() = {\n" + refs + "};\n")
            obj = os.path.join(tmp, "alone.o")
            rc, out = run([cxx, "-std=c++11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-c",
                           here, f"-I{incdir}", *sysinc, cc_unit, "-o", obj])
            if rc:
                print(f"FAIL: {base} does not compile alone as C++:\n{out}")
                bad += 1
                continue
            rc, out = run([nm, "-u", obj])
            undefined = set(re.findall(r"\bU\s+(\S+)", out))
            missing = [n for n in names if n not in undefined]
            for n in missing:
                mangled = [u for u in undefined if n in u]
                print(f"FAIL: {base}: {n} has C++ linkage in C++ ({mangled or 'not referenced'}):"
                      " the extern \"C\" guard is missing")
            bad += len(missing)
            if not missing:
                print(f"{base}: C99 and C++ alone, {len(names)} functions with C linkage")
    return 1 if bad else 0


def check_exports(nm, lib, headers):
    rc, out = run([nm, "-D", "--defined-only", lib])
    if rc:
        print(f"FAIL: nm -D {lib}: {out}")
        return 1
    exported = set(re.findall(r"\b[TW]\s+(\S+)", out))
    bad = 0
    names = [d[0] for h in headers for d in declarations(open(h).read())]
    for n in names:
        if n not in exported:
            print(f"FAIL: {os.path.basename(lib)} does not export {n}")
            bad += 1
    if not bad:
        print(f"{os.path.basename(lib)} exports all {len(names)} declared functions")
    return 1 if bad else 0


def main(argv):
    mode = argv[1] if len(argv) > 1 else ""
    if mode == "docs":
        return check_docs(argv[2:])
    if mode == "compile":
        cc, cxx, nm, incdir = argv[2:6]
        rest = argv[6:]
        cut = rest.index("--")
        return check_compile(cc, cxx, nm, incdir, rest[:cut], rest[cut + 1:])
    if mode == "exports":
        return check_exports(argv[2], argv[3], argv[4:])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
