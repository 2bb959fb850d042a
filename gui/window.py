"""The main window: controls on a tool bar, the views as dock widgets, one timer.

Every tick of the timer (at most 30 per second) lets the :class:`~gui.driver.Driver` advance the
emulator for a bounded slice, takes one snapshot and hands it to the visible views. The queue
table, the costliest view to refresh, is refreshed at most :data:`QUEUE_EVERY` ticks apart while
playing (immediately after a command, a step, or while paused).
"""

from __future__ import annotations

import math
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QLabel,
    QMainWindow,
    QSlider,
    QToolBar,
    QWidget,
)

from emulator.api.registry import SpecError
from emulator.session import Pacer, Session, Snapshot, where
from emulator.slurm.timefmt import format_timestamp
from gui.driver import Driver
from gui.selection import Selection
from gui.views.console import Console
from gui.views.events import EventLog
from gui.views.gantt import GanttView
from gui.views.links import LinksView
from gui.views.metrics import MetricsView
from gui.views.nodes import NodesView
from gui.views.queue import QueueView

FRAME_MS = 34  # <= 30 redraws per second
MIN_BUDGET, MAX_BUDGET = 0.004, 0.045  # wall seconds the emulator may run per frame
QUEUE_EVERY = 15  # ticks between queue-table refreshes while playing (about 2 per second)
# while playing, a view is redrawn on ticks where (tick + offset) % every == 0: the costly plots
# at 10-15 Hz, on different ticks, so no frame draws everything
EVERY = {"Nodes": (1, 0), "Gantt": (2, 0), "Links": (3, 1), "Metrics": (3, 2), "Event log": (2, 1)}
SLIDER_MAX = 120  # the slider's last position means "as fast as possible"
DECADES = 6.0  # the slider spans 10^0 .. 10^6 simulated seconds per wall second


def slider_speed(position: int) -> float:
    """Log slider: 0 -> 1x, SLIDER_MAX - 1 -> 10^6 x, SLIDER_MAX -> as fast as possible."""
    if position >= SLIDER_MAX:
        return math.inf
    return float(10 ** (DECADES * position / (SLIDER_MAX - 1)))


def speed_position(speed: float) -> int:
    if math.isinf(speed):
        return SLIDER_MAX
    fraction = math.log10(max(speed, 1.0)) / DECADES
    return max(0, min(SLIDER_MAX - 1, round(fraction * (SLIDER_MAX - 1))))


