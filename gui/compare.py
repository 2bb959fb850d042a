"""Side by side: one platform and one workload under two schedulers, on one clock.

``batchlab gui --compare fcfs easy --demo`` (or View → Compare schedulers… in the main window)
runs one scenario under two schedulers, each in a daemon of its own, and drives them with one
:class:`~gui.driver.Driver`: one play / pause / step / speed control, and the two stand at the
same simulated time whenever neither runs. Each scheduler has the main window's nodes view,
Gantt chart and queue table, and the scheduler families' Moves (realloc) and Routes (brokers)
tabs behind its queue (one selection for both: a job clicked on one side is outlined on both,
so one can see where each scheduler put it). Between them one metrics view draws both
schedulers' utilisation, queue length, mean wait and mean bounded slowdown in two colours: the
curves part as soon as the schedulers decide differently.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QFormLayout,
    QLabel,
    QMessageBox,
    QWidget,
)

from emulator.api.registry import SpecError
from emulator.child import ChildError
from emulator.remote import RemoteSession
from emulator.session import Pacer, Snapshot
from gui import presentation
from gui.clock_window import ClockWindow, fit_to_screen
from gui.driver import STEP_TIMEOUT, Driver
from gui.frames import Frames
from gui.help import add_help_menu, add_quit
from gui.scenario import Scenario
from gui.selection import Selection
from gui.views.gantt import GanttView
from gui.views.metrics import HOUR, PLOTS, MetricsView
from gui.views.moves import MoveLog, MovesView
from gui.views.nodes import NodesView
from gui.views.queue import QueueView
from gui.views.routes import RoutesView
from gui.window import RATES

SIDE_COLOURS = ((255, 150, 40), (80, 170, 255))  # first and second scheduler: orange and blue
ROOM = (500, 300)  # pixels: each nodes view's width, the queues' height below
ROOM_PRESENTED = (440, 200)  # the same in presentation mode


class CompareMetrics(MetricsView):
    """The metrics view with one curve per scheduler in each plot and a legend naming them."""

    def __init__(self, names: Sequence[str]) -> None:
        super().__init__(columns=1)  # (between the two sides: tall and narrow)
        if not 0 < len(names) <= len(SIDE_COLOURS):
            raise ValueError(f"between 1 and {len(SIDE_COLOURS)} schedulers, got {len(names)}")
        self.series: dict[str, list[Any]] = {}
        for row, (field, _, _) in enumerate(PLOTS):
            plot = self.plots[row]
            own = self.curves[field]  # the single-session curve becomes the first scheduler's
            own.setPen(pg.mkPen(SIDE_COLOURS[0], width=2))
            others = [plot.plot(pen=pg.mkPen(c, width=2)) for c in SIDE_COLOURS[1 : len(names)]]
            self.series[field] = [own, *others]
        # on the queue length plot, top left: empty until the queues grow
        legend = self.plots[1].addLegend(offset=(10, 5), brush=(0, 0, 0, 190))
        for curve, name in zip(self.series["utilization"], names, strict=True):
            legend.addItem(curve, name)
        legend.setColumnCount(len(names))  # one row: a short plot in large text holds it

    def show_snapshots(self, snapshots: Sequence[Snapshot]) -> None:
        """Each scheduler's samples as steps (a sample holds until the next)."""
        self.set_origin(snapshots[0].origin)
        for field, curves in self.series.items():
            top = 1.0
            for curve, snapshot in zip(curves, snapshots, strict=True):
                metrics = snapshot.metrics
                values = getattr(metrics, field)
                curve.setData(np.repeat(metrics.time / HOUR, 2)[1:], np.repeat(values, 2)[:-1])
                if field != "utilization" and values.size:
                    top = max(top, float(values.max()))
            self.y_ranges[field].show(0.0, top)
            self._space_ticks(field)
        self.x_range.show(0.0, max(snapshot.now for snapshot in snapshots) / HOUR)


# main window title: dock title (the Moves and Routes tabs behind the queue)
_VIEWS = {
    "Nodes": "nodes",
    "Gantt": "Gantt",
    "Queues": "queue",
    "Moves": "moves",
    "Routes": "routes",
}
_BELOW = ("Queues", "Moves", "Routes")  # in the bottom dock area


@dataclass(frozen=True)
class Side:
    """One scheduler's session and views; its docks by schedule name ("A Nodes"...)."""

    letter: str
    session: RemoteSession
    nodes: NodesView
    gantt: GanttView
    queue: QueueView
    moves: MovesView
    routes: RoutesView
    move_log: MoveLog  # (the moves view's and the Gantt chart's)
    docks: dict[str, QDockWidget]


