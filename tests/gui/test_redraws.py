"""Redraws that change only what changed: the Gantt's rectangles item, the queue table without
model resets, the window's frame throttle (offscreen, pixels and item geometry)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pyqtgraph")

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QGraphicsScene
from pytestqt.qtbot import QtBot

from emulator.child import ChildSession, Feed
from emulator.session import Session, open_session
from gui import palette
from gui.views.gantt import HOUR
from gui.views.rects import Rects
from tests.gui.helpers import (
    FakeClock,
    daemon,
    open_window,
    platform,
    platform_file,
    plot_point,
    run_to,
)
from tests.gui.test_files import SWF_HEADER, swf_line

RED, BLUE = (200, 30, 30), (30, 30, 200)


def trace(directory: Path, jobs: int) -> Path:
    """``jobs`` one-core jobs of 100 s (limits of 300) submitted at time 0."""
    path = directory / f"queued-{jobs}.swf"
    path.write_text(SWF_HEADER + "".join(swf_line(i, 0, 100, 1, 300) for i in range(1, jobs + 1)))
    return path


def queued(directory: Path, jobs: int) -> ChildSession:
    """A daemon of two one-node clusters of one core (FCFS) fed :func:`trace`'s jobs."""
    file = platform_file(directory, 2)
    session = daemon(file, "fcfs", feed=Feed(workload=trace(directory, jobs)))
    run_to(session, 0.0)
    return session


def queued_here(directory: Path, jobs: int) -> Session:
    """:func:`queued`'s session, in this process."""
    session = open_session(platform(2), "fcfs", workload=trace(directory, jobs))
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


def test_gantt_draws_a_running_job_in_its_colour(qtbot: QtBot, tmp_path: Path) -> None:
    session = daemon(
        platform_file(tmp_path, 2, 2, cores=2),
        "easy",
        'sbatch -M c0 -n 4 -t 10 --wrap "sleep 300"',  # job 1: both nodes of c0
        'sbatch -M c0 -n 2 -t 10 --wrap "sleep 300"',  # job 2: waits for them
    )
    run_to(session, 600.0)  # job 1 ran 0..300, job 2 runs from 300 (on node 0)
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


def test_queue_refresh_keeps_the_scroll_position_and_follows_squeue(
    qtbot: QtBot, tmp_path: Path
) -> None:
    session, twin = queued(tmp_path, 200), queued_here(tmp_path, 200)
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
    run_to(session, 1000.0)  # 20 jobs ran, two more run now: 18 lines fewer
    twin.run_until(1000)
    win.refresh()
    assert model.table() == list(twin.queue_table().rows)  # squeue's lines, in its order
    assert model.rowCount() == rows - 20
    assert table.verticalScrollBar().value() == 10  # not reset: the user's place is kept
    assert removed and not inserted and not resets


def test_two_ticks_within_a_frame_redraw_once(qtbot: QtBot, tmp_path: Path) -> None:
    clock = FakeClock()
    session = queued(tmp_path, 2000)
    win = open_window(qtbot, session, clock)
    drawn = win.frames
    clock.now += 0.5
    win.tick()
    # the views not drawn at the start are drawn, from the state already shown: no new frame
    assert win.frames == drawn and win.nodes.snapshot is win.snapshot
    run_to(session, 500.0)
    clock.now += 0.020  # 20 ms later: the emulator moved, nothing is redrawn
    win.tick()
    assert win.frames == drawn and win.snapshot is not None
    assert win.snapshot.now < session.now
    clock.now += 0.250  # a clock period after the redraw: the latest nodes and clock drawn
    win.tick()
    assert win.frames == drawn + 1 and win.nodes.clusters is session.nodes_snapshot()
    assert f"(t = {session.now:,.0f} s)" in win.clock.text()


def test_the_timer_ticks_every_frame_whatever_the_speed(qtbot: QtBot, tmp_path: Path) -> None:
    """The emulator runs in the daemon, on a core of its own: the window's thread is never
    busy with it, and its timer never needs to fire back to back."""
    from gui.clock_window import FRAME_MS

    win = open_window(qtbot, queued(tmp_path, 20))
    win.set_speed(float("inf"))
    win.play()
    win.tick()
    assert win.driver.speed == float("inf") and win.session.clock["speed"] is None
    assert win.timer.interval() == FRAME_MS
    assert win.timer.timerType() == Qt.TimerType.PreciseTimer


def test_event_log_adds_a_bounded_number_of_lines_and_says_what_it_left_out(
    qtbot: QtBot, tmp_path: Path
) -> None:
    from gui.views.events import PER_REFRESH, EventLog, line

    session = queued_here(tmp_path, 400)  # FCFS explains or starts each: hundreds of decisions
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
    assert lines[1:] == [line(entry, snapshot.origin) for entry in entries[-PER_REFRESH:]]
    session.run_until(10100)  # a few more: all of them, nothing left out
    newer = [entry for entry in session.snapshot().events if entry.seq > entries[-1].seq]
    assert 0 < len(newer) < PER_REFRESH
    log.show_snapshot(session.snapshot())
    assert log.toPlainText().split("\n")[-len(newer) - 1 :] == [lines[-1]] + [
        line(entry, snapshot.origin) for entry in newer
    ]


def test_a_view_behind_another_docks_tab_is_not_redrawn_until_shown(
    qtbot: QtBot, tmp_path: Path
) -> None:
    clock = FakeClock()
    session = queued(tmp_path, 200)
    win = open_window(qtbot, session, clock)
    hidden = win.docks["Event log"]
    assert hidden.isVisible() and "Event log" not in win._visible()  # behind the console
    for k in range(12):
        run_to(session, 11.0 * (k + 1))
        clock.now += 1.1  # more than its interval each time
        win.tick()
    assert session.now > 100 and win.events.toPlainText() == ""  # jobs ended and started
    hidden.raise_()
    qtbot.waitUntil(lambda: "Event log" in win._visible())
    clock.now += 1.1
    win.tick()
    assert win.events.last == session.snapshot().events[-1].seq  # up to the latest decision
    assert "Start" in win.events.toPlainText()
