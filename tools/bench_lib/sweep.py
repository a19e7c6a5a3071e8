"""The malloc_test sweep in the report: its samples over time (the start-up
ramp the article's Figure 13 shows), one SVG chart per sweep benchmark with
a line per allocator, and the tables of the sweep section by mode (fixed
sizes, random sizes, the fragmentation run)."""
from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, List, Tuple, cast

from . import stats, suite, svg

if TYPE_CHECKING:     # only mypy needs it
    from .results import Results

# (seconds since start, loops per second) of each sample
Samples = List[Tuple[float, float]]

SAMPLE = re.compile(r"^sample (\d+): ([0-9.]+) loops/s at ([0-9.]+) s$", re.M)


def parse_samples(text: str) -> Samples:
    """[(seconds since start, loops per second)] of malloc_test's sample lines."""
    return [(float(t), float(v)) for _, v, t in SAMPLE.findall(text)]


def encode(samples: Samples) -> str:
    """The samples as one metric value (results.csv): 'T:LPS T:LPS ...'."""
    return " ".join("%.3f:%.0f" % s for s in samples)


def decode(text: str | None) -> Samples:
    return [cast(Tuple[float, float], tuple(float(x) for x in item.split(":"))) for item in (text or "").split()]


def read_samples(stdout_path: str) -> str:
    with open(stdout_path, errors="replace") as f:
        return encode(parse_samples(f.read()))


def series(results: Results, bench: suite.Bench) -> dict[str, Samples]:
    """{alloc: [(t, loops/s)]}: per sample number, the median over the ok runs
    of its time and of its rate (one run: its samples as they are)."""
    out: dict[str, Samples] = {}
    for a in results.allocators():
        runs = [decode(r.metrics.get("samples")) for r in results.runs(bench.name, a.name) if r.ok]
        runs = [r for r in runs if r]
        depth = max((len(r) for r in runs), default=0)
        out[a.name] = [(stats.median([r[k][0] for r in runs if len(r) > k]),
                        stats.median([r[k][1] for r in runs if len(r) > k])) for k in range(depth)]
    return out


def ramp(points: Samples) -> float | None:
    """The first sample over the median of all: below 1, a start-up ramp."""
    if len(points) < 2:
        return None
    mid = stats.median([v for _, v in points])
    return points[0][1] / mid if mid > 0 else None


def plot_name(bench: suite.Bench) -> str:
    return "malloc_test-samples-%s.svg" % re.sub(r"[^A-Za-z0-9.-]+", "-", bench.name.split(":", 1)[1])


def draw(outdir: str, results: Results) -> list[str]:
    """One chart per sweep benchmark; returns the file names."""
    made = []
    for b in results.benches(suite.SWEEP):
        per_alloc = series(results, b)
        text = svg.line_chart("%s: loops per second over time" % b.name, "seconds since the threads started",
                              "loops per second (higher is better)", list(per_alloc.items()),
                              note=b.description)
        name = plot_name(b)
        with open(os.path.join(outdir, name), "w") as f:
            f.write(text)
        made.append(name)
    return made


def mode_table(results: Results, allocs: Sequence[str], benches: Sequence[suite.Bench], key: str,
               digits: str = "%.0f") -> tuple[list[str], list[list[str]]]:
    values = results.metric_medians(key)
    rows = [[a] + [(digits % values[(b.name, a)]) if (b.name, a) in values else "failed"
                   if results.runs(b.name, a) else "—" for b in benches] for a in allocs]
    return ["allocator"] + [b.name.split(":", 1)[1] for b in benches], rows


def section(results: Results, allocs: Sequence[str],
            md_table: Callable[[list[str], list[list[str]]], str]) -> str | None:
    benches = results.benches(suite.SWEEP)
    if not benches:
        return None
    out = ["## malloc_test sweep", "",
           "The article's harness: allocation threads each paired with a free thread. Columns: maximum "
           "block size @ thread pairs (`rand-`: random sizes up to it, `frag-`: the fragmentation run)."]
    titles = {suite.FIXED: "Every block the maximum size",
              suite.RANDOM: "Random sizes up to the maximum (`-r`, as the article ran it)",
              suite.FRAGMENTATION: "Fragmentation (the article's Table 2): random sizes up to 4 KB, every "
                                   "block memset (`-s 1`), a fixed number of loops (`-f`); the resident set "
                                   "is read after every thread stopped and freed what it held"}
    for mode in (suite.FIXED, suite.RANDOM, suite.FRAGMENTATION):
        bs = [b for b in benches if b.sweep_mode == mode]
        if not bs:
            continue
        out += ["", "### %s" % titles[mode], ""]
        tables = [("rss_kb", "RSS after the run (KB, median; lower is better)", "%.0f")]
        lps = ("loops_per_sec", "Loops per second (median of the samples; higher is better)", "%.0f")
        tables = tables + [lps] if mode == suite.FRAGMENTATION else [lps] + tables
        for key, what, digits in tables:
            out += [what + ":", "", md_table(*mode_table(results, allocs, bs, key, digits)), ""]
        out.pop()
    heads = ["allocator"] + [b.name.split(":", 1)[1] for b in benches]
    rows: list[list[str]] = []
    ramps = {b.name: series(results, b) for b in benches}
    for a in allocs:
        cells = [ramp(ramps[b.name].get(a, [])) for b in benches]
        rows.append([a] + ["—" if c is None else "%.2f" % c for c in cells])
    out += ["", "### Samples over time", "",
            "Every run prints a sample of its loops per second each `-i` seconds; the charts "
            "`malloc_test-samples-*.svg` (Plots) draw them over time, a line per allocator (the median per "
            "sample over the runs), as the article's Figure 13 shows the start-up ramp. Here the first "
            "sample over the median of all of them: below 1, the allocator was slower at the start.", "",
            md_table(heads, rows)]
    return "\n".join(out)