class CompareWindow(ClockWindow):
    """Two daemons' sessions of one scenario, on one clock (the window's: its :class:`Driver`
    sends both the same goals). ``pacer`` is injectable (tests drive it)."""

    def __init__(
        self,
        first: RemoteSession,
        second: RemoteSession,
        *,
        pacer: Pacer | None = None,
        speed: float = 60.0,
        playing: bool = False,
    ) -> None:
        super().__init__()
        self.driver = Driver((first, second), pacer)
        self.driver.set_speed(speed)
        self.names = (first.scheduler, second.scheduler)
        self.selection = Selection()
        # the main window's redraw rates, per side: "A Nodes" as often as its "Nodes"
        rates = {f"{letter} {title}": RATES[title] for letter in "AB" for title in _VIEWS}
        self.schedule = Frames(self.driver.pacer.wall, {**rates, "Metrics": RATES["Metrics"]})
        self.setWindowTitle(
            f"batchlab — {self.names[0]} vs {self.names[1]} on {first.platform.name}"
        )
        fit_to_screen(self, 1600, 1000)
        self.setDockNestingEnabled(True)
        # the queues below, each half the window wide; above them nodes | metrics | nodes
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.metrics = CompareMetrics(self.names)
        self.setCentralWidget(self.metrics)
        self.sides = (
            self._side("A", first, Qt.DockWidgetArea.LeftDockWidgetArea),
            self._side("B", second, Qt.DockWidgetArea.RightDockWidgetArea),
        )
        self._tab_when_shown(
            *(
                (side.docks[f"{side.letter} {first}"], side.docks[f"{side.letter} {second}"])
                for side in self.sides
                for first, second in (("Nodes", "Gantt"), ("Queues", "Moves"), ("Queues", "Routes"))
            )
        )
        queues = [side.docks[f"{side.letter} Queues"] for side in self.sides]
        self.splitDockWidget(queues[0], queues[1], Qt.Orientation.Horizontal)
        self.resizeDocks(queues, [800, 800], Qt.Orientation.Horizontal)
        self._share_room(presentation.mode().on)
        self._controls()
        menu = self.menuBar().addMenu("&View")
        self.presentation_action = presentation.action(self)
        self._follow_presentation()
        menu.addAction(self.presentation_action)
        menu.addSeparator()
        for side in self.sides:  # a closed dock comes back from here
            for dock in side.docks.values():
                menu.addAction(dock.toggleViewAction())
        self.help_action = add_help_menu(self)
        self.quit_action = add_quit(self, "&View")
        self.summary = QLabel()
        self.statusBar().addWidget(self.summary, 1)  # the whole bar's width: never cut off
        self._start_timer(playing)
        self.refresh()
        if presentation.mode().on:
            self._presented(True)

    # --- building ------------------------------------------------------------------------------
    def _side(self, letter: str, session: RemoteSession, area: Qt.DockWidgetArea) -> Side:
        move_log = MoveLog()
        nodes, gantt, queue, moves, routes = (
            NodesView(self.selection),
            GanttView(self.selection, move_log),
            QueueView(self.selection),
            MovesView(move_log),
            RoutesView(self.selection),
        )
        docks = {}
        view: QWidget
        for title, view in zip(_VIEWS, (nodes, gantt, queue, moves, routes), strict=True):
            dock = QDockWidget(f"{session.scheduler}: {_VIEWS[title]}", self)
            dock.setObjectName(f"{letter} {title}")
            dock.setWidget(view)
            where = Qt.DockWidgetArea.BottomDockWidgetArea if title in _BELOW else area
            self.addDockWidget(where, dock)
            docks[f"{letter} {title}"] = dock
        return Side(letter, session, nodes, gantt, queue, moves, routes, move_log, docks)

    # --- the loop ------------------------------------------------------------------------------
    def _visible(self) -> set[str]:
        """The docks on screen, not behind another's tab (see the main window's)."""
        shown = {
            name
            for side in self.sides
            for name, dock in side.docks.items()
            if not dock.visibleRegion().isEmpty()
        }
        return shown | {"Metrics"}

    def refresh(self, views: Collection[str] | None = None) -> None:
        """Redraw ``views`` (schedule names) from new snapshots; by default all on screen."""
        snapshots = [side.session.snapshot() for side in self.sides]
        if views is None:  # (and every move and route, as the main window)
            views = self._visible() | {f"{s.letter} {t}" for s in self.sides for t in _BELOW}
            self.schedule.drawn(self._version(), views)
        for side, snapshot in zip(self.sides, snapshots, strict=True):
            side.move_log.read(snapshot)  # (every move, whichever views are on screen)
            if f"{side.letter} Nodes" in views:  # (a daemon's latest nodes come every frame)
                side.nodes.show_clusters(side.session.nodes_snapshot())
            for title, view in (
                ("Gantt", side.gantt),
                ("Queues", side.queue),
                ("Moves", side.moves),
                ("Routes", side.routes),
            ):
                if f"{side.letter} {title}" in views:
                    view.show_snapshot(snapshot)
        if "Metrics" in views:
            self.metrics.show_snapshots(snapshots)
        self._show_clock(snapshots)

    def _show_clock(self, snapshots: Sequence[Snapshot]) -> None:
        now, origin = snapshots[0].now, snapshots[0].origin
        mode = self.driver.pacer.mode
        if all(snapshot.idle for snapshot in snapshots):
            mode += ", idle"
        self.show_time(now, origin, mode)
        figures = []
        for name, snapshot in zip(self.names, snapshots, strict=True):
            metrics = snapshot.metrics
            if metrics.time.size:
                figures.append(
                    f"{name}: mean wait {metrics.mean_wait[-1]:,.0f} s, "
                    f"bounded slowdown {metrics.mean_bounded_slowdown[-1]:.2f}, "
                    f"{metrics.queue_length[-1]:.0f} waiting"
                )
        # one line if it fits the bar, else a line per scheduler (presentation mode's large
        # text at 1280 px, long names): never cut off
        line = "   |   ".join(figures)
        room = self.statusBar().width() - 16
        fits = self.summary.fontMetrics().horizontalAdvance(line) <= room
        self.summary.setText(line if fits else "\n".join(figures))

    def closeEvent(self, event: object) -> None:
        super().closeEvent(event)
        for side in self.sides:  # its own daemons stop
            side.session.close()

    def _presented(self, on: bool) -> None:
        """Presentation mode changed: redraw in its colours, then restyle (see MainWindow)."""
        self.presentation_action.setChecked(on)
        self._rescale_clock()
        for side in self.sides:
            side.nodes.recolour()
            side.gantt.recolour()
            side.gantt.show_snapshot(side.session.snapshot())
        presentation.restyle(self, on)
        self._share_room(on)
        self.refresh()

    def _share_room(self, presenting: bool) -> None:
        """The nodes views' widths and the queues' height: less in large text, for the
        metrics between the nodes views (four plots stacked, each with its title)."""
        nodes = [side.docks[f"{side.letter} Nodes"] for side in self.sides]
        queues = [side.docks[f"{side.letter} Queues"] for side in self.sides]
        width, height = ROOM_PRESENTED if presenting else ROOM
        self.resizeDocks(nodes, [width, width], Qt.Orientation.Horizontal)
        self.resizeDocks(queues[:1], [height], Qt.Orientation.Vertical)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)  # (tabs the docks: sizes set before would be laid out again)
        if presentation.mode().on:
            self._share_room(True)


