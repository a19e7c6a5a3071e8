"""Where the time of a missed target goes: the profiling phase.

After the measurements (so it cannot disturb them), every missed target
(docs/design.md §6) gets the benchmark that contributes most to the miss run under
`valgrind --tool=callgrind` for the two allocators it compares, at a small
scale: callgrind runs a program about 50 times slower, and instruction
counts do not need a long run to be repeatable (load does not move them).
The report then shows, side by side, each allocator's total instructions
(Ir), Ir per operation of the workload's ok line, and the functions with the
most self instructions (callgrind_annotate).

Which benchmark a miss is profiled on:
  geomean ratio target  the workload with the worst ratio (a real program
                        such as redis is not profiled: its driver and
                        clients would fill the profile)
  latency target        wcet_test
  fast-path target      the fastpath program (malloc and free only)
An RSS target is not profiled: callgrind counts instructions, not pages.
"""
from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, List, Tuple

from . import runner, suite

if TYPE_CHECKING:     # only mypy needs it
    from .allocators import Allocator

# (function, object file, self Ir), most first
Functions = List[Tuple[str, str, int]]
MdTable = Callable[[Sequence[str], Sequence[Sequence[Any]]], str]

PROFILE_SCALE = 0.02    # -s of a profiled benchmark the manifest does not size (wcet_test): ~1-2 s under callgrind
PROFILE_THREADS = 2     # threads of a profiled multithreaded benchmark
PROFILE_TIMEOUT = 60    # seconds per profile run, recorded as a timeout beyond
FASTPATH_ITERATIONS = 2200  # of 64 malloc+free pairs, as tools/fastpath.sh's large run
TOP_FUNCTIONS = 12
# ok-line keys that count the operations of a workload, in order of preference
OP_KEYS = ["blocks", "nodes", "objects", "reallocs", "pairs"]

# Where the docs explain each target: (file, heading) pairs; the anchor is
# computed from the heading, and tests/bench/harness checks the heading exists.
DOC_POINTERS = {
    "tlsfcc": [("docs/sync.md", "tlsfcc against tlsf on 2 cores")],
    "hslab": [("docs/instances.md", "hslab against tcmalloc"),
              ("docs/fastpath.md", "Against the peers")],
    "wfslab-time": [("docs/slab_wf.md", "3. Operations"), ("docs/slab_wf.md", "9. Measurements")],
    "wfslab-rss": [("docs/bench.md", "wfslab memory"),
                   ("docs/slab_wf.md", "6. Giving memory back, and why nothing is unmapped under a remote free")],
    "wfslab-latency": [("docs/slab_wf.md", "9. Measurements"),
                       ("docs/slab_wf.md", "4. Why every operation is wait-free, and the bounds"),
                       ("docs/bench.md", "wfslab memory")],
    "safety": [("docs/bench.md", "Safety layers: the cost of delayed_free"),
               ("docs/bench.md", "Safety layers: the cost of tail_chksum"),
               ("docs/safety.md", "Cost")],
    "zero-overhead": [("docs/zero_overhead.md", "Results")],
    "fastpath": [("docs/fastpath.md", "Results")],
}


def anchor(heading: str) -> str:
    """The GitHub anchor of a Markdown heading: lower case, punctuation and
    symbols dropped, spaces to hyphens."""
    slug = "".join(c for c in heading.lower() if c.isalnum() or c in " -_")
    return slug.replace(" ", "-")


def doc_links(key: str) -> str:
    return "; ".join("%s, \"%s\" (`%s#%s`)" % (path, head, path, anchor(head)) for path, head in DOC_POINTERS[key])


