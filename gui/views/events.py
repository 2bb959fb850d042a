"""The event log: every decision the scheduler made, with its own explanation, at its clock
time; a filter box shows one job's decisions only.

At most :data:`PER_REFRESH` lines are added per redraw: running flat out, the scheduler makes
thousands of decisions a second, more than anyone reads and than the view lays out cheaply.
A line then says how many decisions were left out. The last :data:`LINES` decisions are kept,
so that a filter (or clearing it) shows them again at once."""

from __future__ import annotations

from collections import deque

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLineEdit, QPlainTextEdit, QVBoxLayout, QWidget

from emulator.session import LogEntry, Snapshot
from emulator.slurm.timefmt import format_timestamp

LINES = 5000
PER_REFRESH = 100


def line(entry: LogEntry, origin: float) -> str:
    """One decision: its clock time (month-day hour:minute:second, UTC), the policy, the kind,
    the job and the policy's explanation."""
    job = entry.label or "-"
    when = format_timestamp(entry.time, origin)[5:].replace("T", " ")
    return f"{when}  {entry.policy:<8} {entry.kind:<8} {job:>8}  {entry.text}"


class EventLog(QPlainTextEdit):
    def __init__(self) -> None:
        super().__init__()
        self.setReadOnly(True)
        self.setMaximumBlockCount(LINES)
        self.setFont(QFont("monospace", 9))
        self.last = 0  # seq of the last entry shown
        self.kept: deque[LogEntry] = deque(maxlen=LINES)
        self.origin = 0.0
        self.job = ""  # the filter: a job's id as squeue prints it ("" for all)

    def show_snapshot(self, snapshot: Snapshot) -> None:
        self.origin = snapshot.origin
        previous = self.last
        new = [entry for entry in snapshot.events if entry.seq > previous]
        if not new:
            return
        self.kept.extend(new)
        self.last = new[-1].seq
        if self.job:
            new = [entry for entry in new if self._shown(entry)]
            if not new:
                return
        shown = new[-PER_REFRESH:]
        lines = [line(entry, self.origin) for entry in shown]
        # (also those the session no longer keeps)
        left_out = 0 if self.job else shown[0].seq - previous - 1
        if left_out:
            lines.insert(0, f"{'':>14}  ... {left_out:,} decisions not shown")
        self.appendPlainText("\n".join(lines))

    def _shown(self, entry: LogEntry) -> bool:
        """Whether the filter lets ``entry`` through (a job's tasks: ``7`` shows ``7_3``)."""
        label = entry.label or ""
        return label == self.job or label.startswith(f"{self.job}_")

    def filter_job(self, job: str) -> None:
        """Show the decisions about job ``job`` only ("": all), from those kept."""
        self.job = job.strip()
        entries = [entry for entry in self.kept if not self.job or self._shown(entry)]
        self.setPlainText("\n".join(line(entry, self.origin) for entry in entries))


class EventPanel(QWidget):
    """The filter box over the log."""

    def __init__(self, log: EventLog) -> None:
        super().__init__()
        self.log = log
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("job id: its decisions only")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(log.filter_job)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.filter)
        layout.addWidget(log)

    def show_snapshot(self, snapshot: Snapshot) -> None:
        """What the window draws (a view like the others): the log's new decisions."""
        self.log.show_snapshot(snapshot)
