"""What every batchlab window shares: the tool bar's Play / Step / speed controls over its
:class:`~gui.driver.Driver`, the status bar's word on a daemon in trouble, a frame timer whose
tick redraws what :class:`~gui.frames.Frames` says is due, and screenshots taken at a simulated
time.

:class:`~gui.window.MainWindow` (one daemon) and :class:`~gui.compare.CompareWindow` (two on one
clock) are both one; they add their views, their own tool bar widgets after the speed, and what
a redraw draws.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QShowEvent
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QSlider, QToolBar

from gui import presentation
from gui.driver import Driver
from gui.frames import Frames

FRAME_MS = 34  # the timer's interval: a frame (the daemons run on their own)
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


class ClockWindow(QMainWindow):
    """A window whose tool bar steers :attr:`driver`; subclasses set :attr:`driver` and
    :attr:`schedule`, call :meth:`_controls` and :meth:`_start_timer` while building, and
    implement :meth:`refresh` and :meth:`_visible`."""

    finished = Signal()  # the screenshot was written
    driver: Driver
    schedule: Frames
    ticks = 0  # timer ticks so far (for the benchmark)
    screenshot_path: Path | None = None
    _tabs: tuple[tuple[QDockWidget, QDockWidget], ...] = ()  # to tab at the first show

    def _tab_when_shown(self, *pairs: tuple[QDockWidget, QDockWidget]) -> None:
        """Tab each pair's second dock behind its first once the window is shown: tabbed
        before, Qt (6.11) drew the last pair's tab bar twice, one above the other."""
        self._tabs = pairs

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        pairs, self._tabs = self._tabs, ()
        for first, second in pairs:
            self.tabifyDockWidget(first, second)
            first.raise_()

    def _controls(self) -> QToolBar:
        """The tool bar with Play / Step and the speed slider; the caller adds what follows."""
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
        self._show_speed()
        self.trouble = QLabel()  # a daemon gone, or a clock request it refused
        self.trouble.setStyleSheet("color: #c62828")
        self.trouble.hide()
        self.statusBar().addPermanentWidget(self.trouble)
        return bar

    def _start_timer(self, playing: bool) -> None:
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)  # a coarse timer may fire early
        self.timer.setInterval(FRAME_MS)
        self.timer.timeout.connect(self.tick)
        self.timer.start()
        if playing:
            self.play()

    def tick(self) -> None:
        """The timer: the driver looks at the daemons, then the views due are redrawn."""
        self.ticks += 1
        driver = self.driver
        driver.tick()
        trouble = driver.trouble
        if trouble != (None if self.trouble.isHidden() else self.trouble.text()):
            self.trouble.setText(trouble or "")
            self.trouble.setVisible(trouble is not None)
        if driver.playing != self.play_action.isChecked():  # idle, at stop_at, or a daemon
            self.play_action.setChecked(driver.playing)  # paused or resumed elsewhere
        if self.screenshot_path is not None and not driver.playing:
            self._shoot()
            return
        views = self.schedule.due(self._version(), self._visible())
        if views:
            self.refresh(views)

    def refresh(self, views: Collection[str] | None = None) -> None:
        raise NotImplementedError

    def _version(self) -> int:
        """Changes whenever what a view would draw may have: a daemon's nodes (asked for
        every frame) or its full snapshot, which comes in the background some frames later
        (all versions only grow). Counting the nodes' alone, a view drawn from the full
        snapshot before the newest one came would wait for the next change to draw it."""
        sessions = self.driver.sessions
        return sum(session.version + session.snapshot().version for session in sessions)

    def _visible(self) -> set[str]:
        """The schedule's names of the views worth drawing now."""
        raise NotImplementedError

    def _played(self) -> None:
        """Play or pause was toggled: show it (the clock's mode changed)."""
        self.refresh()

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
        self._played()

    def step(self) -> bool:
        """To the next event (see the driver's ``step``), paused."""
        stepped = self.driver.step()
        self.play_action.setChecked(False)
        self.refresh()
        return stepped

    def set_speed(self, speed: float) -> None:
        self.slider.setValue(speed_position(speed))
        self.driver.set_speed(speed)  # exactly, where the slider's position rounds it
        self._show_speed()

    def _slid(self, position: int) -> None:
        self.driver.set_speed(slider_speed(position))
        self._show_speed()

    def _show_speed(self) -> None:
        speed = self.driver.speed
        self.speed_label.setText(" as fast as possible" if math.isinf(speed) else f" {speed:,.0f}x")

    # --- screenshots ---------------------------------------------------------------------------
    def screenshot_at(self, after: float, path: Path) -> None:
        """Run as fast as possible to simulated time ``after``, write the window to ``path``
        (PNG) and emit :attr:`finished` (the subclass's tick calls :meth:`_shoot` when the
        driver stops)."""
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

    # --- presentation mode ---------------------------------------------------------------------
    _following = False  # restyled when presentation mode is toggled, here or in another window

    def _follow_presentation(self) -> None:
        presentation.mode().toggled.connect(self._presented)
        self._following = True

    def _presented(self, on: bool) -> None:
        """Presentation mode changed: restyle."""
        raise NotImplementedError

    def closeEvent(self, event: object) -> None:
        self.timer.stop()
        if self._following:  # a closed window is not restyled (its views may be gone)
            presentation.mode().toggled.disconnect(self._presented)
            self._following = False
        super().closeEvent(event)  # type: ignore[arg-type]
