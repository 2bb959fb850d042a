"""A job's context menu (right click on a queue row, a node or a Gantt rectangle): Cancel, Hold,
Release and Show details.

Each action is the Slurm command a user would type, ``scancel 12``, ``scontrol hold 12``,
``scontrol release 12``, ``scontrol show job 12`` (the id as squeue prints it, ``7_3`` for an
array task), run through the console as the console's user. So it succeeds, fails and prints
exactly as the CLI would: a root hold is an admin hold (``JobHeldAdmin``), a user's is
``JobHeldUser``, and another user's job is refused. The menu only offers what the job's state
allows, as read from the snapshot.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtGui import QAction, QFont
from PySide6.QtWidgets import QDialog, QMenu, QPlainTextEdit, QVBoxLayout, QWidget

from emulator.model.job import JobState, Reason
from emulator.session import CommandResult, Snapshot

HELD = frozenset({Reason.HELD_USER.value, Reason.HELD_ADMIN.value})
COMMANDS = {
    "Cancel": "scancel {}",
    "Hold": "scontrol hold {}",
    "Release": "scontrol release {}",
    "Show details": "scontrol show job {}",
}


@dataclass(frozen=True, slots=True)
class JobActions:
    """What the menu offers for one job."""

    label: str  # the job id as squeue prints it: what the commands name
    cancel: bool  # pending or running
    hold: bool  # pending and not held
    release: bool  # pending and held

    @classmethod
    def of(cls, snapshot: Snapshot, job_id: int) -> JobActions | None:
        """The actions for engine job ``job_id`` (None if the snapshot no longer has it)."""
        jobs = snapshot.jobs
        row = jobs.row(job_id)
        if row is None:
            return None
        state = jobs.state_of(row)
        pending = state is JobState.PENDING
        held = jobs.reason[row] in HELD
        return cls(jobs.label[row], not state.finished, pending and not held, pending and held)

    def command(self, action: str) -> str:
        """The command line of ``action`` (a key of :data:`COMMANDS`) for this job."""
        return COMMANDS[action].format(self.label)


class JobDetails(QDialog):
    """``scontrol show job``'s text in a window of its own (not modal)."""

    def __init__(self, label: str, text: str, parent: QWidget) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"job {label}")
        self.text = QPlainTextEdit(text)
        self.text.setReadOnly(True)
        self.text.setFont(QFont("monospace", 9))
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        self.resize(720, 420)


class JobMenu(QMenu):
    """The menu of one job. ``run`` runs a command line and returns its result (the window's
    console does, so the command and its output are shown there too)."""

    def __init__(
        self, actions: JobActions, run: Callable[[str], CommandResult], parent: QWidget
    ) -> None:
        super().__init__(f"job {actions.label}", parent)
        self.job = actions
        self.run = run
        self.details: JobDetails | None = None
        title = self.addAction(f"job {actions.label}")
        title.setEnabled(False)
        self.addSeparator()
        for name, allowed in (
            ("Cancel", actions.cancel),
            ("Hold", actions.hold),
            ("Release", actions.release),
        ):
            action = self.addAction(name)
            action.setEnabled(allowed)
            action.setData(actions.command(name))
        self.addSeparator()
        self.addAction("Show details").triggered.connect(self.show_details)
        self.triggered.connect(self._chosen)

    def action(self, name: str) -> QAction:
        """The action called ``name``."""
        return next(action for action in self.actions() if action.text() == name)

    def _chosen(self, action: QAction) -> None:
        line = action.data()
        if isinstance(line, str):
            self.run(line)

    def show_details(self) -> JobDetails:
        """Run ``scontrol show job`` and show what it printed in a window."""
        result = self.run(self.job.command("Show details"))
        parent = self.parentWidget()
        assert parent is not None
        self.details = JobDetails(self.job.label, result.stdout or result.stderr, parent)
        self.details.show()
        return self.details
