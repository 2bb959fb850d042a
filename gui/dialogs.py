"""The submit dialog: sbatch's options as fields, and the exact ``sbatch`` command line they make,
shown live as the fields change, so that students learn the command while they click.

Submit runs that line through the console (so it also appears there, as typed), exactly as the
CLI would: sbatch itself checks the options, and its output, "Submitted batch job 42" or its
error, is shown under the line. The dialog stays open for the next submission.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable

from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from emulator.model.platform import Platform
from emulator.session import CommandResult

Run = Callable[[str, str | None], CommandResult]  # (command line, stdin) -> what it printed
SCRIPT = "#!/bin/bash\nsleep 300\n"


class SubmitDialog(QDialog):
    """sbatch's fields for ``platform``'s partitions and clusters; ``run`` submits."""

    def __init__(self, platform: Platform, run: Run, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Submit a batch job (sbatch)")
        self.run = run
        self.last: CommandResult | None = None  # what the last submission printed
        form = QFormLayout()
        self.name = self._text(form, "job name (-J)", "wrap")
        self.partition = self._choice(
            form,
            "partition (-p)",
            dict.fromkeys(p.name for c in platform.clusters for p in c.partitions),
        )
        clusters = [c.name for c in platform.clusters]
        self.clusters = self._choice(
            form, "cluster(s) (-M)", clusters + (["all"] if len(clusters) > 1 else [])
        )
        self.nodes = self._count(form, "nodes (-N)")
        self.tasks = self._count(form, "tasks (-n)")
        self.cpus = self._count(form, "CPUs per task (-c)")
        self.time = self._text(form, "time limit (-t)", "minutes, or [D-]HH:MM:SS", "10")
        self.begin = self._text(form, "begin (--begin)", "now+60, 16:00, 2026-11-22T10:00")
        self.dependency = self._text(form, "dependency (-d)", "afterok:12, singleton")
        self.array = self._text(form, "array (-a)", "1-10, 1-10%2, 1,3,5")
        self.runtime = self._text(
            form, "emulated runtime (--emulate-runtime)", "batchlab: how long it really runs"
        )
        self.use_wrap = QRadioButton("command (--wrap)")
        self.use_script = QRadioButton("script")
        self.kinds = QButtonGroup(self)
        self.kinds.addButton(self.use_wrap)
        self.kinds.addButton(self.use_script)
        self.use_wrap.setChecked(True)
        kind = QHBoxLayout()
        kind.addWidget(self.use_wrap)
        kind.addWidget(self.use_script)
        kind.addStretch()
        form.addRow("what runs", kind)
        self.wrap = self._text(form, "command", "sleep 300", "sleep 300")
        self.script = QPlainTextEdit(SCRIPT)
        self.script.setFont(QFont("monospace", 9))
        self.script.setMaximumHeight(110)
        self.script.textChanged.connect(self._changed)
        form.addRow("script", self.script)
        self.use_wrap.toggled.connect(self._changed)

        self.line = QPlainTextEdit()  # the command, as one would type it
        self.line.setReadOnly(True)
        self.line.setFont(QFont("monospace", 10))
        self.line.setMaximumHeight(90)
        self.output = QLabel()
        self.output.setFont(QFont("monospace", 9))
        self.output.setWordWrap(True)
        buttons = QDialogButtonBox()
        self.submit_button = QPushButton("Submit")
        self.submit_button.setDefault(True)
        buttons.addButton(self.submit_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.submit_button.clicked.connect(self.submit)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(QLabel("the command:"))
        layout.addWidget(self.line)
        layout.addWidget(self.output)
        layout.addWidget(buttons)
        self._changed()

    # --- fields --------------------------------------------------------------------------------
    def _text(self, form: QFormLayout, label: str, hint: str, value: str = "") -> QLineEdit:
        edit = QLineEdit(value)
        edit.setPlaceholderText(hint)
        edit.textChanged.connect(self._changed)
        form.addRow(label, edit)
        return edit

    def _choice(self, form: QFormLayout, label: str, names: Iterable[str]) -> QComboBox:
        box = QComboBox()
        box.setEditable(True)  # any value: sbatch judges it
        box.addItems(["", *names])
        box.currentTextChanged.connect(self._changed)
        form.addRow(label, box)
        return box

    def _count(self, form: QFormLayout, label: str) -> QSpinBox:
        spin = QSpinBox()
        spin.setRange(0, 1_000_000)
        spin.setSpecialValueText("(not given)")  # 0: sbatch's default
        spin.valueChanged.connect(self._changed)
        form.addRow(label, spin)
        return spin

    # --- the command ---------------------------------------------------------------------------
    def argv(self) -> list[str]:
        """sbatch's arguments from the fields (empty fields are left out)."""
        given = (
            ("-J", self.name.text()),
            ("-p", self.partition.currentText()),
            ("-M", self.clusters.currentText()),
            ("-N", _count(self.nodes)),
            ("-n", _count(self.tasks)),
            ("-c", _count(self.cpus)),
            ("-t", self.time.text()),
            ("--begin", self.begin.text()),
            ("-d", self.dependency.text()),
            ("-a", self.array.text()),
            ("--emulate-runtime", self.runtime.text()),
        )
        args = ["sbatch"]
        for flag, value in given:
            if value.strip():
                args += [flag, value.strip()]
        if self.use_wrap.isChecked():
            args += ["--wrap", self.wrap.text()]
        return args

    def command_line(self) -> str:
        """The line run: shell-quoted, so the console parses back exactly :meth:`argv`."""
        return shlex.join(self.argv())

    def stdin(self) -> str | None:
        """The script (sbatch reads it from standard input), or None for --wrap."""
        if self.use_wrap.isChecked():
            return None
        text = self.script.toPlainText()
        return text if text.endswith("\n") else text + "\n"

    def shown(self) -> str:
        """The command as one types it in a shell: the script as a here-document."""
        script = self.stdin()
        line = self.command_line()
        return line if script is None else f"{line} <<'EOF'\n{script}EOF"

    def _changed(self, *_: object) -> None:
        wrap = self.use_wrap.isChecked()
        self.wrap.setEnabled(wrap)
        self.script.setEnabled(not wrap)
        self.line.setPlainText(self.shown())

    def submit(self) -> CommandResult:
        """Run the command; show what sbatch printed (an error in red)."""
        result = self.run(self.command_line(), self.stdin())
        self.last = result
        text = (result.stdout + result.stderr).strip()
        self.output.setStyleSheet("" if result.exit_code == 0 else "color: #e05050;")
        self.output.setText(text or f"exit {result.exit_code}")
        return result


def _count(spin: QSpinBox) -> str:
    return str(spin.value()) if spin.value() else ""  # 0: not given
