"""The rank test behind `mortise tune`'s racing rule (docs/tune.md).

Run times on a shared or virtual machine are not normal: most runs of a
program cluster, and now and then one is 30-50 % slower for reasons that
have nothing to do with the allocator (another tenant, a migration between
cores). A rule built on the extremes (best run against worst run) is ruined
by one such run; a rule built on means by a few. The Mann-Whitney (Wilcoxon
rank-sum) test uses only the order of the runs, so an outlier counts as one
rank, however slow it was.

p_larger(xs, ys) is the one-sided p-value of "xs tend to be larger than ys"
against the hypothesis that both come from one distribution: exact (the
distribution of U over every arrangement of the ranks) when there are no
ties and both samples are small, else the normal approximation with the
tie and continuity corrections.
"""
from __future__ import annotations

import functools
import math
from typing import Sequence

# Above this many runs in a sample, the normal approximation is close
# enough and the exact table would grow as m·n·(m + n).
EXACT_MAX_RUNS = 30


@functools.lru_cache(maxsize=None)
def u_counts(m: int, n: int) -> tuple[int, ...]:
    """How many of the C(m + n, m) orderings of m x-runs and n y-runs give
    each value u = 0 .. m·n of U (the pairs in which the x is larger)."""
    if m == 0 or n == 0:
        return (1,)
    # The largest of all runs is an x (it beats every y: n pairs) or a y.
    with_x, with_y = u_counts(m - 1, n), u_counts(m, n - 1)
    counts = [0] * (m * n + 1)
    for u, c in enumerate(with_x):
        counts[u + n] += c
    for u, c in enumerate(with_y):
        counts[u] += c
    return tuple(counts)


def u_statistic(xs: Sequence[float], ys: Sequence[float]) -> float:
    """The pairs (x, y) with x > y, a tie counting one half."""
    return sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in xs for y in ys)


def p_larger(xs: Sequence[float], ys: Sequence[float]) -> float:
    """One-sided p-value that xs tend to be larger than ys (1.0 when a
    sample is empty or every run is equal)."""
    m, n = len(xs), len(ys)
    if not m or not n:
        return 1.0
    u = u_statistic(xs, ys)
    values = list(xs) + list(ys)
    ties = len(set(values)) < m + n
    if not ties and m <= EXACT_MAX_RUNS and n <= EXACT_MAX_RUNS:
        counts = u_counts(m, n)
        return sum(counts[int(u):]) / sum(counts)
    total = m + n
    tie_term = sum(t ** 3 - t for t in (values.count(v) for v in set(values)))
    var = m * n / 12.0 * ((total + 1) - tie_term / (total * (total - 1)))
    if var <= 0:
        return 1.0
    z = (u - m * n / 2.0 - 0.5) / math.sqrt(var)
    return 0.5 * math.erfc(z / math.sqrt(2))
