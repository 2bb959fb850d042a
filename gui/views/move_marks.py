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
    arrays: rectangles, reservations), in the moves' order. Vectorised: a thousand moves over
    ten thousand reservations cost a few milliseconds, not a scan of the pieces per move."""
    x0, _, y0, y1, ids = (np.concatenate(column) for column in zip(*drawn, strict=True))
    if not moves or not ids.size:
        return []
    order = np.lexsort((y0, ids))  # by job, its highest piece first
    firsts = np.flatnonzero(np.r_[True, ids[order][1:] != ids[order][:-1]])
    jobs = ids[order][firsts]
    highest = order[firsts]
    starts = np.minimum.reduceat(x0[order], firsts)
    wanted = np.fromiter((move.job_id for move in moves), np.float64, len(moves))
    at = np.minimum(np.searchsorted(jobs, wanted), jobs.size - 1)
    return [
        Mark(move, move.time / HOUR, float(y0[highest[k]]), float(y1[highest[k]]), float(starts[k]))
        for move, k, known in zip(moves, at.tolist(), (jobs[at] == wanted).tolist(), strict=True)
        if known
    ]


def paths(found: Sequence[Mark], nodes_per_pixel: float) -> tuple[QPainterPath, QPainterPath]:
    """The ticks, and the dotted waits from each tick to its job's start."""
    if not found:
        return QPainterPath(), QPainterPath()
    time, top, bottom, start = (
        np.array(column, np.float64)
        for column in zip(*((m.time, m.top, m.bottom, m.start) for m in found), strict=True)
    )
    middle = (top + bottom) / 2
    half = np.maximum((bottom - top) / 2, TICK_PIXELS * nodes_per_pixel)
    waiting = start > time
    return (
        segments(time, middle - half, time, middle + half),
        segments(time[waiting], middle[waiting], start[waiting], middle[waiting]),
    )


def segments(
    xa: npt.NDArray[np.float64],
    ya: npt.NDArray[np.float64],
    xb: npt.NDArray[np.float64],
    yb: npt.NDArray[np.float64],
) -> QPainterPath:
    """One path of line segments from (xa, ya) to (xb, yb)."""
    if not xa.size:
        return QPainterPath()
    connect = np.zeros(2 * xa.size, np.int32)
    connect[0::2] = 1
    x = np.stack([xa, xb], axis=1).ravel()
    y = np.stack([ya, yb], axis=1).ravel()
    path: QPainterPath = pg.arrayToQPath(x, y, connect=connect, finiteCheck=False)
    return path


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
        found = marks([m for m in moves if low <= m.time / HOUR <= high], *drawn)
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
