#!/usr/bin/env python3
"""Plot a run_bench.sh results file as a self-contained SVG.

usage: plot_results.py RESULTS.json [-o OUT.svg]   (default OUT: docs/performance.svg)

Two charts against input size (MB = 10^6 bytes of JSON, as in run_bench.sh):
  left   median wall time of tracecompact json->json, gz->gz and the parse floor
  right  peak RSS of tracecompact json->json
Scenarios that are absent or did not succeed are skipped. Standard library only, so the
script runs wherever the benchmark does.
"""

import argparse
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "docs" / "performance.svg"

WIDTH, HEIGHT = 900, 400
FONT = "font-family='Helvetica, Arial, sans-serif'"


@dataclass
class Series:
    label: str
    color: str
    points: list  # [(size_mb, value)], sorted by size
    dash: str = ""  # SVG stroke-dasharray; empty = solid


# ---------------------------------------------------------------------------------------------
# Reading the results (schema: the JSON block at the end of run_bench.sh).


def load_records(path):
    with open(path, encoding="utf-8") as f:
        try:
            doc = json.load(f)
        except json.JSONDecodeError as e:  # its message does not name the file
            raise ValueError(f"{path}: {e}") from e
    records = doc.get("results") if isinstance(doc, dict) else None
    if not isinstance(records, list):
        raise ValueError(f"{path}: no 'results' list; not a run_bench.sh results file?")
    return doc, [r for r in records if isinstance(r, dict)]


def points(records, scenario, side, field, scale=1.0):
    """(input MB, side[field] * scale) for each successful measurement of one scenario.

    side is "tool" or "baseline". Failed or timed-out runs have status != "ok" and null
    numbers; both are skipped, as is a null peak RSS (the RSS poll can miss short runs).
    """
    out = []
    for r in records:
        m = r.get(side)
        if r.get("scenario") != scenario or not isinstance(m, dict) or m.get("status") != "ok":
            continue
        size, value = r.get("input_bytes"), m.get(field)
        numbers = isinstance(size, (int, float)) and isinstance(value, (int, float))
        # json.load accepts NaN and Infinity, which would break the axis ranges.
        if numbers and size > 0 and math.isfinite(size) and math.isfinite(value):
            out.append((size / 1e6, value * scale))
    return sorted(out)


def time_series(records):
    # The gzip scenario's input_bytes counts the uncompressed JSON, so all three lines share
    # one x axis. The parse floor is the baseline of the json scenario (shape scenarios also
    # use parse_floor but are not sized by --sizes, so they stay out).
    return [
        Series("tracecompact json → json", "#1f77b4",
               points(records, "json", "tool", "median_s")),
        Series("tracecompact gz → gz", "#d62728", points(records, "gzip", "tool", "median_s")),
        Series("parse floor", "#7f7f7f", points(records, "json", "baseline", "median_s"), "2 3"),
    ]


def rss_series(records):
    # peak_rss_kb is in KiB (GNU time %M, or VmHWM); /1024 gives MiB, as run_bench.sh's table.
    # The goal line, 64 MiB + 64 bytes per measured GPU slice, comes from rss_budget_kb,
    # which run_bench.sh computes from the slice count in the tool's summary (absent in
    # results files of older runs: then there is no goal line).
    return [
        Series("tracecompact json → json", "#1f77b4",
               points(records, "json", "tool", "peak_rss_kb", 1 / 1024)),
        Series("goal: 64 MiB + 64 B per slice", "#2ca02c",
               points(records, "json", "tool", "rss_budget_kb", 1 / 1024), "6 3"),
    ]


# ---------------------------------------------------------------------------------------------
# Axes: value range, ticks and the value -> pixel mapping.


def nice_step(span, target_ticks=5):
    """A 1, 2 or 5 times 10^k step giving about target_ticks intervals over span."""
    raw = span / target_ticks
    mag = 10 ** math.floor(math.log10(raw))
    return next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)


def fmt(value, step):
    # Decimals from the step, so 0.1 + 0.2 prints as 0.3 and 1000 as 1000 (not 1e+03).
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    return f"{value:.{decimals}f}"