class Miss:
    """A missed target and what explains it.

    mine, ref: the allocator that misses and the one it is held against.
    contributions: (benchmark, value) of the target's measure per benchmark,
    worst first (value in the target's own orientation: a speed-up for
    tlsfcc, a ratio mine/ref otherwise, a count or latency for the others).
    bench: the suite.Bench to profile, or None (why_not says why).
    """

    def __init__(self, title: str, verdict: str, mine: str, ref: str, doc: str,
                 contributions: list[tuple[str, str]] | None = None, bench: suite.Bench | None = None,
                 why_not: str = "", value_label: str = "ratio per benchmark", ops_key: str | None = None,
                 ops: float | None = None) -> None:
        self.title, self.verdict, self.mine, self.ref, self.doc = title, verdict, mine, ref, doc
        self.contributions = contributions or []
        self.bench, self.why_not = bench, why_not
        self.value_label = value_label
        self.ops_key, self.ops = ops_key, ops  # a fixed operation count (fastpath), else from the ok line
        self.profiles: dict[str, Profile] = {}  # allocator name -> Profile

    @property
    def slug(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", self.title.lower()).strip("-")[:80]


class Profile:
    def __init__(self, alloc: str, lib: str | None = None, path: str | None = None, status: str = "",
                 detail: str = "", total: int | None = None, ops: float | None = None, ops_key: str | None = None,
                 functions: Functions | None = None, shared_with: Profile | None = None) -> None:
        self.alloc, self.lib, self.path, self.status, self.detail = alloc, lib, path, status, detail
        # None until measured; read where ok (total) or ops says they are set
        self.total: Any = total
        self.ops: Any = ops
        self.ops_key: Any = ops_key
        self.functions = functions or []  # (name, object, Ir), most first
        self.shared_with = shared_with  # the miss whose run this profile reuses

    @property
    def ok(self) -> bool:
        return self.status == runner.OK and self.total is not None

    def in_library(self, lib: str | None) -> tuple[int, int] | None:
        """(self Ir of the functions in the preloaded library, of them in
        code callgrind maps to no file) — None: nothing preloaded, the system
        malloc shares libc with everything else. Unmapped code is counted
        with the library: under LD_PRELOAD of a peer it is the peer's (the
        tcmalloc package's malloc and free show so), and the report says
        how much of it there is."""
        if not lib:
            return None
        names = {os.path.basename(lib), os.path.basename(os.path.realpath(lib))}
        unmapped = sum(ir for _, obj, ir in self.functions if obj == "???")
        return sum(ir for _, obj, ir in self.functions if obj in names) + unmapped, unmapped

    def per_op(self, ir: float) -> float | None:
        return ir / self.ops if self.ops else None


def profile_argv(bench: suite.Bench) -> list[str]:
    """The benchmark's command at the profiling scale."""
    if bench.family == suite.FASTPATH:  # fastpath.sh --only NAME BUILD: its program, without the script
        return [os.path.join(bench.argv[-1], "bin", "fastpath"), str(FASTPATH_ITERATIONS)]
    args = suite.with_scale(suite.without_threads(bench.argv[1:]), bench.profile_scale or PROFILE_SCALE)
    threads = 1 if bench.kind == "st" else min(bench.threads, PROFILE_THREADS)
    return [bench.argv[0]] + args + ["-t", str(threads)]


ANNOTATE_LINE = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)$")


