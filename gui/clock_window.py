"""What every batchlab window driven by a simulated clock shares: the tool bar's Play / Step /
speed controls over its driver, a frame timer, and screenshots taken at a simulated time.

:class:`~gui.window.MainWindow` (one session, or a daemon's) and
:class:`~gui.compare.CompareWindow` (two sessions in lockstep) are both one; they add their views,
their own tool bar widgets after the speed, and what a tick draws.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QShowEvent
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QSlider, QToolBar

FRAME_MS = 34  # the timer's interval when the emulator is not running flat out
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


class Steered(Protocol):
    """What the controls steer: a :class:`~gui.driver.Driver` or an attached driver."""

    stop_at: float

    @property
    def playing(self) -> bool: ...

    @property
    def speed(self) -> float: ...

    def play(self) -> None: ...

    def pause(self) -> None: ...

    def set_speed(self, speed: float) -> None: ...

    def step(self) -> bool: ...


class ClockWindow(QMainWindow):
    """A window whose tool bar steers :attr:`driver`; subclasses call :meth:`_controls` and
    :meth:`_start_timer` while building, and implement :meth:`tick` and :meth:`refresh`."""

    finished = Signal()  # the screenshot was written
    driver: Steered
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
        return bar

    def _start_timer(self, playing: bool) -> None:
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)  # a coarse timer may fire 5 % early
        self.timer.setInterval(FRAME_MS)
        self.timer.timeout.connect(self.tick)
        self.timer.start()
        if playing:
            self.play()

    def _pace(self, flat_out: bool) -> None:
        """Back to back while the emulator here runs flat out, else every :data:`FRAME_MS`.
        Set only when it changes: setting a running timer's interval restarts it, and once a
        tick had restarted it the next came a tick's length late (19 frames a second, not 29)."""
        interval = 0 if flat_out else FRAME_MS
        if self.timer.interval() != interval:
            self.timer.setInterval(interval)

    def tick(self) -> None:
        raise NotImplementedError

    def refresh(self, views: Collection[str] | None = None) -> None:
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

    def closeEvent(self, event: object) -> None:
        self.timer.stop()
        super().closeEvent(event)  # type: ignore[arg-type]
