"""Gantt: simulated clock time across, platform nodes down; a rectangle per node run of each job.

Jobs are drawn by one :class:`~gui.views.rects.Rects` item straight from numpy arrays (a
``drawRects`` per palette colour), never one item per job nor a path per colour, so the cost of
a redraw is a few numpy passes whatever the number of jobs. When a pixel row holds several
nodes (5,000 nodes in 400 pixels), it shows one of them, as an image scaled down would
(:func:`sample_rows`): a tenth of the rectangles to draw, and the same picture. Reservations
(pending jobs with a planned start) are dashed outlines: on their planned nodes when the policy
named them, otherwise at the top of their cluster, as many nodes high as the job needs. A job
whose nodes (or planned nodes) lie in several clusters, a co-allocation, is linked across the
cluster bands by a bar at its start, from its highest rectangle to its lowest: for the
selected job only (every co-allocation's bar at once read as a barcode). A job's id is written
on its rectangles that are wide and tall enough on screen (at most :data:`MAX_LABELS`). A job a
grid policy moved between cluster queues bears a mark where and when it moved
(:mod:`gui.views.move_marks`). A legend names the marks.

The time axis (:class:`~gui.views.clock.ClockAxis`) labels hours since simulated 0 with UTC
clock times (the date at midnight). A right click on a job (or its reservation) opens the job's
menu. The view fits the data (from time 0 to the clock or the last reservation's end, growing
in steps) until the user pans or zooms, on time only: the node axis stays whole, every cluster's
band in view; a double click fits again. Rectangles outside the visible time range are not
drawn; a pan or zoom redraws at once, paused or not.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPainterPath, QPalette, QPen
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsPathItem,
    QGraphicsSimpleTextItem,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from emulator.model.job import JobState
from emulator.session import Snapshot
from gui import palette
from gui.selection import Selection
from gui.views.clock import ClockAxis
from gui.views.move_marks import MOVE, MoveMarks
from gui.views.moves import MoveLog
from gui.views.ranges import without_si_prefix
from gui.views.rects import Rects
from gui.views.windows import Windows

HOUR = 3600.0
GROWTH = 1.25  # fitting the data, the time range grows to this times what it must show
MAX_LABELS = 120  # job ids written on rectangles, at most (the widest first)
LABEL_PIXELS = (36.0, 14.0)  # a rectangle's size on screen to bear its job's id
LINK = (90, 220, 255)  # the bar joining a co-allocated job's rectangles across clusters
NOW = (255, 210, 80)
WINDOW = (255, 170, 0)  # an economic policy's chosen window (ALP/AMP)
Arrays = tuple[npt.NDArray[np.float64], ...]


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


def sample_rows(
    y0: npt.NDArray[np.float64], y1: npt.NDArray[np.float64], top: float, band: float
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Nearest-neighbour rows for node ranges ``[y0, y1)`` on a chart whose pixel rows are
    ``band`` nodes high from ``top``: pixel row ``r`` shows the node at its middle,
    ``top + (r + 0.5) * band``. Returns which ranges hold such a node, and the rows they fill
    (snapped to whole pixel rows)."""
    first = np.ceil((y0 - top) / band - 0.5)  # the first row whose middle is in the range
    end = np.ceil((y1 - top) / band - 0.5)  # one past the last
    keep = end > first
    return keep, top + first[keep] * band, top + end[keep] * band


