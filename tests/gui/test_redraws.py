"""Redraws that change only what changed: the Gantt's rectangles item, the queue table without
model resets, the window's frame throttle (offscreen, pixels and item geometry)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pyqtgraph")

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QGraphicsScene
from pytestqt.qtbot import QtBot

from emulator.model.job import Request, Submission
from emulator.session import Session
from gui import palette
from gui.views.gantt import HOUR
from gui.views.rects import Rects
from tests.gui.helpers import FakeClock, open_window, platform, plot_point

RED, BLUE = (200, 30, 30), (30, 30, 200)


def queued(jobs: int) -> Session:
    """``jobs`` one-core jobs of 100 s submitted at time 0 on two one-core nodes (FCFS)."""
    session = Session(platform(2), "fcfs")
    session.submit_workload(
        Submission(i, 0.0, Request(tasks=1, time_limit=300, name=f"q{i}"), 100.0)
        for i in range(1, jobs + 1)
    )
    session.run_until(0.0)
    return session


def rendered(item: Rects, width: int = 40, height: int = 20) -> QImage:
    """The item drawn on black, one pixel per scene unit."""
    scene = QGraphicsScene()
    scene.addItem(item)
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor(0, 0, 0))
    painter = QPainter(image)
    scene.render(painter, QRectF(0, 0, width, height), QRectF(0, 0, width, height))
    painter.end()
    scene.removeItem(item)
    return image


def rgb(image: QImage, x: int, y: int) -> tuple[int, int, int]:
    colour = image.pixelColor(x, y)
    return colour.red(), colour.green(), colour.blue()


def test_rects_fill_each_group_in_its_colour(qtbot: QtBot) -> None:
    item = Rects(np.array([(*RED, 255), (*BLUE, 255)], np.uint8))
    f = np.array
    # group 1 (blue) at x 0-10, group 0 (red) at x 20-30 and one inside the blue one
    item.set_rects(
        f([0.0, 20.0, 5.0]), f([10.0, 30.0, 8.0]), f([0.0, 0.0, 5.0]), f([10.0] * 3), f([1, 0, 0])
    )
    assert item.boundingRect() == QRectF(0, 0, 30, 10)
    image = rendered(item)
    assert rgb(image, 2, 2) == BLUE and rgb(image, 25, 5) == RED
    assert rgb(image, 6, 7) == BLUE  # groups are painted in order: red first, blue over it
    assert rgb(image, 15, 5) == (0, 0, 0) and rgb(image, 25, 15) == (0, 0, 0)
    # the same rectangles again: nothing to redo (the arrays shown stay the same objects)
    shown = item.rects
    item.set_rects(
        f([0.0, 20.0, 5.0]), f([10.0, 30.0, 8.0]), f([0.0, 0.0, 5.0]), f([10.0] * 3), f([1, 0, 0])
    )
    assert item.rects is shown
    item.set_rects(f([]), f([]), f([]), f([]), f([], np.int64))
    assert item.boundingRect().isEmpty() and rgb(rendered(item), 2, 2) == (0, 0, 0)


def test_gantt_draws_a_running_job_in_its_colour(qtbot: QtBot) -> None:
    session = Session(platform(2, 2, cores=2), "easy")
    session.command('sbatch -M c0 -n 4 -t 10 --wrap "sleep 300"')  # job 1: both nodes of c0
    session.command('sbatch -M c0 -n 2 -t 10 --wrap "sleep 300"')  # job 2: waits for them
    session.advance(600)  # job 1 ran 0..300, job 2 runs from 300 (on node 0)
    win = open_window(qtbot, session)
    win.gantt.follow = False
    win.gantt.plot.setXRange(0, 0.25, padding=0)
    win.refresh()
    qtbot.wait(50)
    plot = win.gantt.plot
    image = plot.viewport().grab().toImage()

    def shown(seconds: float, node: float) -> tuple[int, int, int]:
        at = plot_point(plot, seconds / HOUR, node)
        colour = image.pixelColor(at)
        return colour.red(), colour.green(), colour.blue()

    assert shown(150, 1.0) == palette.colour(1)  # job 1, halfway through its run
    assert shown(450, 0.5) == palette.colour(2)  # job 2, running now
    assert shown(700, 1.0) != palette.colour(2)  # after now: nothing drawn
    assert win.gantt.rectangles == 2


def test_queue_refresh_keeps_the_scroll_position_and_follows_squeue(qtbot: QtBot) -> None:
    session = queued(200)
    win = open_window(qtbot, session)
    win.refresh()
    model, table = win.queue.model, win.queue.table
    resets, removed, inserted = [], [], []
    model.modelReset.connect(lambda: resets.append(1))
    model.rowsRemoved.connect(lambda *_: removed.append(1))
    model.rowsInserted.connect(lambda *_: inserted.append(1))
    rows = model.rowCount()
    assert rows > 30  # more than the table shows: it scrolls
    table.verticalScrollBar().setValue(10)
    session.run_until(1000)  # 20 jobs ran, two more run now: 18 lines fewer
    win.refresh()
    assert model.table() == list(session.queue_table().rows)  # squeue's lines, in its order
    assert model.rowCount() == rows - 20
    assert table.verticalScrollBar().value() == 10  # not reset: the user's place is kept
    assert removed and not inserted and not resets


def test_two_ticks_within_a_frame_redraw_once(qtbot: QtBot) -> None:
    clock = FakeClock()
    session = queued(2000)
    win = open_window(qtbot, session, clock)
    win.play()
    drawn = win.frames
    clock.now += 0.5
    win.tick()
    assert win.frames == drawn + 1 and win.nodes.snapshot is win.snapshot
    clock.now += 0.020  # 20 ms later: the emulator moves, nothing is redrawn
    win.tick()
    assert win.frames == drawn + 1 and win.snapshot is not None
    assert win.snapshot.now < session.now
    clock.now += 0.014  # 34 ms after the redraw: the latest state of the nodes is drawn
    win.tick()
    assert win.frames == drawn + 2 and win.nodes.clusters is session.nodes_snapshot()
    assert f"(t = {session.now:,.0f} s)" in win.clock.text()
    assert win.timer.interval() == 34  # a finite speed that keeps up: no back-to-back ticks


class RunningClock(FakeClock):
    """A wall clock that moves 10 ms whenever it is read."""

    def __call__(self) -> float:
        self.now += 0.010
        return self.now


def test_ticks_run_back_to_back_while_the_emulator_runs_flat_out(qtbot: QtBot) -> None:
    session = queued(2000)
    win = open_window(qtbot, session, RunningClock())
    win.set_speed(float("inf"))
    win.play()
    win.tick()
    assert win.driver.playing and win.driver.behind and session.now > 0
    assert win.timer.interval() == 0 and win.timer.timerType() == Qt.TimerType.PreciseTimer
    win.set_speed(60.0)  # a speed it keeps up with: the timer waits between ticks again
    win.tick()
    win.tick()
    assert win.timer.interval() == 34


def test_event_log_adds_a_bounded_number_of_lines_and_says_what_it_left_out(
    qtbot: QtBot,
) -> None:
    from gui.views.events import PER_REFRESH, EventLog, line

    session = queued(400)  # FCFS explains or starts each job: hundreds of decisions
    log = EventLog()
    qtbot.addWidget(log)
    session.run_until(10000)
    snapshot = session.snapshot()
    entries = snapshot.events
    assert len(entries) > PER_REFRESH + 10
    log.show_snapshot(snapshot)
    lines = log.toPlainText().split("\n")
    assert len(lines) == PER_REFRESH + 1
    assert lines[0].endswith(f"... {entries[-PER_REFRESH].seq - 1:,} decisions not shown")
    assert lines[1:] == [line(entry) for entry in entries[-PER_REFRESH:]]
    session.run_until(10100)  # a few more: all of them, nothing left out
    newer = [entry for entry in session.snapshot().events if entry.seq > entries[-1].seq]
    assert 0 < len(newer) < PER_REFRESH
    log.show_snapshot(session.snapshot())
    assert log.toPlainText().split("\n")[-len(newer) - 1 :] == [lines[-1]] + [
        line(entry) for entry in newer
    ]


def test_a_view_behind_another_docks_tab_is_not_redrawn_until_shown(qtbot: QtBot) -> None:
    clock = FakeClock()
    session = queued(200)
    win = open_window(qtbot, session, clock)
    win.play()
    hidden = win.docks["Event log"]
    assert hidden.isVisible() and "Event log" not in win._visible()  # behind the console
    for _ in range(12):
        clock.now += 1.1  # more than its interval each time: 11 simulated seconds
        win.tick()
    assert session.now > 100 and win.events.toPlainText() == ""  # jobs ended and started
    hidden.raise_()
    qtbot.waitUntil(lambda: "Event log" in win._visible())
    clock.now += 1.1
    win.tick()
    assert win.events.last == session.snapshot().events[-1].seq  # up to the latest decision
    assert "Start" in win.events.toPlainText()
