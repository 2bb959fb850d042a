"""Sites: the BPU paper's site table, live (issue 19; Kaur et al. 2013, "Scheduling Process",
Fig. 6): every site with its unallocated BPUs and their average over the site's processors, in
non-increasing order of that average, ties in the platform's order. The ``bpu`` policy picks
sites "fastest first" from this table, rebuilt after every allocation and completion; the view
redraws it from each snapshot, so it changes as jobs start and end. The first row is the site
the policy tries first for a job that does not stay at home.

A processor is a core rated ``speed / slowest speed of the platform`` BPUs
(:mod:`emulator.model.bpu`, the same ratings the engine and the policy use). The view computes
the table from the snapshot's free cores: the window sees the session API and the model only,
never a policy."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem

from emulator.model.bpu import allocated_bpus, bpu_ratings
from emulator.model.platform import Platform
from emulator.session import ClusterSnapshot, Snapshot

HEADERS = ("#", "site", "cores", "free cores", "free BPU", "avg free BPU")


@dataclass(frozen=True, slots=True)
class SiteRow:
    """One row of the table."""

    name: str
    cores: int
    free_cores: int
    free_bpus: float
    average: float


def site_rows(platform: Platform, clusters: tuple[ClusterSnapshot, ...]) -> list[SiteRow]:
    """The table: each site's free BPUs over its cores, by that average, non-increasing (a
    stable sort: ties keep the platform's order, as the policy's table does)."""
    ratings = bpu_ratings(platform)
    rows = []
    for cluster in clusters:
        nodes = range(cluster.first_node, cluster.first_node + len(cluster.node_names))
        free = [int(f) for f in cluster.free]
        cores = int(cluster.cores.sum())
        bpus = allocated_bpus(ratings, list(nodes), free)
        rows.append(SiteRow(cluster.name, cores, sum(free), bpus, bpus / cores if cores else 0.0))
    return sorted(rows, key=lambda row: -row.average)


class SitesView(QTableWidget):
    """The site table of ``platform``'s clusters."""

    def __init__(self, platform: Platform) -> None:
        super().__init__(0, len(HEADERS))
        self.platform = platform
        self.setHorizontalHeaderLabels(list(HEADERS))
        self.verticalHeader().setVisible(False)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.setToolTip(
            "the bpu policy's site table: free BPUs per processor, fastest first "
            "(its first row is tried first)"
        )
        self.rows: list[SiteRow] = []

    def show_snapshot(self, snapshot: Snapshot) -> None:
        rows = site_rows(self.platform, snapshot.clusters)
        if rows == self.rows:
            return
        self.rows = rows
        self.setRowCount(len(rows))
        for position, row in enumerate(rows):
            cells = (
                str(position + 1),
                row.name,
                str(row.cores),
                str(row.free_cores),
                f"{row.free_bpus:.2f}",
                f"{row.average:.2f}",
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if position == 0:
                    item.setBackground(QColor(60, 110, 60))
                    item.setForeground(QColor(255, 255, 255))
                self.setItem(position, column, item)

    def table(self) -> list[tuple[str, ...]]:
        """The cells shown, row by row (for tests and the teaching steps)."""
        cells = [
            [self.item(r, c) for c in range(self.columnCount())] for r in range(self.rowCount())
        ]
        return [tuple(item.text() if item else "" for item in row) for row in cells]