def coallocation_links(
    x0: npt.NDArray[np.float64],
    y0: npt.NDArray[np.float64],
    y1: npt.NDArray[np.float64],
    ids: npt.NDArray[np.float64],
    firsts: npt.NDArray[np.int64],
) -> Arrays:
    """``(x, top, bottom)`` of one vertical link per job whose rectangles lie in more than one
    cluster (``firsts``: each cluster's first node, ascending): at the job's leftmost x, from
    the top of its highest rectangle to the bottom of its lowest."""
    none = np.zeros(0), np.zeros(0), np.zeros(0)
    if firsts.size < 2 or not ids.size:
        return none
    order = np.argsort(ids, kind="stable")
    ids, x0, y0, y1 = ids[order], x0[order], y0[order], y1[order]
    low = np.searchsorted(firsts, y0, side="right")  # cluster index + 1 of the top node
    high = np.searchsorted(firsts, y1 - 1.0, side="right")  # ... and of the bottom node
    # a job spans clusters if one of its rectangles does, or two of them (neighbours once
    # sorted by job) lie in different clusters: usually few jobs, so reduce over those only
    spanning = ids[low != high]
    apart = ids[1:][(ids[1:] == ids[:-1]) & (low[1:] != low[:-1])]
    linked = np.isin(ids, np.concatenate([spanning, apart]))
    if not linked.any():
        return none
    ids, x0, y0, y1 = ids[linked], x0[linked], y0[linked], y1[linked]
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    return (
        np.minimum.reduceat(x0, starts),
        np.minimum.reduceat(y0, starts),
        np.maximum.reduceat(y1, starts),
    )


def line_path(x: npt.NDArray[np.float64], top: Any, bottom: Any) -> QPainterPath:
    """One path of vertical lines."""
    if not x.size:
        return QPainterPath()
    connect = np.zeros(2 * x.size, np.int32)
    connect[0::2] = 1
    path: QPainterPath = pg.arrayToQPath(
        np.repeat(x, 2), np.stack([top, bottom], axis=1).ravel(), connect=connect
    )
    return path


class _Box(pg.ViewBox):  # type: ignore[misc]
    """The Gantt's view box: a right click on a job opens the job's menu, elsewhere the plot's."""

    def __init__(self, gantt: GanttView) -> None:
        super().__init__()
        self.gantt = gantt

    def raiseContextMenu(self, event: Any) -> None:
        point = self.mapSceneToView(event.scenePos())
        job_id = self.gantt.job_at(point.x(), point.y())
        if job_id is None:
            super().raiseContextMenu(event)
        else:
            self.gantt.selection.request_menu(job_id, event.screenPos().toPoint())


