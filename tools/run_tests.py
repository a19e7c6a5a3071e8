#!/usr/bin/env python3
"""`make test`: every ctest test once, then one retry of the failed tests that
may be retried, and a closing report that names every flaky pass.

    tools/run_tests.py BUILD [-j N] [--timeout S] [-- CTEST_ARGS...]

1. ctest runs every test once (CTEST_ARGS, e.g. -R or -L, narrow that run),
   its output passed through as it comes.
2. The tests that failed are read from ctest's own list
   (BUILD/Testing/Temporary/LastTestsFailed.log). A failed test labelled
   hang_sensitive (tests/CMakeLists.txt, mortise_hang_sensitive(): a failure
   there can be a fork child, thread, lock or program that never finished)
   is not retried: it fails the run. Every other failed test is run once
   more (`ctest -R '^(names)$'`): a wall-clock bound may have been broken by
   a busy machine.
3. The report: the tests that passed only on the retry (by name: a flaky pass
   stays visible in CI's log), the hang_sensitive tests that failed, the
   tests that failed twice, and as the last line
   `make test: P passed, F failed` (P + F is the number of tests of the first
   run, as in ctest's "out of N").

Exit status: 0 if no test failed in the end, else 8 (ctest's status for
failed tests), or ctest's own status when ctest itself failed without a list
of failed tests (e.g. no build directory). docs/testing.md.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import re
import subprocess
import sys

HANG_LABEL = "hang_sensitive"
SUMMARY = re.compile(r"tests passed, (\d+) tests? failed out of (\d+)")


def test_labels(build: str) -> dict[str, list[str]]:
    """{test name: [labels]} of every test ctest knows in BUILD."""
    out = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, capture_output=True,
                         text=True, check=True).stdout
    labels = {}
    for test in json.loads(out).get("tests", []):
        names = [p["value"] for p in test.get("properties", []) if p.get("name") == "LABELS"]
        labels[test["name"]] = names[0] if names else []
    return labels


def failed_list_paths(build: str) -> list[str]:
    return glob.glob(os.path.join(build, "Testing", "Temporary", "LastTestsFailed*.log"))


def run_ctest(build: str, args: list[str]) -> tuple[int, list[str] | None, int | None]:
    """Runs ctest with args in BUILD, its output passed through. Returns
    (exit status, the names of the failed tests or None if ctest wrote no
    list, the N of its "out of N" summary or None)."""
    for path in failed_list_paths(build):  # a list left by an earlier run is not this run's
        os.remove(path)
    total = None
    with subprocess.Popen(["ctest"] + args, cwd=build, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, errors="replace") as proc:
        assert proc.stdout is not None      # stdout=PIPE
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            m = SUMMARY.search(line)
            if m:
                total = int(m.group(2))
    failed = None
    paths = failed_list_paths(build)
    if paths:
        failed = []
        for path in paths:
            with open(path) as f:  # lines "NUMBER:NAME"
                failed += [line.strip().split(":", 1)[1] for line in f if ":" in line]
    elif proc.returncode == 0:
        failed = []
    return proc.returncode, failed, total


def ctest_regex(names: list[str]) -> str:
    """A ctest -R expression matching exactly these test names."""
    def escape(name: str) -> str:
        return re.sub(r"([][.^$*+?(){}|\\])", r"\\\1", name)
    return "^(" + "|".join(escape(n) for n in names) + ")$"


def report(command: str, title: str, names: list[str]) -> None:
    if names:
        print("== %s: %s (%d):" % (command, title, len(names)))
        for name in names:
            print("   " + name)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="after --: more ctest options for the first run")
    ap.add_argument("build", help="the build directory")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=int, default=900, help="ctest's default per-test limit (s)")
    ap.add_argument("--name", default="make test",
                    help="the command named in the output's lines (make check runs this too)")
    # split at `--` here: argparse would take the "-R" after it for an option of ours
    cut = argv.index("--") if "--" in argv else len(argv)
    args = ap.parse_args(argv[:cut])
    args.ctest_args = argv[cut + 1:]
    common = ["--output-on-failure", "-j", str(args.jobs), "--timeout", str(args.timeout)]

    status, failed, total = run_ctest(args.build, common + args.ctest_args)
    if failed is None:
        print("%s: ctest failed (exit status %d) without a list of failed tests" % (args.name, status))
        return status or 1
    labels = test_labels(args.build) if failed else {}
    hung = [t for t in failed if HANG_LABEL in labels.get(t, [])]
    retry = [t for t in failed if t not in hung]

    still_failed = []
    if retry:
        print("\n== %s: %d failed test(s) not labelled %s, run once more: %s"
              % (args.name, len(retry), HANG_LABEL, " ".join(retry)))
        status, again, _ = run_ctest(args.build, common + ["-R", ctest_regex(retry)])
        if again is None:
            print("%s: the retry's ctest failed (exit status %d) without a list" % (args.name, status))
            again = retry
        still_failed = [t for t in retry if t in again]
    passed_on_retry = [t for t in retry if t not in still_failed]

    print()
    report(args.name, "passed only on a retry (flaky: look at them)", passed_on_retry)
    report(args.name, "failed, labelled %s: not retried (a hang is never retried into a pass)"
           % HANG_LABEL, hung)
    report(args.name, "failed twice", still_failed)
    if not passed_on_retry:
        print("== %s: no test passed only on a retry" % args.name)
    failures = len(hung) + len(still_failed)
    if total is None:  # ctest printed no summary (should not happen): count what we know
        total = len(failed)
    print("%s: %d passed, %d failed" % (args.name, total - failures, failures))
    return 8 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