@dataclass
class Axis:
    lo: float
    hi: float
    log: bool
    ticks: list  # [(value, label)]

    def frac(self, v):
        """Position of v between lo (0.0) and hi (1.0)."""
        if self.log:
            return math.log10(v / self.lo) / math.log10(self.hi / self.lo)
        return (v - self.lo) / (self.hi - self.lo)


def linear_axis(values):
    # From zero: times and memory are compared as ratios, which a truncated axis distorts.
    top = max(values, default=0)
    if top <= 0:
        top = 1
    step = nice_step(top)
    # 5% headroom so a marker at the maximum does not sit on the frame.
    hi = math.ceil(top * 1.05 / step) * step
    count = round(hi / step)
    return Axis(0, hi, False, [(i * step, fmt(i * step, step)) for i in range(count + 1)])


def round125(v, up):
    """The nearest 1, 2 or 5 times 10^k at or above v (up) or at or below it."""
    k = math.floor(math.log10(v))
    candidates = [m * 10.0 ** e for e in (k - 1, k, k + 1) for m in (1, 2, 5)]
    return min(c for c in candidates if c >= v) if up else max(c for c in candidates if c <= v)


def log_axis(values):
    # 10% margin: run_bench.sh sizes are round numbers plus a little (100 MB is 101.2 MB of
    # JSON), so decade bounds would put those markers on the frame.
    lo, hi = round125(min(values) / 1.1, up=False), round125(max(values) * 1.1, up=True)
    # Over a few decades, 2x and 5x ticks help to read values; over more they would crowd.
    mults = (1, 2, 5) if math.log10(hi / lo) <= 2.5 else (1,)
    ticks = []
    for d in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in mults:
            v = m * 10.0 ** d
            if lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9):
                ticks.append((v, fmt(v, 10.0 ** d)))
    return Axis(lo, hi, True, ticks)


def x_axis(sizes):
    # A log scale only pays off when sizes span more than 10x; below that it just squeezes.
    if sizes and min(sizes) > 0 and max(sizes) / min(sizes) > 10:
        return log_axis(sizes)
    return linear_axis(sizes)


# ---------------------------------------------------------------------------------------------
# SVG drawing.


def text(x, y, s, size=11, anchor="middle", extra=""):
    return (f"<text x='{x:.1f}' y='{y:.1f}' font-size='{size}' text-anchor='{anchor}' "
            f"{FONT} fill='#222'{extra}>{escape(s)}</text>")


def line(x1, y1, x2, y2, color="#222", width=1, dash=""):
    dash_attr = f" stroke-dasharray='{dash}'" if dash else ""
    return (f"<line x1='{x1:.1f}' y1='{y1:.1f}' x2='{x2:.1f}' y2='{y2:.1f}' "
            f"stroke='{color}' stroke-width='{width}'{dash_attr}/>")


@dataclass
class Box:
    """The plot area of one chart, in pixels."""
    left: float
    top: float
    width: float
    height: float

    def px(self, xa, ya, x, y):
        return self.left + xa.frac(x) * self.width, self.top + (1 - ya.frac(y)) * self.height


def draw_axes(box, xa, ya, xlabel, ylabel):
    out = []
    bottom = box.top + box.height
    for v, label in xa.ticks:
        x = box.left + xa.frac(v) * box.width
        out.append(line(x, box.top, x, bottom, "#e4e4e4"))
        out.append(line(x, bottom, x, bottom + 4))
        out.append(text(x, bottom + 16, label))
    for v, label in ya.ticks:
        y = box.top + (1 - ya.frac(v)) * box.height
        out.append(line(box.left, y, box.left + box.width, y, "#e4e4e4"))
        out.append(line(box.left - 4, y, box.left, y))
        out.append(text(box.left - 7, y + 4, label, anchor="end"))
    scale_note = " (log scale)" if xa.log else ""
    out.append(text(box.left + box.width / 2, bottom + 34, xlabel + scale_note, 12))
    cx, cy = box.left - 54, box.top + box.height / 2
    out.append(text(cx, cy, ylabel, 12, extra=f" transform='rotate(-90 {cx:.1f} {cy:.1f})'"))
    # The frame goes last so the grid lines at the edges do not paint over it.
    out.append(f"<rect x='{box.left}' y='{box.top}' width='{box.width}' height='{box.height}' "
               "fill='none' stroke='#444'/>")
    return out


