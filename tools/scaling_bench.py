#!/usr/bin/env python3
"""Thread scaling of a combining lock against a mutex (docs/bench.md, "Scaling").

    tools/scaling_bench.py [BUILD_DIR] [--runs 5] [--threads 1,2,4]
                           [--workloads server,larson] [--allocators tlsf,tlsfcc]
                           [--scale S] [--out DIR]

tlsf (tlsf_glk under posix_mutex) and tlsfcc (the same chain under ccsynch)
on multithreaded workloads of bench/workloads at 1 thread, as many threads
as cores and twice as many, side by side in one run: the runs of every
allocator alternate, so a change in the machine's load falls on all of
them. An allocator is a built instance (BUILD_DIR/lib/libmortise-NAME.so)
or NAME=PATH.so, which compares two builds of one instance. Per cell: the
median wall time of --runs runs and its spread ((max - min) / median), and
the median CPU time (user + system, through bench/runstat when built: what
waiting by polling costs shows there even when the wall time is noisy); per
workload and thread count the wall-time ratio first / other allocator,
marked `noise` when it is nearer 1.0 than the larger of the two spreads. Writes
report.md into --out (default: BUILD_DIR/scaling) and prints it.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Dict, List, Tuple, cast

sys.dont_write_bytecode = True  # no __pycache__ in the source tree; bench_lib sits beside the script (sys.path[0])
from bench_lib import allocators as alloc_mod  # noqa: E402
from bench_lib import runner, suite  # noqa: E402
from bench_lib.stats import median, rel_spread, within_noise  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMEOUT = 120  # seconds per run: a hang must not stall `make bench`
# (workload, threads, allocator) → a value per run; CPU seconds are None without runstat
PerRun = Dict[Tuple[str, int, str], List[Any]]


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="scaling_bench.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("build", nargs="?", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", help="thread counts (default: 1, cores, 2 x cores)")
    ap.add_argument("--workloads", default="server,larson")
    ap.add_argument("--allocators", default="tlsf,tlsfcc", help="base first; NAME or NAME=PATH.so")
    ap.add_argument("--scale", type=float, help="override the workloads' quick -s")
    ap.add_argument("--out")
    return ap.parse_args(argv)


def allocator_paths(build: str, spec: str) -> list[tuple[str, str]]:
    allocs = []
    for item in spec.split(","):
        name, _, path = item.partition("=")
        path = path or alloc_mod.mortise_lib(build, name)
        if not os.path.exists(path):
            sys.exit("scaling_bench: no %s (build the instance first)" % path)
        allocs.append((name, os.path.abspath(path)))
    return allocs


def workload_args(build: str, names: str, scale: float | None) -> list[tuple[str, list[str]]]:
    rows = {r["name"]: r for r in suite.read_manifest(os.path.join(ROOT, "bench", "workloads", "workloads.tsv"))}
    out = []
    for name in names.split(","):
        row = rows.get(name)
        if not row or row["kind"] != "mt":
            sys.exit("scaling_bench: %s is not a multithreaded workload of workloads.tsv" % name)
        args = suite.without_threads(row["quick"].split())
        if scale is not None:
            args = suite.with_scale(args, scale)
        out.append((name, [os.path.join(build, "bin", "bench_" + name)] + args))
    return out


def measure(workloads: list[tuple[str, list[str]]], allocs: list[tuple[str, str]], threads: list[int], runs: int,
            workdir: str, launcher: str | None) -> tuple[PerRun, PerRun]:
    """{(workload, threads, allocator): [wall seconds]} and the same of CPU
    seconds (None without runstat); runs alternate between allocators."""
    times: PerRun = {}
    cpus: PerRun = {}
    total, done = len(workloads) * len(threads) * runs * len(allocs), 0
    for name, argv in workloads:
        for t in threads:
            for run in range(runs):
                for alloc, path in allocs:
                    r = runner.run_once(argv + ["-t", str(t)], os.environ, TIMEOUT,
                                        os.path.join(workdir, "%s-%d-%s" % (name, t, alloc)), preload=path,
                                        launcher=launcher)
                    done += 1
                    if not r.ok:
                        sys.exit("scaling_bench: %s -t %d under %s: %s %s" % (name, t, alloc, r.status, r.detail))
                    times.setdefault((name, t, alloc), []).append(r.wall_s)
                    cpus.setdefault((name, t, alloc), []).append(r.cpu_s)
                    print("\r[%d/%d] %s -t %d %s %.3f s   " % (done, total, name, t, alloc, r.wall_s),
                          end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return times, cpus


def cpu_cell(values: list[Any]) -> str:
    return "%.3f" % median(values) if None not in values else "—"


def report(times: PerRun, cpus: PerRun, workloads: list[tuple[str, list[str]]], allocs: list[tuple[str, str]],
           threads: list[int], runs: int) -> str:
    base = allocs[0][0]
    head = "| workload | threads | " + " | ".join("%s s (spread) | cpu s" % a for a, _ in allocs)
    head += "".join(" | %s / %s" % (base, a) for a, _ in allocs[1:]) + " |"
    lines = ["# Scaling: %s" % " vs ".join(a for a, _ in allocs), "",
             "Median wall time of %d alternating runs, spread = (max - min) / median; "
             "a ratio > 1 means the other allocator is faster than %s; `noise`: the ratio is "
             "nearer 1.0 than the larger spread of its two cells; cpu s: median user + system time. "
             "Cores: %d." % (runs, base, cast(int, os.cpu_count())),
             "", head, "|" + " --- |" * (2 + 3 * len(allocs) - 1)]
    for name, _ in workloads:
        for t in threads:
            cells = {a: times[(name, t, a)] for a, _ in allocs}
            row = "| %s | %d | " % (name, t)
            row += " | ".join(("%.3f (%.0f %%)" % (median(v), 100 * cast(float, rel_spread(v))) if len(v) > 1
                               else "%.3f" % median(v)) + " | " + cpu_cell(cpus[(name, t, a)])
                              for a, v in cells.items())
            for a, _ in allocs[1:]:
                ratio = median(cells[base]) / median(cells[a])
                noisy: list[Any] = [rel_spread(cells[x]) for x in (base, a)]
                spread = max(noisy) if None not in noisy else None
                row += " | %.3f%s" % (ratio, " noise" if within_noise(ratio, 1.0, spread) else "")
            lines.append(row + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    a = parse_args(sys.argv[1:] if argv is None else argv)
    build = os.path.abspath(a.build)
    cores = os.cpu_count() or 1
    threads = [int(x) for x in a.threads.split(",")] if a.threads else sorted({1, cores, 2 * cores})
    allocs = allocator_paths(build, a.allocators)
    workloads = workload_args(build, a.workloads, a.scale)
    out = os.path.abspath(a.out or os.path.join(build, "scaling"))
    runstat = os.path.join(build, "bin", "runstat")
    launcher = runstat if os.access(runstat, os.X_OK) else None
    times, cpus = measure(workloads, allocs, threads, a.runs, os.path.join(out, "runs"), launcher)
    text = report(times, cpus, workloads, allocs, threads, a.runs)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
