"""Shared pieces of the OAS experiment scripts (Blanco et al., "OAS: a MIP model for ordering and
allocating parallel jobs on multi-cluster systems", §4): the paper's test bed, the workloads, a
CSV writer and an offscreen chart renderer that needs neither matplotlib nor a display.

Test bed (§4): 3 clusters × 2 nodes, effective power Γ = 1.0 / 0.75 / 0.5 per cluster, one
Gigabit link per cluster to the central switch (bandwidths in Mbit/s, times in seconds).

Charts are drawn with QPainter on a QImage under ``QT_QPA_PLATFORM=offscreen``. Qt is imported
only inside :func:`render_chart`, i.e. after every solve of the calling script: Pyomo's contrib
plugins misbehave in a process where PySide6 was imported first.
"""

from __future__ import annotations

import csv
import itertools
import math
import os
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from solvers.oas.paper import EIGHT_JOBS
from solvers.oas.problem import OasJob, OasResource

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
FIGURES = ROOT / "docs" / "figures"

SPEEDS = (1.0, 0.75, 0.5)
GIGABIT = 1000.0


def testbed() -> tuple[OasResource, ...]:
    """The §4 platform: c0n0, c0n1 (Γ = 1.0), c1n0, c1n1 (0.75), c2n0, c2n1 (0.5)."""
    return tuple(
        OasResource(f"c{k}n{i}", k, speed) for k, speed in enumerate(SPEEDS) for i in range(2)
    )


LINKS = (GIGABIT,) * len(SPEEDS)

#: The §4.1 workload (solvers/oas/paper.py), the tests' ``EIGHT`` too.
SLOT_WORKLOAD = EIGHT_JOBS


def random_workload(seed: int, count: int = 8) -> tuple[OasJob, ...]:
    """``count`` jobs drawn from ``random.Random(seed)``: τ uniform in 1..6, Tb in 30..180 s (steps
    of 10), σ in {0.5, 0.6, ..., 1.0}, PTBW in {0, 0, 100, 200, 300, 500} Mbit/s (a third of the
    jobs only compute)."""
    rng = random.Random(seed)
    return tuple(
        OasJob(
            i + 1,
            rng.randint(1, 6),
            float(rng.randrange(30, 181, 10)),
            rng.choice((0.5, 0.6, 0.7, 0.8, 0.9, 1.0)),
            float(rng.choice((0, 0, 100, 200, 300, 500))),
        )
        for i in range(count)
    )


def mean_base_time(jobs: Sequence[OasJob]) -> float:
    return sum(job.base_time for job in jobs) / len(jobs)