class GanttView(QWidget):
    """``moves``: the session's moves, shared with its Moves view (else read here alone)."""

    def __init__(self, selection: Selection, moves: MoveLog | None = None) -> None:
        super().__init__()
        self.selection = selection
        self.move_log = moves if moves is not None else MoveLog()
        self.snapshot: Snapshot | None = None
        self.axis = ClockAxis(HOUR)
        self.plot = pg.PlotWidget(viewBox=_Box(self), axisItems={"bottom": self.axis})
        without_si_prefix(self.plot)
        self.plot.setBackground(tuple(int(v) for v in palette.BACKGROUND[:3]))
        self.plot.invertY(True)
        self.plot.setLabel("bottom", "simulated time (UTC)")
        self.plot.setLabel("left", "node")
        self.follow = True  # fit the data; off once the user pans or zooms
        box = self.plot.getViewBox()
        box.setMouseEnabled(x=True, y=False)  # zoom and pan in time; every node stays in view
        box.sigRangeChangedManually.connect(self._manual)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot)
        self.legend = self._legend()
        layout.addWidget(self.legend)
        self.fills = Rects(palette.PALETTE)  # every job rectangle, by palette colour
        self.plot.addItem(self.fills)
        self.reserved = QGraphicsPathItem()
        pen = QPen(QColor(230, 230, 230))
        pen.setStyle(Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        self.reserved.setPen(pen)
        self.plot.addItem(self.reserved)
        self.windows = Windows()
        self.window_outline = QGraphicsPathItem()
        pen = QPen(QColor(*WINDOW))
        pen.setWidth(2)
        pen.setCosmetic(True)
        self.window_outline.setPen(pen)
        self.plot.addItem(self.window_outline)
        self.captions: list[QGraphicsSimpleTextItem] = []  # "best of N" under windows (reused)
        self.highlight = QGraphicsPathItem()
        pen = QPen(QColor(255, 255, 255))
        pen.setWidth(2)
        pen.setCosmetic(True)
        self.highlight.setPen(pen)
        self.plot.addItem(self.highlight)
        self.links = QGraphicsPathItem()
        pen = QPen(QColor(*LINK))
        pen.setWidth(3)
        pen.setCosmetic(True)
        self.links.setPen(pen)
        self.plot.addItem(self.links)
        self.move_marks = MoveMarks(self.plot)
        self.now_line = pg.InfiniteLine(angle=90, pen=pg.mkPen(NOW, width=1))
        self.plot.addItem(self.now_line)
        self.labels: list[QGraphicsSimpleTextItem] = []  # job ids on rectangles (reused)
        self.dates = ""  # the dates the time axis's title names
        self.boundaries: list[Any] = []
        self.firsts = np.zeros(0, np.int64)  # each cluster's first node
        self.rectangles = 0  # drawn last time (for tests and the benchmark)
        self.plot.scene().sigMouseClicked.connect(self._clicked)
        selection.changed.connect(lambda _: self.redraw())

    def _legend(self) -> QLabel:
        """What the marks mean, on a line under the chart (over it, a legend hid the jobs)."""
        marks = (
            ("#e6e6e6", "&#9476;&#9476;", "reservation"),
            (f"rgb{WINDOW}", "&#9633;", "chosen window (ALP/AMP: best of N)"),
            (f"rgb{NOW}", "&#9474;", "now"),
            ("#ffffff", "&#9633;", "selected job"),
            (f"rgb{LINK}", "&#9475;", "its clusters"),
            (f"rgb{MOVE}", "&#9474;&#8943;", "moved (realloc)"),
        )
        text = "&nbsp;&nbsp; ".join(
            f"<span style='color:{colour}'><b>{sample}</b></span>&nbsp;{name}"
            for colour, sample, name in marks
        )
        label = QLabel(text)
        label.setToolTip(
            "reservation: a pending job's planned start, for its time limit; chosen window: "
            "the window an economic policy reserved, best of the alternatives it found; the "
            "selected "
            "job's bar joins its rectangles over clusters (co-allocation); moved: when a grid "
            "policy moved the job from one cluster's queue to another's, dotted until it "
            "starts there; a job has one colour in every view"
        )
        # colours by palette, not a style sheet: a style sheet keeps the label's font when
        # presentation mode sets the application's (the legend stayed small after F5)
        colours = label.palette()
        colours.setColor(QPalette.ColorRole.Window, QColor(0, 0, 0))
        colours.setColor(QPalette.ColorRole.WindowText, QColor(204, 204, 204))
        label.setPalette(colours)
        label.setAutoFillBackground(True)
        label.setContentsMargins(2, 2, 2, 2)
        label.setWordWrap(True)
        return label

    def show_snapshot(self, snapshot: Snapshot) -> None:
        first = self.snapshot is None
        self.snapshot = snapshot
        self.move_log.read(snapshot)
        if first:
            self._axes(snapshot)
        self.redraw()

    def _axes(self, snapshot: Snapshot) -> None:
        self.axis.set_origin(snapshot.origin)
        self.firsts = np.array([cluster.first_node for cluster in snapshot.clusters], np.int64)
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
        box = self.plot.getViewBox()
        box.setLimits(yMin=-0.01 * total, yMax=1.01 * total, xMin=-1.0)
        box.enableAutoRange(x=False, y=False)

    def _rects(self, snapshot: Snapshot) -> Arrays:
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

    def recolour(self) -> None:
        """Fill with the palette's current colours and write in the application's font
        (presentation mode: each text item keeps the font it was made with)."""
        self.plot.setBackground(tuple(int(v) for v in palette.BACKGROUND[:3]))
        self.fills.recolour(palette.PALETTE)
        font = QApplication.font()
        for text in (*self.labels, *self.captions, *self.move_marks.texts):
            text.setFont(font)

    def _manual(self, *_: Any) -> None:
        self.follow = False
        self.redraw()  # (paused, no other redraw would come)

    def follow_clock(self) -> None:
        """Go back to fitting the data (a double click does it too)."""
        self.follow = True
        self.redraw()

    def _fit(self, snapshot: Snapshot, reserved_end: float) -> None:
        """Fit the time range to the data: from 0 to the clock or the last reservation's end,
        widened by :data:`GROWTH` only when the data outgrew it (a new range lays the axis
        out again)."""
        wanted = max(snapshot.now / HOUR, reserved_end, 1.0 / 60.0)
        low, high = self.plot.getViewBox().viewRange()[0]
        if low != 0.0 or not wanted <= high <= GROWTH * GROWTH * wanted:
            self.plot.setXRange(0.0, GROWTH * wanted, padding=0)

    def redraw(self) -> None:
        snapshot = self.snapshot
        if snapshot is None:
            return
        r0, r1, ry0, ry1, rids = self.reservations(snapshot)
        if self.follow:
            self._fit(snapshot, float(r1.max()) if r1.size else 0.0)
        low, high = self.plot.getViewBox().viewRange()[0]
        self._date_label(snapshot.origin, low, high)
        x0, x1, y0, y1, ids = self._rects(snapshot)
        seen = (x1 >= low) & (x0 <= high)  # cull what is out of view
        x0, x1, y0, y1, ids = x0[seen], x1[seen], y0[seen], y1[seen], ids[seen]
        self.rectangles = int(x0.size)
        colours = palette.index(ids.astype(np.int64))
        band = float(self.plot.getViewBox().viewPixelSize()[1])  # nodes per pixel row
        if band > 1.0:  # nodes share pixel rows: draw one node per row (as an image would)
            top = self.plot.getViewBox().viewRange()[1][0]
            keep, rows0, rows1 = sample_rows(y0, y1, top, band)
            self.fills.set_rects(x0[keep], x1[keep], rows0, rows1, colours[keep])
        else:
            self.fills.set_rects(x0, x1, y0, y1, colours)
        selected = ids == self.selection.job_id
        self.highlight.setPath(rect_path(x0[selected], x1[selected], y0[selected], y1[selected]))
        self.reserved.setPath(rect_path(r0, r1, ry0, ry1))
        mine = np.r_[ids, rids] == self.selection.job_id  # the selected job's bar alone
        self.links.setPath(
            line_path(
                *coallocation_links(
                    np.r_[x0, r0][mine],
                    np.r_[y0, ry0][mine],
                    np.r_[y1, ry1][mine],
                    np.r_[ids, rids][mine],
                    self.firsts,
                )
            )
        )
        self._label_jobs(x0, x1, y0, y1, ids)
        self._show_windows(snapshot, (x0, x1, y0, y1, ids), (r0, r1, ry0, ry1, rids))
        self.move_marks.draw(
            self.move_log.moves,
            self.selection.job_id,
            (x0, x1, y0, y1, ids),
            (r0, r1, ry0, ry1, rids),
        )
        self.now_line.setPos(snapshot.now / HOUR)

    def _date_label(self, origin: float, low: float, high: float) -> None:
        """The time axis's title names the dates shown (a tick names a date only at midnight:
        zoomed into the second day of a run, no tick would say which day it is); set only when
        they change (a new title lays the axis out again)."""
        days = [
            datetime.fromtimestamp(origin + max(0.0, hours) * HOUR, UTC).strftime("%a %b %d")
            for hours in (low, high)
        ]
        text = days[0] if days[0] == days[1] else f"{days[0]} – {days[1]}"
        if text != self.dates:
            self.dates = text
            self.plot.setLabel("bottom", f"simulated time (UTC), {text}")

    def _label_jobs(
        self,
        x0: npt.NDArray[np.float64],
        x1: npt.NDArray[np.float64],
        y0: npt.NDArray[np.float64],
        y1: npt.NDArray[np.float64],
        ids: npt.NDArray[np.float64],
    ) -> None:
        """Write each job's id on its rectangles wide and tall enough on screen (the widest
        :data:`MAX_LABELS`), at their left, in text items kept for reuse."""
        box = self.plot.getViewBox()
        per_x, per_y = box.viewPixelSize()
        wide = ((x1 - x0) / per_x >= LABEL_PIXELS[0]) & ((y1 - y0) / per_y >= LABEL_PIXELS[1])
        chosen = np.flatnonzero(wide)
        chosen = chosen[np.argsort(x0[chosen] - x1[chosen], kind="stable")][:MAX_LABELS]
        while len(self.labels) < chosen.size:
            text = QGraphicsSimpleTextItem()
            text.setBrush(QColor(0, 0, 0))
            text.setFlag(QGraphicsSimpleTextItem.GraphicsItemFlag.ItemIgnoresTransformations)
            box.addItem(text, ignoreBounds=True)
            self.labels.append(text)
        for k, text in enumerate(self.labels):
            if k < chosen.size:
                i = int(chosen[k])
                text.setText(str(int(ids[i])))
                text.setPos(float(x0[i]) + 2 * per_x, float(y0[i]))
                text.show()
            else:
                text.hide()

    def _show_windows(self, snapshot: Snapshot, *drawn: Arrays) -> None:
        """Outline the chosen windows among the rectangles and reservations ``drawn`` and
        caption each with its alternatives (:mod:`gui.views.windows`)."""
        outlines = self.windows.outlines(snapshot, *drawn)
        self.window_outline.setPath(rect_path(*outlines[:4]))
        captions = self.windows.captions(snapshot, outlines)[:MAX_LABELS]
        box = self.plot.getViewBox()
        while len(self.captions) < len(captions):
            text = QGraphicsSimpleTextItem()
            text.setBrush(QColor(*WINDOW))
            text.setFlag(QGraphicsSimpleTextItem.GraphicsItemFlag.ItemIgnoresTransformations)
            box.addItem(text, ignoreBounds=True)
            self.captions.append(text)
        for k, text in enumerate(self.captions):
            if k < len(captions):
                x, y, caption = captions[k]
                text.setText(caption)
                text.setPos(x, y)
                text.show()
            else:
                text.hide()

    def window_captions(self) -> list[str]:
        """The captions shown under chosen windows (for tests and the teaching steps)."""
        return [text.text() for text in self.captions if text.isVisible()]

    def reservations(self, snapshot: Snapshot) -> Arrays:
        """Every reservation outline as (x0, x1, y0, y1, job id) arrays, times in hours: from
        the planned start for the job's time limit, on its planned nodes (each its own row)."""
        jobs = snapshot.jobs
        pending = jobs.state == jobs.code(JobState.PENDING)
        rows = np.flatnonzero(pending & np.isfinite(jobs.planned_start))
        x0s: list[float] = []
        x1s: list[float] = []
        y0s: list[float] = []
        y1s: list[float] = []
        owners: list[float] = []
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
                owners.append(float(jobs.id[row]))
        return tuple(np.array(column, np.float64) for column in (x0s, x1s, y0s, y1s, owners))

    def job_at(self, x: float, y: float) -> int | None:
        """The job drawn at (x hours, y node): a rectangle, else a reservation outline."""
        snapshot = self.snapshot
        if snapshot is None:
            return None
        for x0, x1, y0, y1, ids in (self._rects(snapshot), self.reservations(snapshot)):
            hit = np.flatnonzero((x0 <= x) & (x < x1) & (y0 <= y) & (y < y1))
            if hit.size:
                return int(ids[hit[-1]])
        return None

    def _clicked(self, event: Any) -> None:
        snapshot = self.snapshot
        if snapshot is None:
            return
        if event.double():
            self.follow_clock()
            return
        point = self.plot.getViewBox().mapSceneToView(event.scenePos())
        job_id = self.job_at(point.x(), point.y())
        if job_id is not None:
            self.selection.select(job_id)
