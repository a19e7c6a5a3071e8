"""The Markdown report, the terminal summary and the targets of docs/design.md §6."""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Dict, List, Tuple

from . import profile, stats, suite, sweep
from .allocators import READY

if TYPE_CHECKING:     # only mypy needs these
    from .results import Results
    from .runner import RunResult

# A table: its headers and rows of cells (text or numbers, shown with str).
Row = List[Any]
Table = Tuple[List[str], List[Row]]
# {bench: {alloc: {"malloc_p99": value, ...}}}
Wcet = Dict[str, Dict[str, Dict[str, Any]]]

# wcet_test percentiles (paper Fig. 9/10: the slowest 10 %, 1 %, ... 0.0001 %)
PERCENTILES = ["90", "99", "99.9", "99.99", "99.999", "99.9999"]
BASE, REFERENCE = "glibc", "mimalloc"
# The paper's Table 4 divides by wfslab; the report shows that view beside glibc's and mimalloc's.
PAPER_BASE = "wfslab"
TABLE4_BASES = (BASE, REFERENCE, PAPER_BASE)
# A Mortise instance's benchmark is a weak cell when its median time is more
# than this multiple of the best peer's (glibc or a peer library) beyond the
# noise (docs/bench.md, "Weak cells").
WEAK_BAR = 1.10


def fmt(x: float | None, digits: int = 3) -> str:
    return "—" if x is None else ("%.*f" % (digits, x))


def md_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def pct(x: float) -> str:
    return "%.1f %%" % (100 * x)


def spread_cell(spread: float | None) -> str:
    return "— (one run)" if spread is None else pct(spread)


def ratio_cell(ratio: float | None, spread: float | None) -> str:
    """A ratio of two allocators, marked when it is nearer 1 than their spread."""
    if ratio is None:
        return fmt(None)
    return fmt(ratio) + (" (noise)" if stats.within_noise(ratio, 1.0, spread) else "")


def judge(value: float, bar: float, met: bool, spread: float | None, miss: str) -> tuple[str, bool]:
    """The verdict on a value against a bar: 'noise' when the value is nearer
    the bar than the run-to-run spread (stats.within_noise), else met or the
    miss text. Returns (verdict, is_miss)."""
    if spread is not None and stats.within_noise(value, bar, spread):     # never with no spread
        return ("noise: %s from the bar, inside the %s spread" % (pct(abs(value / bar - 1)), pct(spread)), False)
    return ("met", False) if met else (miss, True)


def text_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    cells = [headers] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
             for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


