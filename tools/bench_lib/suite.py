"""What a run measures: the benchmarks (workloads from bench/workloads'
manifest, real programs from bench/programs', the malloc_test sweep, wcet_test
and the fast-path counts) and the jobs (benchmark × allocator × run).
"""
from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Dict

from . import needs as needs_mod

if TYPE_CHECKING:     # only mypy needs it
    from .allocators import Allocator

# family: how a benchmark runs and where its numbers go in the report
WORKLOAD, PROGRAM, SWEEP, WCET, FASTPATH = "workload", "program", "malloc_test", "wcet_test", "fastpath"

# malloc_test sweep (the article's harness): sizes 256..65536 × thread counts,
# in three modes: every block the maximum size; random sizes up to it (-r, the
# article's runs); and the article's fragmentation run: random sizes up to
# 4 KB, every block filled with memset (-s 1), a fixed number of loops (-f),
# the resident set read after every thread stopped and freed what it held.
SWEEP_SIZES_FULL = [256, 1024, 4096, 16384, 65536]
SWEEP_SIZES_QUICK = [256, 65536]
RANDOM_SIZES_QUICK = [4096]
FRAGMENTATION_SIZE = 4096
FIXED, RANDOM, FRAGMENTATION = "fixed", "random", "fragmentation"
SWEEP_MODES: dict[str, tuple[str, list[str]]] = {FIXED: ("%d", []), RANDOM: ("rand-%d", ["-r"]),
                                                 FRAGMENTATION: ("frag-%d", ["-r", "-s", "1"])}


class Bench:
    def __init__(self, name: str, family: str, kind: str, argv: list[str], threads: int, description: str = "",
                 env: dict[str, str] | None = None) -> None:
        self.name = name                # unique id in tables and the CSV
        self.family = family
        self.kind = kind                # st | mt
        self.argv = argv
        self.threads = threads
        self.description = description
        self.env = env or {}            # extra environment for the measured program
        self.runs: int | None = None                # runs of this benchmark when not the run's default
        self.profile_scale: float | None = None       # -s when profiled under callgrind (profile.py), None: its default
        # (command, package) it runs besides its program (bench_lib/needs.py)
        self.needs: list[needs_mod.Need] = []
        self.sweep_mode: str | None = None          # malloc_test: FIXED, RANDOM or FRAGMENTATION
        self.max_size: int | None = None            # malloc_test: -m

    @property
    def in_geomean(self) -> bool:
        """Workloads and real programs make the Table 4 geometric means."""
        return self.family in (WORKLOAD, PROGRAM)


class Job:
    def __init__(self, bench: Bench, alloc: Allocator, run: int, runs: int) -> None:
        self.bench, self.alloc, self.run, self.runs = bench, alloc, run, runs


def read_manifest(path: str) -> list[Dict[str, Any]]:
    """Rows of a manifest (tab-separated: name, kind, description, quick
    args, full args, and optionally the commands it needs as
    `command:package ...`; '#' starts a comment line)."""
    rows = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) < 5:
                raise ValueError("%s:%d: expected 5 tab-separated columns (name, kind, description, "
                                 "quick args, full args), got %d" % (path, lineno, len(cols)))
            name, kind, desc, quick, full = (c.strip() for c in cols[:5])
            if kind not in ("st", "mt"):
                raise ValueError("%s:%d: kind must be st or mt, not %r" % (path, lineno, kind))
            rows.append({"name": name, "kind": kind, "description": desc, "quick": quick, "full": full,
                         "needs": needs_mod.parse(cols[5]) if len(cols) > 5 else []})
    return rows


def drop_option(args: list[str], flag: str) -> list[str]:
    """args without any `flag VALUE` (or `flagVALUE`): the harness sets it."""
    out: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
        elif a == flag:
            skip = True
        elif not (a.startswith(flag) and len(a) > len(flag)):
            out.append(a)
    return out


def without_threads(args: list[str]) -> list[str]:
    return drop_option(args, "-t")


def with_scale(args: list[str], scale: float | None) -> list[str]:
    return args if scale is None else drop_option(args, "-s") + ["-s", "%g" % scale]


def thread_counts(kind: str, threads: int, full: bool) -> list[int]:
    """st: one thread; mt: the chosen count, and in full mode also twice it
    (the oversubscribed variant)."""
    if kind == "st":
        return [1]
    return [threads, 2 * threads] if full else [threads]


def scale_of(args: list[str]) -> float | None:
    """The value of -s in args (None when absent or not a number)."""
    for flag, value in zip(args, args[1:]):
        if flag == "-s":
            try:
                return float(value)
            except ValueError:
                return None
    return None


# A profiled workload runs at this fraction of its quick -s: the manifest sizes
# the quick args so the workloads' runs take alike (about 0.3-0.5 s under
# glibc), and so do their profiles (1-2 s under callgrind's ~50x slow-down).
PROFILE_FRACTION = 0.05


