"""The File menu: open a platform, a workload or a command file; export a view as a PNG, the
Gantt chart and the metrics as CSV; save the run's results; quit.

Opening starts a new daemon of the window's own (:mod:`emulator.child`) as ``batchlab gui
--platform/--workload/--commands`` does, and the daemon shown before stops (or, given with
``--socket``, is left running): a platform file gives an empty platform, a workload (SWF, SWF.gz,
BSP CSV) or a command file runs on the current platform file, always under the current scheduler.
A file that cannot be used is reported in a message box with the loader's own text, and the
current session stays as it was.

Results are ``jobs.csv`` and ``summary.json`` as ``batchlab replay`` writes them (the daemon
makes them: :meth:`RemoteSession.save_results <emulator.remote.RemoteSession.save_results>`).

The file dialogs only pick paths; the work is done by the methods that take paths
(:meth:`Files.open_platform`, ...), which the tests call.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFileDialog, QMessageBox

from emulator.api.registry import SpecError
from emulator.child import ChildError, Feed
from emulator.model.platform_file import PlatformError, load_platform
from gui import tables
from gui.scenario import Scenario

if TYPE_CHECKING:
    from gui.window import MainWindow

WORKLOADS = "Workloads (*.swf *.swf.gz *.csv);;All files (*)"


class Files:
    """The File menu of ``window``."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.message: QMessageBox | None = None  # the last error shown
        menu = window.menuBar().addMenu("&File")
        menu.addAction("Open platform…", self._ask_platform)
        menu.addAction("Open workload…", self._ask_workload)
        menu.addAction("Open command file…", self._ask_commands)
        menu.addSeparator()
        export = menu.addMenu("Export view as PNG")
        for title in window.docks:
            export.addAction(f"{title}…", partial(self._ask_export, title))
        for title, kind in (("Gantt", "gantt"), ("Metrics", "metrics")):
            menu.addAction(f"Export {title} as CSV…", partial(self._ask_csv, kind))
        menu.addAction("Save results…", self._ask_results)

    # --- the work ------------------------------------------------------------------------------
    def open_platform(self, path: Path) -> bool:
        """A new daemon on the platform file at ``path`` (no jobs yet)."""
        try:
            load_platform(path)  # its errors said here, as the loader words them
        except PlatformError as error:
            return self._error("Open platform", str(error))
        return self._open(path)

    def open_workload(self, path: Path) -> bool:
        """A new daemon on the current platform, fed the workload at ``path``."""
        return self._open(None, Feed(workload=path), path)

    def open_commands(self, path: Path) -> bool:
        """A new daemon on the current platform that has run the command file at ``path``."""
        return self._open(None, Feed(commands=path), path)

    def _open(
        self, platform_file: Path | None, feed: Feed | None = None, opened: Path | None = None
    ) -> bool:
        """The new daemon's session, shown; ``platform_file``: None for the current one."""
        window = self.window
        if platform_file is None:
            if window.scenario is None:
                return self._error(
                    "Open",
                    "the attached daemon's platform file is not known here: open a platform first",
                )
            platform_file = window.scenario.platform_file
        scenario = Scenario(platform_file, feed or Feed(), window.driver.speed)
        try:
            session = scenario.open(window.session.scheduler)
        except (SpecError, ChildError) as error:
            return self._error("Open", str(error))
        window.use_session(session, scenario)
        name = session.platform.name
        text = name if opened is None else f"{name} with {opened.name}"
        window.statusBar().showMessage(f"opened {text} under {session.scheduler}", 8000)
        return True

    def export_view(self, title: str, path: Path) -> bool:
        """Write the view in dock ``title`` (shown first if it was behind a tab) to ``path``
        as a PNG, as it is drawn now."""
        window = self.window
        dock = window.docks[title]
        dock.show()
        dock.raise_()
        window.refresh()  # draws every visible view, this one included
        widget = dock.widget()
        if widget is None or not widget.grab().save(str(path), "PNG"):
            return self._error("Export view", f"{path}: cannot write a PNG there")
        window.statusBar().showMessage(f"wrote {path}", 8000)
        return True

    def export_csv(self, kind: str, path: Path) -> bool:
        """Write the Gantt chart's rectangles (``kind`` "gantt") or the metrics samples
        ("metrics") as they are now to ``path`` as CSV (:mod:`gui.tables`)."""
        snapshot = self.window.session.snapshot()
        if kind == "gantt":
            header, rows = tables.GANTT_COLUMNS, tables.gantt_rows(snapshot)
        else:
            header, rows = tables.METRIC_COLUMNS, tables.metric_rows(snapshot)
        try:
            tables.write_csv(path, header, rows)
        except OSError as error:
            return self._error("Export CSV", f"{path}: {error.strerror or error}")
        self.window.statusBar().showMessage(f"wrote {path} ({len(rows)} rows)", 8000)
        return True

    def save_results(self, directory: Path) -> bool:
        """Write ``jobs.csv`` and ``summary.json`` of the jobs finished so far to ``directory``."""
        try:
            self.window.session.save_results(directory)
        except OSError as error:
            return self._error("Save results", f"{directory}: {error.strerror or error}")
        self.window.statusBar().showMessage(f"wrote {directory}/jobs.csv, summary.json", 8000)
        return True

    def _error(self, title: str, text: str) -> bool:
        """Show ``text`` in a message box over the window (not blocking); False."""
        box = QMessageBox(
            QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, self.window
        )
        box.open()
        self.message = box
        return False

    # --- the dialogs ---------------------------------------------------------------------------
    def _ask_platform(self) -> None:
        name, _ = QFileDialog.getOpenFileName(
            self.window, "Open platform", "", "Platforms (*.toml);;All files (*)"
        )
        if name:
            self.open_platform(Path(name))

    def _ask_workload(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self.window, "Open workload", "", WORKLOADS)
        if name:
            self.open_workload(Path(name))

    def _ask_commands(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self.window, "Open command file", "")
        if name:
            self.open_commands(Path(name))

    def _ask_export(self, title: str) -> None:
        suggested = f"{title.lower().replace(' ', '-')}.png"
        name, _ = QFileDialog.getSaveFileName(
            self.window, f"Export {title} as PNG", suggested, "PNG images (*.png)"
        )
        if name:
            self.export_view(title, Path(name))

    def _ask_csv(self, kind: str) -> None:
        name, _ = QFileDialog.getSaveFileName(
            self.window, f"Export {kind} as CSV", f"{kind}.csv", "CSV files (*.csv)"
        )
        if name:
            self.export_csv(kind, Path(name))

    def _ask_results(self) -> None:
        name = QFileDialog.getExistingDirectory(self.window, "Save jobs.csv and summary.json in")
        if name:
            self.save_results(Path(name))
