"""Metrics over time: utilisation, queue length, mean wait and mean bounded slowdown, as the
session samples them after each advance or step, in clock time; two plots by two in a dock (each
keeps half the dock's height: stacked four high, a projector's large text left them no room)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QVBoxLayout, QWidget

from emulator.session import Snapshot
from gui.views.clock import ClockAxis
from gui.views.ranges import LINE_WIDTH, SteppedRange, nice_ceiling, without_si_prefix

HOUR = 3600.0
TICK_LINES = 1.6  # value ticks at least this many text lines apart
PLOTS = (
    ("utilization", "utilisation", (120, 220, 140)),
    ("queue_length", "queue length", (240, 180, 80)),
    ("mean_wait", "mean wait (s)", (90, 170, 255)),
    ("mean_bounded_slowdown", "mean bounded slowdown", (250, 120, 160)),
)


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
        self.tick_spacing: dict[str, tuple[float, str, int]] = {}  # per plot, as last set
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
            self.y_ranges[field] = SteppedRange(plot, "y")
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
        line = QFontMetrics(axis.style["tickFont"] or axis.font()).height()
        fit = max(1, int(plot.getViewBox().height() // (TICK_LINES * line)))
        major = nice_ceiling((high - low) / fit)
        spacing = (major, field, fit)
        if spacing != self.tick_spacing.get(field):
            self.tick_spacing[field] = spacing
            axis.setTickSpacing(major, major)

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
