"""Nodes: one image per cluster, a cell per node coloured by the job on it.

A cell is :data:`CELL` x :data:`CELL` pixels: a one-pixel ring (the gap, white around the
selected job's nodes), a block in the job's colour filled from the bottom by the share of the
node's cores in use (the idle colour above), and under it a bar as long as the node's speed
relative to the fastest node of the platform. A node out of service has diagonal stripes over
its free part: amber when drained (its jobs may still run), red when down. A node shared by two
jobs or more shows two side by side: the left half of its block in another job's colour (from
the last full snapshot, which lists every running job's nodes; the nodes alone name one job a
node). Hover shows the node, its state and its jobs; a click selects the job, a right click opens
the job's menu. Each cluster's grid takes the columns that make its cells largest in its box, so
4 nodes or 2,500 fill the dock; the mouse wheel zooms a grid, a tooltip names each node.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QVBoxLayout, QWidget

from emulator.model.job import JobState
from emulator.session import ClusterSnapshot, Snapshot
from gui import palette
from gui.selection import Selection

CELL = 10
CellState = tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.bool_],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
]
SERVICE = {"DRAIN": 1, "DOWN": 2}  # a node's service code (0: in service)
_FILL_ROWS = slice(1, 7)  # 6 rows of job colour
_FILL_COLS = slice(1, 9)
_SPEED_ROW = 8
_BAR = 8  # speed bar width in pixels at the fastest speed


def grid_width(nodes: int, width: float = 3.0, height: float = 1.0) -> int:
    """Columns of a cluster's grid in a box ``width`` x ``height`` (pixels; by default three
    times wider than tall): the count whose square cells come out largest, so that the grid
    fills its box whether it holds 4 nodes or 2,500."""
    if nodes <= 1 or not (width > 0 and height > 0):
        return 1

    def cell(columns: int) -> float:
        return min(width / columns, height / math.ceil(nodes / columns))

    return max(range(1, nodes + 1), key=lambda columns: (cell(columns), -columns))


def cell_state(
    cluster: ClusterSnapshot, selected: int = -1, other: npt.NDArray[np.int64] | None = None
) -> CellState:
    """What a node's cell shows: its job, how many of the 6 fill rows are in use, whether the
    ring is the selection's, its service code (:data:`SERVICE`), another job on it (-1: none;
    ``other``, from :func:`other_jobs`, is dropped where the node is idle now or names the
    node's job)."""
    cores = np.maximum(cluster.cores, 1).astype(np.int64)
    service = np.zeros(len(cluster.node_names), np.int64)
    for out in cluster.out_of_service:
        service[out.local] = SERVICE[out.state]
    used = (6 * (cores - cluster.free) + cores - 1) // cores  # the ceiling, in integers
    used[(used == 0) & (cluster.job >= 0)] = 1
    ring = (cluster.job == selected) & (selected >= 0)
    second = np.full(len(cluster.node_names), -1, np.int64)
    if other is not None and other.size == second.size:
        second = np.where((cluster.job >= 0) & (other != cluster.job), other, -1)
    return cluster.job, used, ring, service, second


def other_jobs(snapshot: Snapshot) -> list[npt.NDArray[np.int64]]:
    """Per cluster, per node, a running job on it other than the one its cluster snapshot
    names (-1: none), from the snapshot's node runs."""
    jobs, seg = snapshot.jobs, snapshot.segments
    live = seg.row >= 0
    rows = seg.row[live]
    running = jobs.state[rows] == jobs.code(JobState.RUNNING)
    ids = jobs.id[rows][running].astype(np.int64)
    lo, hi = seg.lo[live][running].astype(np.int64), seg.hi[live][running].astype(np.int64)
    counts = hi - lo + 1
    starts = np.cumsum(counts) - counts
    node = np.repeat(lo, counts) + (np.arange(int(counts.sum())) - np.repeat(starts, counts))
    job = np.repeat(ids, counts)
    named = np.concatenate([cluster.job for cluster in snapshot.clusters]).astype(np.int64)
    other = np.full(named.size, -1, np.int64)
    if node.size:
        apart = job != named[node]
        other[node[apart]] = job[apart]
    return [other[c.first_node : c.first_node + len(c.node_names)] for c in snapshot.clusters]


