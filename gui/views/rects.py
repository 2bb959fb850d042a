"""Many filled rectangles in a few colours as one graphics item, drawn straight from numpy.

The Gantt chart of a big platform holds thousands of job rectangles, and they change every frame
(running jobs grow with the clock). Building a ``QPainterPath`` costs time per rectangle (Qt
reads it element by element), which adds up to much of a frame. This item keeps them as one
``(n, 4)`` array of ``QRectF`` fields (x, y, width, height), sorted by colour, and paints each
colour with a single ``QPainter.drawRects(first, count)`` on that memory: no Qt object per
rectangle, no path.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import numpy.typing as npt
import shiboken6
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter
from PySide6.QtWidgets import QGraphicsItem


class Rects(QGraphicsItem):
    """Rectangles filled by colour (no outline); ``brushes[g]`` fills group ``g``."""

    def __init__(self, colours: npt.NDArray[np.uint8]) -> None:
        super().__init__()
        self.brushes: list[QBrush] = []
        self.recolour(colours)
        self.rects = np.zeros((0, 4), np.float64)  # x, y, width, height: QRectF's layout
        self.bounds = np.zeros(len(self.brushes) + 1, np.int64)  # group g: bounds[g]:bounds[g + 1]
        self.box = QRectF()

    def recolour(self, colours: npt.NDArray[np.uint8]) -> None:
        """One brush per group from RGB(A) rows (as many as before)."""
        self.brushes = [QBrush(QColor(*(int(v) for v in colour[:3]))) for colour in colours]
        self.update()

    def set_rects(
        self,
        x0: npt.NDArray[np.float64],
        x1: npt.NDArray[np.float64],
        y0: npt.NDArray[np.float64],
        y1: npt.NDArray[np.float64],
        group: npt.NDArray[np.int64],
    ) -> None:
        """Show the rectangles ``[x0, x1] x [y0, y1]``, rectangle ``i`` filled with
        ``brushes[group[i]]``; nothing is redrawn if they are the ones shown."""
        small = group.astype(np.int16)  # (a radix sort: a few groups, tens of thousands of rows)
        order = np.argsort(small, kind="stable")
        rects = np.empty((order.size, 4), np.float64)
        rects[:, 0] = x0[order]
        rects[:, 1] = y0[order]
        rects[:, 2] = x1[order] - rects[:, 0]
        rects[:, 3] = y1[order] - rects[:, 1]
        bounds = np.bincount(small, minlength=len(self.brushes)).cumsum()
        bounds = np.concatenate([[0], bounds[: len(self.brushes)]])
        if np.array_equal(rects, self.rects) and np.array_equal(bounds, self.bounds):
            return
        self.prepareGeometryChange()
        self.rects, self.bounds = rects, bounds
        if x0.size:
            left, top = float(x0.min()), float(y0.min())
            self.box = QRectF(left, top, float(x1.max()) - left, float(y1.max()) - top)
        else:
            self.box = QRectF()
        self.update()

    def boundingRect(self) -> QRectF:
        return self.box

    def paint(self, painter: QPainter, *_: Any) -> None:
        painter.setPen(Qt.PenStyle.NoPen)
        address, row = self.rects.ctypes.data, self.rects.strides[0]
        for brush, low, high in zip(
            self.brushes, self.bounds[:-1].tolist(), self.bounds[1:].tolist(), strict=True
        ):
            if high > low:
                painter.setBrush(brush)
                first = cast(QRectF, shiboken6.wrapInstance(address + low * row, QRectF))
                painter.drawRects(first, high - low)