class Analysis:
    """Medians, geometric means and targets computed once from Results."""

    misses: list[profile.Miss]     # set by targets()

    def __init__(self, results: Results) -> None:
        self.results = results
        self.allocs = [a.name for a in results.allocators()]
        self.geo_benches = [b for b in results.benches() if b.in_geomean]
        self.time = results.medians("wall_s")
        self.rss = results.medians("maxrss_kb")
        self.time_spread = results.spreads("wall_s")
        self.rss_spread = results.spreads("maxrss_kb")
        self.cpu = results.medians("cpu_s")
        self.cpu_spread = results.spreads("cpu_s")
        kinds = {a.name: a.kind for a in results.allocators()}
        self.instances = [a for a in self.allocs if kinds.get(a) == "mortise"]
        self.peers = [a for a in self.allocs if kinds.get(a) != "mortise"]

    def names(self, kind: str | None = None) -> list[str]:
        return [b.name for b in self.geo_benches if kind is None or b.kind == kind]

    def geo(self, alloc: str, base: str, attr: str = "time",
            kind: str | None = None) -> tuple[float | None, list[str], list[str]]:
        med = self.time if attr == "time" else self.rss
        return stats.ratio_geomean(med, alloc, base, self.names(kind))

    def spread(self, a: str, b: str, attr: str, used: Iterable[str]) -> float | None:
        """The run-to-run spread a comparison of a with b over `used` is judged against."""
        return stats.pair_spread(self.time_spread if attr == "time" else self.rss_spread, a, b, used)

    def own_spread(self, alloc: str) -> float | None:
        """Median over the benchmarks of alloc's time spread (None: one run each)."""
        xs = [v for (b, a), v in self.time_spread.items() if a == alloc and v is not None and b in self.names()]
        return stats.median(xs) if xs else None

    def spread_summary(self) -> str:
        """One sentence on the run-to-run spread of the times, over every
        (benchmark, allocator) pair of the means."""
        xs = [(v, b, a) for (b, a), v in self.time_spread.items() if v is not None and b in self.names()]
        if not xs:
            return ("Run-to-run spread: unknown, one run per measurement; no verdict below can be called "
                    "noise (two or more runs, e.g. `--runs 3`, measure it).")
        worst = max(xs)
        return ("Run-to-run spread of the times, (max − min) / median of a pair's runs: median %s over %d "
                "benchmark × allocator pairs, largest %s (%s × %s). A ratio or target nearer its bar than "
                "the spread is noise." % (pct(stats.median([v for v, _, _ in xs])), len(xs), pct(worst[0]),
                                          worst[1], worst[2]))

    def normalized(self, a: str, bases: Sequence[str], kind: str | None = None) -> list[str]:
        """a's time and RSS geomeans divided by each base's (Table 4's cells)."""
        cells = []
        for base in bases:
            for attr in ("time", "rss"):
                g, used, _ = self.geo(a, base, attr, kind)
                cells.append(ratio_cell(g, self.spread(a, base, attr, used) if a != base else None))
        return cells

    @staticmethod
    def normalized_headers(bases: Sequence[str]) -> list[str]:
        return ["%s ×%s" % (attr, base) for base in bases for attr in ("time", "RSS")]

    def table4(self, bases: Sequence[str] = TABLE4_BASES) -> Table:
        """Rows: allocator, time and RSS geomeans vs each base (glibc,
        mimalloc, wfslab: the paper's), coverage."""
        rows: list[Row] = []
        for a in self.allocs:
            used = self.geo(a, BASE, "time")[1]
            rows.append([a] + self.normalized(a, bases) + ["%d/%d" % (len(used), len(self.names())),
                                                           spread_cell(self.own_spread(a))])
        return ["allocator"] + self.normalized_headers(bases) + ["benchmarks", "time spread"], rows

    def cpu_table(self, bases: Sequence[str] = (BASE, REFERENCE)) -> Table:
        """Rows: allocator, the geomean of its CPU time (user + system of the
        measured program) divided by each base's, coverage."""
        rows: list[Row] = []
        for a in self.allocs:
            means = [stats.ratio_geomean(self.cpu, a, base, self.names()) for base in bases]
            rows.append([a] + [ratio_cell(g, stats.pair_spread(self.cpu_spread, a, base, used) if a != base else None)
                               for (g, used, _), base in zip(means, bases)]
                        + ["%d/%d" % (len(means[0][1]), len(self.names()))])
        return ["allocator"] + ["CPU time ×%s" % b for b in bases] + ["benchmarks"], rows

    def best_peer(self, bench: str) -> tuple[str, float] | None:
        """The peer (glibc or a peer library) with the lowest median time on
        bench, and that time; None without one."""
        times = [(self.time[(bench, p)], p) for p in self.peers if (bench, p) in self.time]
        if not times:
            return None
        t, p = min(times)
        return p, t

    def peer_ratio(self, bench: str, a: str) -> tuple[float, str, float | None] | None:
        """a's median time over the best peer's on bench, that peer, and the
        spread the ratio is judged against (the larger of the two)."""
        best = self.best_peer(bench)
        if best is None or (bench, a) not in self.time or best[1] <= 0:
            return None
        peer, t = best
        return self.time[(bench, a)] / t, peer, stats.pair_spread(self.time_spread, a, peer, [bench])

    def weak_verdict(self, ratio: float, spread: float | None) -> str | None:
        """'weak' above WEAK_BAR beyond the noise, 'noise' above it inside
        the spread, None at or below it."""
        if ratio <= WEAK_BAR:
            return None
        return "noise" if stats.within_noise(ratio, WEAK_BAR, spread) else "weak"

    def weak_cells(self) -> list[tuple[str, str, float, str, float | None, str]]:
        """Every (benchmark, instance) above WEAK_BAR × the best peer's time,
        worst first: (bench, instance, ratio, peer, spread, 'weak' or 'noise')."""
        cells = []
        for b in self.names():
            for a in self.instances:
                pr = self.peer_ratio(b, a)
                if pr and (verdict := self.weak_verdict(pr[0], pr[2])):
                    cells.append((b, a, pr[0], pr[1], pr[2], verdict))
        return sorted(cells, key=lambda c: -c[2])

    def weak_section(self) -> str | None:
        if not self.instances:
            return None
        out = ["## Weak cells: instances above %.2f× the best peer" % WEAK_BAR, ""]
        if not self.peers:
            return "\n".join(out + ["Not measured: no peer (glibc or a peer library) in this run."])
        cells = self.weak_cells()
        weak = sum(1 for c in cells if c[5] == "weak")
        out.append("Each Mortise instance's median time on each benchmark divided by the best peer's (the "
                   "fastest of glibc and the peer libraries in this run), listed when above %.2f: 'weak' when "
                   "it is farther from %.2f than the larger of the two run-to-run spreads, 'noise' when "
                   "inside it. %d weak, %d inside the noise, over %d benchmarks × %d instances."
                   % (WEAK_BAR, WEAK_BAR, weak, len(cells) - weak, len(self.names()), len(self.instances)))
        if cells:
            out += ["", md_table(["benchmark", "instance", "time ×best peer", "best peer", "spread", "verdict"],
                                 [[b, a, ("**%s**" if v == "weak" else "%s") % fmt(r), p, spread_cell(sp), v]
                                  for b, a, r, p, sp, v in cells])]
        return "\n".join(out)

    def kind_table(self, kind: str, bases: Sequence[str] = (BASE, PAPER_BASE)) -> Table:
        """Table 4 over the multithreaded or the single-threaded benchmarks alone."""
        return (["allocator"] + self.normalized_headers(bases),
                [[a] + self.normalized(a, bases, kind) for a in self.allocs])

    # ---- targets (docs/design.md §6) ----
    def have(self, *names: str) -> str | None:
        missing = [n for n in names if n not in self.allocs]
        return ("not measured: %s not in this run" % ", ".join(missing)) if missing else None

    def ratio_target(self, what: str, a: str, b: str, bar: str, attr: str = "time", kind: str | None = None,
                     invert: bool = False, doc: str | None = None) -> Row:
        """A target 'a vs b' on a geomean; invert: the measured number is b/a (a speedup).
        A miss is kept in self.misses with the per-benchmark ratios (doc: its
        key in profile.DOC_POINTERS); a value inside the spread is noise, no miss."""
        missing = self.have(a, b)
        if missing:
            return [what, "—", bar, missing, "—"]
        g, used, left = self.geo(a, b, attr, kind)
        if g is None:
            return [what, "—", bar, "not measured: no %sbenchmark where both succeeded"
                    % ("multithreaded " if kind == "mt" else ""), "—"]
        value = 1.0 / g if invert else g
        limit = float(bar.split()[-1].rstrip("×"))
        spread = self.spread(a, b, attr, used)
        met = value >= limit if bar.startswith("≥") else value <= limit
        note = " over %d benchmarks" % len(used) + (" (left out: %s)" % ", ".join(left) if left else "")
        verdict, miss = judge(value, limit, met, spread, "**missed** by %s" % pct(abs(value / limit - 1)))
        row = [what, "%.3f×%s" % (value, note), bar, verdict, spread_cell(spread)]
        if miss and doc:
            self.add_ratio_miss(row, a, b, attr, used, invert, value > limit, doc)
        return row

    def add_ratio_miss(self, row: Row, a: str, b: str, attr: str, used: Sequence[str], invert: bool,
                       too_high: bool, doc: str) -> None:
        """The miss of a ratio target, its benchmarks worst first and the
        workload to profile: the worst one (real programs are not profiled)."""
        med = self.time if attr == "time" else self.rss
        per: list[tuple[str, float]] = []
        for name in used:
            r = med[(name, a)] / med[(name, b)]
            per.append((name, 1.0 / r if invert else r))
        per.sort(key=lambda nv: -nv[1] if too_high else nv[1])
        label = ("speed-up (%s time / %s time) per benchmark" % (b, a) if invert
                 else "%s %s / %s per benchmark" % ("max RSS" if attr == "rss" else "time", a, b))
        miss = profile.Miss(row[0], "%s: %s against %s" % (row[3], row[1].split(" over")[0], row[2]), a, b, doc,
                            [(n, "%.3f" % v) for n, v in per], value_label=label)
        by_name = {x.name: x for x in self.geo_benches}
        if attr == "rss":
            miss.why_not = "callgrind counts instructions, not resident pages (per-benchmark RSS: 'Per benchmark')"
        else:
            workloads = [n for n, _ in per if by_name[n].family == suite.WORKLOAD]
            if not workloads:
                miss.why_not = "no workload among the benchmarks (real programs are not profiled)"
            else:
                miss.bench = by_name[workloads[0]]
                if workloads[0] != per[0][0]:
                    miss.why_not = "the worst workload (%s, the worst benchmark, is a real program: not profiled)" \
                        % per[0][0]
        self.misses.append(miss)

    def targets(self, wcet: Wcet, fastpath: Mapping[str, float]) -> Table:
        """The target rows; the misses among them are left in self.misses
        (profile.Miss, for the profiling phase and 'Missed targets')."""
        self.misses = []
        rows = [
            self.ratio_target("tlsfcc speed-up over tlsf (multithreaded geomean, tlsf time / tlsfcc time)",
                              "tlsfcc", "tlsf", "≥ 1.5×", kind="mt", invert=True, doc="tlsfcc"),
            self.ratio_target("hslab time / tcmalloc time", "hslab", "tcmalloc", "≤ 0.85×", doc="hslab"),
            self.ratio_target("wfslab time / mimalloc time", "wfslab", "mimalloc", "≤ 1.0×", doc="wfslab-time"),
            self.ratio_target("wfslab max RSS / mimalloc max RSS", "wfslab", "mimalloc", "≤ 1.0×", attr="rss",
                              doc="wfslab-rss"),
        ]
        for safe, base in (("wfslabs", "wfslab"), ("hslabd", "hslab"), ("tlsfccsd", "tlsfcc")):
            rows.append(self.ratio_target("safety: %s time / %s time" % (safe, base), safe, base, "≤ 1.1×",
                                          doc="safety"))
        for twin in ("wfslabm", "wfslabfl"):
            # the twins share wfslab's machine code: a gap either way is the miss
            row = self.ratio_target("zero overhead: %s time / wfslab time" % twin, twin, "wfslab", "≤ 1.03×")
            row[2] = "within 3 %"
            if row[1] != "—":
                g, used, _ = self.geo(twin, "wfslab")
                assert g is not None        # row[1] is a measurement: the geomean exists
                spread = self.spread(twin, "wfslab", "time", used)
                row[3], miss = judge(g, 1.03 if g >= 1 else 0.97, abs(g - 1) <= 0.03, spread,
                                     "**missed**: %+.1f %%" % ((g - 1) * 100))
                if miss:
                    self.add_ratio_miss(row, twin, "wfslab", "time", used, False, g > 1, "zero-overhead")
            rows.append(row)
        rows += wcet_targets(wcet, self.misses, self.results)
        rows += fastpath_targets(fastpath, self.misses, self.results)
        return ["target", "measured", "bar", "verdict", "spread"], rows


