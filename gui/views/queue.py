"""Queues: squeue's table (``squeue -r -M all``: JOBID PARTITION NAME USER ST TIME NODES
NODELIST(REASON), plus START), for every cluster, sortable and filterable.

The cells come from the snapshot's job table through :func:`emulator.session.queue_cell`, which
prints them as squeue does; the rows are in squeue's order until a header is clicked. Sorting and
filtering are done here with numpy over the table's columns rather than by a
``QSortFilterProxyModel``: a proxy compares rows by calling back into Python for every
comparison, which took seconds for 10,000 queued jobs. Only the visible cells are ever
formatted, once per snapshot (a cell is asked for several times per paint, once per role).
A right click on a row opens that job's menu.

A new snapshot does not reset the model (a reset makes the view rebuild its 10,000 row headers
and forget its scroll position): rows are inserted or removed at the end to match the new count,
and one ``dataChanged`` over the whole table repaints the visible cells.
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
    QPoint,
    Qt,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QHeaderView,
    QLineEdit,
    QMenu,
    QStyle,
    QTableView,
    QVBoxLayout,
    QWidget,
)

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
DEFAULT_COLUMNS = ("JOBID", "NAME", "USER", "ST", "TIME", "NODELIST(REASON)")  # shown at first
_TEXT_COLUMNS = (0, 1, 2, 3, 7)  # searched by the filter box (with the cluster)
# the roles data() answers, as the plain ints Qt passes (an enum lookup per call costs)
_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_DECORATION = int(Qt.ItemDataRole.DecorationRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
_ALIGNMENT = int(Qt.ItemDataRole.TextAlignmentRole)
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


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
        self.cells: dict[int, tuple[str, ...]] = {}  # display position -> its cells, formatted
        self._colours: tuple[object, list[QColor]] = (None, [])  # palette -> a QColor per entry

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

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        """Called several times per visible cell and paint (once per role Qt asks about): the
        roles answered are tested first, and a row's cells are formatted once per snapshot."""
        if role == _DISPLAY:
            return self.row_cells(index.row())[index.column()]
        if role == _ALIGNMENT:
            return _RIGHT if self._squeue_column(index.column()) in (0, 5, 6) else None
        if role == _DECORATION:
            return self._colour(index.row()) if index.column() == 0 else None
        if role == _TOOLTIP and self.snapshot is not None:
            jobs, row = self.snapshot.jobs, int(self.rows[index.row()])
            explanation = jobs.explanation[row]
            return f"{jobs.label[row]}: {explanation}" if explanation else None
        return None

    def _colour(self, position: int) -> QColor:
        """The job's palette colour, as one of a QColor per palette entry (made once)."""
        assert self.snapshot is not None
        current, colours = self._colours
        if current is not palette.PALETTE:
            colours = [QColor(*(int(v) for v in entry[:3])) for entry in palette.PALETTE]
            self._colours = (palette.PALETTE, colours)
        job_id = int(self.snapshot.jobs.id[int(self.rows[position])])
        return colours[int(palette.index([job_id])[0])]

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.sort_column = column
        self.descending = order == Qt.SortOrder.DescendingOrder
        self._reload()

    # --- ours ----------------------------------------------------------------------------------
    def _squeue_column(self, column: int) -> int:
        """Index in QUEUE_HEADERS (-1: CLUSTER)."""
        return column - 1 if self.multi else column

    def row_cells(self, position: int) -> tuple[str, ...]:
        """The cells of the row displayed at ``position``, as squeue prints them (formatted
        once per snapshot)."""
        cells = self.cells.get(position)
        if cells is not None:
            return cells
        snapshot = self.snapshot
        assert snapshot is not None
        row = int(self.rows[position])
        cells = tuple(queue_cell(snapshot, row, column) for column in range(len(QUEUE_HEADERS)))
        if self.multi:
            cells = (snapshot.clusters[int(snapshot.jobs.queue_cluster[row])].name, *cells)
        self.cells[position] = cells
        return cells

    def table(self) -> list[tuple[str, ...]]:
        """Every displayed row's cells (for tests and copying)."""
        return [self.row_cells(position) for position in range(int(self.rows.size))]

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
        multi = len(snapshot.clusters) > 1
        if self.snapshot is None or multi != self.multi:  # other columns: a reset
            self.beginResetModel()
            self.snapshot, self.multi = snapshot, multi
            self.rows = self._ordered()
            self.cells.clear()
            self.endResetModel()
            return
        self.snapshot = snapshot
        self._reload()

    def _reload(self) -> None:
        """Show the snapshot's rows: the count adjusted at the end, every visible cell redrawn
        (cheaper for Qt than a reset, which forgets the scroll position too)."""
        rows = self._ordered()
        old, new = int(self.rows.size), int(rows.size)
        self.cells.clear()
        if new > old:
            self.beginInsertRows(QModelIndex(), old, new - 1)
            self.rows = rows
            self.endInsertRows()
        elif new < old:
            self.beginRemoveRows(QModelIndex(), new, old - 1)
            self.rows = rows
            self.endRemoveRows()
        self.rows = rows
        if new:
            self.dataChanged.emit(self.index(0, 0), self.index(new - 1, self.columnCount() - 1))

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
        # no room kept for a sort arrow in every header until a click sorts (then Qt shows it)
        self.table.horizontalHeader().setSortIndicatorShown(False)
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(20)
        self.table.setAlternatingRowColors(True)
        self.table.clicked.connect(self._clicked)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)  # the reason takes the room left
        header.setDefaultSectionSize(40)  # then each widened to its texts (_fit_columns)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._columns_menu)
        self.shown_columns = set(DEFAULT_COLUMNS)  # by header; the others are one click away
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.filter)
        layout.addWidget(self.table)
        self.longest: list[int] = []  # per column, the longest text it was fitted to
        selection.changed.connect(self._select)

    def show_snapshot(self, snapshot: Snapshot) -> None:
        columns = self.model.columnCount()
        self.model.show_snapshot(snapshot)
        if self.model.columnCount() != columns:  # the first snapshot, or a cluster column
            self._hide_columns()
        self._select(self.selection.job_id)
        self._fit_columns()

    def _fit_columns(self) -> None:
        """Widen each column whose visible rows hold a longer text than it was fitted to.
        Measured here from the cells the paint formats anyway: Qt's ``resizeColumnsToContents``
        asks the model for every role of 100 rows per column (about 0.1 s per call)."""
        model = self.model
        columns = model.columnCount()
        if len(self.longest) != columns:
            self.longest = [0] * columns
        count = int(model.rows.size)
        if not count:
            return
        first = max(0, self.table.rowAt(0))
        last = self.table.rowAt(self.table.viewport().height() - 1)
        last = count - 1 if last < 0 else last
        header = self.table.horizontalHeader()
        metrics = self.table.fontMetrics()
        rows = [model.row_cells(position) for position in range(first, last + 1)]
        for column in range(columns):
            text = max((cells[column] for cells in rows), key=len)
            if len(text) <= self.longest[column]:
                continue
            self.longest[column] = len(text)
            width = metrics.horizontalAdvance(text) + 16  # the cell's margins
            if column == 0:  # the job's colour before the id
                width += self.table.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize) + 4
            width = max(width, header.sectionSizeHint(column))
            if width > header.sectionSize(column):
                header.resizeSection(column, width)

    def _hide_columns(self) -> None:
        header = self.table.horizontalHeader()
        for column, title in enumerate(self.model.headers):
            header.setSectionHidden(column, title not in self.shown_columns)

    def show_column(self, title: str, shown: bool) -> None:
        """Show or hide the column ``title`` (the header's right-click menu)."""
        if shown:
            self.shown_columns.add(title)
        else:
            self.shown_columns.discard(title)
        self._hide_columns()

    def _columns_menu(self, position: QPoint) -> None:
        """The header's right-click menu: a check box per column."""
        menu = QMenu(self)
        for title in self.model.headers:
            action = menu.addAction(title)
            action.setCheckable(True)
            action.setChecked(title in self.shown_columns)
            action.toggled.connect(lambda on, title=title: self.show_column(title, on))
        menu.popup(self.table.horizontalHeader().mapToGlobal(position))

    def _filter(self, text: str) -> None:
        self.model.set_filter(text)
        self._select(self.selection.job_id)

    def _clicked(self, index: QModelIndex) -> None:
        if index.isValid():
            self.selection.select(self.model.job_at(index.row()))

    def _context_menu(self, position: QPoint) -> None:
        """A right click on a row: that job's menu (``position`` is in the viewport)."""
        index = self.table.indexAt(position)
        if index.isValid():
            job_id = self.model.job_at(index.row())
            self.selection.request_menu(job_id, self.table.viewport().mapToGlobal(position))

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
