"""The selected job, shared by every view: clicking a node, a Gantt bar or a queue row selects
that job everywhere."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal


class Selection(QObject):
    """Holds one engine job id (-1: none) and says when it changes."""

    changed = Signal(int)

    def __init__(self) -> None:
        super().__init__()
        self.job_id = -1

    def select(self, job_id: int) -> None:
        if job_id != self.job_id:
            self.job_id = job_id
            self.changed.emit(job_id)