def bench_named(results: Results | None, name: str) -> suite.Bench | None:
    return next((b for b in results.benches() if b.name == name), None) if results else None


def wcet_targets(wcet: Wcet, misses: list[profile.Miss] | None = None,
                 results: Results | None = None) -> list[Row]:
    """wfslab: the lowest 99.9999 % latency of all allocators, malloc and free.
    A miss goes to misses, profiled on that wcet_test against the lowest.
    With runs to compare, a gap to the nearest other allocator inside their
    run-to-run spread is noise."""
    rows: list[Row] = []
    if not wcet:
        return [["wfslab lowest 99.9999 % latency (wcet_test)", "—", "lowest", "not measured: wcet_test not run",
                 "—"]]
    spreads = wcet_spreads(results) if results else {}
    for bench, per_alloc in sorted(wcet.items()):
        for op in ("malloc", "free"):
            key = "%s_p99.9999" % op
            vals: dict[str, float] = {a: v[key] for a, v in per_alloc.items() if v.get(key)}
            what = "wfslab lowest %s 99.9999 %% latency (%s)" % (op, bench)
            if "wfslab" not in vals:
                rows.append([what, "—", "lowest", "not measured: no wfslab result", "—"])
                continue
            best = min(vals, key=lambda a: vals[a])
            mine = vals["wfslab"]
            others = sorted((v, a) for a, v in vals.items() if a != "wfslab")
            rival = best if best != "wfslab" else (others[0][1] if others else None)
            spread = None
            if rival:
                pair: list[Any] = [spreads.get(bench, {}).get(a, {}).get(key) for a in ("wfslab", rival)]
                spread = None if None in pair else max(pair)
            measured = "%.2f µs (lowest: %s %.2f µs)" % (mine, best, vals[best])
            verdict, miss = judge(mine, vals[rival], mine <= vals[best], spread,
                                  "**missed**: %.2f× the lowest" % (mine / vals[best])) if rival else ("met", False)
            rows.append([what, measured, "lowest", verdict, spread_cell(spread) if rival else "—"])
            if miss and misses is not None:
                misses.append(profile.Miss(
                    what, "%s: %.2f µs against %s's %.2f µs" % (verdict, mine, best, vals[best]), "wfslab", best,
                    "wfslab-latency",
                    [(a, "%.2f" % v) for a, v in sorted(vals.items(), key=lambda av: av[1], reverse=True)],
                    bench_named(results, bench), value_label="99.9999 %% %s latency (µs) per allocator" % op))
    return rows


