"""The arithmetic of the report: medians of runs, geometric means of ratios.

Every comparison between allocators is a ratio of medians measured in the
same run of the harness (docs/design.md §5: a machine is noisy, compare side by
side). A geometric mean of ratios is the paper's Table 4 summary: it weighs a
2x slowdown on one benchmark and a 2x speedup on another as cancelling out.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Mapping, Tuple

# (benchmark, allocator) → a number
PairMap = Mapping[Tuple[str, str], float]


def median(values: Iterable[float]) -> float:
    """Median of a non-empty sequence (mean of the two middle values)."""
    xs = sorted(values)
    if not xs:
        raise ValueError("median of no values")
    mid = len(xs) // 2
    return xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2.0


def geomean(values: Iterable[float]) -> float:
    """Geometric mean of positive numbers; ValueError when empty or not positive."""
    xs = list(values)
    if not xs:
        raise ValueError("geometric mean of no values")
    if any(x <= 0 for x in xs):
        raise ValueError("geometric mean needs positive values: %r" % (xs,))
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def ratio_geomean(medians: PairMap, alloc: str, base: str,
                  benches: Iterable[str]) -> tuple[float | None, list[str], list[str]]:
    """Geometric mean over `benches` of medians[(bench, alloc)] / medians[(bench, base)].

    medians maps (bench, allocator) to a positive median; a pair missing on
    either side (a failed or skipped measurement) leaves that benchmark out.
    Returns (geomean or None, benchmarks used, benchmarks left out).
    """
    ratios: list[float] = []
    used: list[str] = []
    left_out: list[str] = []
    for b in benches:
        a, z = medians.get((b, alloc)), medians.get((b, base))
        if a is None or z is None or a <= 0 or z <= 0:
            left_out.append(b)
            continue
        ratios.append(a / z)
        used.append(b)
    return (geomean(ratios) if ratios else None), used, left_out


def spread(values: Iterable[float]) -> tuple[float, float] | tuple[None, None]:
    """(min, max) of the runs behind a median, to show the noise next to it."""
    xs = list(values)
    return (min(xs), max(xs)) if xs else (None, None)


def rel_spread(values: Iterable[float]) -> float | None:
    """Run-to-run spread of a measurement: (max - min) / median of its runs,
    0.1 for 10 %. None with fewer than two runs (no spread to know)."""
    xs = list(values)
    if len(xs) < 2:
        return None
    m = median(xs)
    return (max(xs) - min(xs)) / m if m > 0 else None


def pair_spread(spreads: Mapping[tuple[str, str], float | None], a: str, b: str,
                benches: Iterable[str]) -> float | None:
    """The spread of comparing allocators a and b over `benches`: for each
    benchmark the larger of the two spreads (a ratio of medians is no
    steadier than its noisier side), then their median over the benchmarks.
    spreads maps (bench, allocator) to rel_spread; None when no benchmark
    has both."""
    per = [max(sa, sb) for n in benches
           if (sa := spreads.get((n, a))) is not None and (sb := spreads.get((n, b))) is not None]
    return median(per) if per else None


def within_noise(value: float, bar: float, spread: float | None) -> bool:
    """True when value is nearer the bar than the spread: |value/bar - 1|
    < spread, so the runs cannot tell on which side of the bar it is.
    False when the spread is unknown (one run)."""
    return spread is not None and bar > 0 and abs(value / bar - 1) < spread
