"""The event log: every decision the scheduler made, with its own explanation.

At most :data:`PER_REFRESH` lines are added per redraw: running flat out, the scheduler makes
thousands of decisions a second, more than anyone reads and than the view lays out cheaply.
A line then says how many decisions were left out."""

from __future__ import annotations

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QPlainTextEdit

from emulator.session import LogEntry, Snapshot
from emulator.slurm.timefmt import format_elapsed

LINES = 5000
PER_REFRESH = 100


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
        shown = new[-PER_REFRESH:]
        lines = [line(entry) for entry in shown]
        left_out = shown[0].seq - self.last - 1  # (also those the session no longer keeps)
        if left_out:
            lines.insert(0, f"{'':>11}  ... {left_out:,} decisions not shown")
        self.last = new[-1].seq
        self.appendPlainText("\n".join(lines))