def fastpath_targets(fastpath: Mapping[str, float], misses: list[profile.Miss] | None = None,
                     results: Results | None = None) -> list[Row]:
    """One row per ready instance (docs/design.md §4): its in-call count against
    mimalloc's, or why there is none. A miss goes to misses, profiled on the
    fastpath program against mimalloc."""
    ran = {a.name for a in results.allocators()} if results else set()
    fp = next(iter(results.benches(suite.FASTPATH)), None) if results else None
    ref = fastpath.get(REFERENCE)
    rows: list[Row] = []
    for name in READY:
        what = "fast path: %s instructions per pair (in-call)" % name
        mine = fastpath.get(name)
        if mine is None or ref is None:
            why = ("%s not in this run" % name if results and name not in ran and fastpath
                   else "no fast-path counts" if not fastpath
                   else "no %s count" % (name if mine is None else REFERENCE))
            rows.append([what, "—", "≤ mimalloc", "not measured: " + why, "—"])
            continue
        verdict = "met" if mine <= ref else "**missed** by %.1f instructions" % (mine - ref)
        rows.append([what, "%.1f (mimalloc %.1f)" % (mine, ref), "≤ mimalloc", verdict, "none (a count)"])
        if verdict != "met" and misses is not None:
            misses.append(profile.Miss(
                what, "%s: %.1f against %.1f" % (verdict, mine, ref), name, REFERENCE, "fastpath",
                [(name, "%.1f" % mine), (REFERENCE, "%.1f" % ref)], fp,
                value_label="in-call instructions per pair (tools/fastpath.sh) per allocator", ops_key="pairs",
                ops=profile.FASTPATH_ITERATIONS * 64))
    return rows


