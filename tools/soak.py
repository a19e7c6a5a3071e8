#!/usr/bin/env python3
"""`make soak`: a fork soak of every ready instance in its three link modes.

    tools/soak.py [BUILD] [--instances a,b] [--modes linked,static,preload]
                  [--forks N] [--chunk N] [--timeout S]

Each instance and mode runs the conformance suite's fork case
(tests/suites/conformance/conf_threads.c: 4 threads allocate and exchange
blocks while the main thread forks; a child that makes no step of its work
for 2 s while it sleeps or burns CPU, or for 30 s in any state, is killed
and counts as hung) until N forks (default 2000) are done,
in processes of at most --chunk forks (default 1000, the case's own count;
MORTISE_CONFORMANCE_FORKS tells the program how many):

    linked   BUILD/bin/conformance-NAME, linked with libmortise-NAME.so
    static   BUILD/bin/conformance-NAME-static, a fully static program
    preload  BUILD/bin/mortise-conformance under LD_PRELOAD=libmortise-NAME.so

The instances and their modes are those of the conformance suite
(BUILD/tests/suites/conformance/instances.txt, written by cmake): by default
every instance but the VARIANT ones (layer or policy proofs, linked only).

Counted per instance and mode, from the case's closing line
("fork: N forks, N children ok, N failed, N hung, N fork errors, ..."):
  hangs     children killed as hung (no step); a program that did not end
            (its watchdog alarm, or --timeout here) or whose storm stalled
            (fewer forks than asked before the case's deadline); a hung
            program's leftover children are killed with its process group.
  failures  children that exited non-zero or died of a signal, failed
            forks, and a program that failed otherwise (its own checks of
            the parent's blocks, a crash) -- never a hang.
A line per process (instance, mode, forks done, hangs, failures), the first
lines of the program's errors after a hang or failure, then a table of hangs
and failures per instance and mode. Exit status 0 only if there were no
hangs and no failures (2: bad arguments; a program not built counts
as a failure).

Test-only (tests/tools/test_soak.py): MORTISE_CONFORMANCE_FORK_HANG=H and
MORTISE_CONFORMANCE_FORK_FAIL=F in the environment make the first H children
of each process sleep until killed and the next F exit 99.
"""
from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
from collections.abc import Sequence

MODES = ("linked", "static", "preload")
DEFAULT_CHUNK = 1000  # FORKS in conf_threads.c: its watchdog and deadline fit this
FORK_LINE = re.compile(r"^fork: (\d+) forks, (\d+) children ok, (\d+) failed, (\d+) hung, "
                       r"(\d+) fork errors", re.M)
SHOWN_ERROR_LINES = 12


def read_manifest(build: str) -> list[tuple[str, str, list[str]]]:
    """[(name, kind, [modes])] in the order cmake wrote them."""
    path = os.path.join(build, "tests", "suites", "conformance", "instances.txt")
    try:
        with open(path) as f:
            lines = [l.split() for l in f if l.strip() and not l.startswith("#")]
    except FileNotFoundError:
        sys.exit("soak: %s not found: configure the build first (make configure)" % path)
    return [(name, kind, modes.split(",")) for name, kind, modes in lines]


def command(build: str, name: str, mode: str) -> tuple[list[str], dict[str, str]]:
    """(argv, extra environment) of one run of the fork case."""
    lib = os.path.join(build, "lib", "libmortise-%s.so" % name)
    env = {"MORTISE_CONFORMANCE_LIB": os.path.basename(lib)}
    if mode == "linked":
        program = "conformance-%s" % name
    elif mode == "static":
        program, env = "conformance-%s-static" % name, {}
    else:
        program, env["LD_PRELOAD"] = "mortise-conformance", lib
    return [os.path.join(build, "bin", program), "fork"], env


class Tally:
    def __init__(self) -> None:
        self.forks = self.hangs = self.failures = 0