class MainWindow(QMainWindow):
    """One session's window. ``pacer`` is injectable (tests drive its clock)."""

    finished = Signal()  # the screenshot was written

    def __init__(
        self,
        session: Session,
        *,
        pacer: Pacer | None = None,
        speed: float = 60.0,
        playing: bool = False,
    ) -> None:
        super().__init__()
        self.session = session
        self.driver = Driver(session, pacer)
        self.driver.set_speed(speed)
        self.selection = Selection()
        self.snapshot: Snapshot | None = None
        self.ticks = 0
        self.queue_tick = -QUEUE_EVERY
        self.frames = 0  # redraws done (for the benchmark)
        self.events_done = 0  # engine events processed by the timer
        self.draw_time = 0.0  # smoothed wall seconds of a redraw
        self.overhead = 0.0  # smoothed wall seconds per frame of GUI work (not advancing)
        self.last_tick = self.driver.pacer.wall()
        self.advance_time = 0.0  # wall seconds the last tick spent advancing
        self.screenshot_path: Path | None = None
        self.setWindowTitle(f"batchlab — {session.platform.name}")
        self.resize(1600, 1000)

        self.nodes = NodesView(self.selection)
        self.gantt = GanttView(self.selection)
        self.links = LinksView()
        self.queue = QueueView(self.selection)
        self.metrics = MetricsView()
        self.events = EventLog()
        self.console = Console(session, self.refresh)
        self.setDockNestingEnabled(True)
        self.docks: dict[str, QDockWidget] = {}
        self._dock("Nodes", self.nodes, Qt.DockWidgetArea.LeftDockWidgetArea)
        self._dock("Gantt", self.gantt, Qt.DockWidgetArea.LeftDockWidgetArea)
        self._dock("Queues", self.queue, Qt.DockWidgetArea.RightDockWidgetArea)
        self._dock("Metrics", self.metrics, Qt.DockWidgetArea.RightDockWidgetArea)
        self._dock("Links", self.links, Qt.DockWidgetArea.RightDockWidgetArea)
        self._dock("Event log", self.events, Qt.DockWidgetArea.BottomDockWidgetArea)
        self._dock("Console", self.console, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.tabifyDockWidget(self.docks["Metrics"], self.docks["Links"])
        self.docks["Metrics"].raise_()
        self.tabifyDockWidget(self.docks["Console"], self.docks["Event log"])
        self.docks["Console"].raise_()
        self.resizeDocks(
            [self.docks["Nodes"], self.docks["Queues"]], [800, 800], Qt.Orientation.Horizontal
        )
        self.resizeDocks(
            [self.docks["Nodes"], self.docks["Gantt"]], [330, 420], Qt.Orientation.Vertical
        )
        self.resizeDocks([self.docks["Console"]], [230], Qt.Orientation.Vertical)
        self._toolbar()
        self.console.catch_up()
        self.selection.changed.connect(self._selected)

        self.timer = QTimer(self)
        self.timer.setInterval(FRAME_MS)
        self.timer.timeout.connect(self.tick)
        self.timer.start()
        if playing:
            self.play()
        self.refresh()

    # --- building ------------------------------------------------------------------------------
    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> None:
        dock = QDockWidget(title, self)
        dock.setObjectName(title)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        self.docks[title] = dock

    def _toolbar(self) -> None:
        bar = QToolBar("Controls")
        bar.setObjectName("Controls")
        self.addToolBar(bar)
        self.play_action = QAction("Play", self)
        self.play_action.setCheckable(True)
        self.play_action.setShortcut(QKeySequence("Space"))
        self.play_action.toggled.connect(self._play_toggled)
        bar.addAction(self.play_action)
        self.step_action = QAction("Step", self)
        self.step_action.setShortcut(QKeySequence("N"))
        self.step_action.triggered.connect(self.step)
        bar.addAction(self.step_action)
        bar.addSeparator()
        bar.addWidget(QLabel(" speed "))
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, SLIDER_MAX)
        self.slider.setFixedWidth(220)
        self.slider.setValue(speed_position(self.driver.speed))
        self.slider.valueChanged.connect(self._slid)
        bar.addWidget(self.slider)
        self.speed_label = QLabel()
        self.speed_label.setMinimumWidth(150)
        bar.addWidget(self.speed_label)
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
        bar.addSeparator()
        self.clock = QLabel()
        bar.addWidget(self.clock)
        self._show_speed()

    # --- controls ------------------------------------------------------------------------------
    def play(self) -> None:
        self.play_action.setChecked(True)

    def pause(self) -> None:
        self.play_action.setChecked(False)

    def _play_toggled(self, on: bool) -> None:
        if on:
            self.driver.play()
        else:
            self.driver.pause()
        self.play_action.setText("Pause" if on else "Play")
        self._show_clock()

    def step(self) -> bool:
        stepped = self.driver.step()
        self.play_action.setChecked(False)
        self.refresh()
        return stepped

    def set_speed(self, speed: float) -> None:
        self.slider.setValue(speed_position(speed))
        self.driver.set_speed(speed)
        self._show_speed()

    def _slid(self, position: int) -> None:
        self.driver.set_speed(slider_speed(position))
        self._show_speed()

    def _show_speed(self) -> None:
        speed = self.driver.speed
        self.speed_label.setText(" as fast as possible" if math.isinf(speed) else f" {speed:,.0f}x")

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
    def tick(self) -> None:
        """The timer: advance a bounded slice if playing, then redraw from a snapshot.

        The slice's wall budget is what a frame leaves after the GUI's own work (redraw, Qt's
        painting and events: the time between two ticks not spent advancing, smoothed), and at
        least twice that work: at full speed the emulator keeps about two thirds of the thread,
        and the redraw rate drops (to about 10 per second at 5,000 nodes) rather than the
        emulation rate."""
        self.ticks += 1
        driver = self.driver
        was_playing = driver.playing
        started = driver.pacer.wall()
        period, self.last_tick = started - self.last_tick, started
        gui_work = max(0.0, period - self.advance_time)  # since the previous tick's advance
        self.overhead = 0.7 * self.overhead + 0.3 * min(gui_work, 1.0)
        self.events_done += driver.tick()
        advanced = driver.pacer.wall()
        stopped = was_playing and not driver.playing  # idle, or at stop_at
        if stopped:
            self.play_action.setChecked(False)
        if self.screenshot_path is not None and not driver.playing:
            self._shoot()
            return
        if was_playing or self.snapshot is None or self.snapshot.version != self._version():
            self.refresh(queue=not was_playing or stopped)
        drawn = driver.pacer.wall()
        self.draw_time = 0.8 * self.draw_time + 0.2 * (drawn - advanced)
        self.advance_time = advanced - started
        spare = FRAME_MS / 1000 - self.overhead
        driver.budget = min(MAX_BUDGET, max(MIN_BUDGET, spare, 2 * self.overhead))

    def _version(self) -> int:
        return self.session.snapshot().version

    def refresh(self, queue: bool = True) -> None:
        """Redraw the visible views from a new snapshot: all of them if ``queue`` (a command,
        a step, a pause), otherwise each on its share of the ticks (:data:`EVERY`)."""
        snapshot = self.session.snapshot()
        self.snapshot = snapshot
        self.frames += 1
        for title, view in (
            ("Nodes", self.nodes),
            ("Gantt", self.gantt),
            ("Links", self.links),
            ("Metrics", self.metrics),
            ("Event log", self.events),
        ):
            every, offset = EVERY[title]
            if not queue and (self.ticks + offset) % every:
                continue
            if self.docks[title].isVisible() or view is self.events:
                view.show_snapshot(snapshot)
        if queue or self.ticks - self.queue_tick >= QUEUE_EVERY:
            self.queue_tick = self.ticks
            self.queue.show_snapshot(snapshot)
        self._show_clock()

    def _show_clock(self) -> None:
        snapshot = self.snapshot
        if snapshot is None:
            return
        mode = self.driver.pacer.mode
        if snapshot.idle:
            mode += ", idle"
        if self.driver.behind and not math.isinf(self.driver.speed):
            mode += ", behind"
        self.clock.setText(
            f"  {format_timestamp(snapshot.now, snapshot.origin)}  "
            f"(t = {snapshot.now:,.0f} s)  {mode}"
        )

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

    # --- screenshots ---------------------------------------------------------------------------
    def screenshot_at(self, after: float, path: Path) -> None:
        """Run as fast as possible to simulated time ``after``, write the window to ``path``
        (PNG) and emit :attr:`finished`."""
        self.screenshot_path = path
        self.driver.stop_at = after
        self.set_speed(math.inf)
        self.play()

    def _shoot(self) -> None:
        path = self.screenshot_path
        assert path is not None
        self.screenshot_path = None
        self.refresh()
        self.grab().save(str(path), "PNG")
        self.finished.emit()

    def closeEvent(self, event: object) -> None:
        self.timer.stop()
        super().closeEvent(event)  # type: ignore[arg-type]