def wcet_values(results: Results) -> Wcet:
    """{bench: {alloc: {"malloc_p99": [µs of each ok run], ...}}}."""
    out: Wcet = {}
    for b in results.benches(suite.WCET):
        for a in results.allocators():
            runs = [r for r in results.runs(b.name, a.name) if r.ok]
            for op in ("malloc", "free"):
                for p in PERCENTILES + ["samples"]:
                    key = "%s_p%s" % (op, p) if p != "samples" else "%s_samples" % op
                    xs = [float(r.metrics[key]) for r in runs if key in r.metrics]
                    if xs:
                        out.setdefault(b.name, {}).setdefault(a.name, {})[key] = xs
    return out


def wcet_table(results: Results) -> Wcet:
    """{bench: {alloc: {"malloc_p99": median µs, ...}}} over the ok runs."""
    return {b: {a: {k: stats.median(xs) for k, xs in v.items()} for a, v in pa.items()}
            for b, pa in wcet_values(results).items()}


def wcet_spreads(results: Results) -> Wcet:
    """wcet_table's layout with each value's run-to-run spread (None: one run)."""
    return {b: {a: {k: stats.rel_spread(xs) for k, xs in v.items()} for a, v in pa.items()}
            for b, pa in wcet_values(results).items()}


def fastpath_counts(results: Results) -> dict[str, float]:
    """{alloc: in-call instructions per pair} of the ok fast-path runs."""
    out = {}
    for j, r in results.records:
        if j.bench.family == suite.FASTPATH and r.ok and "in_call" in r.metrics:
            out[j.alloc.name] = float(r.metrics["in_call"])
    return out


