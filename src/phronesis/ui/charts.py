"""Charts drawn from the numbers themselves: SVG geometry the templates place, no image files.

Each bar keeps its label and value, which the template writes as ``data-label`` and
``data-value`` (and a ``<title>`` for the tooltip), so what a chart shows can be read back and
checked against the records it was drawn from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Bar", "BarChart", "LineChart", "Point", "bar_chart", "line_chart", "share_bars"]


@dataclass(frozen=True, slots=True)
class Bar:
    label: str
    value: float
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True, slots=True)
class BarChart:
    width: int
    height: int
    bars: list[Bar]
    top: float
    """The value the chart's full height stands for."""


def bar_chart(
    points: Sequence[tuple[str, float]], *, width: int = 560, height: int = 120, gap: float = 2.0
) -> BarChart:
    """Vertical bars, one per point, scaled to the largest value (an empty series is flat)."""
    top = max((value for _, value in points), default=0.0) or 1.0
    step = width / max(1, len(points))
    bars = []
    for i, (label, value) in enumerate(points):
        h = height * value / top
        bars.append(Bar(label, value, i * step + gap / 2, height - h, max(1.0, step - gap), h))
    return BarChart(width, height, bars, top)


def share_bars(points: Sequence[tuple[str, float]], *, width: int = 320, row: int = 18) -> BarChart:
    """Horizontal bars, one per row, their lengths the shares of the total."""
    total = sum(value for _, value in points) or 1.0
    bars = [Bar(label, value, 0.0, i * row, width * value / total, row - 4) for i, (label, value) in enumerate(points)]
    return BarChart(width, row * max(1, len(points)), bars, total)


@dataclass(frozen=True, slots=True)
class Point:
    label: str
    value: float
    x: float
    y: float


@dataclass(frozen=True, slots=True)
class LineChart:
    width: int
    height: int
    points: list[Point]
    low: float
    high: float

    @property
    def polyline(self) -> str:
        return " ".join(f"{p.x:.1f},{p.y:.1f}" for p in self.points)


def line_chart(
    points: Sequence[tuple[str, float]], *, low: float = 0.0, high: float = 1.0, width: int = 560, height: int = 140
) -> LineChart:
    """Values in [low, high] (a confidence: [0, 1]) left to right, one per point, evenly spaced."""
    step = width / max(1, len(points) - 1)
    span = (high - low) or 1.0
    out = [
        Point(label, value, i * step if len(points) > 1 else width / 2, height - height * (value - low) / span)
        for i, (label, value) in enumerate(points)
    ]
    return LineChart(width, height, out, low, high)
