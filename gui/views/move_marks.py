"""Reallocation moves on the Gantt chart (the ``realloc`` grid policy; Caniou et al.,
*Reallocation in a Dedicated Grid Environment*, §2.2): where and when a job was moved.

A moved job waited in one cluster's queue and was routed to another's, where it runs (or holds a
reservation) later: its rectangles lie in the destination's band. Each move of a job drawn gets a
short vertical tick at the move's time on the job's top row, a dotted line from the tick to the
job's start there (the wait in its new queue), and a caption ``64 north→south`` right of the
tick, on the row.
The moves come from the :class:`~gui.views.moves.MoveLog` the Moves view reads too (one reading
of the decisions). Ticks and dotted lines are two paths whatever the number of moves; captions,
the noisy part, are written for the latest :data:`MAX_CAPTIONS` moves in view only, and for
every move of the selected job.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem

from gui.views.moves import Move

HOUR = 3600.0
MOVE = (255, 90, 255)  # the marks' colour (no job's fill is this light a magenta)
MAX_CAPTIONS = (
    12  # captions written, at most (the latest moves in view), besides the selected job's
)
TICK_PIXELS = 6.0  # a tick reaches at least this far above and below its row's middle, on screen
Arrays = tuple[npt.NDArray[np.float64], ...]


@dataclass(frozen=True, slots=True)
class Mark:
    """One move drawn: at ``time`` (hours) on the row ``top``..``bottom`` (nodes) of its job's
    highest piece, the job drawn from ``start`` (hours)."""

    move: Move
    time: float
    top: float
    bottom: float
    start: float

    @property
    def caption(self) -> str:
        return f"{self.move.job} {self.move.origin}→{self.move.destination}"


def marks(moves: Sequence[Move], *drawn: Arrays) -> list[Mark]:
    """The marks of ``moves`` whose job has a piece among ``drawn`` ((x0, x1, y0, y1, job id)
    arrays: rectangles, reservations), in the moves' order."""
    x0, _, y0, y1, ids = (np.concatenate(column) for column in zip(*drawn, strict=True))
    found: list[Mark] = []
    for move in moves:
        pieces = np.flatnonzero(ids == move.job_id)
        if not pieces.size:
            continue
        highest = pieces[np.argmin(y0[pieces])]
        start = float(x0[pieces].min())
        found.append(Mark(move, move.time / HOUR, float(y0[highest]), float(y1[highest]), start))
    return found


def paths(found: Sequence[Mark], nodes_per_pixel: float) -> tuple[QPainterPath, QPainterPath]:
    """The ticks, and the dotted waits from each tick to its job's start."""
    ticks, waits = QPainterPath(), QPainterPath()
    reach = TICK_PIXELS * nodes_per_pixel
    for mark in found:
        middle = (mark.top + mark.bottom) / 2
        half = max((mark.bottom - mark.top) / 2, reach)
        ticks.moveTo(mark.time, middle - half)
        ticks.lineTo(mark.time, middle + half)
        if mark.start > mark.time:
            waits.moveTo(mark.time, middle)
            waits.lineTo(mark.start, middle)
    return ticks, waits


class MoveMarks:
    """The marks' plot items on a Gantt chart's plot, drawn again at each redraw."""

    def __init__(self, plot: pg.PlotWidget) -> None:
        self.plot = plot
        self.ticks = self._path(plot, Qt.PenStyle.SolidLine, 3)
        self.waits = self._path(plot, Qt.PenStyle.DotLine, 1)
        self.texts: list[pg.TextItem] = []  # captions (reused)
        self.drawn: list[Mark] = []

    @staticmethod
    def _path(plot: pg.PlotWidget, style: Qt.PenStyle, width: int) -> QGraphicsPathItem:
        item = QGraphicsPathItem()
        pen = QPen(QColor(*MOVE))
        pen.setStyle(style)
        pen.setWidth(width)
        pen.setCosmetic(True)
        item.setPen(pen)
        plot.addItem(item)
        return item

    def draw(self, moves: Sequence[Move], selected: int, *drawn: Arrays) -> None:
        """Mark ``moves`` on the pieces ``drawn``; captions on the latest in view and on those
        of job ``selected``."""
        box = self.plot.getViewBox()
        low, high = box.viewRange()[0]
        found = [m for m in marks(moves, *drawn) if low <= m.time <= high]
        self.drawn = found
        ticks, waits = paths(found, float(box.viewPixelSize()[1]))
        self.ticks.setPath(ticks)
        self.waits.setPath(waits)
        latest = found[-MAX_CAPTIONS:]
        captioned = [m for m in found if m.move.job_id == selected and m not in latest] + latest
        while len(self.texts) < len(captioned):
            text = pg.TextItem(color=MOVE, fill=(0, 0, 0, 200), anchor=(0, 0.5))
            self.plot.addItem(text, ignoreBounds=True)
            self.texts.append(text)
        gap = 4 * float(box.viewPixelSize()[0])  # (the tick stays in sight)
        for k, text in enumerate(self.texts):
            if k < len(captioned):
                mark = captioned[k]
                text.setText(mark.caption)
                text.setPos(mark.time + gap, (mark.top + mark.bottom) / 2)
                text.show()
            else:
                text.hide()

    def captions(self) -> list[str]:
        """The captions shown (for tests and the teaching steps)."""
        return [text.toPlainText() for text in self.texts if text.isVisible()]
