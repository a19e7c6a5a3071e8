#!/usr/bin/env python3
"""tools/soak.py (`make soak`) on one small instance with few forks.

    test_soak.py BUILD

A clean soak must exit 0 with a zero row; a child made to hang
(MORTISE_CONFORMANCE_FORK_HANG, conf_threads.c) must be counted as a hang
and one made to fail (MORTISE_CONFORMANCE_FORK_FAIL) as a failure, each
making the exit status 1; a program that outlives --timeout is a hang too;
an unknown instance is a usage error (2).
"""
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
INSTANCE = "segfit"
failures = []


def soak(args, **faults):
    env = dict(os.environ)
    for key in ("MORTISE_CONFORMANCE_FORK_HANG", "MORTISE_CONFORMANCE_FORK_FAIL"):
        env.pop(key, None)
    env.update({"MORTISE_CONFORMANCE_FORK_" + k.upper(): str(v) for k, v in faults.items()})
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "soak.py"), BUILD,
                        "--instances", INSTANCE] + args,
                       env=env, capture_output=True, text=True, timeout=240)
    return r.returncode, r.stdout + r.stderr


def check(what, ok, out):
    print("%s: %s" % ("ok  " if ok else "FAIL", what))
    if not ok:
        failures.append(what)
        print("    | " + out.replace("\n", "\n    | "))


def row(out):
    """The summary table's cells for INSTANCE: {mode: 'H / F' or '-'}."""
    lines = out.splitlines()
    header = next(l for l in lines if l.startswith("instance"))
    mine = next(l for l in lines if l.split()[:1] == [INSTANCE])  # progress lines start "soak:"
    modes = header.split()[1:]
    cells = re.findall(r"\d+ / \d+|-", mine[len(INSTANCE):])
    return dict(zip(modes, cells))


def main():
    # clean: 30 forks per mode in processes of 20 and 10
    code, out = soak(["--forks", "30", "--chunk", "20"])
    check("a clean soak exits 0", code == 0, out)
    check("a progress line per process, forks counted",
          len(re.findall(r"^soak: %s +\w+ +30/30 forks  hangs 0  failures 0$" % INSTANCE, out, re.M)) == 3
          and len(re.findall(r"20/30 forks", out)) == 3, out)
    check("a zero row in every mode", row(out) == {m: "0 / 0" for m in ("linked", "static", "preload")}, out)
    check("the closing line", out.rstrip().endswith("soak: 3 runs, 90 forks, 0 hangs, 0 failures"), out)

    # the first child of the process sleeps until the parent kills it at 2 s
    code, out = soak(["--modes", "static", "--forks", "10"], hang=1)
    check("a hung child is a hang, not a failure", code == 1 and row(out).get("static") == "1 / 0"
          and "1 hangs, 0 failures" in out and "no step for" in out, out)

    code, out = soak(["--modes", "preload", "--forks", "10"], fail=2)
    check("a failed child is a failure, not a hang", code == 1 and row(out).get("preload") == "0 / 2"
          and "0 hangs, 2 failures" in out and "exit status 99" in out, out)

    # the hung child keeps the program past --timeout: the driver ends it
    code, out = soak(["--modes", "linked", "--forks", "10", "--timeout", "1"], hang=1)
    check("a program outliving --timeout is a hang", code == 1 and row(out).get("linked") == "1 / 0"
          and "no end after 1 s" in out, out)

    code, out = soak(["--modes", "linked", "--instances", "no_such_instance"])
    check("an unknown instance is a usage error", code == 2 and "no_such_instance" in out, out)

    print("test_soak: %d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    BUILD = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("MORTISE_BUILD_DIR", "build")
    sys.exit(main())