def blocks(
    job: npt.NDArray[np.int64],
    used: npt.NDArray[np.int64],
    ring: npt.NDArray[np.bool_],
    bar: npt.NDArray[np.int64],
    service: npt.NDArray[np.int64],
    other: npt.NDArray[np.int64] | None = None,
) -> npt.NDArray[np.uint8]:
    """The cells of some nodes, (nodes, CELL, CELL, 4), copied from :func:`cells` (a gather:
    drawing them one by one with numpy cost 9 us per node); then the left half of the used
    rows of the few nodes shared with ``other`` jobs, and the stripes of the few nodes out of
    service."""
    drawn = cells()[palette.index(job) + 1, used, ring.astype(np.intp), bar]
    shared = np.flatnonzero(other >= 0) if other is not None else np.zeros(0, np.int64)
    if shared.size and other is not None:
        colour = palette.PALETTE[palette.index(other[shared])]  # (nodes, 4)
        rows = np.arange(6)[None, :] >= 6 - used[shared][:, None]  # (nodes, rows) in use
        halves = drawn[shared]
        half = halves[:, _FILL_ROWS, 1:5]  # the fill's left half, a view of the copy
        mask = np.broadcast_to(rows[:, :, None], half.shape[:3])
        half[mask] = np.broadcast_to(colour[:, None, None, :], half.shape)[mask]
        drawn[shared] = halves
    out = np.flatnonzero(service)
    if out.size:
        free_rows = np.arange(6)[None, :] < 6 - used[out][:, None]  # (nodes, rows), from the top
        mask = free_rows[:, :, None] & _STRIPES[None]  # (nodes, rows, columns)
        colour = palette.OUT_OF_SERVICE[service[out] - 1]  # (nodes, 4)
        striped = drawn[out]
        fill = striped[:, _FILL_ROWS, _FILL_COLS]  # a view of the copy
        fill[mask] = np.broadcast_to(colour[:, None, None, :], fill.shape)[mask]
        drawn[out] = striped
    return drawn


_STRIPES = np.add.outer(np.arange(6), np.arange(8)) % 3 == 0  # (fill rows, fill columns)


_DRAWN: list[tuple[tuple[npt.NDArray[np.uint8], ...], npt.NDArray[np.uint8]]] = []


def cells() -> npt.NDArray[np.uint8]:
    """Every cell there can be, indexed by (palette entry + 1 (0: no job), fill rows in use,
    ring, speed bar length): (SIZE + 1, 7, 2, 9, CELL, CELL, 4), 2.5 MB, drawn again only when
    the palette's colours change (presentation mode)."""
    colours = (
        palette.PALETTE,
        palette.IDLE,
        palette.BACKGROUND,
        palette.SPEED,
        palette.SPEED_TRACK,
        palette.SELECTED,
    )
    if _DRAWN and all(a is b for a, b in zip(_DRAWN[0][0], colours, strict=True)):
        return _DRAWN[0][1]
    table = np.empty((palette.SIZE + 1, 7, 2, _BAR + 1, CELL, CELL, 4), np.uint8)
    table[:, :, 0] = palette.BACKGROUND  # the ring
    table[:, :, 1] = palette.SELECTED
    job = np.concatenate([palette.IDLE[None], palette.PALETTE])  # (SIZE + 1, 4)
    filled = np.arange(6)[None, :] >= 6 - np.arange(7)[:, None]  # (used, row): from the bottom
    fill = np.where(filled[None, :, :, None], job[:, None, None, :], palette.IDLE)
    table[:, :, :, :, _FILL_ROWS, _FILL_COLS] = fill[:, :, None, None, :, None, :]
    table[:, :, :, :, _SPEED_ROW - 1, 1:-1] = palette.BACKGROUND
    track = np.arange(_BAR)[None, :] < np.arange(_BAR + 1)[:, None]  # (bar, pixel)
    speed = np.where(track[:, :, None], palette.SPEED, palette.SPEED_TRACK)
    table[:, :, :, :, _SPEED_ROW, 1:-1] = speed
    _DRAWN[:] = [(colours, table)]
    return table


