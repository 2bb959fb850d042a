"""A time axis that reads as the simulated wall clock.

The plots keep x in hours since simulated 0 (small numbers, drawn precisely); this axis labels
them with the UTC clock time ``origin + x``, as ``squeue`` and ``sacct`` print times: ticks fall
on round clock times (every 5 minutes, every hour, at midnight...), a midnight tick shows the
date, and the spacing adapts to the zoom so that labels never crowd.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

import pyqtgraph as pg

# tick spacings in seconds: round clock steps, each dividing a day (or a multiple of one)
SPACINGS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200)
DAY = 86400
LABEL_PIXELS = 70  # at least this many pixels between two labelled ticks


def spacing(seconds: float, pixels: float) -> int:
    """The major tick spacing (seconds) for ``seconds`` of time over ``pixels`` of axis."""
    wanted = seconds / max(1.0, pixels / LABEL_PIXELS)
    for step in SPACINGS:
        if step >= wanted:
            return step
    return DAY * max(1, math.ceil(wanted / DAY))


def ticks(origin: float, low: float, high: float, step: int, unit: float) -> list[float]:
    """Plot values in [low, high] (units of ``unit`` seconds after ``origin``) whose clock
    time is a multiple of ``step`` seconds."""
    first = math.ceil((origin + low * unit) / step)
    last = math.floor((origin + high * unit) / step)
    return [(k * step - origin) / unit for k in range(first, last + 1)]


def label(epoch: float, step: float) -> str:
    """A tick's text: the date at midnight (or when ticks are days apart), else the time."""
    moment = datetime.fromtimestamp(round(epoch), UTC)
    if step >= DAY or (moment.hour, moment.minute, moment.second) == (0, 0, 0):
        return moment.strftime("%b %d")
    if step < 60:
        return moment.strftime("%H:%M:%S")
    return moment.strftime("%H:%M")


class ClockAxis(pg.AxisItem):  # type: ignore[misc]
    """The bottom axis of a plot whose x is in ``unit`` seconds after simulated 0."""

    def __init__(self, unit: float = 3600.0) -> None:
        super().__init__("bottom")
        self.unit = unit
        self.origin = 0.0  # epoch second of simulated 0 (the snapshot's origin)

    def set_origin(self, origin: float) -> None:
        self.origin = origin
        self.picture = None  # re-label
        self.update()

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list[Any]:
        seconds = (maxVal - minVal) * self.unit
        if not (seconds > 0 and math.isfinite(seconds)):
            return []
        major = spacing(seconds, size)
        levels = [(major / self.unit, ticks(self.origin, minVal, maxVal, major, self.unit))]
        smaller = [step for step in SPACINGS if step < major and major % step == 0]
        if smaller:
            minor = smaller[-1]
            shown = set(levels[0][1])
            values = ticks(self.origin, minVal, maxVal, minor, self.unit)
            levels.append((minor / self.unit, [v for v in values if v not in shown]))
        return levels

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        step = spacing * self.unit
        return [label(self.origin + value * self.unit, step) for value in values]
