"""Links: each cluster's link to the switch, bandwidth in use over time against its capacity.

The load is a step function (it changes when a flow starts or ends); the time above capacity
(saturation, when jobs slow each other down) is drawn again in red over it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QVBoxLayout, QWidget

from emulator.session import LinkSnapshot, Snapshot
from gui.views.clock import ClockAxis
from gui.views.ranges import LINE_WIDTH, SteppedRange, without_si_prefix

HOUR = 3600.0
HEADROOM = 1.6  # the plot's top, times the largest capacity (at least)
_COLOURS = ((90, 170, 255), (120, 220, 140), (240, 180, 80), (200, 130, 250), (250, 120, 160))


def steps(
    link: LinkSnapshot, now: float
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """x (hours), y of the load as a step line from 0 to ``now``."""
    times = np.append(link.times, max(now, float(link.times[-1]) if link.times.size else 0.0))
    values = np.append(link.values, link.values[-1] if link.values.size else 0.0)
    x = np.repeat(times, 2)[1:-1] / HOUR
    y = np.repeat(values[:-1], 2)
    return x, y


class LinksView(QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.axis = ClockAxis(HOUR)
        self.plot = pg.PlotWidget(axisItems={"bottom": self.axis})
        without_si_prefix(self.plot)
        self.plot.setLabel("bottom", "simulated time (UTC)")
        self.plot.setLabel("left", "bandwidth in use")
        self.plot.addLegend(offset=(10, 10))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot)
        self.curves: list[Any] = []
        self.saturated: list[Any] = []
        self.capacities: list[Any] = []
        self.saturation = 0.0  # share of the time some link was above capacity (last drawn)
        self.x_range = SteppedRange(self.plot, "x")
        self.y_range = SteppedRange(self.plot, "y")

    def show_snapshot(self, snapshot: Snapshot) -> None:
        if not self.curves:
            self.axis.set_origin(snapshot.origin)
            for k, link in enumerate(snapshot.links):
                colour = _COLOURS[k % len(_COLOURS)]
                pen = pg.mkPen(colour, width=LINE_WIDTH)
                self.curves.append(self.plot.plot(pen=pen, name=link.cluster))
                red = pg.mkPen((255, 60, 60), width=LINE_WIDTH + 2)
                self.saturated.append(self.plot.plot(pen=red))
                if math.isfinite(link.capacity):
                    line = pg.InfiniteLine(
                        pos=link.capacity,
                        angle=0,
                        pen=pg.mkPen(colour, width=1, style=Qt.PenStyle.DashLine),
                    )
                    self.plot.addItem(line)
                    self.capacities.append(line)
            self.plot.setLabel("left", f"bandwidth in use ({snapshot.bandwidth_unit})")
        over = 0.0
        for link, curve, red in zip(snapshot.links, self.curves, self.saturated, strict=True):
            x, y = steps(link, snapshot.now)
            curve.setData(x, y)
            hot = y > link.capacity
            if hot.any():
                red.setData(x, np.where(hot, y, np.nan), connect="finite")
                widths = np.diff(x)[hot[:-1] & hot[1:]] if x.size > 1 else np.zeros(0)
                over = max(over, float(widths.sum()) * HOUR / max(snapshot.now, 1e-9))
            else:
                red.setData([], [])
        self.saturation = over
        finite = [link.capacity for link in snapshot.links if math.isfinite(link.capacity)]
        peak = max(
            (float(link.values.max()) for link in snapshot.links if link.values.size), default=0
        )
        # headroom over the capacity lines: the legend (top left) stays clear of them
        self.y_range.show(0.0, max([peak, *(HEADROOM * c for c in finite)]))
        self.x_range.show(0.0, snapshot.now / HOUR)
