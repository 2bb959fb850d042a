"""The command console: type ``sbatch …``, ``squeue …`` (or ``sleep 60``, ``as alice``), read
exactly what the CLI prints, as ``batchlab run`` shows it: ``$ command``, stdout, stderr, and
``[exit N]`` when the status is not 0."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QKeyEvent
from PySide6.QtWidgets import QLineEdit, QPlainTextEdit, QVBoxLayout, QWidget

from emulator.remote import RemoteSession
from emulator.session import CommandResult


class _Input(QLineEdit):
    """A line edit with a history on the up and down keys."""

    def __init__(self) -> None:
        super().__init__()
        self.history: list[str] = []
        self.position = 0

    def remember(self, line: str) -> None:
        if line and (not self.history or self.history[-1] != line):
            self.history.append(line)
        self.position = len(self.history)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key in (Qt.Key.Key_Up, Qt.Key.Key_Down) and self.history:
            step = -1 if key == Qt.Key.Key_Up else 1
            self.position = max(0, min(len(self.history), self.position + step))
            self.setText(self.history[self.position] if self.position < len(self.history) else "")
            return
        super().keyPressEvent(event)


class Console(QWidget):
    def __init__(self, session: RemoteSession, changed: Callable[[], None]) -> None:
        super().__init__()
        self.session = session
        self.changed = changed
        self.seen = 0  # session.transcript_count already shown
        self.output = QPlainTextEdit()
        self.output.setReadOnly(True)
        self.output.setFont(QFont("monospace", 9))
        self.output.setMaximumBlockCount(20000)
        self.input = _Input()
        self.input.setFont(QFont("monospace", 9))
        self.input.setPlaceholderText('sbatch -n 4 -t 10 --wrap "sleep 300"  |  squeue  |  as bob')
        self.input.returnPressed.connect(self.run_input)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.output)
        layout.addWidget(self.input)

    def run_input(self) -> None:
        line = self.input.text()
        self.input.clear()
        self.input.remember(line)
        if line.strip():
            self.run(line)

    def run(self, line: str, stdin: str | None = None) -> CommandResult:
        """Run a command line (with ``stdin``: sbatch's script) and show it and its output."""
        result = self.session.command(line, stdin=stdin)
        self.catch_up()
        self.changed()
        return result

    def catch_up(self) -> None:
        """Show the commands the session ran since the last call (typed here or elsewhere)."""
        session = self.session
        new = min(session.transcript_count - self.seen, len(session.transcript))
        if new > 0:
            self.write("".join(list(session.transcript)[-new:]))
        self.seen = session.transcript_count

    def write(self, text: str) -> None:
        self.output.moveCursor(self.output.textCursor().MoveOperation.End)
        self.output.insertPlainText(text)
        self.output.ensureCursorVisible()