def manifest_benches(path: str, family: str, program_for: Callable[[str], str], threads: int, full: bool,
                     scale: float | None) -> list[Bench]:
    benches = []
    for row in read_manifest(path):
        program = program_for(row["name"])
        args = with_scale(without_threads(shlex.split(row["full" if full else "quick"])), scale)
        quick_scale = scale_of(shlex.split(row["quick"]))
        counts = thread_counts(row["kind"], threads, full)
        for t in counts:
            name = row["name"] if t == counts[0] else "%s@%dt" % (row["name"], t)
            b = Bench(name, family, row["kind"], [program] + args + ["-t", str(t)], t, row["description"])
            b.needs = row["needs"]
            if quick_scale:
                b.profile_scale = round(quick_scale * PROFILE_FRACTION, 6)
            benches.append(b)
    return benches


def sweep_benches(program: str, threads: int, full: bool, sample_args: list[str],
                  fragmentation_args: list[str]) -> list[Bench]:
    """The malloc_test sweep: sample_args (-c, -i) for the fixed and random
    sizes, fragmentation_args (-f, -i) for the fragmentation run."""
    counts = sorted({1, threads, 2 * threads}) if full else [threads]
    plan: list[tuple[str, list[int], list[str]]] = [
            (FIXED, SWEEP_SIZES_FULL if full else SWEEP_SIZES_QUICK, sample_args),
            (RANDOM, SWEEP_SIZES_FULL if full else RANDOM_SIZES_QUICK, sample_args),
            (FRAGMENTATION, [FRAGMENTATION_SIZE], fragmentation_args)]
    what = {FIXED: "malloc_test, every block %d bytes, %d alloc+free thread pairs",
            RANDOM: "malloc_test, random sizes up to %d bytes (-r), %d alloc+free thread pairs",
            FRAGMENTATION: "malloc_test fragmentation run: random sizes up to %d bytes, every block memset "
                           "(-s 1), a fixed number of loops, RSS after the frees; %d alloc+free thread pairs"}
    benches = []
    for mode, sizes, args in plan:
        label, mode_args = SWEEP_MODES[mode]
        for t in counts:
            for size in sizes:
                b = Bench("malloc_test:%s@%dt" % (label % size, t), SWEEP, "mt",
                          [program, "-t", str(t), "-m", str(size)] + mode_args + args, t, what[mode] % (size, t))
                b.sweep_mode, b.max_size = mode, size
                benches.append(b)
    return benches


def wcet_benches(program: str, threads: int, full: bool, extra_args: list[str]) -> list[Bench]:
    counts = [threads, 2 * threads] if full else [threads]
    return [Bench("wcet_test@%dt" % t, WCET, "mt", [program, "-t", str(t)] + extra_args, t,
                  "worst-case latency microbenchmark (paper §4.2), %d threads" % t) for t in counts]


GROUPS: dict[str, Callable[[Bench], bool]] = {
    "all": lambda b: True,
    "workloads": lambda b: b.family == WORKLOAD,
    "programs": lambda b: b.family == PROGRAM,
    "st": lambda b: b.family in (WORKLOAD, PROGRAM) and b.kind == "st",
    "mt": lambda b: b.family in (WORKLOAD, PROGRAM) and b.kind == "mt",
    SWEEP: lambda b: b.family == SWEEP,
    WCET: lambda b: b.family == WCET,
    FASTPATH: lambda b: b.family == FASTPATH,
}


def base_name(bench_name: str) -> str:
    """'larson@8t' -> 'larson', 'malloc_test:256@2t' -> 'malloc_test'."""
    return bench_name.split("@")[0].split(":")[0]


def select(benches: Sequence[Bench], spec: str | None) -> list[Bench]:
    """Benchmarks chosen by a comma list of names (a name also picks its
    oversubscribed and sweep variants) and groups (see GROUPS); '-NAME'
    removes. Unknown names are an error (ValueError)."""
    items = [s.strip() for s in (spec or "all").split(",") if s.strip()]
    if all(i.startswith("-") for i in items):
        items = ["all"] + items
    chosen: list[Bench] = []
    known = {b.name for b in benches} | {base_name(b.name) for b in benches}
    for item in items:
        drop = item.startswith("-")
        key = item[1:] if drop else item
        if key in GROUPS:
            match = [b for b in benches if GROUPS[key](b)]
        elif key in known:
            match = [b for b in benches if b.name == key or base_name(b.name) == key]
        else:
            raise ValueError("unknown workload %r (known: %s; groups: %s)"
                             % (key, ", ".join(sorted({base_name(b.name) for b in benches})),
                                ", ".join(GROUPS)))
        if drop:
            chosen = [b for b in chosen if b not in match]
        else:
            chosen += [b for b in match if b not in chosen]
    return chosen


def plan(benches: Sequence[Bench], allocators: Sequence[Allocator], runs: int) -> list[Job]:
    """Jobs in run order: per benchmark, run 1 of every allocator, then run 2
    ... (side by side, so a burst of foreign load hits all of them alike)."""
    jobs = []
    for b in benches:
        n = b.runs or runs
        for r in range(1, n + 1):
            for a in allocators:
                jobs.append(Job(b, a, r, n))
    return jobs
