"""Line charts as SVG text, with nothing but the standard library: the
plots that must exist whether or not matplotlib is installed (the
malloc_test samples over time). Each series is one <polyline> in a <g>
carrying its label (data-label), so a test can read the chart back."""
from __future__ import annotations

import math
from collections.abc import Collection, Sequence
import textwrap
from xml.sax.saxutils import escape, quoteattr

# 20 distinct colours (matplotlib's tab20 order), one per series
PALETTE = ["#1f77b4", "#aec7e8", "#ff7f0e", "#ffbb78", "#2ca02c", "#98df8a", "#d62728", "#ff9896",
           "#9467bd", "#c5b0d5", "#8c564b", "#c49c94", "#e377c2", "#f7b6d2", "#7f7f7f", "#c7c7c7",
           "#bcbd22", "#dbdb8d", "#17becf", "#9edae5"]
WIDTH, HEIGHT = 760, 420
LEFT, RIGHT, TOP, BOTTOM = 80, 170, 62, 50  # margins: the legend sits right of the plot, the note above it
NOTE_CHARS = 120  # a line of the 10-pixel note across the chart


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """About `count` round tick values covering [lo, hi] (steps of 1, 2, 5 × 10^k)."""
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    raw = (hi - lo) / count
    step = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * step >= raw:
            step *= m
            break
    ticks = [math.floor(lo / step) * step]
    while ticks[-1] < hi:  # the last tick at or above hi: every point inside the axes
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def tick_label(v: float) -> str:
    if v == int(v):
        return "{:,}".format(int(v))
    return ("%.3f" % v).rstrip("0").rstrip(".")


def line_chart(title: str, xlabel: str, ylabel: str, series: Sequence[tuple[str, Sequence[tuple[float, float]]]],
               note: str = "", markers_only: Collection[str] = ()) -> str:
    """SVG text of a chart: series is [(label, [(x, y), ...])]; a series
    without points keeps its legend entry, marked '(no samples)'; the
    series named in markers_only are points without a line (a scatter
    plot). The y axis starts at 0 so a ramp reads at its true size."""
    points = [p for _, pts in series for p in pts]
    xs = nice_ticks(0.0, max([x for x, _ in points] or [1.0]))
    ys = nice_ticks(0.0, max([y for _, y in points] or [1.0]))
    pw, ph = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(x: float) -> float:
        return LEFT + pw * (x - xs[0]) / (xs[-1] - xs[0])

    def py(y: float) -> float:
        return TOP + ph * (1 - (y - ys[0]) / (ys[-1] - ys[0]))

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="sans-serif" font-size="12">' % (WIDTH, HEIGHT, WIDTH, HEIGHT),
           '<title>%s</title>' % escape(title),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="22" font-size="14" text-anchor="middle">%s</text>' % (LEFT + pw // 2, escape(title))]
    for v in xs:
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (px(v), TOP, px(v), TOP + ph))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (px(v), TOP + ph + 16, tick_label(v)))
    for v in ys:
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (LEFT, py(v), LEFT + pw, py(v)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (LEFT - 6, py(v) + 4, tick_label(v)))
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>' % (LEFT, TOP, pw, ph))
    out.append('<text x="%d" y="%d" text-anchor="middle">%s</text>' % (LEFT + pw // 2, HEIGHT - 12, escape(xlabel)))
    out.append('<text transform="translate(16 %d) rotate(-90)" text-anchor="middle">%s</text>'
               % (TOP + ph // 2, escape(ylabel)))
    for i, (label, pts) in enumerate(series):
        color = PALETTE[i % len(PALETTE)]
        out.append('<g class="series" data-label=%s stroke=%s fill=%s>' % (quoteattr(label), quoteattr(color),
                                                                           quoteattr(color)))
        if pts and label not in markers_only:
            out.append('<polyline fill="none" stroke-width="1.8" points="%s"/>'
                       % " ".join("%.1f,%.1f" % (px(x), py(y)) for x, y in pts))
        if pts:
            out += ['<circle cx="%.1f" cy="%.1f" r="2.5"/>' % (px(x), py(y)) for x, y in pts]
        ly = TOP + 8 + 18 * i
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke-width="3"/>'
                   % (LEFT + pw + 12, ly, LEFT + pw + 32, ly))
        out.append('<text x="%d" y="%d" stroke="none" fill="black">%s</text>'
                   % (LEFT + pw + 38, ly + 4, escape(label + ("" if pts else " (no samples)"))))
        out.append('</g>')
    for k, line in enumerate(textwrap.wrap(note, NOTE_CHARS)[:2]):
        out.append('<text x="%d" y="%d" font-size="10" fill="#555">%s</text>' % (LEFT, 38 + 12 * k, escape(line)))
    out.append('</svg>')
    return "\n".join(out) + "\n"