def run_chunk(argv: list[str], env: dict[str, str], forks: int,
              timeout: float) -> tuple[int, int, int, str | None, str]:
    """Runs one process of `forks` forks. Returns (forks done, hangs,
    failures, what went wrong or None, the program's output)."""
    full_env = dict(os.environ, MORTISE_CONFORMANCE_FORKS=str(forks), **env)
    # its own session: a program that hangs leaves its children behind,
    # killed with the group below
    proc = subprocess.Popen(argv, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, errors="replace", start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        timed_out = True
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if timed_out:
        out, _ = proc.communicate()
        return 0, 1, 0, "no end after %d s: killed (a hang)" % timeout, out
    if proc.returncode == -signal.SIGALRM:
        return 0, 1, 0, "the case's watchdog ended it (a hang)", out
    why: str | None     # what went wrong, None when nothing did
    m = FORK_LINE.search(out)
    if not m:
        why = ("killed by signal %d" % -proc.returncode if proc.returncode < 0
               else "exit status %d" % proc.returncode)
        return 0, 0, 1, "no fork line: %s (a failure)" % why, out
    done, ok, failed, hung, fork_errors = map(int, m.groups())
    failures = failed + fork_errors
    if done < forks and not (failures or hung):  # the case's deadline passed first
        return done, 1, 0, "%d of %d forks before the case's deadline: a stall (a hang)" % (done, forks), out
    if proc.returncode != 0 and not (failures or hung):
        failures += 1  # the parent's own checks, or an exit after the line
        return done, hung, failures, "exit status %d: the parent's checks failed" % proc.returncode, out
    why = None
    if hung or failures:
        why = "%d children hung, %d failed, %d fork errors" % (hung, failed, fork_errors)
    return done, hung, failures, why, out


def show_errors(out: str) -> None:
    lines = [l for l in out.splitlines() if not l.startswith(("case ", "conformance: "))]
    for line in lines[-SHOWN_ERROR_LINES:]:
        print("      | " + line)


def soak(build: str, name: str, mode: str, args: argparse.Namespace, tally: Tally) -> None:
    argv, env = command(build, name, mode)
    if not os.path.exists(argv[0]) or ("LD_PRELOAD" in env and not os.path.exists(env["LD_PRELOAD"])):
        print("soak: %-10s %-8s not built (%s): make soak builds it" % (name, mode, argv[0]))
        tally.failures += 1
        return
    left = args.forks
    while left > 0:
        n = min(left, args.chunk)
        timeout = args.timeout * max(1.0, n / DEFAULT_CHUNK)
        done, hangs, failures, why, out = run_chunk(argv, env, n, timeout)
        tally.forks += done
        tally.hangs += hangs
        tally.failures += failures
        left -= n
        print("soak: %-10s %-8s %5d/%d forks  hangs %d  failures %d"
              % (name, mode, tally.forks, args.forks, tally.hangs, tally.failures), flush=True)
        if why:
            print("      %s" % why)
            show_errors(out)


def cell(tally: Tally | None) -> str:
    return "%d / %d" % (tally.hangs, tally.failures) if tally else "-"


def print_summary(rows: Sequence[tuple[str, dict[str, Tally]]], modes: Sequence[str], forks: int) -> bool:
    print("\nsoak summary: hangs / failures per instance and mode (%d forks each; - not run)" % forks)
    width = max([len("instance")] + [len(name) for name, _ in rows])
    for name, cells in [("instance", modes)] + [(n, [cell(t.get(m)) for m in modes]) for n, t in rows]:
        print("  ".join(["%-*s" % (width, name)] + ["%-9s" % c for c in cells]).rstrip())
    done = [t for _, tallies in rows for t in tallies.values()]
    hangs, failures = sum(t.hangs for t in done), sum(t.failures for t in done)
    print("soak: %d runs, %d forks, %d hangs, %d failures" % (len(done), sum(t.forks for t in done),
                                                              hangs, failures))
    return hangs + failures == 0


def csv(text: str) -> list[str]:
    return [x for x in text.split(",") if x]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("--instances", type=csv, help="comma-separated (default: every non-VARIANT one)")
    ap.add_argument("--modes", type=csv, default=list(MODES), help="comma-separated: linked,static,preload")
    ap.add_argument("--forks", type=int, default=2000, help="forks per instance and mode (default 2000)")
    ap.add_argument("--chunk", type=int, default=DEFAULT_CHUNK, help="forks per process (default 1000)")
    ap.add_argument("--timeout", type=int, default=300,
                    help="seconds a process of 1000 forks may take before it counts as hung (default 300)")
    args = ap.parse_args(argv)
    if args.forks < 1 or args.chunk < 1 or args.timeout < 1:
        ap.error("--forks, --chunk and --timeout must be positive")
    bad_modes = [m for m in args.modes if m not in MODES]
    if bad_modes:
        ap.error("unknown mode(s) %s; modes: %s" % (",".join(bad_modes), ",".join(MODES)))

    manifest = read_manifest(args.build)
    known = {name: modes for name, kind, modes in manifest}
    if args.instances:
        unknown = [n for n in args.instances if n not in known]
        if unknown:
            ap.error("no conformance programs for %s; instances: %s"
                     % (",".join(unknown), ",".join(known)))
        names = args.instances
    else:
        names = [name for name, kind, _ in manifest if kind != "variant"]

    rows: list[tuple[str, dict[str, Tally]]] = []
    try:
        for name in names:
            tallies: dict[str, Tally] = {}
            rows.append((name, tallies))
            for mode in args.modes:
                if mode in known[name]:
                    tallies[mode] = Tally()
                    soak(args.build, name, mode, args, tallies[mode])
    except KeyboardInterrupt:
        print("\nsoak: interrupted")
        print_summary(rows, args.modes, args.forks)
        return 130
    return 0 if print_summary(rows, args.modes, args.forks) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