# --- opening one from the main window ------------------------------------------------------------


class CompareDialog(QDialog):
    """Two scheduler specs: a list of the registered ones, or any spec typed in."""

    def __init__(self, parent: QWidget | None, first: str, second: str) -> None:
        super().__init__(parent)
        self.setWindowTitle("Compare schedulers")
        layout = QFormLayout(self)
        self.choosers: list[QComboBox] = []
        for label, spec in (("first (orange)", first), ("second (blue)", second)):
            chooser = QComboBox()
            chooser.setEditable(True)
            chooser.setMinimumWidth(220)
            for name, doc in RemoteSession.schedulers().items():
                chooser.addItem(name)
                chooser.setItemData(chooser.count() - 1, doc, Qt.ItemDataRole.ToolTipRole)
            chooser.setCurrentText(spec)
            layout.addRow(label, chooser)
            self.choosers.append(chooser)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addRow(buttons)

    def specs(self) -> tuple[str, str]:
        first, second = (chooser.currentText().strip() for chooser in self.choosers)
        return first, second


def open_comparison(
    scenario: Scenario,
    first: str,
    second: str,
    *,
    speed: float = 60.0,
    playing: bool = True,
    at: float = 0.0,
) -> CompareWindow:
    """A comparison window of ``scenario`` under ``first`` and ``second`` (a daemon each),
    both run to simulated time ``at`` first, shown. Raises SpecError or ChildError when a
    daemon cannot be started."""
    one = scenario.open(first)
    try:
        other = scenario.open(second)
    except BaseException:
        one.close()
        raise
    if at > 0:  # both to where the main window stands, as fast as they can, together
        goals = [s.reach({"action": "until", "value": at}, f"@ {at:g}") for s in (one, other)]
        for goal in goals:
            goal.wait(STEP_TIMEOUT)
    window = CompareWindow(one, other, speed=speed, playing=playing)
    window.show()
    return window


def ask_and_compare(
    parent: ClockWindow, scenario: Scenario, current: str, speed: float
) -> CompareWindow | None:
    """Ask for two schedulers (FCFS and the current one to begin with), then open the window
    where and as ``parent`` is: at its simulated time, playing or paused as it is, over it;
    None if cancelled or a spec is invalid (said in a message box)."""
    dialog = CompareDialog(parent, "fcfs", current if current != "fcfs" else "easy")
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    driver = parent.driver
    try:
        window = open_comparison(
            scenario, *dialog.specs(), speed=speed, playing=driver.playing, at=driver.now
        )
    except (SpecError, ChildError) as error:
        QMessageBox.warning(parent, "Compare schedulers", str(error))
        return None
    window.setGeometry(parent.geometry())
    return window
