"""Moves: the reallocations of waiting jobs between cluster queues (issue 20's ``realloc`` grid
policy; Caniou et al., *Reallocation in a Dedicated Grid Environment*, §2.1–2.2).

A reallocation withdraws a job waiting in one cluster's queue and routes it to another whose
expected completion time (ECT) is better. The engine records it on the job
(``Job.moved_from``) and the policy's explanation names both clusters and both ECTs:
``realloc: moved from north (ECT 01:21:32) to south (ECT 00:51:57), algo 1, mct``. The view
reads those explanations from the snapshot's decisions, as the event log does (the window sees
the session API only, never a policy), and keeps every move it saw, since the session keeps the
latest decisions only.

On top, the queues of the clusters as boxes side by side, with an arrow from each cluster to
each other one its jobs moved to, labelled with the number of moves (the latest move's arrow
bold); below, the list of moves, the latest first, with both ECTs and the time gained."""

from __future__ import annotations

import re
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPaintEvent, QPen, QPolygonF
from PySide6.QtWidgets import (
    QHeaderView,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from emulator.session import LogEntry, Snapshot
from emulator.slurm.timefmt import format_timestamp

HEADERS = ("time", "job", "from", "ECT there", "to", "ECT there", "gained")

# The explanation of a move (solvers/realloc/policy.py writes it; this is its documented form).
MOVED = re.compile(r"moved from (\S+) \(ECT ([^)]+)\) to (\S+) \(ECT ([^)]+)\)")


@dataclass(frozen=True, slots=True)
class Move:
    """One reallocation, as its decision tells it."""

    time: float
    job_id: int  # engine id (the snapshot's ``jobs.id``)
    job: str  # as squeue shows it
    origin: str
    origin_ect: str  # HH:MM:SS from the move's time, as the policy printed it
    destination: str
    destination_ect: str

    @property
    def gained(self) -> float:
        """Seconds the job's expected completion came earlier by."""
        return seconds(self.origin_ect) - seconds(self.destination_ect)


def seconds(text: str) -> float:
    """Seconds of ``[D-]HH:MM:SS``."""
    days, _, clock = text.rpartition("-")
    hours, minutes, secs = (float(part) for part in clock.split(":"))
    return 86400.0 * float(days or 0) + 3600.0 * hours + 60.0 * minutes + secs


def move_of(entry: LogEntry) -> Move | None:
    """The move a decision made, if it is a reallocation."""
    if entry.kind != "Route":
        return None
    found = MOVED.search(entry.text)
    if found is None:
        return None
    origin, before, destination, after = found.groups()
    return Move(entry.time, entry.job_id, entry.label, origin, before, destination, after)


class MoveLog:
    """Every move one session's decisions told, oldest first: read from each full snapshot
    (the session keeps the latest decisions only), shared by the Moves view and the Gantt
    chart's move marks, so that neither misses a move while the other is on screen."""

    def __init__(self) -> None:
        self.moves: list[Move] = []
        self.last = 0  # seq of the last decision read

    def read(self, snapshot: Snapshot) -> None:
        """Add the moves among the decisions not read yet (again: nothing)."""
        events = snapshot.events
        if not events or events[-1].seq <= self.last:
            return
        new = [entry for entry in events if entry.seq > self.last]
        self.last = new[-1].seq
        self.moves.extend(move for move in map(move_of, new) if move is not None)


def duration(value: float) -> str:
    sign = "-" if value < 0 else ""
    whole = abs(round(value))
    return f"{sign}{whole // 3600:02d}:{whole // 60 % 60:02d}:{whole % 60:02d}"


class FlowDiagram(QWidget):
    """The cluster queues as boxes in a row and the moves between them as counted arrows."""

    def __init__(self) -> None:
        super().__init__()
        self.clusters: tuple[str, ...] = ()
        self.counts: dict[tuple[str, str], int] = {}
        self.latest: tuple[str, str] | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)

    def sizeHint(self) -> QSize:
        return QSize(400, 130)  # (room for arcs two clusters long, above and below the boxes)

    def minimumSizeHint(self) -> QSize:
        return QSize(120, 24)  # (a projector's short window keeps its clock: issue 23)

    def show_moves(self, clusters: tuple[str, ...], moves: list[Move]) -> None:
        counts: dict[tuple[str, str], int] = {}
        for move in moves:
            pair = (move.origin, move.destination)
            counts[pair] = counts.get(pair, 0) + 1
        latest = (moves[-1].origin, moves[-1].destination) if moves else None
        if (clusters, counts, latest) != (self.clusters, self.counts, self.latest):
            self.clusters, self.counts, self.latest = clusters, counts, latest
            self.update()

    def arrows(self) -> list[tuple[str, str, int]]:
        """What is drawn: (from, to, moves), in the clusters' order (for tests and the step)."""
        order = {name: i for i, name in enumerate(self.clusters)}
        pairs = sorted(self.counts, key=lambda p: (order.get(p[0], 0), order.get(p[1], 0)))
        return [(a, b, self.counts[(a, b)]) for a, b in pairs]

    def _boxes(self) -> dict[str, QRectF]:
        count = max(1, len(self.clusters))
        slot = self.width() / count
        width = min(140.0, slot * 0.6)
        top = self.height() / 2 - 14
        return {
            name: QRectF(slot * (i + 0.5) - width / 2, top, width, 28)
            for i, name in enumerate(self.clusters)
        }

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        text = self.palette().windowText().color()
        boxes = self._boxes()
        for name, box in boxes.items():
            painter.setPen(QPen(text, 1.5))
            painter.drawRect(box)
            title = f"{name} queue"  # (the name alone in a narrow dock)
            if painter.fontMetrics().horizontalAdvance(title) > box.width() - 4:
                title = name
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, title)
        order = {name: i for i, name in enumerate(self.clusters)}
        for origin, destination, count in self.arrows():
            if origin not in boxes or destination not in boxes:
                continue
            rightwards = order[destination] > order[origin]
            a, b = boxes[origin], boxes[destination]
            # rightwards above the boxes, leftwards below: the two ways never overlap
            y = a.top() if rightwards else a.bottom()
            bulge = -1.0 if rightwards else 1.0
            span = abs(order[destination] - order[origin])
            start = QPointF(a.center().x() + (8 if rightwards else -8), y)
            end = QPointF(b.center().x() - (8 if rightwards else -8), y)
            # a longer way arcs higher (the quadratic's apex is half its lift), kept in view
            lift = bulge * min(30.0 + 50.0 * (span - 1), 2.0 * (a.top() - 12.0))
            control = QPointF((start.x() + end.x()) / 2, y + lift)
            bold = (origin, destination) == self.latest
            colour = QColor(230, 120, 30) if bold else text
            painter.setPen(QPen(colour, 3 if bold else 1.5))
            path = QPainterPath(start)
            path.quadTo(control, end)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(path)
            back = end.y() + 9 * bulge
            tip = QPolygonF([end, QPointF(end.x() - 5, back), QPointF(end.x() + 5, back)])
            painter.setBrush(colour)
            painter.drawPolygon(tip)
            apex = QPointF(control.x(), (y + control.y()) / 2)
            label = QRectF(apex.x() - 32, apex.y() - 9, 64, 18)
            painter.fillRect(label, self.palette().window())
            painter.drawText(label, Qt.AlignmentFlag.AlignCenter, f"{count} moved")
        painter.end()


