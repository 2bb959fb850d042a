"""Axis ranges that move in steps: a pyqtgraph axis re-lays out its tick text whenever its
range changes, so the plots change theirs only when the data outgrow them, not every frame. And
the curves' width: Qt's raster engine draws 1-pixel lines about twice as fast as wider ones."""

from __future__ import annotations

import math
from typing import Any

STEPS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)
# tops whose halves pyqtgraph labels exactly (its decimals follow the tick step: 1.5 / 2 = 0.75
# would read 0.8): a short plot's three labels, 0, halfway and the top
EVEN_STEPS = (1.0, 2.0, 4.0, 6.0, 8.0, 10.0)
LINE_WIDTH = 1  # pixels, of the plots' curves (presentation mode widens them)


def nice_ceiling(value: float, steps: tuple[float, ...] = STEPS) -> float:
    """The smallest of ``steps`` x 10^k that is >= ``value`` (1 for values <= 0)."""
    if not value > 0 or not math.isfinite(value):
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    for step in steps:
        if value <= step * power * (1 + 1e-12):
            return step * power
    return 10.0 * power


def without_si_prefix(plot: Any) -> None:
    """No SI prefix (``(x1e+03)``) on the plot's axes: to update it, pyqtgraph sets an axis's
    label again at every change of its range, an HTML layout and a new axis size that lays
    the whole plot out and paints it again (the four metric plots: two to four paints a
    redraw instead of one)."""
    for name in ("left", "bottom"):
        plot.getAxis(name).enableAutoSIPrefix(False)


class SteppedRange:
    """Keeps a plot's range at [low, nice_ceiling(high, steps)], changing it only when
    needed."""

    def __init__(self, plot: Any, axis: str, steps: tuple[float, ...] = STEPS) -> None:
        self.plot = plot
        self.axis = axis
        self.steps = steps
        self.current: tuple[float, float] | None = None

    def show(self, low: float, high: float) -> None:
        wanted = (low, nice_ceiling(high, self.steps) if high > low else low + 1.0)
        if wanted != self.current:
            self.current = wanted
            if self.axis == "x":
                self.plot.setXRange(*wanted, padding=0.02)
            else:
                self.plot.setYRange(*wanted, padding=0.05)