def draw_series(box, xa, ya, s):
    xy = [box.px(xa, ya, x, y) for x, y in s.points]
    out = []
    if len(xy) > 1:
        coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in xy)
        dash = f" stroke-dasharray='{s.dash}'" if s.dash else ""
        out.append(f"<polyline points='{coords}' fill='none' stroke='{s.color}' "
                   f"stroke-width='2'{dash}/>")
    # Markers show where the measurements are: with two or three sizes the line alone hides it.
    out += [f"<circle cx='{x:.1f}' cy='{y:.1f}' r='3' fill='{s.color}'/>" for x, y in xy]
    return out


def draw_legend(left, top, series):
    out = []
    for i, s in enumerate(series):
        y = top + i * 15
        out.append(line(left, y - 4, left + 22, y - 4, s.color, 2, s.dash))
        out.append(text(left + 28, y, s.label, anchor="start"))
    return out


def draw_chart(box, xa, title, ylabel, series):
    present = [s for s in series if s.points]
    ya = linear_axis([y for s in present for _, y in s.points])
    out = [text(box.left + box.width / 2, box.top - 8, title, 13, extra=" font-weight='bold'")]
    out += draw_axes(box, xa, ya, "input size (MB)", ylabel)
    if not present:
        out.append(text(box.left + box.width / 2, box.top + box.height / 2, "no data", 13))
        print(f"plot_results.py: warning: no data for '{title}'", file=sys.stderr)
    for s in present:
        out += draw_series(box, xa, ya, s)
    out += draw_legend(box.left, box.top + box.height + 54, present)
    return out


def subtitle(doc):
    parts = []
    if isinstance(doc.get("runs"), int):
        parts.append(f"median of {doc['runs']} run(s)")
    if isinstance(doc.get("cpus"), int):
        parts.append(f"{doc['cpus']} CPUs")
    if isinstance(doc.get("date"), str):
        parts.append(doc["date"])
    return ", ".join(parts)


def render(doc, records):
    half = WIDTH / 2
    # 70 px on the left of each chart for tick labels and the rotated axis label.
    left = Box(70, 72, half - 90, 220)
    right = Box(half + 70, 72, half - 90, 220)
    times, rss = time_series(records), rss_series(records)
    # One x axis for both charts, so a size sits at the same place in each even when a
    # measurement is missing from one of them.
    xa = x_axis([x for s in times + rss for x, _ in s.points])
    body = [f"<rect width='{WIDTH}' height='{HEIGHT}' fill='white'/>",
            text(WIDTH / 2, 22, "tracecompact performance", 16, extra=" font-weight='bold'")]
    if subtitle(doc):
        body.append(text(WIDTH / 2, 40, subtitle(doc), 11, extra=" fill-opacity='0.8'"))
    body += draw_chart(left, xa, "Median wall time", "seconds", times)
    body += draw_chart(right, xa, "Peak RSS", "MiB", rss)
    return "\n".join([
        "<?xml version='1.0' encoding='UTF-8'?>",
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{WIDTH}' height='{HEIGHT}' "
        f"viewBox='0 0 {WIDTH} {HEIGHT}'>",
        "<title>tracecompact performance against input size</title>",
        *body,
        "</svg>",
        "",
    ])


def main(argv=None):
    parser = argparse.ArgumentParser(description="Plot run_bench.sh results as an SVG.")
    parser.add_argument("results", type=Path, help="results JSON written by run_bench.sh")
    parser.add_argument("-o", "--out", type=Path, default=DEFAULT_OUT,
                        help=f"SVG to write (default: {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    try:
        doc, records = load_records(args.results)
    except (OSError, ValueError) as e:
        sys.exit(f"plot_results.py: {e}")
    svg = render(doc, records)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(svg, encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
