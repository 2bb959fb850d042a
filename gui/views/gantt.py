"""Gantt: time (hours) across, platform nodes down; a rectangle per node run of each job.

Jobs are drawn as one filled :class:`QGraphicsPathItem` per palette colour (all the jobs of that
colour in one path built with :func:`pyqtgraph.arrayToQPath`), never one item per job, so the
cost of a redraw is a few numpy passes and at most ``palette.SIZE`` path updates. Reservations
(pending jobs with a planned start) are dashed outlines: on their planned nodes when the policy
named them, otherwise at the top of their cluster, as many nodes high as the job needs.

The view follows the clock (the last :data:`WINDOW` hours) until the user pans or zooms; a
double click follows it again. Rectangles outside the visible time range are not drawn.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem, QVBoxLayout, QWidget

from emulator.model.job import JobState
from emulator.session import Snapshot
from gui import palette
from gui.selection import Selection

HOUR = 3600.0
WINDOW = 12.0  # hours of history in view while following the clock (the rest is culled)


def rect_path(
    x0: npt.NDArray[np.float64],
    x1: npt.NDArray[np.float64],
    y0: npt.NDArray[np.float64],
    y1: npt.NDArray[np.float64],
) -> QPainterPath:
    """One path of closed rectangles."""
    if not x0.size:
        return QPainterPath()
    x = np.stack([x0, x1, x1, x0, x0], axis=1).ravel()
    y = np.stack([y0, y0, y1, y1, y0], axis=1).ravel()
    connect = np.ones(x.size, np.int32)
    connect[4::5] = 0
    path: QPainterPath = pg.arrayToQPath(x, y, connect=connect, finiteCheck=False)
    return path


class GanttView(QWidget):
    def __init__(self, selection: Selection) -> None:
        super().__init__()
        self.selection = selection
        self.snapshot: Snapshot | None = None
        self.plot = pg.PlotWidget()
        self.plot.setBackground(tuple(int(v) for v in palette.BACKGROUND[:3]))
        self.plot.invertY(True)
        self.plot.setLabel("bottom", "simulated time (h)")
        self.plot.setLabel("left", "node")
        self.hours = WINDOW  # hours shown when following the clock
        self.follow = True  # keep ``now`` in view; off once the user pans or zooms
        self.plot.getViewBox().sigRangeChangedManually.connect(self._manual)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot)
        self.fills: list[QGraphicsPathItem] = []
        for entry in palette.PALETTE:
            item = QGraphicsPathItem()
            item.setBrush(QBrush(QColor(*(int(v) for v in entry[:3]))))
            item.setPen(QPen(Qt.PenStyle.NoPen))
            self.plot.addItem(item)
            self.fills.append(item)
        self.reserved = QGraphicsPathItem()
        pen = QPen(QColor(230, 230, 230))
        pen.setStyle(Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        self.reserved.setPen(pen)
        self.plot.addItem(self.reserved)
        self.highlight = QGraphicsPathItem()
        pen = QPen(QColor(255, 255, 255))
        pen.setWidth(2)
        pen.setCosmetic(True)
        self.highlight.setPen(pen)
        self.plot.addItem(self.highlight)
        self.now_line = pg.InfiniteLine(angle=90, pen=pg.mkPen((255, 210, 80), width=1))
        self.plot.addItem(self.now_line)
        self.boundaries: list[Any] = []
        self.rectangles = 0  # drawn last time (for tests and the benchmark)
        self.plot.scene().sigMouseClicked.connect(self._clicked)
        selection.changed.connect(lambda _: self.redraw())

    def show_snapshot(self, snapshot: Snapshot) -> None:
        first = self.snapshot is None
        self.snapshot = snapshot
        if first:
            self._axes(snapshot)
        self.redraw()

    def _axes(self, snapshot: Snapshot) -> None:
        ticks = []
        for cluster in snapshot.clusters:
            line = pg.InfiniteLine(
                pos=cluster.first_node, angle=0, pen=pg.mkPen((120, 120, 130), width=1)
            )
            self.plot.addItem(line)
            self.boundaries.append(line)
            ticks.append((cluster.first_node + len(cluster.node_names) / 2, cluster.name))
        self.plot.getAxis("left").setTicks([ticks])
        total = sum(len(c.node_names) for c in snapshot.clusters)
        self.plot.setYRange(0, total, padding=0.01)

    def _rects(self, snapshot: Snapshot) -> tuple[npt.NDArray[np.float64], ...]:
        """Every segment as (x0, x1, y0, y1, job id) arrays, times in hours."""
        jobs, seg = snapshot.jobs, snapshot.segments
        rows = seg.row
        live = rows >= 0
        rows = rows[live]
        start = seg.start[live]
        end = jobs.end[rows]
        running = jobs.state[rows] == jobs.code(JobState.RUNNING)
        end = np.where(running | np.isnan(end), snapshot.now, end)
        return (
            start / HOUR,
            end / HOUR,
            seg.lo[live].astype(np.float64),
            seg.hi[live].astype(np.float64) + 1.0,
            jobs.id[rows].astype(np.float64),
        )

    def _manual(self, *_: Any) -> None:
        self.follow = False

    def follow_clock(self) -> None:
        """Go back to following the clock (a double click does it too)."""
        self.follow = True
        self.redraw()

    def redraw(self) -> None:
        snapshot = self.snapshot
        if snapshot is None:
            return
        now = snapshot.now / HOUR
        if self.follow:  # move in steps of a sixth of the window, not every frame
            low, high = self.plot.getViewBox().viewRange()[0]
            if not low <= now <= high - self.hours / 16 or high - low > 1.5 * self.hours:
                left = max(0.0, now - self.hours * 5 / 6)  # nothing happens before time 0
                self.plot.setXRange(left, left + self.hours, padding=0)
        low, high = self.plot.getViewBox().viewRange()[0]
        x0, x1, y0, y1, ids = self._rects(snapshot)
        seen = (x1 >= low) & (x0 <= high)  # cull what is out of view
        x0, x1, y0, y1, ids = x0[seen], x1[seen], y0[seen], y1[seen], ids[seen]
        self.rectangles = int(x0.size)
        which = palette.index(ids.astype(np.int64))
        order = np.argsort(which, kind="stable")
        bounds = np.searchsorted(which[order], np.arange(palette.SIZE + 1))
        for colour, item in enumerate(self.fills):
            pick = order[bounds[colour] : bounds[colour + 1]]
            item.setPath(rect_path(x0[pick], x1[pick], y0[pick], y1[pick]))
        selected = ids == self.selection.job_id
        self.highlight.setPath(rect_path(x0[selected], x1[selected], y0[selected], y1[selected]))
        self.reserved.setPath(self._reservations(snapshot))
        self.now_line.setPos(snapshot.now / HOUR)

    def _reservations(self, snapshot: Snapshot) -> QPainterPath:
        jobs = snapshot.jobs
        pending = jobs.state == jobs.code(JobState.PENDING)
        rows = np.flatnonzero(pending & np.isfinite(jobs.planned_start))
        if not rows.size:
            return QPainterPath()
        x0s, x1s, y0s, y1s = [], [], [], []
        clusters = snapshot.clusters
        for row in rows.tolist():
            start = float(jobs.planned_start[row])
            limit = float(jobs.time_limit[row])
            end = start + (limit if np.isfinite(limit) else HOUR)
            planned = jobs.planned_nodes[row]
            if planned:
                spans = [(node, node + 1) for node in planned]
            else:
                cluster = clusters[max(0, int(jobs.cluster[row]))]
                per_node = max(1, int(cluster.cores.max()))
                high = min(len(cluster.node_names), -(-int(jobs.cores[row]) // per_node))
                spans = [(cluster.first_node, cluster.first_node + high)]
            for low, top in spans:
                x0s.append(start / HOUR)
                x1s.append(end / HOUR)
                y0s.append(float(low))
                y1s.append(float(top))
        return rect_path(np.array(x0s), np.array(x1s), np.array(y0s), np.array(y1s))

    def _clicked(self, event: Any) -> None:
        snapshot = self.snapshot
        if snapshot is None:
            return
        if event.double():
            self.follow_clock()
            return
        point = self.plot.getViewBox().mapSceneToView(event.scenePos())
        x, y = point.x(), point.y()
        x0, x1, y0, y1, ids = self._rects(snapshot)
        hit = np.flatnonzero((x0 <= x) & (x < x1) & (y0 <= y) & (y < y1))
        if hit.size:
            self.selection.select(int(ids[hit[-1]]))
