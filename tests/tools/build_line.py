#!/usr/bin/env python3
"""Build one model-language line with `mortise build` and run a program on it.

    build_line.py --paper NAME        a block of tests/tools/paper_lines.txt
    build_line.py --instance FILE.c   the "model:" line of a composition file
    --compare LIB.so                  also compare the machine code with LIB.so
                                      (tests/suites/zero_cost/zero_cost.sh)
$CC and $MORTISE_TEST_OPT (the build's compiler and optimisation flags, set
by tests/tools/CMakeLists.txt) go to `mortise build`, with -Werror.

Any refusal fails: a line naming a layer that is not in the headers (a
renamed one) is a failure, not a skip. Exits 77 (skipped) only when the
library to compare with is older than a header (a stale build tree, never
ctest's, which builds first). The built library is preloaded into
`sh -c 'ls /'`, which must succeed.
"""
import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
MORTISE = ROOT / "tools" / "mortise"
ZERO_COST = ROOT / "tests" / "suites" / "zero_cost" / "zero_cost.sh"
sys.path.insert(0, str(ROOT / "tools"))
from mortise_lib.registry import instance_model_line  # noqa: E402

SKIP = 77


def paper_lines(path=ROOT / "tests" / "tools" / "paper_lines.txt"):
    blocks, name = {}, None
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            continue
        m = re.match(r"==\s*(\S+)", line)
        if m:
            name = m.group(1)
            blocks[name] = []
        elif name is not None:
            blocks[name].append(line)
    return {n: "\n".join(l).strip() for n, l in blocks.items()}


def predicates(source, spec, tmp):
    """A header with the predicate functions the spec's pred= slots name,
    taken from the composition file (one-line static inline functions)."""
    names = re.findall(r"pred=(\w+)", spec)
    if not names:
        return []
    text = source.read_text()
    defs = [m.group(0) for n in names
            for m in [re.search(r"^static inline bool " + n + r"\(.*$", text, re.M)] if m]
    header = pathlib.Path(tmp) / "predicates.h"
    header.write_text("\n".join(defs) + "\n")
    return ["--include", str(header)]


def tuning(source, spec):
    """-D NAME=VALUE for the composition file's macros that no model slot
    stands for (buddy.c's MT_BUDDY_MIN_SHIFT): the model line cannot say
    them, the command line can."""
    from mortise_lib.registry import Registry
    reg = Registry(ROOT / "include")
    slot_macros = {s.macro for l in reg.layers.values() for s in l.slots.values()}
    args = []
    for m in re.finditer(r"^#define (MT_\w+) (.*)$", source.read_text(), re.M):
        if m.group(1) not in slot_macros | {"MT_NAME", "MT_CTX_EXTRA"}:
            args += ["-D", f"{m.group(1)}={m.group(2).strip()}"]
    return args


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--paper")
    ap.add_argument("--instance")
    ap.add_argument("--compare")
    a = ap.parse_args()
    if a.paper:
        spec, source = paper_lines()[a.paper], None
    else:
        source = pathlib.Path(a.instance)
        spec = instance_model_line(source.read_text())
        if spec is None:
            print(f"{source}: no model line")
            return 1
    print(f"spec: {spec}")
    with tempfile.TemporaryDirectory(prefix="mortise-line-") as tmp:
        lib = pathlib.Path(tmp) / "libline.so"
        cmd = [sys.executable, str(MORTISE), "build", spec, "-o", str(lib),
               "--emit-c", str(pathlib.Path(tmp) / "line.c")]
        if source is not None:
            cmd += predicates(source, spec, tmp) + tuning(source, spec)
        # The build's flags (CMake), and -Werror: the project's bar holds for
        # generated compositions too.
        opt = os.environ.get("MORTISE_TEST_OPT") or "-O2 -g -DNDEBUG"
        cmd += ["-O", opt + " -Werror"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        sys.stdout.write(r.stdout + r.stderr)
        if r.returncode:
            return 1
        print((pathlib.Path(tmp) / "line.c").read_text())
        env = dict(os.environ, LD_PRELOAD=str(lib))
        run = subprocess.run(["sh", "-c", "ls / > /dev/null && echo preloaded-ok"],
                             env=env, capture_output=True, text=True, timeout=120)
        sys.stdout.write(run.stdout + run.stderr)
        if run.returncode or "preloaded-ok" not in run.stdout:
            print(f"program under LD_PRELOAD failed (exit {run.returncode})")
            return 1
        if a.compare:
            # A library older than a header was built from other code than
            # the line just was (a shared tree being edited): no comparison.
            newest = max(h.stat().st_mtime for pattern in ("*.h", "*.inl")
                         for h in (ROOT / "include").rglob(pattern))
            if os.stat(a.compare).st_mtime < newest:
                print(f"skipped: {a.compare} is older than a header; rebuild it")
                return SKIP
            z = subprocess.run([str(ZERO_COST), "--ignore", "malloc_stats", a.compare,
                                str(lib)])
            return z.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
