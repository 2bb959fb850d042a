"""The selected job, shared by every view: clicking a node, a Gantt bar or a queue row selects
that job everywhere; right-clicking one also asks for the job's context menu."""

from __future__ import annotations

from PySide6.QtCore import QObject, QPoint, Signal


class Selection(QObject):
    """Holds one engine job id (-1: none) and says when it changes."""

    changed = Signal(int)
    menu_requested = Signal(int, QPoint)  # a job's context menu, at a global (screen) position

    def __init__(self) -> None:
        super().__init__()
        self.job_id = -1

    def select(self, job_id: int) -> None:
        if job_id != self.job_id:
            self.job_id = job_id
            self.changed.emit(job_id)

    def request_menu(self, job_id: int, position: QPoint) -> None:
        """Select the job and ask for its context menu at ``position`` (global)."""
        self.select(job_id)
        self.menu_requested.emit(job_id, position)
