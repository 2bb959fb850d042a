"""The event log: every decision the scheduler made, with its own explanation."""

from __future__ import annotations

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QPlainTextEdit

from emulator.session import LogEntry, Snapshot
from emulator.slurm.timefmt import format_elapsed

LINES = 5000


def line(entry: LogEntry) -> str:
    job = entry.label or "-"
    when = format_elapsed(entry.time)
    return f"{when:>11}  {entry.policy:<8} {entry.kind:<8} {job:>8}  {entry.text}"


class EventLog(QPlainTextEdit):
    def __init__(self) -> None:
        super().__init__()
        self.setReadOnly(True)
        self.setMaximumBlockCount(LINES)
        self.setFont(QFont("monospace", 9))
        self.last = 0  # seq of the last entry shown

    def show_snapshot(self, snapshot: Snapshot) -> None:
        new = [entry for entry in snapshot.events if entry.seq > self.last]
        if not new:
            return
        self.last = new[-1].seq
        self.appendPlainText("\n".join(line(entry) for entry in new[-LINES:]))
