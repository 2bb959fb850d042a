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

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QFont, QGuiApplication, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLabel,
    QLineEdit,
    QMainWindow,
    QSlider,
    QToolBar,
    QWidget,
)

from emulator.shell import ShellError, parse_at
from emulator.slurm.timefmt import format_timestamp
from gui import presentation
from gui.driver import Driver
from gui.frames import Frames

FRAME_MS = 34  # the timer's interval: a frame (the daemons run on their own)
SLIDER_MAX = 120  # the slider's last position means "as fast as possible"
DECADES = 6.0  # the slider spans 10^0 .. 10^6 simulated seconds per wall second
CLOCK_SCALE = 1.4  # the clock's font, relative to the application's
PRESETS = (("1x", 1.0), ("10x", 10.0), ("60x", 60.0), ("600x", 600.0), ("3600x", 3600.0))


def slider_speed(position: int) -> float:
    """Log slider: 0 -> 1x, SLIDER_MAX - 1 -> 10^6 x, SLIDER_MAX -> as fast as possible."""
    if position >= SLIDER_MAX:
        return math.inf
    return float(10 ** (DECADES * position / (SLIDER_MAX - 1)))


def fitted_size(preferred: QSize, available: QSize) -> QSize:
    """A window's size on a screen whose free area is ``available``: ``preferred``, or less
    where the screen is smaller (a 1280 x 800 projector)."""
    return QSize(
        min(preferred.width(), available.width()), min(preferred.height(), available.height())
    )


