"""Metrics over time: utilisation, queue length, mean wait and mean bounded slowdown, as the
session samples them after each advance or step, in clock time; two plots by two in a dock (each
keeps half the dock's height: stacked four high, a projector's large text left them no room)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QVBoxLayout, QWidget

from emulator.session import Snapshot
from gui.views.clock import ClockAxis
from gui.views.ranges import (
    EVEN_STEPS,
    LINE_WIDTH,
    SteppedRange,
    nice_ceiling,
    without_si_prefix,
)

HOUR = 3600.0
TICK_LINES = 1.3  # value ticks at least this many text lines apart
RANGE_PADDING = 1.1  # the value range shown over the data's (SteppedRange's 5 % a side)
MIN_INTERVALS = 2  # value ticks at least at 0, halfway and the top (a short plot's too)
PLOTS = (
    ("utilization", "utilisation", (120, 220, 140)),
    ("queue_length", "queue length", (240, 180, 80)),
    ("mean_wait", "mean wait (s)", (90, 170, 255)),
    ("mean_bounded_slowdown", "mean bounded slowdown", (250, 120, 160)),
)


def even_step(span: float, intervals: int) -> float:
    """The tick step over ``span``: ``span / k`` for the most ``k <= intervals`` that pyqtgraph
    labels exactly (its decimals are those of the step: 0.75 would read 0.8), so that the
    top of the range is labelled too; else the next nice step above ``span / intervals``."""
    for k in range(intervals, 0, -1):
        step = span / k
        if not (step > 0 and math.isfinite(step)):
            break
        scaled = step * 10.0 ** max(0, math.ceil(-math.log10(step)))
        if abs(scaled - round(scaled)) < 1e-9:
            return step
    return nice_ceiling(span / intervals)


class MetricsView(QWidget):
    def __init__(self, columns: int = 2) -> None:
        """``columns``: plots side by side (2 in a dock; 1 in a tall, narrow place)."""
        super().__init__()
        self.graphics = pg.GraphicsLayoutWidget()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.graphics)
        self.curves: dict[str, Any] = {}
        self.y_ranges: dict[str, SteppedRange] = {}
        self.plots: list[Any] = []
        self.axes: list[ClockAxis] = []
        self.origin: float | None = None
        self.tick_spacing: dict[str, tuple[float, str, int, int]] = {}  # per plot, as last set
        first = None
        for row, (field, title, colour) in enumerate(PLOTS):
            axis = ClockAxis(HOUR)
            self.axes.append(axis)
            plot = self.graphics.addPlot(
                row=row // columns, col=row % columns, title=title, axisItems={"bottom": axis}
            )
            self.plots.append(plot)
            without_si_prefix(plot)
            plot.setClipToView(True)
            plot.setDownsampling(auto=True, mode="peak")
            if first is None:
                first = plot
            else:
                plot.setXLink(first)
            if row < len(PLOTS) - columns:  # one time axis per column (they are linked)
                plot.hideAxis("bottom")
            self.curves[field] = plot.plot(pen=pg.mkPen(colour, width=LINE_WIDTH))
            plot.getViewBox().setMouseEnabled(x=True, y=False)
            self.y_ranges[field] = SteppedRange(plot, "y", EVEN_STEPS)
            if row == 0:
                self.x_range = SteppedRange(plot, "x")

    def _space_ticks(self, field: str) -> None:
        """Value ticks at least :data:`TICK_LINES` text lines apart: pyqtgraph's own spacing
        overlaps its labels on a short plot in large text (presentation mode)."""
        y_range = self.y_ranges[field]
        if y_range.current is None:
            return
        plot = y_range.plot
        axis = plot.getAxis("left")
        low, high = y_range.current
        font = QFontMetrics(axis.style["tickFont"] or axis.font())
        height, line = plot.getViewBox().height() / RANGE_PADDING, font.height()
        # TICK_LINES apart; at least MIN_INTERVALS, if a line apart at least
        fit = max(1, min(MIN_INTERVALS, int(height // line)), int(height // (TICK_LINES * line)))
        major = even_step(high - low, fit)
        spacing = (major, field, fit, font.height())
        if spacing != self.tick_spacing.get(field):
            self.tick_spacing[field] = spacing
            axis.setTickSpacing(major, major)
            # wide enough for its labels now: pyqtgraph widens an axis only after a paint, and
            # drops the labels that do not fit in that paint (the top one, "200", first)
            values = [low + major * k for k in range(round((high - low) / major) + 1)]
            widest = max(
                font.horizontalAdvance(text) for text in axis.tickStrings(values, 1, major)
            )
            axis.setWidth(
                widest + max(0, axis.style["tickLength"]) + axis.style["tickTextOffset"][0] + 4
            )

    def set_origin(self, origin: float) -> None:
        """Label the time axes with clock times after ``origin`` (the snapshot's)."""
        if origin != self.origin:
            self.origin = origin
            for axis in self.axes:
                axis.set_origin(origin)

    def show_snapshot(self, snapshot: Snapshot) -> None:
        self.set_origin(snapshot.origin)
        metrics = snapshot.metrics
        # a sample holds until the next one (they are taken after events): draw steps
        x = np.repeat(metrics.time / HOUR, 2)[1:]
        for field, curve in self.curves.items():
            values = getattr(metrics, field)
            curve.setData(x, np.repeat(values, 2)[:-1])
            top = 1.0 if field == "utilization" else float(values.max()) if values.size else 1.0
            self.y_ranges[field].show(0.0, top)
            self._space_ticks(field)
        self.x_range.show(0.0, snapshot.now / HOUR)
        # the views' new transforms now, not as the paint starts: there the curves clipped to
        # the view would be computed again and ask for a second paint
        for curve in self.curves.values():
            curve.getViewBox().prepareForPaint()