class MovesView(QWidget):
    """The flow diagram over the list of moves (of ``log``: the Gantt chart's too)."""

    def __init__(self, log: MoveLog | None = None) -> None:
        super().__init__()
        self.log = log if log is not None else MoveLog()
        self.diagram = FlowDiagram()
        self.list = QTableWidget(0, len(HEADERS))
        self.list.setHorizontalHeaderLabels(list(HEADERS))
        self.list.verticalHeader().setVisible(False)
        self.list.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.list.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.list.setMinimumHeight(36)
        layout.addWidget(self.diagram)
        layout.addWidget(self.list, 1)
        self.setToolTip(
            "jobs a grid policy (realloc) withdrew from one cluster's queue and routed to "
            "another, with the expected completion times (ECT) there and there"
        )
        self.listed = 0  # moves in the list

    @property
    def moves(self) -> list[Move]:
        return self.log.moves

    def show_snapshot(self, snapshot: Snapshot) -> None:
        self.log.read(snapshot)
        if len(self.moves) != self.listed:
            self._list(snapshot.origin)
        clusters = tuple(cluster.name for cluster in snapshot.clusters)
        self.diagram.show_moves(clusters, self.moves)

    def _list(self, origin: float) -> None:
        self.listed = len(self.moves)
        self.list.setRowCount(len(self.moves))
        for row, move in enumerate(reversed(self.moves)):
            when = format_timestamp(move.time, origin)[5:].replace("T", " ")
            cells = (
                when,
                move.job,
                move.origin,
                move.origin_ect,
                move.destination,
                move.destination_ect,
                duration(move.gained),
            )
            for column, text in enumerate(cells):
                self.list.setItem(row, column, QTableWidgetItem(text))

    def table(self) -> list[tuple[str, ...]]:
        """The list's cells, row by row (for tests and the teaching steps)."""
        rows = range(self.list.rowCount())
        columns = range(self.list.columnCount())
        cells = [[self.list.item(r, c) for c in columns] for r in rows]
        return [tuple(item.text() if item else "" for item in row) for row in cells]
