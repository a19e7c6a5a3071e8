"""Plots of a run. PNG ones drawn with matplotlib when it is importable:
normalized time and RSS per benchmark (paper Fig. 5/7; normalized to glibc,
and to wfslab as the paper's Table 4), latency percentile curves (Fig.
9/10) and the malloc_test sweep; without matplotlib, a note says so. The
malloc_test samples over time are SVG charts (bench_lib/sweep.py) that need
nothing installed."""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from . import report, suite, sweep as sweep_charts

if TYPE_CHECKING:     # only mypy needs it
    from .results import Results

# plt below: matplotlib.pyplot, imported only when it is installed (Any to mypy)


def available() -> bool:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot  # noqa: F401
        return True
    except Exception:  # any import failure means: no plots
        return False


def bars(plt: Any, path: str, title: str, benches: Sequence[str], allocs: Sequence[str],
         medians: Mapping[tuple[str, str], float], base: str) -> None:
    import numpy as np
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(benches) + 3), 4.8))
    width = 0.8 / max(1, len(allocs))
    x = np.arange(len(benches))
    colors = plt.get_cmap("tab20").colors  # 20 distinct colours: one per allocator
    for i, a in enumerate(allocs):
        ys = []
        for b in benches:
            v, z = medians.get((b, a)), medians.get((b, base))
            ys.append(v / z if v and z else 0)
        ax.bar(x + i * width - 0.4 + width / 2, ys, width, label=a, color=colors[i % len(colors)])
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels(benches, rotation=30, ha="right")
    ax.set_ylabel("normalized to %s (lower is better)" % base)
    ax.set_title(title)
    ax.legend(fontsize="small", ncol=2 if len(allocs) > 8 else 1, loc="upper left", bbox_to_anchor=(1, 1))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def latency(plt: Any, path: str, title: str, per_alloc: Mapping[str, Mapping[str, float]], op: str) -> None:
    fig, ax = plt.subplots(figsize=(7, 4.5))
    xs = list(range(len(report.PERCENTILES)))
    colors = plt.get_cmap("tab20").colors
    for i, (a, vals) in enumerate(per_alloc.items()):
        ys = [vals.get("%s_p%s" % (op, p)) for p in report.PERCENTILES]
        if any(y for y in ys):
            ax.plot(xs, [y if y else float("nan") for y in ys], marker="os^vD"[i % 5], label=a,
                    color=colors[i % len(colors)])
    ax.set_xticks(xs)
    ax.set_xticklabels(["%s %%" % p for p in report.PERCENTILES])
    ax.set_yscale("log")
    ax.set_xlabel("percentile")
    ax.set_ylabel("%s latency (µs, log scale)" % op)
    ax.set_title(title)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1, 1))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def sweep(plt: Any, path: str, results: Results, allocs: Sequence[str]) -> None:
    """Loops per second against the maximum size: a solid line per allocator
    for the fixed sizes, dashed for the random ones."""
    lps = results.metric_medians("loops_per_sec")
    benches = [b for b in results.benches(suite.SWEEP) if b.sweep_mode in (suite.FIXED, suite.RANDOM)]
    by_threads: dict[int, list[suite.Bench]] = {}
    for b in benches:
        by_threads.setdefault(b.threads, []).append(b)
    fig, axes = plt.subplots(1, len(by_threads), figsize=(6 * len(by_threads), 4.5), squeeze=False)
    for ax, (t, bs) in zip(axes[0], sorted(by_threads.items())):
        colors = plt.get_cmap("tab20").colors
        for i, a in enumerate(allocs):
            for mode, style, label in ((suite.FIXED, "-", a), (suite.RANDOM, "--", a + " (random sizes)")):
                line = [b for b in bs if b.sweep_mode == mode]
                if line:
                    ax.plot([b.max_size for b in line], [lps.get((b.name, a), float("nan")) for b in line],
                            style, marker="os^vD"[i % 5], label=label, color=colors[i % len(colors)])
        ax.set_xscale("log", base=2)
        ax.set_xlabel("maximum block size (bytes)")
        ax.set_ylabel("loops per second (higher is better)")
        ax.set_title("malloc_test, %d thread pairs" % t)
    axes[0][-1].legend(fontsize="small", loc="upper left", bbox_to_anchor=(1, 1))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def draw(outdir: str, results: Results, an: report.Analysis,
         wcet: Mapping[str, Mapping[str, Mapping[str, float]]]) -> tuple[list[str], str]:
    """Draw what the results hold; returns (file names, note for the report)."""
    made = sweep_charts.draw(outdir, results)
    if not available():
        return made, ("matplotlib is not installed for %s: no PNG plots (apt-get install python3-matplotlib, "
                      "or let `make bench` install it)%s." % (os.path.realpath(__import__("sys").executable),
                                                              "; the SVG charts need nothing" if made else ""))
    import matplotlib.pyplot as plt
    benches = an.names()
    for base, suffix in ((report.BASE, ""), (report.PAPER_BASE, "-" + report.PAPER_BASE)):
        if not benches or base not in an.allocs:
            continue
        for attr, med, stem in (("time", an.time, "time"), ("max RSS", an.rss, "rss")):
            fig = "%s%s.png" % (stem, suffix)
            bars(plt, os.path.join(outdir, fig), "%s per benchmark, normalized to %s" % (attr, base),
                 benches, an.allocs, med, base)
            made.append(fig)
    for bench, per_alloc in sorted(wcet.items()):
        for op in ("malloc", "free"):
            fig = "latency-%s-%s.png" % (bench.replace("@", "-"), op)
            latency(plt, os.path.join(outdir, fig), "%s latency percentiles (%s)" % (op, bench), per_alloc, op)
            made.append(fig)
    if any(b.sweep_mode in (suite.FIXED, suite.RANDOM) for b in results.benches(suite.SWEEP)):
        sweep(plt, os.path.join(outdir, "malloc_test.png"), results, an.allocs)
        made.append("malloc_test.png")
    return made, ""
