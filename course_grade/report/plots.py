"""Histograms as inline SVG, drawn by matplotlib without a display or a global backend.

matplotlib is imported when the first histogram is drawn: every `course-grade` step imports this module
(through the report), and only the report draws."""

from __future__ import annotations

import io
import re

SVG_START = re.compile(r"<svg\b")
SVG_ID = re.compile(r'(\bid="|url\(#|href="#)([^"()]+)')
"""An id in matplotlib's SVG and every reference to one: prefixed so that two figures of a page never share one."""


def histogram_svg(bins: list[tuple[float, float, int]], label: str, salt: str) -> str:
    """An `<svg>` element of the bins (low, high, count); text stays text; ids are unique per `salt`."""
    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    figure = Figure(figsize=(6.0, 2.6))
    axes = figure.add_subplot()
    lows = [low for low, _, _ in bins]
    widths = [high - low for low, high, _ in bins]
    counts = [count for _, _, count in bins]
    axes.bar(lows, counts, width=widths, align="edge", color="#4878a8", edgecolor="white")
    axes.set_xlabel(label)
    axes.set_ylabel("submissions")
    axes.set_xlim(lows[0], lows[-1] + widths[-1])
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.spines[["top", "right"]].set_visible(False)
    figure.tight_layout()
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt}):
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    start = SVG_START.search(text)
    text = text[start.start() :] if start else text
    prefix = re.sub(r"[^A-Za-z0-9_-]", "-", salt)
    return SVG_ID.sub(lambda match: f"{match.group(1)}{prefix}-{match.group(2)}", text)