def write_csv(path: Path, rows: Sequence[Mapping[str, object]]) -> None:
    """Write ``rows`` (dicts with the same keys) as CSV, creating the folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


@dataclass(frozen=True, slots=True)
class Series:
    """One line (``kind="line"``) or one group member of a bar chart (``kind="bar"``)."""

    name: str
    values: tuple[float | None, ...]  # None: no value (nothing is drawn)
    color: str
    axis: int = 0  # 0: left axis, 1: right axis (line charts only)


@dataclass(frozen=True, slots=True)
class Chart:
    title: str
    categories: tuple[str, ...]  # x labels, one per value of every series
    series: tuple[Series, ...]
    axis_labels: tuple[str, str]  # left, right ("" for none)
    x_label: str
    kind: str = "line"  # "line" or "bar"
    log_right: bool = False  # right axis in log10 scale


WIDTH, HEIGHT = 900, 520
LEFT, RIGHT, TOP, BOTTOM = 80, 90, 50, 95


def render_chart(chart: Chart, path: Path) -> None:
    """Draw ``chart`` into a PNG at ``path`` with QPainter (offscreen, no matplotlib)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QPointF, QRectF, Qt
    from PySide6.QtGui import QColor, QFont, QGuiApplication, QImage, QPainter, QPen

    app = QGuiApplication.instance() or QGuiApplication([])
    del app  # kept alive by Qt; fonts need it
    image = QImage(WIDTH, HEIGHT, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setFont(QFont("DejaVu Sans", 9))
    plot = QRectF(LEFT, TOP, WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM)
    ranges = [_axis_range(chart, axis) for axis in (0, 1)]
    right_middle = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
    left_middle = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter

    def y_of(value: float, axis: int) -> float:
        low, high = ranges[axis]
        if axis == 1 and chart.log_right:
            value, low, high = _log(value), _log(low), _log(high)
        return plot.bottom() - (value - low) / (high - low) * plot.height()

    count = len(chart.categories)
    step = plot.width() / count

    def x_of(index: int) -> float:
        return plot.left() + step * (index + 0.5)

    painter.setPen(QPen(QColor("#dddddd"), 1))
    for tick in _ticks(*ranges[0]):
        painter.drawLine(QPointF(plot.left(), y_of(tick, 0)), QPointF(plot.right(), y_of(tick, 0)))
    painter.setPen(QPen(QColor("black"), 1))
    painter.drawRect(plot)
    for tick in _ticks(*ranges[0]):
        rect = QRectF(0, y_of(tick, 0) - 8, LEFT - 6, 16)
        painter.drawText(rect, right_middle, _fmt(tick))
    if chart.axis_labels[1]:
        right_ticks = _log_ticks(*ranges[1]) if chart.log_right else _ticks(*ranges[1])
        for tick in right_ticks:
            rect = QRectF(plot.right() + 6, y_of(tick, 1) - 8, RIGHT - 8, 16)
            painter.drawText(rect, left_middle, _fmt(tick))
    for index, label in enumerate(chart.categories):
        rect = QRectF(x_of(index) - step / 2, plot.bottom() + 4, step, 18)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, label)
    painter.drawText(
        QRectF(plot.left(), plot.bottom() + 22, plot.width(), 18),
        Qt.AlignmentFlag.AlignCenter,
        chart.x_label,
    )
    _draw_vertical(painter, chart.axis_labels[0], 14, plot.center().y())
    if chart.axis_labels[1]:
        _draw_vertical(painter, chart.axis_labels[1], WIDTH - 12, plot.center().y())
    bold = QFont("DejaVu Sans", 11)
    bold.setBold(True)
    painter.setFont(bold)
    painter.drawText(QRectF(0, 8, WIDTH, 30), Qt.AlignmentFlag.AlignCenter, chart.title)
    painter.setFont(QFont("DejaVu Sans", 9))

    bars = [s for s in chart.series if chart.kind == "bar"]
    for number, series in enumerate(chart.series):
        color = QColor(series.color)
        if chart.kind == "bar":
            width = step * 0.8 / len(bars)
            for index, value in enumerate(series.values):
                if value is None:
                    continue
                left = x_of(index) - step * 0.4 + number * width
                top = y_of(value, 0)
                painter.fillRect(QRectF(left, top, width - 1, plot.bottom() - top), color)
            continue
        painter.setPen(QPen(color, 2))
        values = list(enumerate(series.values))
        points = [QPointF(x_of(i), y_of(v, series.axis)) for i, v in values if v is not None]
        for a, b in itertools.pairwise(points):
            painter.drawLine(a, b)
        for point in points:
            painter.setBrush(color)
            painter.drawEllipse(point, 4, 4)

    legend_y = HEIGHT - 30
    legend_x = float(LEFT)
    for series in chart.series:
        painter.fillRect(QRectF(legend_x, legend_y + 3, 14, 10), QColor(series.color))
        painter.setPen(QPen(QColor("black"), 1))
        painter.drawText(QPointF(legend_x + 18, legend_y + 12), series.name)
        legend_x += 30 + 7 * len(series.name)
    painter.end()
    path.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(path)):
        raise OSError(f"could not write {path}")


def _draw_vertical(painter: object, text: str, x: float, y: float) -> None:
    from PySide6.QtCore import QPointF, QRectF, Qt
    from PySide6.QtGui import QPainter

    assert isinstance(painter, QPainter)
    painter.save()
    painter.translate(QPointF(x, y))
    painter.rotate(-90)
    painter.drawText(QRectF(-200, -10, 400, 20), Qt.AlignmentFlag.AlignCenter, text)
    painter.restore()


def _axis_range(chart: Chart, axis: int) -> tuple[float, float]:
    values = [v for s in chart.series if s.axis == axis for v in s.values if v is not None]
    if not values:
        return (0.0, 1.0)
    if axis == 1 and chart.log_right:
        low = min(v for v in values if v > 0)
        return (10 ** _floor_log(low), 10 ** (_floor_log(max(values)) + 1))
    high = max(values) * 1.08
    low = 0.0 if chart.kind == "bar" or min(values) > 0.3 * high else min(values)
    if chart.kind == "line" and min(values) > 0.3 * high:
        low = min(values) * 0.9
    return (low, high)


def _log(value: float) -> float:
    return math.log10(max(value, 1e-9))


def _floor_log(value: float) -> int:
    return math.floor(math.log10(value))


def _log_ticks(low: float, high: float) -> list[float]:
    ticks, value = [], low
    while value <= high * 1.0001:
        ticks.append(value)
        value *= 10
    return ticks


def _ticks(low: float, high: float) -> list[float]:
    span = high - low
    raw = span / 6
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step) + 1)]


def _fmt(value: float) -> str:
    if value >= 100 or value == int(value):
        return f"{value:.0f}"
    if value >= 1:
        return f"{value:.1f}"
    return f"{value:.2g}"