def annotate(path: str, tool: str = "callgrind_annotate") -> tuple[int, Functions]:
    """(total Ir, [(function, object, self Ir)] most first) of a callgrind
    file. callgrind_annotate lists file:function pairs (inlined code shows
    under the file it came from): they are added up per function."""
    r = subprocess.run([tool, "--threshold=100", "--auto=no", path], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise ValueError("%s failed: %s" % (tool, r.stderr.strip()[-300:]))
    total: int | None = None
    funcs: dict[str, int] = {}
    objs: dict[str, str] = {}
    after_totals = False
    for line in r.stdout.splitlines():
        m = ANNOTATE_LINE.match(line)
        if not m:
            continue
        ir, what = int(m.group(1).replace(",", "")), m.group(2).strip()
        if what.startswith("PROGRAM TOTALS"):
            total, after_totals = ir, True
            continue
        if not after_totals:
            continue
        obj = ""
        om = re.search(r" \[([^\]]*)\]$", what)
        if om:
            obj, what = os.path.basename(om.group(1)), what[:om.start()]
        fn = what.split(":", 1)[1] if ":" in what else what
        fn = re.sub(r"( \(\d+x\))?('\d+)?$", "", fn)  # the call count, the recursion depth
        funcs[fn] = funcs.get(fn, 0) + ir
        if obj:
            objs.setdefault(fn, obj)
    if total is None:
        raise ValueError("no PROGRAM TOTALS in callgrind_annotate's output")
    ranked = sorted(funcs.items(), key=lambda kv: -kv[1])
    return total, [(fn, objs.get(fn, ""), ir) for fn, ir in ranked]


def run_profiles(misses: list[Miss], allocs: Mapping[str, Allocator], outdir: str, launcher: str | None,
                 valgrind: str = "valgrind", tool: str = "callgrind_annotate", timeout: float = PROFILE_TIMEOUT,
                 say: Callable[[str], object] | None = None) -> list[Miss]:
    """Profile every miss that has a benchmark, for its two allocators. A run
    already made for another miss (same command, same allocator) is reused,
    its file linked from this miss's folder. allocs: {name: Allocator}."""
    done: dict[tuple[tuple[str, ...], str], Profile] = {}
    for miss in misses:
        if miss.bench is None:
            continue
        argv = profile_argv(miss.bench)
        folder = os.path.join(outdir, "profiles", miss.slug)
        os.makedirs(folder, exist_ok=True)
        for name in (miss.mine, miss.ref):
            key = (tuple(argv), name)
            out = os.path.join(folder, "%s.callgrind.out" % name)
            if key in done:
                prev = done[key]
                if prev.path and os.path.exists(prev.path) and not os.path.exists(out):
                    os.symlink(os.path.relpath(prev.path, folder), out)
                miss.profiles[name] = Profile(name, prev.lib, out if prev.path else None, prev.status, prev.detail,
                                              prev.total, prev.ops, prev.ops_key, prev.functions,
                                              shared_with=prev)
                continue
            if say:
                say("profiling %s × %s for '%s' (callgrind) ..." % (miss.bench.name, name, miss.title))
            prof = profile_one(argv, miss, allocs[name], out, os.path.join(folder, "runs", name), launcher,
                               valgrind, tool, timeout)
            miss.profiles[name] = done[key] = prof
    return misses


def profile_one(argv: list[str], miss: Miss, alloc: Allocator, out: str, workdir: str, launcher: str | None,
                valgrind: str, tool: str, timeout: float) -> Profile:
    assert miss.bench is not None       # run_profiles skips a miss without one
    toggle = ["--toggle-collect=malloc", "--toggle-collect=free"] if miss.bench.family == suite.FASTPATH else []
    cmd = [valgrind, "--tool=callgrind", "--callgrind-out-file=" + out] + toggle + argv
    if os.path.exists(out):
        os.unlink(out)
    env = dict(os.environ)
    env.update(miss.bench.env)
    check: runner.Check | None = (lambda stdout: (runner.OK, "", {})) if miss.bench.family == suite.FASTPATH else None
    r = runner.run_once(cmd, env, timeout, workdir, preload=alloc.lib, launcher=launcher, check=check)
    prof = Profile(alloc.name, alloc.lib, out if os.path.exists(out) else None, r.status, r.detail)
    if r.status == runner.TIMEOUT:
        prof.detail = "callgrind still running after %g s, killed (no profile written)" % timeout
        return prof
    if not r.ok:
        return prof
    if miss.ops:
        prof.ops, prof.ops_key = miss.ops, miss.ops_key
    else:
        for k in OP_KEYS:
            try:
                if k in r.metrics and float(r.metrics[k]) > 0:
                    prof.ops, prof.ops_key = float(r.metrics[k]), k
                    break
            except ValueError:
                pass
    if prof.path is None:
        prof.status, prof.detail = runner.FAILED, "callgrind wrote no file"
        return prof
    try:
        prof.total, prof.functions = annotate(prof.path, tool)
    except (OSError, ValueError, subprocess.TimeoutExpired) as e:
        prof.status, prof.detail = runner.FAILED, "callgrind_annotate: %s" % e
    return prof


def fmt_ir(ir: float) -> str:
    return "{:,}".format(int(ir))


def fmt_per_op(x: float | None) -> str:
    return "—" if x is None else ("%.1f" % x if x < 1000 else "{:,.0f}".format(x))


def cell(text: str, width: int = 64) -> str:
    text = text.replace("|", "\\|")
    return text if len(text) <= width else text[:width - 1] + "…"


def section(misses: Sequence[Miss], outdir: str, note: str, md_table: MdTable) -> str | None:
    """The report's 'Missed targets: where the time goes' (Markdown), or None
    when nothing was missed."""
    if not misses:
        return None
    out = ["## Missed targets: where the time goes", "",
           "For each missed target: by how much, the benchmarks behind the miss (worst first), and "
           "callgrind profiles of the two allocators on the benchmark that contributes most, run after the "
           "measurements at a small scale (a workload at %g × its quick `-s`, wcet_test at `-s %g`; at most %d "
           "threads; the fast path %d × 64 pairs, malloc and free only). Ir: instructions executed; "
           "self Ir: in the function itself; per op: divided by the "
           "operation count of the benchmark's ok line. Callgrind runs the threads one at a time, so waiting "
           "for a lock, cache misses and page faults do not show: equal counts with unequal times point "
           "there." % (suite.PROFILE_FRACTION, PROFILE_SCALE, PROFILE_THREADS, FASTPATH_ITERATIONS)]
    if note:
        out += ["", "Profiles: %s." % note]
    for miss in misses:
        out += ["", "### %s" % miss.title, "", "- miss: %s (%s vs %s)" % (miss.verdict.replace("**", ""),
                                                                          miss.mine, miss.ref)]
        if miss.contributions:
            shown = miss.contributions[:8]
            more = len(miss.contributions) - len(shown)
            out.append("- %s, worst first: %s%s" % (
                miss.value_label, ", ".join("%s %s" % (b, v) for b, v in shown),
                " (and %d more)" % more if more > 0 else ""))
        if miss.bench is None:
            out.append("- not profiled: %s" % miss.why_not)
        elif not miss.profiles:
            out.append("- profiled on: %s (`%s`) — no profile taken (%s)" % (
                miss.bench.name, " ".join([os.path.basename(profile_argv(miss.bench)[0])]
                                          + profile_argv(miss.bench)[1:]), note or "see the note above"))
        else:
            argv = profile_argv(miss.bench)
            out.append("- profiled on: %s%s (`%s`)" % (miss.bench.name, " — " + miss.why_not if miss.why_not else "",
                                                       " ".join([os.path.basename(argv[0])] + argv[1:])))
            out += profile_tables(miss, outdir, md_table)
        out += ["", "Explained in: %s." % doc_links(miss.doc)]
    return "\n".join(out)


def profile_tables(miss: Miss, outdir: str, md_table: MdTable) -> list[str]:
    profs = [miss.profiles.get(miss.mine), miss.profiles.get(miss.ref)]
    rows = []
    for p in profs:
        if p is None:
            continue
        rel = os.path.relpath(p.path, outdir) if p.path else "—"
        if p.ok:
            lib = p.in_library(p.lib)
            per = (lambda ir: "%s per %s" % (fmt_per_op(p.per_op(ir)), p.ops_key.rstrip("s"))) if p.ops else \
                (lambda ir: "— (no op count)")
            in_lib = "—"
            if lib is not None:
                in_lib = "%s (%.1f %%), %s" % (fmt_ir(lib[0]), 100.0 * lib[0] / p.total, per(lib[0]))
                if lib[1] * 100 >= lib[0]:  # a few hundred from the loader's stubs are not worth a word
                    in_lib += "; of it %s in code callgrind maps to no file (`???`)" % fmt_ir(lib[1])
            rows.append([p.alloc, fmt_ir(p.total), per(p.total), in_lib, "`%s`" % rel])
        else:
            rows.append([p.alloc, "**%s**: %s" % (p.status, cell(p.detail, 120)), "—", "—", "`%s`" % rel])
    lines = ["", md_table(["allocator", "total Ir", "Ir per op", "Ir in the allocator's library", "callgrind file"],
                          rows)]
    a, b = profs
    if a and b and a.ok and b.ok:
        ratio = ((a.total / a.ops) / (b.total / b.ops)) if a.ops and b.ops else a.total / b.total  # per_op's
        lines += ["", "%s executes %.2f× %s's instructions%s." % (
            a.alloc, ratio, b.alloc, " per operation" if a.ops and b.ops else " (total)")]
    if a and b and a.ok and b.ok:
        lines += difference_lines(a, b)
    ok = [p for p in profs if p and p.ok]
    if ok:
        heads, cols = [], []
        for p in ok:
            heads += ["%s: function" % p.alloc, "self Ir", "share", "per op"]
            cols.append([[cell("%s (%s)" % (fn, obj) if obj else fn), "%s" % fmt_ir(ir),
                          "%.1f %%" % (100.0 * ir / p.total if p.total else 0), fmt_per_op(p.per_op(ir))]
                         for fn, obj, ir in p.functions[:TOP_FUNCTIONS] if ir * 1000 >= p.total])
        rows = []
        for i in range(max(len(c) for c in cols)):
            row = []
            for c in cols:
                if i < len(c):
                    row += c[i]
                else:
                    row += ["", "", "", ""]
            rows.append(row)
        lines += ["", "Top %d functions by self instructions (at least 0.1 %% of the total):" % TOP_FUNCTIONS, "",
                  md_table(heads, rows)]
    return lines


def base_function(name: str) -> str:
    """A function's name without the compiler's clone suffixes (.isra.0,
    .constprop.1, .cold, .part.2), so both sides of a pair match up."""
    return re.sub(r"(\.(isra|constprop|part|cold|lto_priv)(\.\d+)?)+$", "", name)


def difference_lines(a: Profile, b: Profile, count: int = 6) -> list[str]:
    """The functions that make most of the gap between two profiles, in
    self Ir per operation (or in Ir when an op count is missing)."""
    def per(p: Profile) -> dict[str, float]:
        out: dict[str, float] = {}
        for fn, _, ir in p.functions:
            key = base_function(fn)
            out[key] = out.get(key, 0.0) + (ir / p.ops if a.ops and b.ops else ir)  # per_op's, both have ops
        return out
    pa, pb = per(a), per(b)
    diffs = sorted(((fn, pa.get(fn, 0.0) - pb.get(fn, 0.0)) for fn in set(pa) | set(pb)),
                   key=lambda fd: -abs(fd[1]))[:count]
    diffs = [fd for fd in diffs if abs(fd[1]) >= 0.01 * abs(diffs[0][1])] if diffs else []
    unit = "Ir per op" if a.ops and b.ops else "Ir"
    return ["", "Largest differences (%s − %s, self %s): %s." % (
        a.alloc, b.alloc, unit, ", ".join("%s %s%s" % (cell(fn, 48), "+" if d >= 0 else "−",
                                                       fmt_per_op(abs(d)) if unit != "Ir" else fmt_ir(abs(d)))
                                          for fn, d in diffs))]
