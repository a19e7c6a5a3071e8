#!/usr/bin/env python3
"""Every function a debugger names in a library is defined under that
name in the source, where a stock Universal Ctags run finds it.

For each library given (the ready allocators and the baselines make bench
builds as libraries, built with -g), this lists the functions its debug
information defines (DWARF subprograms that are not mere declarations: the
out-of-line ones and those only inlined, which gdb shows in a backtrace
too), runs `ctags -R` with no options of ours over include/, instances/ and
bench/baselines/, and fails naming each function that has no tag of its
own (function kind). A name that only a system header defines (an inline
function of the C library) is not ours and is left out. As a control, the
same run without the fragments written out for each layer
(include/mortise/written/, tools/layer_names.py) must miss some names, or
this test would prove nothing.

    tests/tools/debug_names.py [--ctags PROGRAM] LIBRARY...

Exit 77 (skipped) without readelf or Universal Ctags, or when a library has
no debug information (a Release build), unless MORTISE_REQUIRE_PORTS=1 (CI):
then 1.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIP = 77
# where the libraries' sources are: the layers, the ready allocators, and
# the hand-written baselines make bench builds as libraries too
SOURCES = [ROOT / "include", ROOT / "instances", ROOT / "bench" / "baselines"]
DIE = re.compile(r"^\s*<\d+><[0-9a-f]+>: Abbrev Number: \d+ \((DW_TAG_\w+)\)")
ATTRIBUTE = re.compile(r"^\s*<[0-9a-f]+>\s+DW_AT_(\w+)\s*:\s*(.*)$")


def skip(why: str) -> int:
    print(f"debug_names.py: {why}")
    if os.environ.get("MORTISE_REQUIRE_PORTS") == "1":
        return 1
    print("SKIPPED")
    return SKIP


class ToolFailed(Exception):
    pass


def output(cmd: list[str], cwd: Path | None = None) -> str:
    """cmd's standard output; ToolFailed naming the command, its exit
    status and its standard error when it fails."""
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    if r.returncode != 0:
        raise ToolFailed(f"{' '.join(cmd[:3])} ... exited {r.returncode}: {r.stderr.strip()[:2000]}")
    return r.stdout


def defined_functions(library: Path) -> set[str] | None:
    """The names of the functions the library's DWARF defines; None without
    debug information."""
    out = output(["readelf", "--debug-dump=info", str(library)])
    if "DW_TAG_compile_unit" not in out:
        return None
    names: set[str] = set()
    tag, name, declaration = "", "", False
    for line in out.splitlines() + ["<0><0>: Abbrev Number: 0 (DW_TAG_end)"]:
        m = DIE.match(line)
        if m:
            if tag == "DW_TAG_subprogram" and name and not declaration:
                names.add(name)
            tag, name, declaration = m.group(1), "", False
            continue
        m = ATTRIBUTE.match(line)
        if m and m.group(1) == "name":
            name = m.group(2).split(":")[-1].strip()
        elif m and m.group(1) == "declaration":
            declaration = True
    return names


def function_tags(ctags: str, folders: list[Path], exclude: str | None = None) -> set[str]:
    """The function tags a plain recursive ctags run writes for folders."""
    options = [f"--exclude={exclude}"] if exclude else []
    out = output([ctags, "-R", "-x", *options, *map(str, folders)], cwd=ROOT)
    return {fields[0] for fields in (line.split() for line in out.splitlines())
            if len(fields) > 1 and fields[1] == "function"}


def universal_ctags(program: str | None) -> str | None:
    for candidate in [program] if program else ["ctags-universal", "ctags", "universal-ctags"]:
        path = shutil.which(candidate)
        if path:
            version = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
            if "Universal Ctags" in version:
                return path
    return None


def main() -> int:
    try:
        return check()
    except ToolFailed as e:
        print(f"FAIL debug_names.py: {e}")
        return 1


def check() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ctags", help="the Universal Ctags program (default: found on PATH)")
    ap.add_argument("libraries", nargs="+", type=Path)
    a = ap.parse_args()
    ctags = universal_ctags(a.ctags)
    if not ctags:
        return skip("needs Universal Ctags (Debian: universal-ctags)")
    if not shutil.which("readelf"):
        return skip("needs readelf (binutils)")
    tags = function_tags(ctags, SOURCES)
    templates_only = function_tags(ctags, SOURCES, exclude="written")
    system: set[str] | None = None
    problems = 0
    names_seen = 0
    control_missed = 0
    for library in a.libraries:
        names = defined_functions(library)
        if names is None:
            return skip(f"{library} has no debug information (build with -g: RelWithDebInfo)")
        names_seen += len(names)
        control_missed += len(names - templates_only)
        missing = names - tags
        if missing and system is None:
            system = function_tags(ctags, [Path("/usr/include")]) if Path("/usr/include").is_dir() else set()
        for name in sorted(missing - (system or set())):
            print(f"FAIL {library.name}: {name} has no definition under its name in the sources")
            problems += 1
    print(f"debug_names.py: {len(a.libraries)} libraries, {names_seen} functions, {problems} without a tag; "
          f"without include/mortise/written/, {control_missed} (the control)")
    if not control_missed:
        print("FAIL control: every name is found without the written-out fragments; the test proves nothing")
    return 1 if problems or not control_missed else 0


if __name__ == "__main__":
    sys.exit(main())