def runs_cell(runs: Sequence[RunResult]) -> str:
    ok = sum(1 for r in runs if r.ok)
    if ok == len(runs):
        return "%d ok" % ok
    bad = ["run %d %s" % (i + 1, r.status) for i, r in enumerate(runs) if not r.ok]
    return "**%d/%d ok** (%s)" % (ok, len(runs), ", ".join(bad))


def bench_section(results: Results, an: Analysis, b: suite.Bench) -> str:
    command = " ".join([os.path.basename(b.argv[0])] + b.argv[1:])
    lines = ["### %s" % b.name, "", "%s; %d thread%s; `%s`" % (b.description or b.family, b.threads,
                                                               "" if b.threads == 1 else "s", command), ""]
    rows: list[Row] = []
    base_t, base_r = an.time.get((b.name, BASE)), an.rss.get((b.name, BASE))
    for a in an.allocs:
        t_spread = stats.pair_spread(an.time_spread, a, BASE, [b.name]) if a != BASE else None
        r_spread = stats.pair_spread(an.rss_spread, a, BASE, [b.name]) if a != BASE else None
        runs = results.runs(b.name, a)
        if not runs:
            continue
        ok = [r for r in runs if r.ok]
        t = stats.median([r.wall_s for r in ok]) if ok else None
        rss = stats.median([r.maxrss_kb for r in ok]) if ok else None
        cpu = [r.cpu_s for r in ok if r.cpu_s is not None]
        lo, hi = stats.spread([r.wall_s for r in ok])
        rows.append([a, fmt(t), "%s–%s" % (fmt(lo), fmt(hi)) if ok else "—",
                     spread_cell(stats.rel_spread([r.wall_s for r in ok])) if ok else "—",
                     ratio_cell(t / base_t, t_spread) if t and base_t else "—",
                     peer_cell(an, b.name, a), fmt(stats.median(cpu)) if cpu else "—",
                     "%d" % rss if rss is not None else "—",
                     ratio_cell(rss / base_r, r_spread) if rss and base_r else "—", runs_cell(runs)])
    lines.append(md_table(["allocator", "time (s)", "min–max", "spread", "×%s" % BASE, "×best peer", "CPU (s)",
                           "max RSS (KB)", "×%s" % BASE, "runs"], rows))
    return "\n".join(lines)


def peer_cell(an: Analysis, bench: str, a: str) -> str:
    """An allocator's time over the best peer's; an instance's weak cell in
    bold with 'weak', above the bar inside the noise with '(noise)'."""
    pr = an.peer_ratio(bench, a)
    if pr is None:
        return "—"
    verdict = an.weak_verdict(pr[0], pr[2]) if a in an.instances else None
    return {"weak": "**%s weak**", "noise": "%s (noise)"}.get(verdict or "", "%s") % fmt(pr[0])


def wcet_section(wcet: Wcet) -> str | None:
    if not wcet:
        return None
    out = ["## wcet_test latency percentiles", "",
           "Latency of one request in µs at each percentile (paper Fig. 9/10: the slowest 10 %, 1 %, …, "
           "0.0001 % of requests), measured by the wcet_stat layer (1 request in 8 timed), median over the "
           "runs. A percentile finer than 1/samples is the maximum: the quick suite's few samples make "
           "99.999 % and 99.9999 % the same number; the full suite has millions.", ""]
    for bench, per_alloc in sorted(wcet.items()):
        for op in ("malloc", "free"):
            rows = [[a] + [fmt(v.get("%s_p%s" % (op, p)), 2) for p in PERCENTILES]
                    + ["%d" % v["%s_samples" % op] if "%s_samples" % op in v else "—"]
                    for a, v in per_alloc.items()]
            out += ["### %s: %s" % (bench, op), "",
                    md_table(["allocator"] + ["%s %%" % p for p in PERCENTILES] + ["samples"], rows), ""]
    return "\n".join(out)