def speed_bars(cluster: ClusterSnapshot, fastest: float) -> npt.NDArray[np.int64]:
    """Length in pixels of each node's speed bar."""
    bars: npt.NDArray[np.int64] = np.maximum(
        1, np.rint(_BAR * cluster.speeds / fastest).astype(np.int64)
    )
    return bars


def render(
    cluster: ClusterSnapshot,
    fastest: float,
    selected: int = -1,
    width: int | None = None,
    other: npt.NDArray[np.int64] | None = None,
) -> npt.NDArray[np.uint8]:
    """The cluster's RGBA image (rows x columns x 4), row-major, ``width`` cells across
    (default: :func:`grid_width`'s); ``other``: as :func:`cell_state` takes it."""
    n = len(cluster.node_names)
    width = grid_width(n) if width is None else width
    rows = math.ceil(n / width)
    image = np.empty((rows * CELL, width * CELL, 4), np.uint8)
    image[:] = palette.BACKGROUND
    cells = grid_cells(image, width)
    local = np.arange(n)
    job, used, ring, service, second = cell_state(cluster, selected, other)
    bars = speed_bars(cluster, fastest)
    cells[local // width, :, local % width] = blocks(job, used, ring, bars, service, second)
    return image


def grid_cells(image: npt.NDArray[np.uint8], width: int) -> npt.NDArray[np.uint8]:
    """A view of the image as (grid rows, CELL, grid columns, CELL, 4): cell (r, c) is
    ``view[r, :, c]``. Writing to it writes the image."""
    rows = image.shape[0] // CELL
    view: npt.NDArray[np.uint8] = image.reshape(rows, CELL, width, CELL, 4)
    return view


class NodeImage(pg.ImageItem):  # type: ignore[misc]
    """A cluster's image that knows which node is under the mouse."""

    def __init__(self, view: NodesView, index: int) -> None:
        super().__init__(axisOrder="row-major")
        self.nodes_view = view
        self.index = index
        self.setAcceptHoverEvents(True)

    def render(self) -> None:
        """Wrap the array, without a copy, as an opaque image (pyqtgraph's ``render`` with the
        format set): its RGBA8888, for an array with an alpha channel, makes Qt convert and
        blend every pixel at each paint, though every cell is opaque (a fifth of the paint)."""
        self.qimage = pg.functions.ndarray_to_qimage(self.image, QImage.Format.Format_RGBX8888)
        self._renderRequired = False
        self._unrenderable = False

    def node_at(self, x: float, y: float) -> int | None:
        """Local index of the node at image pixel (x, y), or None."""
        cluster = self.nodes_view.cluster(self.index)
        if cluster is None or x < 0 or y < 0:
            return None
        width = self.nodes_view.columns(self.index)
        column, row = int(x) // CELL, int(y) // CELL
        local = row * width + column
        if column >= width or local >= len(cluster.node_names):
            return None
        return local

    def hoverEvent(self, event: Any) -> None:
        if event.isExit():
            self.setToolTip("")
            return
        position = event.pos()
        local = self.node_at(position.x(), position.y())
        self.setToolTip("" if local is None else self.nodes_view.describe(self.index, local))

    def mouseClickEvent(self, event: Any) -> None:
        """A click selects the node's job (none: an idle node); a right click on a busy node
        opens its job's menu."""
        position = event.pos()
        local = self.node_at(position.x(), position.y())
        cluster = self.nodes_view.cluster(self.index)
        if local is None or cluster is None:
            return
        job_id = int(cluster.job[local])
        selection = self.nodes_view.selection
        if event.button() != Qt.MouseButton.RightButton:
            selection.select(job_id)
        elif job_id >= 0:
            selection.request_menu(job_id, event.screenPos().toPoint())
        event.accept()


class NodesView(QWidget):
    """Every cluster's nodes, one image each, stacked."""

    def __init__(self, selection: Selection) -> None:
        super().__init__()
        self.selection = selection
        self.snapshot: Snapshot | None = None  # the last full snapshot: the jobs' details
        self.clusters: tuple[ClusterSnapshot, ...] = ()  # what is drawn: as new or newer
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground(tuple(int(v) for v in palette.BACKGROUND[:3]))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.graphics)
        self.images: list[NodeImage] = []
        self.labels: list[Any] = []
        self.fastest = 1.0
        # per cluster: the image and the cell state it shows (to redraw only what changed)
        self.cache: dict[int, tuple[npt.NDArray[np.uint8], CellState]] = {}
        self.texts: dict[int, str] = {}
        self.cores: list[int] = []
        self.speeds: list[str] = []
        self.bars: list[npt.NDArray[np.int64]] = []  # per cluster, each node's speed bar
        self.widths: list[int] = []  # per cluster, the grid's columns (fitted to its box)
        self.others: dict[int, npt.NDArray[np.int64]] = {}  # per cluster: other_jobs'
        selection.changed.connect(lambda _: self.redraw())

    def _build(self, clusters: tuple[ClusterSnapshot, ...]) -> None:
        self.graphics.clear()
        self.images.clear()
        self.labels.clear()
        self.fastest = max(float(c.speeds.max()) for c in clusters)
        self.cache.clear()
        self.texts.clear()
        self.cores = [int(c.cores.sum()) for c in clusters]
        self.speeds = ["/".join(f"{v:g}" for v in sorted(set(c.speeds.tolist()))) for c in clusters]
        self.bars = [speed_bars(c, self.fastest) for c in clusters]
        self.widths = [grid_width(len(c.node_names)) for c in clusters]
        for k, cluster in enumerate(clusters):
            # the label beside its grid, on a few lines: above it, each label took a row as
            # high as the grid's (a projector's large text left the grids no room)
            label = self.graphics.addLabel(cluster.name, row=k, col=0, justify="right")
            self.labels.append(label)
            self.graphics.ci.layout.setColumnStretchFactor(0, 0)
            self.graphics.ci.layout.setColumnStretchFactor(1, 1)
            box = self.graphics.addViewBox(row=k, col=1)
            box.setAspectLocked(True)
            box.setDefaultPadding(0.02)
            box.invertY(True)
            box.setMenuEnabled(False)
            image = NodeImage(self, k)
            box.addItem(image)
            self.images.append(image)
            box.sigResized.connect(lambda _, k=k: self._fit(k))

    def columns(self, index: int) -> int:
        """The columns of cluster ``index``'s grid."""
        return self.widths[index]

    def _fit(self, index: int) -> None:
        """Cluster ``index``'s box was resized: lay its grid out again to fill it (the
        cells as large as the box allows), and show all of it."""
        if len(self.images) != len(self.clusters):  # still being built
            return
        box = self.images[index].getViewBox()
        nodes = len(self.clusters[index].node_names)
        columns = grid_width(nodes, box.width(), box.height())
        if columns != self.widths[index]:
            self.widths[index] = columns
            self.cache.pop(index, None)
            self.redraw()
        box.enableAutoRange()  # (pyqtgraph's own: it follows the image and the box's size)

    def cluster(self, index: int) -> ClusterSnapshot | None:
        return self.clusters[index] if index < len(self.clusters) else None

    def show_snapshot(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        if len(self.clusters) != len(snapshot.clusters):  # the first: build the grids
            self.show_clusters(snapshot.clusters)
        self.others = dict(enumerate(other_jobs(snapshot)))
        self.show_clusters(snapshot.clusters)

    def show_clusters(self, clusters: tuple[ClusterSnapshot, ...]) -> None:
        """Draw the nodes as they are now (:meth:`RemoteSession.nodes_snapshot
        <emulator.remote.RemoteSession.nodes_snapshot>`), between two full snapshots: a job's
        details come from the last one (which holds every job then pending
        or running, and a job's name, user and id never change)."""
        first = len(self.clusters) != len(clusters)
        self.clusters = clusters
        if first:
            self._build(clusters)
        self.redraw()
        if first:
            for k in range(len(self.images)):
                self._fit(k)
        self._label()  # (current after a jump, between two full snapshots too)

    def redraw(self) -> None:
        """Update each cluster's image: only the cells whose job, load or selection changed
        since the last redraw are drawn again."""
        if not self.clusters:
            return
        selected = self.selection.job_id
        for k, (image_item, cluster) in enumerate(zip(self.images, self.clusters, strict=True)):
            state = cell_state(cluster, selected, self.others.get(k))
            cached = self.cache.get(k)
            if cached is None:
                image = render(cluster, self.fastest, selected, self.columns(k), self.others.get(k))
            else:
                image, old = cached
                changed = np.flatnonzero(
                    (state[0] != old[0])
                    | (state[1] != old[1])
                    | (state[2] != old[2])
                    | (state[3] != old[3])
                    | (state[4] != old[4])
                )
                if changed.size:
                    width = self.columns(k)
                    bars = self.bars[k][changed]
                    grid_cells(image, width)[changed // width, :, changed % width] = blocks(
                        state[0][changed],
                        state[1][changed],
                        state[2][changed],
                        bars,
                        state[3][changed],
                        state[4][changed],
                    )
            if cached is None:
                image_item.setImage(image, autoLevels=False)
            elif changed.size:  # the item's QImage wraps the array: it shows the new cells
                image_item.update()
            self.cache[k] = (image, state)

    def _label(self) -> None:
        """Each cluster's label: its size and load, in whole percent and set only when its
        text changed (an HTML layout, dear to set)."""
        for k, (label, cluster) in enumerate(zip(self.labels, self.clusters, strict=True)):
            busy = round(100 * int((cluster.cores - cluster.free).sum()) / max(1, self.cores[k]))
            text = (
                f"<b>{cluster.name}</b> {busy}% busy<br>{len(cluster.node_names)} nodes "
                f"&middot; speed {self.speeds[k]}"
            )
            if text != self.texts.get(k):
                self.texts[k] = text
                label.setText(text)

    def recolour(self) -> None:
        """Draw every cell again in the palette's current colours (presentation mode)."""
        self.graphics.setBackground(tuple(int(v) for v in palette.BACKGROUND[:3]))
        self.cache.clear()
        self.redraw()

    def image(self, index: int) -> npt.NDArray[np.uint8]:
        """The RGBA pixels shown for cluster ``index`` (rows x columns x 4)."""
        data: npt.NDArray[np.uint8] = self.images[index].image
        return data

    def describe(self, index: int, local: int) -> str:
        """Tooltip text of a node: its name, speed, cores, its state if out of service, and the
        job on it."""
        cluster = self.clusters[index]
        cores, free = int(cluster.cores[local]), int(cluster.free[local])
        text = (
            f"{cluster.node_names[local]}  speed {cluster.speeds[local]:g}  "
            f"{cores - free}/{cores} cores busy"
        )
        for out in cluster.out_of_service:
            if out.local == local:
                text += f"\n{out.state}: {out.reason} ({out.user})"
        job_id = int(cluster.job[local])
        if job_id < 0:
            return text
        snapshot = self.snapshot
        row = None if snapshot is None else snapshot.jobs.row(job_id)
        if snapshot is None or row is None:  # started since the last full snapshot
            return f"{text}\njob {job_id}"
        jobs = snapshot.jobs
        text += f"\njob {jobs.label[row]} {jobs.name[row]} ({jobs.user[row]})"
        other = self.others.get(index)
        shared = -1 if other is None or local >= other.size else int(other[local])
        row = jobs.row(shared) if shared >= 0 else None
        if row is not None:  # (the left half of the cell)
            text += f"\nand job {jobs.label[row]} {jobs.name[row]} ({jobs.user[row]})"
        return text
