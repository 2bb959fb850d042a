"""Queues: squeue's table (``squeue -r -M all``: JOBID PARTITION NAME USER ST TIME NODES
NODELIST(REASON), plus START), for every cluster, sortable and filterable.

The cells come from the snapshot's job table through :func:`emulator.session.queue_cell`, which
prints them as squeue does; the rows are in squeue's order until a header is clicked. Sorting and
filtering are done here with numpy over the table's columns rather than by a
``QSortFilterProxyModel``: a proxy compares rows by calling back into Python for every
comparison, which took seconds for 10,000 queued jobs. Only the visible cells are ever
formatted.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import (
    QAbstractTableModel,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHeaderView, QLineEdit, QTableView, QVBoxLayout, QWidget

from emulator.session import (
    QUEUE_HEADERS,
    STATES,
    Snapshot,
    elapsed,
    queue_cell,
    queue_rows,
    where,
)
from gui import palette
from gui.selection import Selection

Index = QModelIndex | QPersistentModelIndex
_TEXT_COLUMNS = (0, 1, 2, 3, 7)  # searched by the filter box (with the cluster)


class QueueModel(QAbstractTableModel):
    """The rows of one snapshot: a numpy array of job-table rows in display order."""

    def __init__(self) -> None:
        super().__init__()
        self.snapshot: Snapshot | None = None
        self.multi = False
        self.rows: npt.NDArray[np.int64] = np.zeros(0, np.int64)
        self.sort_column = -1  # -1: squeue's own order
        self.descending = False
        self.filter_text = ""

    # --- Qt ------------------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else int(self.rows.size)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.headers)

    @property
    def headers(self) -> tuple[str, ...]:
        return ("CLUSTER", *QUEUE_HEADERS) if self.multi else QUEUE_HEADERS

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.headers[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        snapshot = self.snapshot
        if snapshot is None or not index.isValid():
            return None
        row = int(self.rows[index.row()])
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cell(row, column)
        jobs = snapshot.jobs
        if role == Qt.ItemDataRole.DecorationRole and column == 0:
            return QColor(*palette.colour(int(jobs.id[row])))
        if role == Qt.ItemDataRole.ToolTipRole:
            explanation = jobs.explanation[row]
            return f"{jobs.label[row]}: {explanation}" if explanation else None
        if role == Qt.ItemDataRole.TextAlignmentRole and self._squeue_column(column) in (0, 5, 6):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.sort_column = column
        self.descending = order == Qt.SortOrder.DescendingOrder
        self._reload()

    # --- ours ----------------------------------------------------------------------------------
    def _squeue_column(self, column: int) -> int:
        """Index in QUEUE_HEADERS (-1: CLUSTER)."""
        return column - 1 if self.multi else column

    def cell(self, row: int, column: int) -> str:
        snapshot = self.snapshot
        assert snapshot is not None
        squeue_column = self._squeue_column(column)
        if squeue_column < 0:
            return snapshot.clusters[int(snapshot.jobs.queue_cluster[row])].name
        return queue_cell(snapshot, row, squeue_column)

    def table(self) -> list[tuple[str, ...]]:
        """Every displayed row's cells (for tests and copying)."""
        return [
            tuple(self.cell(int(row), c) for c in range(len(self.headers)))
            for row in self.rows.tolist()
        ]

    def job_at(self, position: int) -> int:
        assert self.snapshot is not None
        return int(self.snapshot.jobs.id[int(self.rows[position])])

    def position_of(self, job_id: int) -> int | None:
        if self.snapshot is None:
            return None
        hits = np.flatnonzero(self.snapshot.jobs.id[self.rows] == job_id)
        return int(hits[0]) if hits.size else None

    def set_filter(self, text: str) -> None:
        self.filter_text = text.strip().lower()
        self._reload()

    def show_snapshot(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.multi = len(snapshot.clusters) > 1
        self._reload()

    def _reload(self) -> None:
        self.beginResetModel()
        self.rows = self._ordered()
        self.endResetModel()

    def _ordered(self) -> npt.NDArray[np.int64]:
        snapshot = self.snapshot
        if snapshot is None:
            return np.zeros(0, np.int64)
        rows = queue_rows(snapshot.jobs)
        if self.filter_text:
            needle = self.filter_text
            cells = [self._haystack(int(row)) for row in rows.tolist()]
            keep = np.array([needle in text for text in cells], bool)
            rows = rows[keep] if rows.size else rows
        if self.sort_column >= 0 and rows.size:
            keys = self._keys(rows, self._squeue_column(self.sort_column))
            order = np.argsort(keys, kind="stable")
            if self.descending:
                order = order[::-1]
            rows = rows[order]
        return rows

    def _haystack(self, row: int) -> str:
        snapshot = self.snapshot
        assert snapshot is not None
        jobs = snapshot.jobs
        cluster = snapshot.clusters[int(jobs.queue_cluster[row])].name
        state = STATES[int(jobs.state[row])].value
        return " ".join(
            (
                jobs.label[row],
                jobs.partition[row],
                jobs.name[row],
                jobs.user[row],
                state,
                where(snapshot, row),
                cluster,
            )
        ).lower()

    def _keys(self, rows: npt.NDArray[np.int64], column: int) -> npt.NDArray[Any]:
        snapshot = self.snapshot
        assert snapshot is not None
        jobs = snapshot.jobs
        if column == 0:
            return jobs.slurm_id[rows] * 1_000_000 + (jobs.id[rows] % 1_000_000)
        if column == 4:
            return np.array([STATES[int(c)].value for c in jobs.state[rows]], dtype=object)
        if column == 5:
            return np.array([elapsed(jobs, int(r), snapshot.now) for r in rows.tolist()])
        if column == 6:
            return jobs.node_count[rows]
        if column == 8:
            pending = jobs.state[rows] == jobs.code(STATES[0])
            start = np.where(pending, jobs.planned_start[rows], jobs.start[rows])
            return np.where(np.isnan(start), np.inf, start)
        if column < 0:
            return jobs.queue_cluster[rows]
        if column == 7:
            return np.array([where(snapshot, r) for r in rows.tolist()], dtype=object)
        source = {1: jobs.partition, 2: jobs.name, 3: jobs.user}[column]
        return np.array([source[r] for r in rows.tolist()], dtype=object)


class QueueView(QWidget):
    """The filter box and the table."""

    def __init__(self, selection: Selection) -> None:
        super().__init__()
        self.selection = selection
        self.model = QueueModel()
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("filter: job, name, user, state, node or reason")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._filter)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSortingEnabled(True)
        self.table.horizontalHeader().setSortIndicatorShown(True)
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(20)
        self.table.setAlternatingRowColors(True)
        self.table.clicked.connect(self._clicked)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.filter)
        layout.addWidget(self.table)
        self.table.horizontalHeader().setResizeContentsPrecision(100)  # look at 100 rows
        self.widest = 0  # longest name + node list the columns were last fitted to
        selection.changed.connect(self._select)

    def show_snapshot(self, snapshot: Snapshot) -> None:
        self.model.show_snapshot(snapshot)
        self._select(self.selection.job_id)
        # fit the columns to the first rows again when they hold longer text than before
        jobs, rows = snapshot.jobs, self.model.rows[:100].tolist()
        widest = max((len(jobs.name[r]) + len(where(snapshot, r)) for r in rows), default=0)
        if widest > self.widest:
            self.widest = widest
            self.table.resizeColumnsToContents()

    def _filter(self, text: str) -> None:
        self.model.set_filter(text)
        self._select(self.selection.job_id)

    def _clicked(self, index: QModelIndex) -> None:
        if index.isValid():
            self.selection.select(self.model.job_at(index.row()))

    def _select(self, job_id: int) -> None:
        position = self.model.position_of(job_id) if job_id >= 0 else None
        selection = self.table.selectionModel()
        if position is None:
            selection.clearSelection()
            return
        index = self.model.index(position, 0)
        selection.select(
            index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows,
        )