def fastpath_section(results: Results) -> str | None:
    rows: list[Row] = []
    for j, r in results.records:
        if j.bench.family != suite.FASTPATH:
            continue
        if r.ok:
            rows.append([j.alloc.name, r.metrics.get("in_call", "—"), r.metrics.get("total", "—")])
        else:
            rows.append([j.alloc.name, r.status, r.detail])
    if not rows:
        return None
    return "\n".join(["## Fast path", "", "Instructions per malloc+free pair on the warm fast path "
                      "(tools/fastpath.sh: callgrind, 64 blocks of 16..128 bytes). in-call: inside malloc "
                      "and free; total: the whole loop.", "", md_table(["allocator", "in-call", "total"], rows)])


def write(path: str, results: Results, meta: Iterable[tuple[str, str]], notes: Sequence[str], plots: Sequence[str],
          plot_note: str, misses: list[profile.Miss] | None = None,
          profile_note: str = "") -> tuple[Analysis, Wcet, dict[str, float]]:
    """The report; misses: the profiled profile.Miss list of this run (None:
    the misses of the targets, unprofiled)."""
    an = Analysis(results)
    wcet = wcet_table(results)
    fast = fastpath_counts(results)
    out = ["# Mortise benchmark report", ""]
    out += ["- %s: %s" % (k, v) for k, v in meta]
    out.append("- allocators:")
    out += ["  - %s: %s" % (a.name, a.lib or a.origin) + (" (%s)" % a.origin if a.lib and a.origin
                                                          and a.origin != a.lib and a.origin != "build" else "")
            for a in results.allocators()]
    if notes:
        out += ["", "Notes:", ""] + ["- " + n for n in notes]
    headers, rows = an.table4()
    out += ["", "## Summary: normalized geometric means (Table 4)", "",
            "Geometric mean over the workloads and programs of each allocator's median time and median max "
            "RSS, divided by %s's (first two columns), by %s's (next two) and by %s's (the paper's Table 4 "
            "view, last two; its own column reads 1.000). Below 1 is faster / smaller. "
            "A benchmark where either side had a failed run is left out of that pair's mean (see "
            "'benchmarks': used of all); 'time spread' is the median of the allocator's run-to-run "
            "spreads; '(noise)' marks a ratio nearer 1 than the spread of the two allocators' runs (the "
            "median over the benchmarks of the larger of their spreads): no difference is shown."
            % (BASE, REFERENCE, PAPER_BASE), "", an.spread_summary(), "", md_table(headers, rows)]
    for kind, label in (("mt", "multithreaded"), ("st", "single-threaded")):
        names = an.names(kind)
        if names:
            out += ["", "%s workloads only (%s):" % (label.capitalize(), ", ".join(names)), "",
                    md_table(*an.kind_table(kind))]
    out += ["", "CPU time (user + system seconds of the measured program, from its rusage), the same "
            "geometric means: for a multithreaded benchmark what all its threads spent, so waiting "
            "costs nothing here and spinning does.", "", md_table(*an.cpu_table())]
    weak = an.weak_section()
    if weak:
        out += ["", weak]
    th, tr = an.targets(wcet, fast)
    out += ["", "## Targets (docs/design.md §6)", "",
            "Each bar side by side from this run. A miss says by how much; 'not measured' says what was "
            "absent. 'spread' is the run-to-run spread the verdict was judged against: for a geometric "
            "mean, the median over its benchmarks of the larger of the two allocators' spreads. A value "
            "nearer its bar than that spread is 'noise', neither met nor missed (docs/bench.md, "
            "\"Noise\").", "", md_table(th, tr)]
    why = profile.section(an.misses if misses is None else misses, os.path.dirname(os.path.abspath(path)),
                          profile_note, md_table)
    if why:
        out += ["", why]
    fails = results.failures()
    out += ["", "## Failed runs", ""]
    if fails:
        out.append(md_table(["benchmark", "allocator", "run", "status", "detail"],
                            [[j.bench.name, j.alloc.name, j.run, r.status, r.detail.replace("|", "/")]
                             for j, r in fails]))
    else:
        out.append("None: every run exited 0 and printed its `ok` line.")
    geo = [b for b in results.benches() if b.in_geomean]
    if geo:
        out += ["", "## Per benchmark", "",
                "Median of the runs; min–max of the times and their spread, (max − min) / median, show "
                "the noise; ×%s is the ratio of medians, '(noise)' when it is nearer 1 than the larger "
                "of the two allocators' spreads; ×best peer divides by the fastest peer's median (an "
                "instance above %.2f is marked weak, or '(noise)' inside the spread: 'Weak cells'); CPU is "
                "the median user + system time." % (BASE, WEAK_BAR)]
        for b in geo:
            out += ["", bench_section(results, an, b)]
    for section in (sweep.section(results, an.allocs, md_table), wcet_section(wcet), fastpath_section(results)):
        if section:
            out += ["", section]
    if results.spent:
        total = sum(results.spent.values())
        out += ["", "## Where the time went", "",
                "Harness seconds per benchmark over all its runs and allocators (launch, drivers and "
                "generators included): what to shrink when the quick suite runs over its budget.", "",
                md_table(["benchmark", "seconds", "share"],
                         [[b, "%.1f" % t, "%.0f %%" % (100 * t / total if total else 0)]
                          for b, t in sorted(results.spent.items(), key=lambda kv: -kv[1])])]
    out += ["", "## Plots", ""]
    if plots:
        out += ["![%s](%s)" % (os.path.splitext(p)[0], p) for p in plots]
    out.append(plot_note or "")
    out += ["", "## Files", "",
            "- `results.csv`: one row per run (workload, allocator, run, threads, wall_s, maxrss_kb, status, "
            "detail, metrics, source, family, kind, cpu_s)",
            "- `report.md`: this report; `summary.txt`: what the terminal showed",
            "- `runs/BENCH/ALLOCATOR/RUN/`: each run's stdout and stderr (and wcet.json)",
            "- `profiles/TARGET/ALLOCATOR.callgrind.out`: the missed targets' profiles "
            "(`callgrind_annotate FILE`, or kcachegrind), with each profile run's output in `profiles/TARGET/runs/`",
            "- `*.png`: the plots drawn with matplotlib; `malloc_test-samples-*.svg`: the malloc_test samples "
            "over time"]
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return an, wcet, fast


