"""The main window: controls on a tool bar, the views as dock widgets, one timer.

The emulator runs in a daemon (``batchlab gui``'s own, :mod:`emulator.child`, or one given with
``--socket``), seen through its :class:`~emulator.remote.RemoteSession`; the
:class:`~gui.driver.Driver` steers its clock. Every tick of the timer redraws what
:class:`~gui.frames.Frames` says is due: at most 30 times a second, from the latest state, each
visible view at most at its rate in :data:`RATES` and only if the snapshot changed since it drew.
The nodes alone (most frames) are drawn from :meth:`RemoteSession.nodes_snapshot`, the other
views from a full snapshot. After a command or a step every view is redrawn at once.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction, QKeySequence, QShowEvent
from PySide6.QtWidgets import QComboBox, QDockWidget, QLabel, QMainWindow, QToolBar, QWidget

from emulator.api.registry import SpecError
from emulator.remote import RemoteSession
from emulator.session import CommandResult, Pacer, Snapshot, where
from gui import presentation
from gui.clock_window import ClockWindow, fit_to_screen
from gui.dialogs import SubmitDialog
from gui.driver import Driver
from gui.files import Files
from gui.frames import Frames
from gui.help import add_help_menu, add_quit
from gui.job_menu import JobActions, JobMenu
from gui.scenario import Scenario
from gui.selection import Selection
from gui.views.console import Console
from gui.views.events import EventLog, EventPanel
from gui.views.gantt import GanttView
from gui.views.links import LinksView
from gui.views.metrics import MetricsView
from gui.views.moves import MoveLog, MovesView
from gui.views.nodes import NodesView
from gui.views.queue import QueueView
from gui.views.routes import RoutesView
from gui.views.sites import SitesView

# redraws per second of each view, at most: the nodes in every frame, the others far less often
# (each of them, drawn from a full snapshot, costs several times the nodes alone)
RATES = {
    "Nodes": 30.0,
    "Gantt": 1.0,
    "Metrics": 0.5,
    "Links": 0.5,
    "Sites": 0.5,
    "Moves": 1.0,
    "Routes": 1.0,
    "Event log": 1.0,
    "Queues": 0.5,
}
PRESENTED_SHARES = (2, 3)  # heights of the Queues and Metrics docks in presentation mode
CLOCK_PERIOD = 0.25  # wall seconds between two updates of the clock in frames of the nodes alone


class MainWindow(ClockWindow):
    """One daemon's window. ``scenario`` is what the daemon runs, if the window started it
    (File > Open and View > Compare schedulers… start new daemons from it); ``pacer`` is
    injectable (tests drive its clock)."""

    def __init__(
        self,
        session: RemoteSession,
        *,
        pacer: Pacer | None = None,
        playing: bool = False,
        scenario: Scenario | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.scenario = scenario
        self.comparisons: list[QMainWindow] = []  # the comparison windows it opened
        self.driver = Driver((session,), pacer)  # the daemon's clock rules
        self.driver.stop_when_idle = scenario is not None  # its own daemon, not one attached to
        self.snapshot: Snapshot | None = None
        self.schedule = Frames(self.driver.pacer.wall, RATES)
        # redraws that showed state not shown before (for the benchmark): the versions of the
        # nodes and of the full snapshot last drawn
        self.frames = 0
        self._shown: tuple[int, int] = (-1, -1)
        self.setWindowTitle(f"batchlab — {session.platform.name}")
        fit_to_screen(self, 1600, 1000)

        self.job_menu: JobMenu | None = None  # the last job context menu
        self.submit_window: SubmitDialog | None = None
        self._make_views()
        self.setDockNestingEnabled(True)
        self.docks: dict[str, QDockWidget] = {}
        self._dock("Nodes", self.nodes, Qt.DockWidgetArea.LeftDockWidgetArea)
        self._dock("Gantt", self.gantt, Qt.DockWidgetArea.LeftDockWidgetArea)
        self._dock("Queues", self.queue, Qt.DockWidgetArea.RightDockWidgetArea)
        self._dock("Metrics", self.metrics, Qt.DockWidgetArea.RightDockWidgetArea)
        self._dock("Links", self.links, Qt.DockWidgetArea.RightDockWidgetArea)
        self._dock("Sites", self.sites, Qt.DockWidgetArea.RightDockWidgetArea)
        self._dock("Moves", self.moves, Qt.DockWidgetArea.BottomDockWidgetArea)
        self._dock("Routes", self.routes, Qt.DockWidgetArea.BottomDockWidgetArea)
        self._dock("Event log", self.event_panel, Qt.DockWidgetArea.BottomDockWidgetArea)
        self._dock("Console", self.console, Qt.DockWidgetArea.BottomDockWidgetArea)
        self._tab_when_shown(
            (self.docks["Metrics"], self.docks["Links"]),
            (self.docks["Metrics"], self.docks["Sites"]),
            (self.docks["Console"], self.docks["Event log"]),
            (self.docks["Console"], self.docks["Moves"]),
            (self.docks["Console"], self.docks["Routes"]),
        )
        width, height = self.width(), self.height()  # (fitted to the screen)
        docks = self.docks
        self.resizeDocks(
            [docks["Nodes"], docks["Queues"]], [width, width], Qt.Orientation.Horizontal
        )
        self.resizeDocks([docks["Nodes"], docks["Gantt"]], [1, 1], Qt.Orientation.Vertical)
        self.resizeDocks([docks["Queues"], docks["Metrics"]], [1, 1], Qt.Orientation.Vertical)
        self.resizeDocks([docks["Console"]], [height // 5], Qt.Orientation.Vertical)
        self.files = Files(self)  # the File menu
        self._toolbar()
        self._jobs_menu()
        self._view_menu()
        self.console.catch_up()
        self._start_timer(playing)
        self.refresh()
        if presentation.mode().on:  # opened from a window in presentation mode
            self._presented(True)

    # --- building ------------------------------------------------------------------------------
    def _make_views(self) -> None:
        """The views of :attr:`session`, and the job selection they share."""
        self.selection = Selection()
        self.selection.changed.connect(self._selected)
        self.selection.menu_requested.connect(self._job_menu)
        self.nodes = NodesView(self.selection)
        self.move_log = MoveLog()  # (the Moves view and the Gantt chart's marks)
        self.gantt = GanttView(self.selection, self.move_log)
        self.links = LinksView()
        self.queue = QueueView(self.selection)
        self.metrics = MetricsView()
        self.events = EventLog()
        self.event_panel = EventPanel(self.events)  # the log under its filter box
        self.sites = SitesView(self.session.platform)
        self.moves = MovesView(self.move_log)
        self.routes = RoutesView(self.selection)
        self.console = Console(self.session, self.refresh)

    def use_session(self, session: RemoteSession, scenario: Scenario | None = None) -> None:
        """Show ``session`` instead (File > Open...): paused, with new views in the same docks;
        the layout and presentation mode stay. ``scenario`` is what its daemon runs. The
        session shown before is closed (a child daemon stops)."""
        self.pause()
        self.session.close()
        self.session = session
        self.scenario = scenario
        self.compare_action.setEnabled(scenario is not None)
        self.driver = Driver((session,), self.driver.pacer)
        self.driver.stop_when_idle = scenario is not None
        self.schedule = Frames(self.driver.pacer.wall, RATES)  # every view draws afresh
        old = {title: dock.widget() for title, dock in self.docks.items()}
        self._make_views()
        views = {
            "Nodes": self.nodes,
            "Gantt": self.gantt,
            "Queues": self.queue,
            "Metrics": self.metrics,
            "Links": self.links,
            "Sites": self.sites,
            "Moves": self.moves,
            "Routes": self.routes,
            "Event log": self.event_panel,
            "Console": self.console,
        }
        for title, view in views.items():
            self.docks[title].setWidget(view)
            old[title].deleteLater()
        if self.submit_window is not None:  # its partitions and clusters were the old platform's
            self.submit_window.close()
            self.submit_window.deleteLater()
            self.submit_window = None
        self.setWindowTitle(f"batchlab — {session.platform.name}")
        self.chooser.setCurrentText(session.scheduler)
        self.snapshot = None
        self.console.catch_up()
        self.refresh()
        if presentation.mode().on:
            self._presented(True)

    def _jobs_menu(self) -> None:
        menu = self.menuBar().addMenu("&Jobs")
        self.submit_action = QAction("Submit…", self)
        self.submit_action.setShortcut(QKeySequence("Ctrl+B"))
        self.submit_action.setToolTip("sbatch's options as fields, and the command they make")
        self.submit_action.triggered.connect(self.submit_dialog)
        menu.addAction(self.submit_action)
        bar = self.findChild(QToolBar, "Controls")
        if bar is not None:  # after Step (the last there)
            bar.addAction(self.submit_action)

    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> None:
        dock = QDockWidget(title, self)
        dock.setObjectName(title)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        self.docks[title] = dock

    def _toolbar(self) -> None:
        self._controls()
        bar = self.speed_bar  # (the clock's row is full on a projector)
        bar.addSeparator()
        bar.addWidget(QLabel(" scheduler "))
        self.chooser = QComboBox()
        self.chooser.setEditable(True)  # a spec with options: cbf, coalloc:order=sjf, ...
        self.chooser.setMinimumWidth(180)
        for name, doc in self.session.schedulers().items():
            self.chooser.addItem(name)
            self.chooser.setItemData(self.chooser.count() - 1, doc, Qt.ItemDataRole.ToolTipRole)
        self.chooser.setCurrentText(self.session.scheduler)
        self.chooser.activated.connect(lambda _: self.choose(self.chooser.currentText()))
        editor = self.chooser.lineEdit()
        if editor is not None:
            editor.returnPressed.connect(lambda: self.choose(self.chooser.currentText()))
        bar.addWidget(self.chooser)
        self.clock_shown = -math.inf  # wall time of the clock's last update

    def _view_menu(self) -> None:
        menu = self.menuBar().addMenu("&View")
        self.presentation_action = presentation.action(self)
        self._follow_presentation()
        menu.addAction(self.presentation_action)
        self.compare_action = QAction("Compare schedulers…", self)
        self.compare_action.setToolTip("this platform and workload under two schedulers, in step")
        self.compare_action.setEnabled(self.scenario is not None)
        self.compare_action.triggered.connect(self.compare)
        menu.addAction(self.compare_action)
        menu.addSeparator()
        for dock in self.docks.values():  # a closed dock comes back from here
            menu.addAction(dock.toggleViewAction())
        self.help_action = add_help_menu(self)
        self.quit_action = add_quit(self)

    # --- controls ------------------------------------------------------------------------------
    def run_command(self, line: str, stdin: str | None = None) -> CommandResult:
        """Run a command line as typed in the console (shown there, views refreshed); a failure
        also goes to the status bar."""
        result = self.console.run(line, stdin)
        if result.exit_code:
            error = (result.stderr or result.stdout).strip().splitlines()
            self.statusBar().showMessage(f"{line.split()[0]}: {error[0] if error else ''}", 8000)
        return result

    def _job_menu(self, job_id: int, position: QPoint) -> None:
        actions = JobActions.of(self.session.snapshot(), job_id)
        if actions is not None:
            self.job_menu = JobMenu(actions, self.run_command, self)
            self.job_menu.popup(position)

    def submit_dialog(self) -> SubmitDialog:
        """Open the submit dialog (one at a time, not modal)."""
        if self.submit_window is None:
            self.submit_window = SubmitDialog(self.session.platform, self.run_command, self)
        self.submit_window.show()
        self.submit_window.raise_()
        return self.submit_window

    def _played(self) -> None:
        self._show_clock()

    def choose(self, spec: str) -> bool:
        """Switch the scheduler (from the next pass); False, with a message, if invalid."""
        try:
            self.session.set_scheduler(spec.strip())
        except SpecError as error:
            self.statusBar().showMessage(f"scheduler: {error}", 8000)
            self.chooser.setCurrentText(self.session.scheduler)
            return False
        self.chooser.setCurrentText(self.session.scheduler)
        self.statusBar().showMessage(f"scheduler {self.session.scheduler} from the next pass", 5000)
        self.refresh()
        return True

    # --- the loop ------------------------------------------------------------------------------
    def _visible(self) -> set[str]:
        """The views worth drawing: those on screen, not behind another dock's tab (such a
        dock is "visible" to Qt). The event log too: shown again, it adds the latest
        decisions and says how many it left out, as it does running flat out."""
        return {title for title in RATES if not self.docks[title].visibleRegion().isEmpty()}

    def refresh(self, views: Collection[str] | None = None) -> None:
        """Redraw ``views`` (dock titles) from a new snapshot; by default every view on screen
        and the queue table (after a command, a step, a scheduler switch). The nodes alone
        (most frames) are drawn from :meth:`RemoteSession.nodes_snapshot` (the nodes alone
        come over the socket), without the job table a full snapshot copies."""
        if views is not None and set(views) == {"Nodes"}:
            self.nodes.show_clusters(self.session.nodes_snapshot())
            self._shown_now(self.session.held_version, self._shown[1])
            # (each new text repaints the tool bar, for digits none can read)
            if self.driver.pacer.wall() - self.clock_shown >= CLOCK_PERIOD:
                self._show_clock()
            return
        snapshot = self.session.snapshot()
        self.snapshot = snapshot
        self.move_log.read(snapshot)  # (every move, whichever views are on screen)
        if views is None:
            views = self._visible() | {"Queues", "Moves", "Routes"}  # (every move and route)
            self.schedule.drawn(self._version(), views)
        # (the nodes drawn here are the snapshot's: new only if the snapshot is)
        self._shown_now(self._shown[0], snapshot.version)
        for title, view in (
            ("Nodes", self.nodes),
            ("Gantt", self.gantt),
            ("Links", self.links),
            ("Sites", self.sites),
            ("Moves", self.moves),
            ("Routes", self.routes),
            ("Metrics", self.metrics),
            ("Event log", self.event_panel),
            ("Queues", self.queue),
        ):
            if title in views:
                view.show_snapshot(snapshot)
        self._show_clock()

    def _shown_now(self, nodes_version: int, snapshot_version: int) -> None:
        """A redraw showed these versions: a frame if either is one not shown before (a view
        drawn again from the same state, on a tick, a resize or a command, is none)."""
        if (nodes_version, snapshot_version) != self._shown:
            self.frames += 1
            self._shown = (nodes_version, snapshot_version)

    def _show_clock(self) -> None:
        session = self.session
        mode = self.driver.pacer.mode
        if session.idle:
            mode += ", idle"
        if self.driver.behind and not math.isinf(self.driver.speed):
            mode += ", behind"
        self.clock_shown = self.driver.pacer.wall()
        self.show_time(session.now, session.origin, mode)

    def compare(self) -> None:
        """Ask for two schedulers, then open a comparison window running this window's scenario
        under both from the start."""
        from gui.compare import ask_and_compare

        assert self.scenario is not None
        window = ask_and_compare(self, self.scenario, self.session.scheduler, self.driver.speed)
        if window is not None:
            self.comparisons.append(window)

    def _presented(self, on: bool) -> None:
        """Presentation mode changed (here or in another window): every view drawn once (so
        that every plot item exists), then restyled."""
        self.presentation_action.setChecked(on)
        self._rescale_clock()
        self.nodes.recolour()
        self.gantt.recolour()
        snapshot = self.session.snapshot()
        for view in (self.gantt, self.links, self.metrics):
            view.show_snapshot(snapshot)
        presentation.restyle(self, on)
        self._share_right_column(on)
        self.refresh()

    def _share_right_column(self, presenting: bool) -> None:
        """In large text the metrics' four plots need most of their column (the queue
        scrolls): :data:`PRESENTED_SHARES`; else half each."""
        right = [self.docks["Queues"], self.docks["Metrics"]]
        shares = PRESENTED_SHARES if presenting else (1, 1)
        self.resizeDocks(right, list(shares), Qt.Orientation.Vertical)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)  # (tabs the docks: sizes set before would be laid out again)
        if presentation.mode().on:
            self._share_right_column(True)

    def _selected(self, job_id: int) -> None:
        snapshot = self.session.snapshot()
        row = snapshot.jobs.row(job_id) if job_id >= 0 else None
        if row is None:
            self.statusBar().clearMessage()
            return
        jobs = snapshot.jobs
        state = jobs.state_of(row).value
        text = f"job {jobs.label[row]} {jobs.name[row]} ({jobs.user[row]}) {state}"
        text += f" {where(snapshot, row)}"
        if jobs.explanation[row]:
            text += f" — {jobs.explanation[row]}"
        self.statusBar().showMessage(text)

    def show_every_view(self) -> None:
        """Take the Links view, the event log, the site table, the moves and the routes out of
        their tabs, beside the docks they were behind: every view on screen (a screenshot's
        layout, and the benchmark's worst case). Once shown: the window tabs them when it is."""
        for tab, beside, orientation in (
            # (a dock split beside one still tabbed would join its tabs: the order matters)
            ("Moves", "Queues", Qt.Orientation.Horizontal),
            ("Routes", "Moves", Qt.Orientation.Vertical),
            ("Event log", "Console", Qt.Orientation.Horizontal),
            ("Sites", "Event log", Qt.Orientation.Horizontal),
            ("Links", "Metrics", Qt.Orientation.Vertical),
        ):
            dock = self.docks[tab]
            self.removeDockWidget(dock)  # (split off a tabbed dock, it would join its tabs)
            self.addDockWidget(self.dockWidgetArea(self.docks[beside]), dock)
            dock.show()
            self.splitDockWidget(self.docks[beside], dock, orientation)
        docks = self.docks
        right = [docks["Queues"], docks["Metrics"], docks["Links"]]
        self.resizeDocks(right, [250, 380, 250], Qt.Orientation.Vertical)
        bottom = [docks["Console"], docks["Event log"], docks["Sites"]]
        self.resizeDocks(bottom, [650, 650, 300], Qt.Orientation.Horizontal)
        self.resizeDocks([docks["Queues"], docks["Moves"]], [600, 300], Qt.Orientation.Horizontal)
        self.resizeDocks([docks["Console"]], [220], Qt.Orientation.Vertical)

    def screenshot_at(self, after: float, path: Path, *, as_shown: bool = False) -> None:
        """As :meth:`ClockWindow.screenshot_at <gui.clock_window.ClockWindow.screenshot_at>`;
        unless ``as_shown`` (the window's own size and layout), every view on screen, in a
        window tall enough for them (1600 x 1200)."""
        if not as_shown:
            self.resize(1600, 1200)
            self.show_every_view()
        super().screenshot_at(after, path)

    def closeEvent(self, event: object) -> None:
        super().closeEvent(event)
        self.session.close()