def fit_to_screen(window: QWidget, width: int, height: int) -> None:
    """Size ``window`` to ``width`` x ``height``, or to its screen's free area where that is
    smaller, and place it at the area's top left (nothing off-screen)."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None:  # no screen at all: the preferred size
        window.resize(width, height)
        return
    area = screen.availableGeometry()
    window.resize(fitted_size(QSize(width, height), area.size()))
    window.move(area.topLeft())


class ClockLabel(QLabel):
    """The simulated clock: bold, :data:`CLOCK_SCALE` times the application font (presentation
    mode's too), first on the tool bar so that an overflowing tool bar never hides it."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("clock")
        self.setProperty(presentation.OWN_SCALE, True)  # restyled by itself, not by restyle
        self.rescale()

    def rescale(self) -> None:
        """Follow the application's font (presentation mode switches it)."""
        font = QFont(QApplication.font())
        font.setPointSizeF(font.pointSizeF() * CLOCK_SCALE)
        font.setBold(True)
        self.setFont(font)


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
        for first, _ in pairs:  # (after all: a later tab would be raised over its first)
            first.raise_()

    def _controls(self) -> QToolBar:
        """The tool bar with Play / Step and the speed slider; the caller adds what follows."""
        bar = QToolBar("Controls")
        bar.setObjectName("Controls")
        bar.setMovable(False)  # (moved, the clock could land in another tool bar's overflow)
        self.addToolBar(bar)
        self.clock = ClockLabel()
        self.clock_fitted = (-1, self.clock.font())  # the text length and font it was sized for
        bar.addWidget(self.clock)
        bar.addSeparator()
        self.addToolBarBreak()  # the speed on a row of its own: the clock's row stays short
        speed_bar = QToolBar("Speed")
        speed_bar.setObjectName("Speed")
        speed_bar.setMovable(False)
        self.addToolBar(speed_bar)
        self.play_action = QAction("Play", self)
        self.play_action.setCheckable(True)
        self.play_action.setShortcut(QKeySequence("Space"))
        self.play_action.toggled.connect(self._play_toggled)
        bar.addAction(self.play_action)
        self._play_button_fixed(bar)
        self.step_action = QAction("Step", self)
        self.step_action.setShortcut(QKeySequence("N"))
        self.step_action.triggered.connect(self.step)
        bar.addAction(self.step_action)
        speed_bar.addWidget(QLabel(" speed "))
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, SLIDER_MAX)
        self.slider.setFixedWidth(180)
        self.slider.setValue(speed_position(self.driver.speed))
        self.slider.valueChanged.connect(self._slid)
        speed_bar.addWidget(self.slider)
        self.speed_label = QLabel()
        self.speed_label.setMinimumWidth(110)
        speed_bar.addWidget(self.speed_label)
        self.presets: dict[str, QAction] = {}
        for text, speed in (*PRESETS, ("max", math.inf)):
            preset = QAction(text, self)
            preset.setToolTip(
                "as fast as possible" if math.isinf(speed) else f"{speed:g} simulated s a second"
            )
            preset.triggered.connect(lambda _=False, speed=speed: self.set_speed(speed))
            speed_bar.addAction(preset)
            self.presets[text] = preset
        speed_bar.addSeparator()
        speed_bar.addWidget(QLabel(" run to "))
        self.run_to_field = QLineEdit()
        self.run_to_field.setPlaceholderText("03:50")
        self.run_to_field.setToolTip(
            "run as fast as possible to this simulated time, then pause: HH:MM (time of day), "
            "[D-]HH:MM:SS, or 2026-11-22T03:50:00 (as the console's @)"
        )
        self.run_to_field.setMaximumWidth(
            self.run_to_field.fontMetrics().horizontalAdvance("0" * 12)
        )
        self.run_to_field.returnPressed.connect(lambda: self.run_to(self.run_to_field.text()))
        speed_bar.addWidget(self.run_to_field)
        self.speed_bar = speed_bar
        self._show_speed()
        self.trouble = QLabel()  # a daemon gone, or a clock request it refused
        self.trouble.setStyleSheet("color: #c62828")
        self.trouble.hide()
        self.statusBar().addPermanentWidget(self.trouble)
        return bar

    def _play_button_fixed(self, bar: QToolBar) -> None:
        """Play's button as wide as its widest text ("Pause"): a wider button after Play
        would shift every widget after it."""
        button = bar.widgetForAction(self.play_action)
        if button is not None:
            metrics = button.fontMetrics()
            widest = max(metrics.horizontalAdvance(text) for text in ("Play", "Pause"))
            button.setMinimumWidth(widest + 16)

    def _rescale_clock(self) -> None:
        """The clock in the application's font (presentation mode changed), sized afresh at
        its next text."""
        self.clock.rescale()
        self.clock.setMinimumSize(0, 0)
        self.clock.setMaximumSize(16777215, 16777215)  # (QWIDGETSIZE_MAX)
        self.clock_fitted = (-1, self.clock.font())

    def show_time(self, now: float, origin: float, mode: str) -> None:
        """The clock's text: the simulated date and time, t in seconds, and the mode."""
        clock = self.clock
        text = f"  {format_timestamp(now, origin)}  (t = {now:,.0f} s)  {mode}"
        clock.setText(text)
        # a label of fixed size does not make the tool bar lay out and repaint itself
        # whenever its text changes: it is resized, with a margin, only when the text needs
        # more room or the font changed (presentation mode); its size hint (a text layout) is
        # asked for only when the text grew longer or the font changed
        if len(text) <= self.clock_fitted[0] and clock.font() == self.clock_fitted[1]:
            return
        self.clock_fitted = (len(text), clock.font())
        hint = clock.sizeHint()
        if hint.width() > clock.minimumWidth() or hint.height() != clock.minimumHeight():
            clock.setFixedSize(hint.width() + hint.height(), hint.height())

    def _start_timer(self, playing: bool) -> None:
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)  # a coarse timer may fire early
        self.timer.setInterval(FRAME_MS)
        self.timer.timeout.connect(self.tick)
        self.timer.start()
        if playing:
            self.play()

    def run_to(self, text: str) -> bool:
        """Run as fast as possible to the simulated time ``text`` (read as the console's
        ``@``), then pause; False, with a message, if it is not a time ahead."""
        now, origin = self.driver.now, self.driver.sessions[0].origin
        try:
            target = parse_at(text.strip(), origin)
        except (ShellError, ValueError) as error:
            self.statusBar().showMessage(f"run to: {error}", 8000)
            return False
        if target <= now:
            self.statusBar().showMessage(f"run to: {text.strip()} is not after the clock", 8000)
            return False
        self.driver.stop_at = target
        self.driver.play()  # (a goal there, as fast as possible)
        self.play_action.setChecked(True)
        return True

    def tick(self) -> None:
        """The timer: the driver looks at the daemons, then the views due are redrawn."""
        self.ticks += 1
        driver = self.driver
        driver.tick()
        reached = not driver.playing and driver.now >= driver.stop_at
        if reached and self.screenshot_path is None:  # a "run to": Play plays on again
            driver.stop_at = math.inf
        trouble = driver.trouble
        if trouble != (None if self.trouble.isHidden() else self.trouble.text()):
            self.trouble.setText(trouble or "")
            self.trouble.setVisible(trouble is not None)
        if self.speed_label.text() != self._speed_text():  # set elsewhere (batchlab clock)
            self.slider.blockSignals(True)
            self.slider.setValue(speed_position(driver.speed))
            self.slider.blockSignals(False)
            self._show_speed()
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

    def _speed_text(self) -> str:
        speed = self.driver.speed
        return " max" if math.isinf(speed) else f" {speed:,.0f}x"

    def _show_speed(self) -> None:
        self.speed_label.setText(self._speed_text())

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
        # what a font or size change posted (layouts, the docks' tab bars), done now: on a busy
        # machine it was still pending, and the picture had labels cut off, a stale tab bar
        QGuiApplication.sendPostedEvents()
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