def summary_text(results: Results, an: Analysis, wcet: Wcet, fast: Mapping[str, float], report_path: str) -> str:
    headers, rows = an.table4()
    lines = ["", "== Mortise benchmark summary: normalized geometric means (time and max RSS; < 1 is better)",
             text_table(headers, rows), an.spread_summary(), ""]
    th, tr = an.targets(wcet, fast)
    lines.append("== Targets (docs/design.md §6)")
    lines.append(text_table(th, [[c.replace("**", "") for c in r] for r in tr]))
    fails = results.failures()
    lines.append("")
    lines.append("failed runs: %d%s" % (len(fails), "" if not fails else " — " + "; ".join(
        "%s × %s run %d: %s" % (j.bench.name, j.alloc.name, j.run, r.status) for j, r in fails[:8])
        + (" ..." if len(fails) > 8 else "")))
    noise = sum(1 for r in tr if r[3].startswith("noise"))
    if noise:
        lines.append("targets inside the noise: %d (neither met nor missed: repeat with more runs)" % noise)
    if an.misses:
        lines.append("missed targets: %d (where the time goes: the report's 'Missed targets' section)" % len(an.misses))
    cells = an.weak_cells() if an.peers else []
    weak = [c for c in cells if c[5] == "weak"]
    if weak:
        lines.append("weak cells (an instance above %.2f× the best peer, beyond the noise): %d — %s"
                     % (WEAK_BAR, len(weak), "; ".join("%s × %s %.2f" % (b, a, r) for b, a, r, _, _, _ in weak[:6])
                        + (" ..." if len(weak) > 6 else "")))
    lines.append("report: %s" % report_path)
    return "\n".join(lines)
